
    xpu.func @blend(%c: f32, %l: f32, %r: f32, %u: f32, %d: f32) -> f32 {
      %s1 = arith.addf %l, %r : f32
      %s2 = arith.addf %u, %d : f32
      %s3 = arith.addf %s1, %s2 : f32
      %q = arith.constant 1.250000e-01 : f32
      %n = arith.mulf %s3, %q : f32
      %h = arith.constant 5.000000e-01 : f32
      %a = arith.mulf %c, %h : f32
      %res = arith.addf %a, %n : f32
      xpu.return %res : f32
    }
    xpu.kernel @stencil(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %w: i32, %h: i32) {
      %x = xpu.global_id x
      %y = xpu.global_id y
      %wi = arith.index_castui %w : i32 to index
      %hi = arith.index_castui %h : i32 to index
      %c1 = arith.constant 1 : index
      %wm = arith.subi %wi, %c1 : index
      %hm = arith.subi %hi, %c1 : index
      %x0 = arith.cmpi uge, %x, %c1 : index
      %x1 = arith.cmpi ult, %x, %wm : index
      %y0 = arith.cmpi uge, %y, %c1 : index
      %y1 = arith.cmpi ult, %y, %hm : index
      %okx = arith.andi %x0, %x1 : i1
      %oky = arith.andi %y0, %y1 : i1
      %ok = arith.andi %okx, %oky : i1
      scf.if %ok {
        %row = arith.muli %y, %wi : index
        %c = arith.addi %row, %x : index
        %l = arith.subi %c, %c1 : index
        %r = arith.addi %c, %c1 : index
        %u = arith.subi %c, %wi : index
        %d = arith.addi %c, %wi : index
        %vc = xpu.load %in[%c] : !xpu.buffer<f32, ro>
        %vl = xpu.load %in[%l] : !xpu.buffer<f32, ro>
        %vr = xpu.load %in[%r] : !xpu.buffer<f32, ro>
        %vu = xpu.load %in[%u] : !xpu.buffer<f32, ro>
        %vd = xpu.load %in[%d] : !xpu.buffer<f32, ro>
        %res = xpu.call @blend(%vc, %vl, %vr, %vu, %vd) : (f32, f32, f32, f32, f32) -> f32
        xpu.store %res, %out[%c] : !xpu.buffer<f32>
      }
      xpu.return
    }