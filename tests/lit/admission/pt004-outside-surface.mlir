// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --arg buf:f32[4] --device cpu 2>&1 | FileCheck %s
// portable: a memref op in an xpu kernel (only a gpu.module is imported):
// refused at admission instead of failing in code generation.
// CHECK: pt004-outside-surface.mlir:9:8: error: XPU-PT004: kernel 'k': 'memref.alloca' is outside the kernel surface (the xpu, arith, math, scf, cf, vector and ub dialects), which every backend lowers
xpu.kernel @k(%b: !xpu.buffer<f32>) {
  %c0 = arith.constant 0 : index
  %v = xpu.load %b[%c0] : !xpu.buffer<f32>
  %m = memref.alloca() : memref<4xf32>
  memref.store %v, %m[%c0] : memref<4xf32>
  xpu.return
}
