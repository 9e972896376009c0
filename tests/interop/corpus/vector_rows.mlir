// Row-wise work with vector.load / vector.store on a memref<?x16xi32>:
// out[r, :] = in[r, :] * 3 + shifted in[r, 1:9] (vector<4> and vector<8>).
gpu.module @m {
  gpu.func @vector_rows(%out: memref<?x16xi32>, %in: memref<?x16xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c12 = arith.constant 12 : index
    %three = arith.constant dense<3> : vector<4xi32>
    %rows = memref.dim %in, %c0 : memref<?x16xi32>
    %r = gpu.global_id x
    %ok = arith.cmpi ult, %r, %rows : index
    scf.if %ok {
      %a = vector.load %in[%r, %c0] : memref<?x16xi32>, vector<4xi32>
      %a3 = arith.muli %a, %three : vector<4xi32>
      vector.store %a3, %out[%r, %c0] : memref<?x16xi32>, vector<4xi32>
      %b = vector.load %in[%r, %c4] : memref<?x16xi32>, vector<4xi32>
      %b3 = arith.muli %b, %three : vector<4xi32>
      vector.store %b3, %out[%r, %c4] : memref<?x16xi32>, vector<4xi32>
      %w = vector.load %in[%r, %c1] : memref<?x16xi32>, vector<8xi32>
      %wr = vector.reduction <add>, %w : vector<8xi32> into i32
      %s = vector.broadcast %wr : i32 to vector<8xi32>
      %x = vector.load %in[%r, %c8] : memref<?x16xi32>, vector<8xi32>
      %y = arith.addi %x, %s : vector<8xi32>
      vector.store %y, %out[%r, %c8] : memref<?x16xi32>, vector<8xi32>
    }
    gpu.return
  }
}
