// Per-workgroup sum through a workgroup attribution: a tree in shared
// memory with gpu.barrier; thread 0 writes the workgroup's sum.
// Workgroups of 256 invocations (known_block_size).
gpu.module @m {
  gpu.func @reduce_shared_tree(%out: memref<?xi32>, %in: memref<?xi32>, %n: i32)
      workgroup(%buf: memref<256xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %bx = gpu.block_id x
    %nn = arith.index_cast %n : i32 to index
    %ok = arith.cmpi ult, %i, %nn : index
    %v = scf.if %ok -> (i32) {
      %x = memref.load %in[%i] : memref<?xi32>
      scf.yield %x : i32
    } else {
      scf.yield %zero : i32
    }
    memref.store %v, %buf[%tx] : memref<256xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = scf.while (%s = %c128) : (index) -> index {
      %more = arith.cmpi ugt, %s, %c0 : index
      scf.condition(%more) %s : index
    } do {
    ^bb0(%s: index):
      %low = arith.cmpi ult, %tx, %s : index
      scf.if %low {
        %j = arith.addi %tx, %s : index
        %a = memref.load %buf[%tx] : memref<256xi32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%j] : memref<256xi32, #gpu.address_space<workgroup>>
        %c = arith.addi %a, %b : i32
        memref.store %c, %buf[%tx] : memref<256xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %h = arith.shrui %s, %c1 : index
      scf.yield %h : index
    }
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %t = memref.load %buf[%c0] : memref<256xi32, #gpu.address_space<workgroup>>
      memref.store %t, %out[%bx] : memref<?xi32>
    }
    gpu.return
  }
}
