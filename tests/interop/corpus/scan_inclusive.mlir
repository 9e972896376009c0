// Inclusive prefix sum within each workgroup of 128 (Hillis-Steele over a
// double-buffered workgroup tile, rank-2 memref, gpu.barrier between steps).
gpu.module @m {
  gpu.func @scan_inclusive(%out: memref<?xi32>, %in: memref<?xi32>)
      workgroup(%tile: memref<2x128xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    memref.store %v, %tile[%c0, %tx] : memref<2x128xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %res:2 = scf.while (%d = %c1, %src = %c0) : (index, index) -> (index, index) {
      %more = arith.cmpi ult, %d, %c128 : index
      scf.condition(%more) %d, %src : index, index
    } do {
    ^bb0(%d: index, %src: index):
      %dst = arith.subi %c1, %src : index
      %mine = memref.load %tile[%src, %tx] : memref<2x128xi32, #gpu.address_space<workgroup>>
      %has = arith.cmpi uge, %tx, %d : index
      %sum = scf.if %has -> (i32) {
        %j = arith.subi %tx, %d : index
        %other = memref.load %tile[%src, %j] : memref<2x128xi32, #gpu.address_space<workgroup>>
        %s = arith.addi %mine, %other : i32
        scf.yield %s : i32
      } else {
        scf.yield %mine : i32
      }
      memref.store %sum, %tile[%dst, %tx] : memref<2x128xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %d2 = arith.shli %d, %c1 : index
      scf.yield %d2, %dst : index, index
    }
    %r = memref.load %tile[%res#1, %tx] : memref<2x128xi32, #gpu.address_space<workgroup>>
    memref.store %r, %out[%i] : memref<?xi32>
    gpu.return
  }
}
