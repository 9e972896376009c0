// RUN: xpujit check %s 2>&1 | count 0
// RUN: xpujit run %s --kernel k --grid 1 --block 4 --device cpu --arg 'buf:i32[4]' | FileCheck %s --check-prefix=OUT
// `checked` written on a store asks for the run-time check the compiler
// would add anyway: admitted, and it runs.
// OUT: o: i32[4] {{.*}}[2, 2, 2, 2]
xpu.kernel @k(%o: !xpu.buffer<i32>) {
  %i = xpu.global_id x
  %c = arith.constant 2 : i32
  xpu.store %c, %o[%i] {checked} : !xpu.buffer<i32>
  xpu.return
}
