
    xpu.kernel @shift(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %k: i32) {
      %i = xpu.global_id x
      %ki = arith.index_castui %k : i32 to index
      %j = arith.addi %i, %ki : index
      %v = xpu.load %in[%j] {checked} : !xpu.buffer<i32, ro>
      xpu.store %v, %out[%i] {checked} : !xpu.buffer<i32>
      xpu.return
    }