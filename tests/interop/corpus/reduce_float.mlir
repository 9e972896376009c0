// Float workgroup reductions: sum, maxnumf (NaN operands ignored),
// minimumf (NaN propagates) of each workgroup of 64.
gpu.module @m {
  gpu.func @reduce_float(%sum: memref<?xf32>, %maxnum: memref<?xf32>, %minimum: memref<?xf32>,
                         %in: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %i = gpu.global_id x
    %tx = gpu.thread_id x
    %bx = gpu.block_id x
    %v = memref.load %in[%i] : memref<?xf32>
    %s = gpu.all_reduce add %v {} : (f32) -> (f32)
    %m = gpu.all_reduce maxnumf %v {} : (f32) -> (f32)
    %n = gpu.all_reduce minimumf %v {} : (f32) -> (f32)
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %s, %sum[%bx] : memref<?xf32>
      memref.store %m, %maxnum[%bx] : memref<?xf32>
      memref.store %n, %minimum[%bx] : memref<?xf32>
    }
    gpu.return
  }
}
