// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// Regression, from shared/repros/soundness/fuzz-run2-crash-53.mlir: A truncated `array<index` at the end of the input.
// tests/cli/test_front_end.py runs it on Vulkan and through `xpujit compile`.
// CHECK: fuzz-run2-crash-53.mlir:9:60: error: XPU-PARSE: a dense array's elements must be integers or floats, not 'index'
xpu.kernel @baseline(%out: !xpu.buffer<1024xi32>, %in: !xpu.buffer<1024xi32, ro>,
 %hist: !xpu.buffer<16xi32>, %scale: i32, %v: vector<4xi16>)
 attributes {profile = "",
 workgroup_size = array<i64: 256, 1, 1>, grid_size = array<index    