
    xpu.kernel @transpose(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
                          %w: i32, %h: i32) {
      %x = xpu.global_id x
      %y = xpu.global_id y
      %wi = arith.index_castui %w : i32 to index
      %hi = arith.index_castui %h : i32 to index
      %okx = arith.cmpi ult, %x, %wi : index
      %oky = arith.cmpi ult, %y, %hi : index
      %ok = arith.andi %okx, %oky : i1
      scf.if %ok {
        %src = arith.muli %y, %wi : index
        %s = arith.addi %src, %x : index
        %v = xpu.load %in[%s] : !xpu.buffer<f32, ro>
        %dst = arith.muli %x, %hi : index
        %d = arith.addi %dst, %y : index
        xpu.store %v, %out[%d] : !xpu.buffer<f32>
      }
      xpu.return
    }