// A flat buffer seen as a 4 x N matrix (memref.reinterpret_cast), one row
// split into 2 x (N/2) (expand_shape) and collapsed back (collapse_shape),
// and a memref.cast to a static shape: out[c] = sum of column c.
gpu.module @m {
  gpu.func @reshape_ops(%out: memref<?xi32>, %flat: memref<?xi32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c = gpu.global_id x
    %ok = arith.cmpi ult, %c, %n : index
    scf.if %ok {
      %m = memref.reinterpret_cast %flat to offset: [0], sizes: [4, %n], strides: [%n, 1]
          : memref<?xi32> to memref<4x?xi32, strided<[?, 1]>>
      %half = arith.divui %n, %c2 : index
      %e = memref.expand_shape %m [[0], [1, 2]] output_shape [4, 2, %half]
          : memref<4x?xi32, strided<[?, 1]>> into memref<4x2x?xi32, strided<[?, ?, 1]>>
      %f = memref.collapse_shape %e [[0], [1, 2]]
          : memref<4x2x?xi32, strided<[?, ?, 1]>> into memref<4x?xi32, strided<[?, ?]>>
      %hi = arith.divui %c, %half : index
      %lo = arith.remui %c, %half : index
      %a = memref.load %m[%c0, %c] : memref<4x?xi32, strided<[?, 1]>>
      %b = memref.load %e[%c1, %hi, %lo] : memref<4x2x?xi32, strided<[?, ?, 1]>>
      %d = memref.load %f[%c2, %c] : memref<4x?xi32, strided<[?, ?]>>
      %s = memref.cast %m : memref<4x?xi32, strided<[?, 1]>> to memref<?x?xi32, strided<[?, 1]>>
      %g = memref.load %s[%c3, %c] : memref<?x?xi32, strided<[?, 1]>>
      %t1 = arith.addi %a, %b : i32
      %t2 = arith.addi %d, %g : i32
      %t = arith.addi %t1, %t2 : i32
      memref.store %t, %out[%c] : memref<?xi32>
    }
    gpu.return
  }
}
