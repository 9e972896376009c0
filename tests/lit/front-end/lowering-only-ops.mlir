// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit compile %s --target spirv --chip cooperative-matrix -o %t.spv 2>&1 | FileCheck %s
// Ops the lowering makes for its own later stages are refused in kernel
// source. Admitted, this coop_sums_mac's billion K steps were unrolled by the
// SPIR-V lowering for hours; the others are each kind that source could
// name (sums, blocks, tensor-core steps, views).
// CHECK: lowering-only-ops.mlir:18:8: error: XPU-PARSE: 'xpu.coop_sums_alloc' is made by the compiler's lowering; kernel source may not use it
// CHECK: lowering-only-ops.mlir:19:3: error: XPU-PARSE: 'xpu.coop_sums_fill' is made by the compiler's lowering
// CHECK: lowering-only-ops.mlir:20:3: error: XPU-PARSE: 'xpu.coop_sums_mac' is made by the compiler's lowering
// CHECK: lowering-only-ops.mlir:22:8: error: XPU-PARSE: 'xpu.matrix_load' is made by the compiler's lowering
// CHECK: lowering-only-ops.mlir:23:9: error: XPU-PARSE: 'xpu.aligned' is made by the compiler's lowering
// CHECK: lowering-only-ops.mlir:24:8: error: XPU-PARSE: 'xpu.coop_blocks_alloc' is made by the compiler's lowering
xpu.kernel @k(%y: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %a = xpu.alloc : !xpu.buffer<2048xf16, shared>
  %b = xpu.alloc : !xpu.buffer<2048xbf16, shared>
  %i = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %s = xpu.coop_sums_alloc : !xpu.coop_sums<2, 2>
  xpu.coop_sums_fill %s, %z : !xpu.coop_sums<2, 2>
  xpu.coop_sums_mac %s, %a[%i], %a[%i] {k = 16000000000 : i64, lda = 32 : i64, ldb = 64 : i64}
      : !xpu.coop_sums<2, 2>, !xpu.buffer<2048xf16, shared>, !xpu.buffer<2048xf16, shared>
  %w = xpu.matrix_load %b[%i] transpose : !xpu.buffer<2048xbf16, shared> -> vector<4xi32>
  %ok = xpu.aligned %y[%i] {bytes = 16 : i64} : !xpu.buffer<f32>
  %q = xpu.coop_blocks_alloc : !xpu.coop_blocks<2>
  xpu.return
}
