// vector.transfer_read / transfer_write of 4 lanes at a time over a
// memref<?xi32> whose length need not be a multiple of 4: lanes past the
// end read the padding (-1) and are not written. A column of a 2-D memref
// is read with a permutation map (strided transfer).
#col = affine_map<(d0, d1) -> (d0)>
gpu.module @m {
  gpu.func @transfer_edges(%out: memref<?xi32>, %in: memref<?xi32>,
                           %colsum: memref<?xi32>, %m: memref<?x4xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %pad = arith.constant -1 : i32
    %zero = arith.constant 0 : i32
    %two = arith.constant dense<2> : vector<4xi32>
    %g = gpu.global_id x
    %i = arith.muli %g, %c4 : index
    %n = memref.dim %in, %c0 : memref<?xi32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %v = vector.transfer_read %in[%i], %pad : memref<?xi32>, vector<4xi32>
      %w = arith.muli %v, %two : vector<4xi32>
      vector.transfer_write %w, %out[%i] : vector<4xi32>, memref<?xi32>
    }
    %rows = memref.dim %m, %c0 : memref<?x4xi32>
    %cin = arith.cmpi ult, %g, %c4 : index
    scf.if %cin {
      %col = vector.transfer_read %m[%c0, %g], %zero {permutation_map = #col}
          : memref<?x4xi32>, vector<4xi32>
      %s = vector.reduction <add>, %col : vector<4xi32> into i32
      memref.store %s, %colsum[%g] : memref<?xi32>
    }
    gpu.return
  }
}
