// Exclusive prefix sum within each workgroup of 64: thread 0 walks a
// workgroup tile sequentially (memref.alloca in workgroup memory).
gpu.module @m {
  gpu.func @scan_exclusive(%out: memref<?xi32>, %in: memref<?xi32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tile = memref.alloca() : memref<64xi32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    memref.store %v, %tile[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %end = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (i32) {
        %x = memref.load %tile[%k] : memref<64xi32, #gpu.address_space<workgroup>>
        memref.store %acc, %tile[%k] : memref<64xi32, #gpu.address_space<workgroup>>
        %n = arith.addi %acc, %x : i32
        scf.yield %n : i32
      }
    }
    gpu.barrier
    %r = memref.load %tile[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %r, %out[%i] : memref<?xi32>
    gpu.return
  }
}
