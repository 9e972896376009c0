// RUN: xpu-opt %s -xpu-lower-tiles=target=spirv | FileCheck %s
// RUN: not xpu-opt %s -xpu-lower-tiles=target=nvvm 2>&1 | FileCheck %s --check-prefix=NVVM
// The cooperative-matrix tier before SPIR-V: the sums are held by the
// subgroups (SubgroupId) as cooperative matrices, here 2 subgroups of 2x2
// 16x16 matrices each; the operand tiles are copied a 16x16 block at a
// time into rows padded by 16 bytes (ld 40); the mac reads them there, and
// the sums are stored straight into C. The loads and the store are not
// checked here (tiles-coop-matrix.mlir has the checked paths), but each
// goes through cooperative matrices only where its rows start 16-byte
// aligned (as Vulkan asks), else element by element; the tier is lowered
// on spirv only.

// CHECK-LABEL: xpu.kernel @gemm
// CHECK-DAG: %[[SG:.*]] = xpu.wave_id
// CHECK-DAG: %[[S:.*]] = xpu.coop_sums_alloc : !xpu.coop_sums<2, 2>
// CHECK-DAG: %[[A:.*]] = xpu.alloc : !xpu.buffer<2560xf16, shared>
// CHECK-DAG: %[[B:.*]] = xpu.alloc : !xpu.buffer<1280xf16, shared>
// CHECK: xpu.coop_sums_fill %[[S]], %{{.*}} : !xpu.coop_sums<2, 2>
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %[[SG]] to %c8{{.*}} step %c2
// CHECK: xpu.coop_block_copy %arg0[%{{.*}}], %c32 -> %[[A]][%{{.*}}] {ld = 40 : i64}
// CHECK: } else {
// CHECK: xpu.load %arg0
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %[[SG]] to %c4{{.*}} step %c2
// CHECK: xpu.coop_block_copy %arg1[%{{.*}}], %c32 -> %[[B]][%{{.*}}] {ld = 40 : i64}
// CHECK: } else {
// CHECK: xpu.load %arg1
// CHECK: xpu.barrier
// CHECK: xpu.coop_sums_mac %[[S]], %[[A]][%{{.*}}], %[[B]][%{{.*}}] {k = 32 : i64, lda = 40 : i64, ldb = 40 : i64}
// CHECK: scf.if
// CHECK: xpu.coop_sums_store %[[S]], %arg2[%{{.*}}], %c32 : !xpu.coop_sums<2, 2>, !xpu.buffer<f32>
// CHECK: } else {
// CHECK: xpu.coop_sums_store %[[S]], %{{.*}}[%{{.*}}], %c16 {only = 0 : i64}
// NVVM: has tile tier 'cooperative-matrix', which xpu-lower-tiles does not lower for target 'nvvm'

xpu.kernel @gemm(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 64, 1, 1>, xpu.mma_tier = "cooperative-matrix"} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 32 : index
  %init = xpu.tile_fill %z : !xpu.tile<64x32xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<64x32xf16>
  %b = xpu.tile_load %B[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<32x32xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<64x32xf32>, !xpu.tile<64x32xf16>, !xpu.tile<32x32xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<64x32xf32>, !xpu.buffer<f32>
  xpu.return
}
