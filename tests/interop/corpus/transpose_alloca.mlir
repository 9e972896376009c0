// The same transpose with the tile from memref.alloca in the workgroup
// address space and 1-D global memrefs indexed by hand.
gpu.module @m {
  gpu.func @transpose_alloca(%out: memref<?xi32>, %in: memref<?xi32>, %rows: i32, %cols: i32) kernel {
    %tile = memref.alloca() : memref<272xi32, #gpu.address_space<workgroup>>
    %c16 = arith.constant 16 : index
    %c17 = arith.constant 17 : index
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %R = arith.index_cast %rows : i32 to index
    %C = arith.index_cast %cols : i32 to index
    %r0 = arith.muli %by, %c16 : index
    %q0 = arith.muli %bx, %c16 : index
    %r = arith.addi %r0, %ty : index
    %q = arith.addi %q0, %tx : index
    %rin = arith.cmpi ult, %r, %R : index
    %qin = arith.cmpi ult, %q, %C : index
    %ok = arith.andi %rin, %qin : i1
    scf.if %ok {
      %rC = arith.muli %r, %C : index
      %i = arith.addi %rC, %q : index
      %v = memref.load %in[%i] : memref<?xi32>
      %ty17 = arith.muli %ty, %c17 : index
      %t = arith.addi %ty17, %tx : index
      memref.store %v, %tile[%t] : memref<272xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %orow = arith.addi %q0, %ty : index
    %ocol = arith.addi %r0, %tx : index
    %orin = arith.cmpi ult, %orow, %C : index
    %ocin = arith.cmpi ult, %ocol, %R : index
    %ook = arith.andi %orin, %ocin : i1
    scf.if %ook {
      %tx17 = arith.muli %tx, %c17 : index
      %t = arith.addi %tx17, %ty : index
      %v = memref.load %tile[%t] : memref<272xi32, #gpu.address_space<workgroup>>
      %oR = arith.muli %orow, %R : index
      %o = arith.addi %oR, %ocol : index
      memref.store %v, %out[%o] : memref<?xi32>
    }
    gpu.return
  }
}
