// Two typed views of dynamic shared memory at fixed byte offsets, of
// different element types (i32 values at 0, i64 at 1024): each invocation
// stores, then reads its neighbour's. The launch gives at least 2048 bytes.
gpu.module @m {
  gpu.func @dynamic_shared_typed(%o32: memref<?xi32>, %o64: memref<?xi64>, %in: memref<?xi32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c1024 = arith.constant 1024 : index
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<128xi32, #gpu.address_space<workgroup>>
    %b = memref.view %raw[%c1024][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<128xi64, #gpu.address_space<workgroup>>
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %w = arith.extsi %v : i32 to i64
    %w2 = arith.muli %w, %w : i64
    memref.store %v, %a[%tx] : memref<128xi32, #gpu.address_space<workgroup>>
    memref.store %w2, %b[%tx] : memref<128xi64, #gpu.address_space<workgroup>>
    gpu.barrier
    %n = arith.addi %tx, %c1 : index
    %j = arith.andi %n, %c127 : index
    %x = memref.load %a[%j] : memref<128xi32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%j] : memref<128xi64, #gpu.address_space<workgroup>>
    memref.store %x, %o32[%i] : memref<?xi32>
    memref.store %y, %o64[%i] : memref<?xi64>
    gpu.return
  }
}
