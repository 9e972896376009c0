// RUN: xpu-opt %s -xpu-lower-tiles=target=spirv | FileCheck %s
// RUN: not xpu-opt %s -xpu-lower-tiles=target=nvvm 2>&1 | FileCheck %s --check-prefix=NVVM
// The cooperative-matrix tier before SPIR-V: tiles keep their shared
// storage, a mac becomes a loop of the subgroups over its 16x16 result
// blocks, each one xpu.coop_matrix_mac over the whole K; the tier is
// lowered on spirv only.

// CHECK-LABEL: xpu.kernel @gemm
// CHECK-DAG: %[[C:.*]] = xpu.alloc : !xpu.buffer<2048xf32, shared>
// CHECK-DAG: %[[A:.*]] = xpu.alloc : !xpu.buffer<2048xf16, shared>
// CHECK-DAG: %[[B:.*]] = xpu.alloc : !xpu.buffer<1024xf16, shared>
// CHECK: %[[SG:.*]] = xpu.wave_id
// CHECK: %[[SGS:.*]] = xpu.wave_count
// CHECK: scf.for %{{.*}} = %[[SG]] to %{{.*}} step %[[SGS]]
// CHECK: xpu.coop_matrix_mac %[[C]][%{{.*}}], %[[A]][%{{.*}}], %[[B]][%{{.*}}] -> %[[C]] {k = 32 : i64, lda = 32 : i64, ldb = 32 : i64, ldc = 32 : i64}
// CHECK: xpu.barrier
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
