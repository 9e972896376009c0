// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 4 --arg 'buf:i32[4]' --device cpu 2>&1 | FileCheck %s
// xpu.reduce in a device function: check admitted it, then the CPU refused
// it in code generation, amdgcn failed its ABI check (an internal error),
// and Vulkan ran it. Refused where it is written, for every backend.
// CHECK: reduce-in-helper.mlir:8:8: error: XPU-PARSE: 'xpu.reduce' op is in a device function
xpu.func @f(%v: i32) -> i32 {
  %s = xpu.reduce add %v sequential : i32
  xpu.return %s : i32
}
xpu.kernel @k(%o: !xpu.buffer<i32>) {
  %i = xpu.global_id x
  %c = arith.constant 3 : i32
  %v = xpu.call @f(%c) : (i32) -> i32
  xpu.store %v, %o[%i] : !xpu.buffer<i32>
  xpu.return
}
