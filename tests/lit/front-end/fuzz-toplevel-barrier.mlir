// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-toplevel-barrier.mlir: A top-level barrier: an internal 'failed to legalize' error in code generation.
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-toplevel-barrier.mlir:6:1: error: XPU-PARSE: 'xpu.barrier' is outside any kernel
xpu.barrier
