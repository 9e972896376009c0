// Histogram of 64 bins with memref.atomic_rmw addi on global memory.
gpu.module @m {
  gpu.func @histogram_global(%bins: memref<64xi32>, %in: memref<?xi32>, %n: i32) kernel {
    %one = arith.constant 1 : i32
    %c63 = arith.constant 63 : i32
    %i = gpu.global_id x
    %nn = arith.index_cast %n : i32 to index
    %ok = arith.cmpi ult, %i, %nn : index
    scf.if %ok {
      %v = memref.load %in[%i] : memref<?xi32>
      %b = arith.andi %v, %c63 : i32
      %bi = arith.index_cast %b : i32 to index
      %old = memref.atomic_rmw addi %one, %bins[%bi] : (i32, memref<64xi32>) -> i32
    }
    gpu.return
  }
}
