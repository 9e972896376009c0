
  xpu.kernel @wild_store(%out: !xpu.buffer<i32>, %far: i64) {
    %i = xpu.global_id x
    %f = arith.index_cast %far : i64 to index
    %at = arith.addi %i, %f : index
    %v = arith.constant 7 : i32
    xpu.store %v, %out[%at] : !xpu.buffer<i32>
    xpu.return
  }