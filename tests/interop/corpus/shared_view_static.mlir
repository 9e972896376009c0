// One i8 workgroup allocation split by memref.view into an i32 tile and a
// f32 tile at disjoint byte offsets: out[i] = a[i] + int(b[i] * 2).
gpu.module @m {
  gpu.func @shared_view_static(%out: memref<?xi32>, %a: memref<?xi32>, %b: memref<?xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %raw = memref.alloc() : memref<512xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c256 = arith.constant 256 : index
    %two = arith.constant 2.0 : f32
    %ti = memref.view %raw[%c0][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<64xi32, #gpu.address_space<workgroup>>
    %tf = memref.view %raw[%c256][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %tx = gpu.thread_id x
    %i = gpu.global_id x
    %x = memref.load %a[%i] : memref<?xi32>
    %y = memref.load %b[%i] : memref<?xf32>
    memref.store %x, %ti[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %y, %tf[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %j = arith.subi %c63, %tx : index
    %p = memref.load %ti[%j] : memref<64xi32, #gpu.address_space<workgroup>>
    %q = memref.load %tf[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    %q2 = arith.mulf %q, %two : f32
    %qi = arith.fptosi %q2 : f32 to i32
    %r = arith.addi %p, %qi : i32
    memref.store %r, %out[%i] : memref<?xi32>
    memref.dealloc %raw : memref<512xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}
