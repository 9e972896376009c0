// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 4 --device cpu --arg 'buf:i32[4]' 2>&1 | FileCheck %s
// `checked` outside a load, store or atomic failed code generation ("has an
// unmaterialized check"). On those it is part of the op and only adds a
// run-time check (checked-store.mlir).
// CHECK: compiler-attribute-checked.mlir:10:8: error: XPU-PARSE: 'checked' on 'arith.addi' is an attribute the compiler sets
xpu.kernel @k(%o: !xpu.buffer<i32>) {
  %i = xpu.global_id x
  %c = arith.constant 1 : i32
  %d = arith.addi %c, %c {checked} : i32
  xpu.store %d, %o[%i] : !xpu.buffer<i32>
  xpu.return
}
