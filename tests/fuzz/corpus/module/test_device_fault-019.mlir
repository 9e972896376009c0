
    xpu.kernel @iota(%out: !xpu.buffer<i32>) {
      %i = xpu.global_id x
      %v = arith.index_cast %i : index to i32
      xpu.store %v, %out[%i] : !xpu.buffer<i32>
      xpu.return
    }