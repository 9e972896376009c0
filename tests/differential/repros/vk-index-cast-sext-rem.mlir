// index_cast of a 32-bit index to i64 (a sign extension, OpSConvert) rem a
// constant (lavapipe, Mesa 22.3.6: the remainder's x < 0 was false, so -1
// came out as (2^64 - 1) rem C; seed 4006996): o[i] must be x[i].
xpu.kernel @k(%o: !xpu.buffer<i64>, %x: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %v = xpu.load %x[%i] : !xpu.buffer<i32, ro>
  %n = arith.index_cast %v : i32 to index
  %w = arith.index_cast %n : index to i64
  %c = arith.constant 324938979204385273 : i64
  %r = arith.remsi %w, %c : i64
  xpu.store %r, %o[%i] : !xpu.buffer<i64>
  xpu.return
}
