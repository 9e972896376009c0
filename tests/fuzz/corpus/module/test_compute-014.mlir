
    xpu.kernel @coords(%out: !xpu.buffer<i32>) {
      %gx = xpu.global_id x
      %gy = xpu.global_id y
      %gz = xpu.global_id z
      %sx = xpu.global_size x
      %sy = xpu.global_size y
      %row = arith.muli %gz, %sy : index
      %r2 = arith.addi %row, %gy : index
      %r3 = arith.muli %r2, %sx : index
      %lin = arith.addi %r3, %gx : index
      %tx = xpu.thread_id x
      %wy = xpu.workgroup_id y
      %bz = xpu.workgroup_size z
      %nz = xpu.grid_size z
      %c1000 = arith.constant 1000 : index
      %c100 = arith.constant 100 : index
      %c10 = arith.constant 10 : index
      %a = arith.muli %tx, %c1000 : index
      %b = arith.muli %wy, %c100 : index
      %c = arith.muli %bz, %c10 : index
      %s1 = arith.addi %a, %b : index
      %s2 = arith.addi %s1, %c : index
      %s3 = arith.addi %s2, %nz : index
      %v = arith.index_cast %s3 : index to i32
      xpu.store %v, %out[%lin] : !xpu.buffer<i32>
      xpu.return
    }