// scf.while whose header computes math.ctlz of the i64 it carries, trip
// counts differing between invocations (differential.py --seed 3019154 on
// lavapipe, Mesa 22.3.6: o16[2] = 58 instead of 62): o[i] is ctlz applied
// max(cnt[i], 0) + 1 times to the thread id, stored truncated to i16.
xpu.kernel @k(%o: !xpu.buffer<i16>, %cnt: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %tid = xpu.thread_id x
  %n = xpu.load %cnt[%i] : !xpu.buffer<i32, ro>
  %a0 = arith.index_castui %tid : index to i64
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.while (%a = %a0, %m = %n) : (i64, i32) -> (i64, i32) {
    %h = math.ctlz %a : i64
    %c = arith.cmpi sgt, %m, %zero : i32
    scf.condition(%c) %h, %m : i64, i32
  } do {
  ^bb0(%b: i64, %k: i32):
    %k2 = arith.subi %k, %one : i32
    scf.yield %b, %k2 : i64, i32
  }
  %r16 = arith.trunci %r#0 : i64 to i16
  xpu.store %r16, %o[%i] : !xpu.buffer<i16>
  xpu.return
}
