// RUN: xpujit check %s 2>&1 | count 0
// The guard against array<index> reads tokens, not text: in a comment or a
// string it is not an attribute, and the kernel is admitted.
xpu.kernel @k(%b: !xpu.buffer<i32>) attributes {note = "array<index>", array_size = array<i64: 4>} {
  // array<index> here is only a comment
  %index = arith.constant 0 : index
  xpu.return
}
