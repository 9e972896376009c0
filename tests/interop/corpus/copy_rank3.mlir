// A rank-3 memref: each invocation copies one 4x4 plane of a
// memref<?x4x4xi32> into private memory with memref.copy, transposes it
// in place, and copies it back out with memref.copy through a subview.
gpu.module @m {
  gpu.func @copy_rank3(%out: memref<?x4x4xi32>, %in: memref<?x4x4xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %planes = memref.dim %in, %c0 : memref<?x4x4xi32>
    %p = gpu.global_id x
    %ok = arith.cmpi ult, %p, %planes : index
    scf.if %ok {
      %tmp = memref.alloca() : memref<4x4xi32>
      %src = memref.subview %in[%p, 0, 0] [1, 4, 4] [1, 1, 1]
          : memref<?x4x4xi32> to memref<4x4xi32, strided<[4, 1], offset: ?>>
      memref.copy %src, %tmp : memref<4x4xi32, strided<[4, 1], offset: ?>> to memref<4x4xi32>
      %t = memref.transpose %tmp (i, j) -> (j, i) : memref<4x4xi32> to memref<4x4xi32, strided<[1, 4]>>
      %dst = memref.subview %out[%p, 0, 0] [1, 4, 4] [1, 1, 1]
          : memref<?x4x4xi32> to memref<4x4xi32, strided<[4, 1], offset: ?>>
      memref.copy %t, %dst : memref<4x4xi32, strided<[1, 4]>> to memref<4x4xi32, strided<[4, 1], offset: ?>>
    }
    gpu.return
  }
}
