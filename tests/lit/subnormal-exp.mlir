// RUN: xpu-opt %s -xpu-subnormal-exp | FileCheck %s
// f32 exp and exp2 below the normal range become the square of the
// exponential of half the argument; other types are left alone.

// CHECK-LABEL: xpu.kernel @k
// CHECK: %[[E:.*]] = math.exp %[[X:.*]] : f32
// CHECK: %[[H:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: %[[EH:.*]] = math.exp %[[H]] : f32
// CHECK: %[[SQ:.*]] = arith.mulf %[[EH]], %[[EH]] : f32
// CHECK: %[[LOW:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK: arith.select %[[LOW]], %[[SQ]], %[[E]] : f32
// CHECK: math.exp2 %{{.*}} : f32
// CHECK: arith.constant -1.260000e+02 : f32
// CHECK: math.exp %{{.*}} : f64
// CHECK-NOT: arith.select
xpu.kernel @k(%o: !xpu.buffer<f32>, %p: !xpu.buffer<f64>, %x: f32, %y: f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = math.exp %x : f32
  %e2 = math.exp2 %x : f32
  %d = math.exp %y : f64
  xpu.store %e, %o[%c0] : !xpu.buffer<f32>
  xpu.store %e2, %o[%c1] : !xpu.buffer<f32>
  xpu.store %d, %p[%c0] : !xpu.buffer<f64>
  xpu.return
}
