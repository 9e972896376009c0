// RUN: xpu-opt %s -xpu-cpu-work-item-loops -xpu-lower-execution-model -xpu-prepare-lowering=skip-work-item-loops -xpu-cpu-checks -canonicalize | FileCheck %s
// CPU bounds checks: a work-item loop whose checked indices are affine in
// the thread id is versioned on one range check per workgroup (exact, in
// i128); the fallback copy checks without branching to a report (failures
// are counted per site) and is not vectorized; the counts reach the status
// word once, at the end of the workgroup.

// CHECK-LABEL: xpu.kernel @shift
// CHECK: %[[CNT:.*]] = xpu.alloc : !xpu.buffer<2xi32, private>
// CHECK: xpu.buffer_size %{{.*}} : !xpu.buffer<f32, ro>
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i128
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i128
// CHECK: scf.if %[[FAST:.*]] {
// CHECK:   scf.for
// CHECK:         %[[V:.*]] = xpu.load %{{.*}}[%{{.*}}] {xpu.site = 0 : i64} : !xpu.buffer<f32, ro>
// CHECK-NEXT:    xpu.store %[[V]], %{{.*}}[%{{.*}}] {xpu.site = 1 : i64} : !xpu.buffer<f32>
// CHECK-NEXT:  } {llvm.loop_annotation = #[[ONCE:.*]], xpu.work_item_dim = 0 : i64}
// CHECK: } else {
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK:         scf.if %[[OK]] -> (f32) {
// CHECK:           xpu.load
// CHECK:         } else {
// CHECK:           scf.yield %{{.*}} : f32
// CHECK:         arith.extui %{{.*}} : i1 to i32
// CHECK:         xpu.load %[[CNT]][%{{.*}}]
// CHECK:         xpu.store %{{.*}}, %[[CNT]][%{{.*}}]
// CHECK:       } {llvm.loop_annotation = #[[SCALAR:.*]], xpu.work_item_dim = 0 : i64}
// CHECK: llvm.atomicrmw add %{{.*}} monotonic
// CHECK: llvm.cmpxchg
// CHECK-NOT: xpu.report_out_of_bounds
xpu.kernel @shift(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %k: i32) {
  %i = xpu.global_id x
  %ki = arith.index_castui %k : i32 to index
  %j = arith.addi %i, %ki : index
  %v = xpu.load %in[%j] {checked, xpu.site = 0} : !xpu.buffer<f32, ro>
  xpu.store %v, %out[%i] {checked, xpu.site = 1} : !xpu.buffer<f32>
  xpu.return
}
