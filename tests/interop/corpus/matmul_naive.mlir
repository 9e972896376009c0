// C = A * B over 2-D dynamic memrefs, one element per invocation.
gpu.module @m {
  gpu.func @matmul_naive(%C: memref<?x?xi32>, %A: memref<?x?xi32>, %B: memref<?x?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %M = memref.dim %A, %c0 : memref<?x?xi32>
    %K = memref.dim %A, %c1 : memref<?x?xi32>
    %N = memref.dim %B, %c1 : memref<?x?xi32>
    %col = gpu.global_id x
    %row = gpu.global_id y
    %rin = arith.cmpi ult, %row, %M : index
    %cin = arith.cmpi ult, %col, %N : index
    %ok = arith.andi %rin, %cin : i1
    scf.if %ok {
      %acc = scf.for %k = %c0 to %K step %c1 iter_args(%s = %zero) -> (i32) {
        %a = memref.load %A[%row, %k] : memref<?x?xi32>
        %b = memref.load %B[%k, %col] : memref<?x?xi32>
        %p = arith.muli %a, %b : i32
        %t = arith.addi %s, %p : i32
        scf.yield %t : i32
      }
      memref.store %acc, %C[%row, %col] : memref<?x?xi32>
    }
    gpu.return
  }
}
