// Per-workgroup unsigned maximum with the region form of gpu.all_reduce;
// every invocation writes the result it received.
gpu.module @m {
  gpu.func @reduce_region(%out: memref<?xi32>, %in: memref<?xi32>) kernel {
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %r = gpu.all_reduce %v {
    ^bb(%lhs: i32, %rhs: i32):
      %m = arith.maxui %lhs, %rhs : i32
      gpu.yield %m : i32
    } : (i32) -> (i32)
    memref.store %r, %out[%i] : memref<?xi32>
    gpu.return
  }
}
