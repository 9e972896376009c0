
    xpu.kernel @shift(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %off: i32) {
      %i = xpu.global_id x
      %o = arith.index_cast %off : i32 to index
      %src = arith.addi %i, %o : index
      %v = xpu.load %in[%src] : !xpu.buffer<i32, ro>
      xpu.store %v, %out[%src] : !xpu.buffer<i32>
      xpu.return
    }