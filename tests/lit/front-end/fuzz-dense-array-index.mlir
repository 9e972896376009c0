// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-dense-array-index.mlir: array<index> crashed MLIR 22's parser (see mlir/lib/ParserGuards.cpp).
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-dense-array-index.mlir:6:39: error: XPU-PARSE: a dense array's elements must be integers or floats, not 'index'
xpu.kernel @k() attributes {a = array<index>} {
  xpu.return
}
