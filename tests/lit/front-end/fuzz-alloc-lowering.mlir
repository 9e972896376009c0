// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-alloc-lowering.mlir: The same, indented and without a final newline.
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-alloc-lowering.mlir:6:7: error: XPU-PARSE: 'xpu.alloc' is outside any kernel
 %p = xpu.alloc : !xpu.buffer<4xf32, private>