
    xpu.kernel @dscale(%out: !xpu.buffer<f64>, %in: !xpu.buffer<f64, ro>, %s: f64) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<f64, ro>
      %r = arith.mulf %v, %s : f64
      xpu.store %r, %out[%i] : !xpu.buffer<f64>
      xpu.return
    }