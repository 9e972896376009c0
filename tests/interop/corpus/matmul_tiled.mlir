// C = A * B with 16x16 workgroup tiles of A and B (workgroup
// attributions), the shape a tiling front end produces: per K-step load
// both tiles, barrier, accumulate, barrier. M, N, K are multiples of 16.
gpu.module @m {
  gpu.func @matmul_tiled(%C: memref<?x?xi32>, %A: memref<?x?xi32>, %B: memref<?x?xi32>)
      workgroup(%ta: memref<16x16xi32, #gpu.address_space<workgroup>>,
                %tb: memref<16x16xi32, #gpu.address_space<workgroup>>)
      kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    %K = memref.dim %A, %c1 : memref<?x?xi32>
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %col = gpu.global_id x
    %row = gpu.global_id y
    %acc = scf.for %k0 = %c0 to %K step %c16 iter_args(%s = %zero) -> (i32) {
      %ak = arith.addi %k0, %tx : index
      %bk = arith.addi %k0, %ty : index
      %a = memref.load %A[%row, %ak] : memref<?x?xi32>
      %b = memref.load %B[%bk, %col] : memref<?x?xi32>
      memref.store %a, %ta[%ty, %tx] : memref<16x16xi32, #gpu.address_space<workgroup>>
      memref.store %b, %tb[%ty, %tx] : memref<16x16xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %part = scf.for %k = %c0 to %c16 step %c1 iter_args(%t = %s) -> (i32) {
        %x = memref.load %ta[%ty, %k] : memref<16x16xi32, #gpu.address_space<workgroup>>
        %y = memref.load %tb[%k, %tx] : memref<16x16xi32, #gpu.address_space<workgroup>>
        %p = arith.muli %x, %y : i32
        %u = arith.addi %t, %p : i32
        scf.yield %u : i32
      }
      gpu.barrier
      scf.yield %part : i32
    }
    memref.store %acc, %C[%row, %col] : memref<?x?xi32>
    gpu.return
  }
}
