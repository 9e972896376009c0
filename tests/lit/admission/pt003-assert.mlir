// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --arg i32:1 --device cpu 2>&1 | FileCheck %s
// portable: cf.assert, in a device function the kernel calls.
// CHECK: pt003-assert.mlir:8:3: error: XPU-PT003: kernel 'k': the kernel performs 'cf.assert' (it reports to the host and aborts), which no backend carries out
xpu.func @check(%n: i32) {
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %c0 : i32
  cf.assert %pos, "n must be positive"
  xpu.return
}
xpu.kernel @k(%n: i32) {
  xpu.call @check(%n) : (i32) -> ()
  xpu.return
}
