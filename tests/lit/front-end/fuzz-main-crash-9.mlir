// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-main-crash-9.mlir: A top-level xpu.alloc before a valid kernel.
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-main-crash-9.mlir:6:7: error: XPU-PARSE: 'xpu.alloc' is outside any kernel
 %p = xpu.alloc : !xpu.buffer<4xf32, private>
xpu.kernel @k(%out: !xpu.buffer<f32>, %v: f32) attributes {workgroup_size = array<i64: 64, 2>} {
 xpu.return
 }