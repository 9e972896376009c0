// scf.while whose header passes on zext(f(trunc(carried))) (lavapipe, Mesa
// 22.3.6: an invocation that leaves the loop before others of its subgroup
// got one header run more, when the result is only used truncated):
// o[i] must be 6*(cnt[i]+1).
xpu.kernel @k(%o: !xpu.buffer<i16>, %cnt: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %n = xpu.load %cnt[%i] : !xpu.buffer<i32, ro>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %six = arith.constant 6 : i16
  %r:2 = scf.while (%a = %zero, %m = %n) : (i32, i32) -> (i32, i32) {
    %t = arith.trunci %a : i32 to i16
    %s = arith.addi %t, %six : i16
    %h = arith.extui %s : i16 to i32
    %c = arith.cmpi sgt, %m, %zero : i32
    scf.condition(%c) %h, %m : i32, i32
  } do {
  ^bb0(%b: i32, %k: i32):
    %k2 = arith.subi %k, %one : i32
    scf.yield %b, %k2 : i32, i32
  }
  %r16 = arith.trunci %r#0 : i32 to i16
  xpu.store %r16, %o[%i] : !xpu.buffer<i16>
  xpu.return
}
