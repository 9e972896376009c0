
    xpu.kernel @widths(%o8: !xpu.buffer<i8>, %o16: !xpu.buffer<i16>,
                       %o64: !xpu.buffer<i64>, %ob: !xpu.buffer<i1>,
                       %a8: !xpu.buffer<i8, ro>, %a16: !xpu.buffer<i16, ro>,
                       %a64: !xpu.buffer<i64, ro>, %k: i64) {
      %i = xpu.global_id x
      %v8 = xpu.load %a8[%i] : !xpu.buffer<i8, ro>
      %s8 = arith.muli %v8, %v8 : i8
      xpu.store %s8, %o8[%i] : !xpu.buffer<i8>
      %v16 = xpu.load %a16[%i] : !xpu.buffer<i16, ro>
      %c3 = arith.constant 3 : i16
      %s16 = arith.muli %v16, %c3 : i16
      xpu.store %s16, %o16[%i] : !xpu.buffer<i16>
      %v64 = xpu.load %a64[%i] : !xpu.buffer<i64, ro>
      %s64 = arith.muli %v64, %k : i64
      xpu.store %s64, %o64[%i] : !xpu.buffer<i64>
      %z = arith.constant 0 : i64
      %neg = arith.cmpi slt, %v64, %z : i64
      xpu.store %neg, %ob[%i] : !xpu.buffer<i1>
      xpu.return
    }