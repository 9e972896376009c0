// Per-workgroup sum through dynamic shared memory (its size given at
// launch: one i32 per invocation), viewed as memref<?xi32> at byte 0.
gpu.module @m {
  gpu.func @dynamic_shared_reduce(%out: memref<?xi32>, %in: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %bytes = memref.dim %raw, %c0 : memref<?xi8, #gpu.address_space<workgroup>>
    %slots = arith.divui %bytes, %c4 : index
    %buf = memref.view %raw[%c0][%slots] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<?xi32, #gpu.address_space<workgroup>>
    %tx = gpu.thread_id x
    %bd = gpu.block_dim x
    %bx = gpu.block_id x
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    memref.store %v, %buf[%tx] : memref<?xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %s = scf.for %k = %c0 to %bd step %c1 iter_args(%a = %zero) -> (i32) {
        %e = memref.load %buf[%k] : memref<?xi32, #gpu.address_space<workgroup>>
        %t = arith.addi %a, %e : i32
        scf.yield %t : i32
      }
      memref.store %s, %out[%bx] : memref<?xi32>
    }
    gpu.return
  }
}
