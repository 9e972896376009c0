
    xpu.kernel @histogram(%bins: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      %ni = arith.index_castui %n : i32 to index
      %ok = arith.cmpi ult, %i, %ni : index
      scf.if %ok {
        %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
        %c16 = arith.constant 16 : i32
        %b = arith.remui %v, %c16 : i32
        %bi = arith.index_castui %b : i32 to index
        %one = arith.constant 1 : i32
        %old = xpu.atomic_rmw add %one, %bins[%bi] seq_cst device : !xpu.buffer<i32>
      }
      xpu.return
    }