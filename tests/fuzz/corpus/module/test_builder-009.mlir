
    xpu.kernel @pick(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
      %z = arith.constant 0.000000e+00 : f32
      %neg = arith.cmpf olt, %v, %z : f32
      %r = scf.if %neg -> (f32) {
        %m = arith.negf %v : f32
        scf.yield %m : f32
      } else {
        %s = math.sqrt %v : f32
        scf.yield %s : f32
      }
      %big = arith.cmpf ogt, %r, %z : f32
      %o = arith.select %big, %r, %z : f32
      xpu.store %o, %out[%i] : !xpu.buffer<f32>
      xpu.return
    }