// RUN: not xpujit compile %s --target=amdgcn --chip=gfx942 -o %t.hsaco 2>&1 | FileCheck %s
//
// A tile load, store and a mac's operands need f16 in memory only (a mac
// widens its operands exactly), so f16 GEMMs are admitted on AMD
// (tiles-amd.mlir); adding f16 tiles computes in f16, which AMD targets
// refuse by policy (amdgcn.no-f16-arith), located at the op.

// CHECK: tiles-amd-f16-arith.mlir:[[@LINE+8]]:8: error: XPU-CAP001: kernel 'sum' needs f16 arithmetic
// CHECK-NOT: kernel 'gemm' needs

xpu.kernel @sum(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f16>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %s = xpu.tile_add %a, %a : !xpu.tile<16x16xf16>
  xpu.tile_store %s, %C[%o], %ld : !xpu.tile<16x16xf16>, !xpu.buffer<f16>
  xpu.return
}

xpu.kernel @gemm(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}
