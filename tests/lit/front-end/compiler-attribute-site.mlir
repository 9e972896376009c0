// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 4 --device cpu --arg 'buf:i32[4]' 2>&1 | FileCheck %s
// `xpu.site` numbers the run-time checks the compiler inserts. Written in
// the source it was believed: the table of sites was sized by it
// (std::bad_alloc, abort).
// CHECK: compiler-attribute-site.mlir:9:8: error: XPU-PARSE: 'xpu.site' on 'arith.constant' is an attribute the compiler sets
xpu.kernel @k(%o: !xpu.buffer<i32>) {
  %i = xpu.global_id x
  %c = arith.constant {xpu.site = 40000000000 : i64} 1 : i32
  xpu.store %c, %o[%i] : !xpu.buffer<i32>
  xpu.return
}
