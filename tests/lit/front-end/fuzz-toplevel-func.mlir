// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-toplevel-func.mlir: A func.func at the top level.
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-toplevel-func.mlir:6:1: error: XPU-PARSE: 'func.func' is outside any kernel
func.func @f() {
  return
}
