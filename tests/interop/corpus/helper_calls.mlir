// Device functions (func.func) called from a kernel, one taking a strided
// memref: out[i] = clamp(sum of row i, lo, hi).
gpu.module @m {
  func.func @clamp(%v: i32, %lo: i32, %hi: i32) -> i32 {
    %a = arith.maxsi %v, %lo : i32
    %b = arith.minsi %a, %hi : i32
    return %b : i32
  }
  func.func @row_sum(%row: memref<?xi32, strided<[1], offset: ?>>) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %n = memref.dim %row, %c0 : memref<?xi32, strided<[1], offset: ?>>
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%a = %zero) -> (i32) {
      %e = memref.load %row[%j] : memref<?xi32, strided<[1], offset: ?>>
      %t = arith.addi %a, %e : i32
      scf.yield %t : i32
    }
    return %s : i32
  }
  gpu.func @helper_calls(%out: memref<?xi32>, %m: memref<?x?xi32>, %lo: i32, %hi: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = memref.dim %m, %c0 : memref<?x?xi32>
    %cols = memref.dim %m, %c1 : memref<?x?xi32>
    %i = gpu.global_id x
    %ok = arith.cmpi ult, %i, %rows : index
    scf.if %ok {
      %row = memref.subview %m[%i, 0] [1, %cols] [1, 1]
          : memref<?x?xi32> to memref<?xi32, strided<[1], offset: ?>>
      %s = func.call @row_sum(%row) : (memref<?xi32, strided<[1], offset: ?>>) -> i32
      %c = func.call @clamp(%s, %lo, %hi) : (i32, i32, i32) -> i32
      memref.store %c, %out[%i] : memref<?xi32>
    }
    gpu.return
  }
}
