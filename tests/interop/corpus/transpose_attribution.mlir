// 2-D transpose of a dynamic memref<?x?xi32> through a 16x17 workgroup
// attribution (the padded tile avoids bank conflicts), 16x16 workgroups.
gpu.module @m {
  gpu.func @transpose_attribution(%out: memref<?x?xi32>, %in: memref<?x?xi32>)
      workgroup(%tile: memref<16x17xi32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %rows = memref.dim %in, %c0 : memref<?x?xi32>
    %cols = memref.dim %in, %c1 : memref<?x?xi32>
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %r0 = arith.muli %by, %c16 : index
    %q0 = arith.muli %bx, %c16 : index
    %r = arith.addi %r0, %ty : index
    %q = arith.addi %q0, %tx : index
    %rin = arith.cmpi ult, %r, %rows : index
    %qin = arith.cmpi ult, %q, %cols : index
    %ok = arith.andi %rin, %qin : i1
    scf.if %ok {
      %v = memref.load %in[%r, %q] : memref<?x?xi32>
      memref.store %v, %tile[%ty, %tx] : memref<16x17xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %orow = arith.addi %q0, %ty : index
    %ocol = arith.addi %r0, %tx : index
    %orin = arith.cmpi ult, %orow, %cols : index
    %ocin = arith.cmpi ult, %ocol, %rows : index
    %ook = arith.andi %orin, %ocin : i1
    scf.if %ook {
      %v = memref.load %tile[%tx, %ty] : memref<16x17xi32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%orow, %ocol] : memref<?x?xi32>
    }
    gpu.return
  }
}
