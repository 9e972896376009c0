
    xpu.kernel @scale4(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %s: f32) {
      %i = xpu.global_id x
      %c4 = arith.constant 4 : index
      %base = arith.muli %i, %c4 : index
      %v = xpu.load %in[%base] : !xpu.buffer<f32, ro> -> vector<4xf32>
      %sv = vector.broadcast %s : f32 to vector<4xf32>
      %r = arith.mulf %v, %sv : vector<4xf32>
      xpu.store %r, %out[%base] : !xpu.buffer<f32> -> vector<4xf32>
      xpu.return
    }