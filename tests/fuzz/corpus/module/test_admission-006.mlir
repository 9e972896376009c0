
    xpu.kernel @gather(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                       %idx: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %n = xpu.buffer_size %out : !xpu.buffer<i32>
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        %j32 = xpu.load %idx[%i] : !xpu.buffer<i32, ro>
        %j = arith.index_cast %j32 : i32 to index
        %v = xpu.load %in[%j] : !xpu.buffer<i32, ro>
        xpu.store %v, %out[%i] : !xpu.buffer<i32>
      }
      xpu.return
    }