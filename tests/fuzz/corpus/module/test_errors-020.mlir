
  xpu.kernel @copy(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
    %i = xpu.global_id x
    %ni = arith.index_castui %n : i32 to index
    %ok = arith.cmpi ult, %i, %ni : index
    scf.if %ok {
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      xpu.store %v, %out[%i] : !xpu.buffer<i32>
    }
    xpu.return
  }