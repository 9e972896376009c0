// out[i] = a[i] + b[i] over 1-D dynamic memrefs, guarded by memref.dim.
gpu.module @m {
  gpu.func @vector_add(%out: memref<?xi32>, %a: memref<?xi32>, %b: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %i = gpu.global_id x
    %n = memref.dim %out, %c0 : memref<?xi32>
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %x = memref.load %a[%i] : memref<?xi32>
      %y = memref.load %b[%i] : memref<?xi32>
      %s = arith.addi %x, %y : i32
      memref.store %s, %out[%i] : memref<?xi32>
    }
    gpu.return
  }
}
