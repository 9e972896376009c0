// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// A portable kernel may not take `index` by value either: a launch could not
// say how wide it is.
// CHECK: pt001-index-param.mlir:5:41: error: XPU-PT001: kernel 'scale': parameter 'n' has type 'index', which a launch cannot pass; the width of 'index' belongs to the target: use i32 or i64
xpu.kernel @scale(%a: !xpu.buffer<f32>, %n: index) {
  %i = xpu.global_id x
  %ok = arith.cmpi ult, %i, %n : index
  scf.if %ok {
    %v = xpu.load %a[%i] : !xpu.buffer<f32>
    %w = arith.addf %v, %v : f32
    xpu.store %w, %a[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
