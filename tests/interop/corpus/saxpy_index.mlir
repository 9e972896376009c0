// y[i] = a * x[i] + y[i] with the length as an index parameter and the
// global id computed from block_id, block_dim and thread_id.
gpu.module @m {
  gpu.func @saxpy_index(%y: memref<?xf32>, %x: memref<?xf32>, %a: f32, %n: index) kernel {
    %bx = gpu.block_id x
    %bd = gpu.block_dim x
    %tx = gpu.thread_id x
    %base = arith.muli %bx, %bd : index
    %i = arith.addi %base, %tx : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %xi = memref.load %x[%i] : memref<?xf32>
      %yi = memref.load %y[%i] : memref<?xf32>
      %ax = arith.mulf %a, %xi : f32
      %r = arith.addf %ax, %yi : f32
      memref.store %r, %y[%i] : memref<?xf32>
    }
    gpu.return
  }
}
