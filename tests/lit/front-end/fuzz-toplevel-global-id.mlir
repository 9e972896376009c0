// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-toplevel-global-id.mlir: A coordinate at the top level.
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-toplevel-global-id.mlir:6:6: error: XPU-PARSE: 'xpu.global_id' is outside any kernel
%i = xpu.global_id x
