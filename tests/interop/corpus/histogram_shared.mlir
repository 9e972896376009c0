// Histogram through per-workgroup bins: a workgroup attribution cleared,
// filled with shared-memory atomics, then added to the global bins.
gpu.module @m {
  gpu.func @histogram_shared(%bins: memref<32xi32>, %in: memref<?xi32>, %n: i32)
      workgroup(%local: memref<32xi32, #gpu.address_space<workgroup>>) kernel {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %c32 = arith.constant 32 : index
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %clear = arith.cmpi ult, %tx, %c32 : index
    scf.if %clear {
      memref.store %zero, %local[%tx] : memref<32xi32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %nn = arith.index_cast %n : i32 to index
    %ok = arith.cmpi ult, %i, %nn : index
    scf.if %ok {
      %v = memref.load %in[%i] : memref<?xi32>
      %b = arith.andi %v, %c31 : i32
      %bi = arith.index_cast %b : i32 to index
      %o = memref.atomic_rmw addi %one, %local[%bi] : (i32, memref<32xi32, #gpu.address_space<workgroup>>) -> i32
    }
    gpu.barrier
    scf.if %clear {
      %c = memref.load %local[%tx] : memref<32xi32, #gpu.address_space<workgroup>>
      %o = memref.atomic_rmw addi %c, %bins[%tx] : (i32, memref<32xi32>) -> i32
    }
    gpu.return
  }
}
