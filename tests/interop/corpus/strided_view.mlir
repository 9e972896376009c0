// Scales a strided view: any offset and strides come with the launch
// (a NumPy slice or transpose keeps its own), out is row-major.
gpu.module @m {
  gpu.func @strided_view(%out: memref<?x?xi32>,
                         %in: memref<?x?xi32, strided<[?, ?], offset: ?>>, %k: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %H = memref.dim %in, %c0 : memref<?x?xi32, strided<[?, ?], offset: ?>>
    %W = memref.dim %in, %c1 : memref<?x?xi32, strided<[?, ?], offset: ?>>
    %x = gpu.global_id x
    %y = gpu.global_id y
    %xin = arith.cmpi ult, %x, %W : index
    %yin = arith.cmpi ult, %y, %H : index
    %ok = arith.andi %xin, %yin : i1
    scf.if %ok {
      %v = memref.load %in[%y, %x] : memref<?x?xi32, strided<[?, ?], offset: ?>>
      %r = arith.muli %v, %k : i32
      memref.store %r, %out[%y, %x] : memref<?x?xi32>
    }
    gpu.return
  }
}
