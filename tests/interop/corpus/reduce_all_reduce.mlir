// Per-workgroup sum, minimum and xor with gpu.all_reduce (op form).
gpu.module @m {
  gpu.func @reduce_all_reduce(%sum: memref<?xi32>, %min: memref<?xi32>, %xor: memref<?xi32>,
                              %in: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %i = gpu.global_id x
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %s = gpu.all_reduce add %v uniform {} : (i32) -> (i32)
    %m = gpu.all_reduce minsi %v uniform {} : (i32) -> (i32)
    %x = gpu.all_reduce xor %v uniform {} : (i32) -> (i32)
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %s, %sum[%bx] : memref<?xi32>
      memref.store %m, %min[%bx] : memref<?xi32>
      memref.store %x, %xor[%bx] : memref<?xi32>
    }
    gpu.return
  }
}
