// out[i] = in[i-1] + 2*in[i] + in[i+1], edges clamped, with a workgroup
// tile of 64 + 2 halo cells loaded through memref.subview of the input.
gpu.module @m {
  gpu.func @stencil_1d(%out: memref<?xi32>, %in: memref<?xi32>)
      workgroup(%tile: memref<66xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %two = arith.constant 2 : i32
    %n = memref.dim %in, %c0 : memref<?xi32>
    %last = arith.subi %n, %c1 : index
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %start = arith.muli %bx, %c64 : index
    %i = arith.addi %start, %tx : index
    %rest = arith.subi %n, %start : index
    %len = arith.minui %rest, %c64 : index
    %mine = memref.subview %in[%start] [%len] [1] : memref<?xi32> to memref<?xi32, strided<[1], offset: ?>>
    %inside = arith.cmpi ult, %tx, %len : index
    %t1 = arith.addi %tx, %c1 : index
    scf.if %inside {
      %v = memref.load %mine[%tx] : memref<?xi32, strided<[1], offset: ?>>
      memref.store %v, %tile[%t1] : memref<66xi32, #gpu.address_space<workgroup>>
    }
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %l = arith.subi %start, %c1 : index
      %lpos = arith.cmpi ugt, %start, %c0 : index
      %li = arith.select %lpos, %l, %c0 : index
      %lv = memref.load %in[%li] : memref<?xi32>
      memref.store %lv, %tile[%c0] : memref<66xi32, #gpu.address_space<workgroup>>
      %r = arith.addi %start, %len : index
      %rin = arith.cmpi ult, %r, %n : index
      %ri = arith.select %rin, %r, %last : index
      %rv = memref.load %in[%ri] : memref<?xi32>
      %re = arith.addi %len, %c1 : index
      memref.store %rv, %tile[%re] : memref<66xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    scf.if %inside {
      %t2 = arith.addi %tx, %c2 : index
      %a = memref.load %tile[%tx] : memref<66xi32, #gpu.address_space<workgroup>>
      %b = memref.load %tile[%t1] : memref<66xi32, #gpu.address_space<workgroup>>
      %c = memref.load %tile[%t2] : memref<66xi32, #gpu.address_space<workgroup>>
      %b2 = arith.muli %b, %two : i32
      %s = arith.addi %a, %b2 : i32
      %s2 = arith.addi %s, %c : i32
      memref.store %s2, %out[%i] : memref<?xi32>
    }
    gpu.return
  }
}
