
  xpu.kernel @add_one(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
    %i = xpu.global_id x
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    %c1 = arith.constant 1 : i32
    %r = arith.addi %v, %c1 : i32
    xpu.store %r, %out[%i] : !xpu.buffer<i32>
    xpu.return
  }