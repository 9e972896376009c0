
    xpu.func @clamp(%v: i32, %lo: i32, %hi: i32) -> i32 {
      %a = arith.maxsi %v, %lo : i32
      %b = arith.minsi %a, %hi : i32
      xpu.return %b : i32
    }
    xpu.func @index_of() -> index {
      %i = xpu.global_id x
      xpu.return %i : index
    }
    xpu.kernel @clamp_all(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                          %lo: i32, %hi: i32) {
      %i = xpu.call @index_of() : () -> index
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %r = xpu.call @clamp(%v, %lo, %hi) : (i32, i32, i32) -> i32
      xpu.store %r, %out[%i] : !xpu.buffer<i32>
      xpu.return
    }