// RUN: not xpujit check %s 2>&1 | FileCheck %s
// RUN: not xpujit run %s --kernel k --grid 1 --block 64 --arg buf:f32[64] --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/m06_divergent_barrier.mlir: admitted before, and the
// backends disagreed. tests/cli/test_front_end.py runs it on Vulkan too.
// CHECK: uc001-m06-divergent-barrier.mlir:11:5: error: XPU-UC001: kernel 'k': 'xpu.barrier' must be reached by every invocation of its workgroup, but it is under the 'scf.if' on line 10, whose condition differs between invocations (it depends on 'xpu.thread_id' on line 8)
xpu.kernel @k(%y: !xpu.buffer<f32>) {
  %c0 = arith.constant 0 : index
  %t = xpu.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    xpu.barrier
  }
  xpu.return
}
