
    xpu.kernel @mix(%hist: !xpu.buffer<i32>, %vec: !xpu.buffer<f32>, %in: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %zero = arith.constant 0 : i32
      %res:2 = scf.while (%a = %v, %n = %zero) : (i32, i32) -> (i32, i32) {
        %two = arith.constant 2 : i32
        %go = arith.cmpi uge, %a, %two : i32
        scf.condition(%go) %a, %n : i32, i32
      } do {
      ^bb0(%a: i32, %n: i32):
        %one = arith.constant 1 : i32
        %h = arith.shrui %a, %one : i32
        %m = arith.addi %n, %one : i32
        scf.yield %h, %m : i32, i32
      }
      %c31 = arith.constant 31 : i32
      %b = arith.minui %res#1, %c31 : i32
      %bi = arith.index_castui %b : i32 to index
      %one = arith.constant 1 : i32
      %old = xpu.atomic_rmw add %one, %hist[%bi] relaxed device : !xpu.buffer<i32>
      %f = arith.sitofp %res#1 : i32 to f32
      %fv = vector.broadcast %f : f32 to vector<4xf32>
      %c4 = arith.constant 4 : index
      %base = arith.muli %i, %c4 : index
      xpu.store %fv, %vec[%base] : !xpu.buffer<f32> -> vector<4xf32>
      xpu.return
    }