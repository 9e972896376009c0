// RUN: xpu-opt %s -xpu-software-fma | FileCheck %s
// RUN: xpu-opt %s -xpu-software-fma=f16=true | FileCheck %s --check-prefix=HALF
// math.fma becomes an exact product in the wider type, a sum rounded to odd
// there (two-sum error, last bit forced toward it), and one narrowing.

// CHECK-LABEL: xpu.kernel @f32
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[C:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f64
// CHECK: %[[S:.*]] = arith.addf %[[P]], %[[C]] : f64
// CHECK: arith.bitcast %[[S]] : f64 to i64
// CHECK: arith.cmpf one
// CHECK: arith.select
// CHECK: %[[ODD:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK: arith.truncf %[[ODD]] : f64 to f32
// CHECK-NOT: math.fma
// f64 is left alone (no wider type): the capability gate decides it.
// CHECK-LABEL: xpu.kernel @f64
// CHECK: math.fma
// Vectors are rewritten lane by lane.
// CHECK-LABEL: xpu.kernel @vec
// CHECK: arith.extf %{{.*}} : vector<4xf32> to vector<4xf64>
// CHECK: arith.truncf %{{.*}} : vector<4xf64> to vector<4xf32>
// Without f16=true, f16 stays.
// CHECK-LABEL: xpu.kernel @half
// CHECK: math.fma
// HALF-LABEL: xpu.kernel @half
// HALF: arith.extf %{{.*}} : f16 to f32
// HALF: arith.bitcast %{{.*}} : f32 to i32
// HALF: arith.truncf %{{.*}} : f32 to f16
xpu.kernel @f32(%o: !xpu.buffer<f32>, %a: f32, %b: f32, %c: f32) {
  %c0 = arith.constant 0 : index
  %r = math.fma %a, %b, %c : f32
  xpu.store %r, %o[%c0] : !xpu.buffer<f32>
  xpu.return
}
xpu.kernel @f64(%o: !xpu.buffer<f64>, %a: f64, %b: f64, %c: f64) {
  %c0 = arith.constant 0 : index
  %r = math.fma %a, %b, %c : f64
  xpu.store %r, %o[%c0] : !xpu.buffer<f64>
  xpu.return
}
xpu.kernel @vec(%o: !xpu.buffer<f32>, %a: vector<4xf32>, %b: vector<4xf32>, %c: vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %r = math.fma %a, %b, %c : vector<4xf32>
  xpu.store %r, %o[%c0] : !xpu.buffer<f32> -> vector<4xf32>
  xpu.return
}
xpu.kernel @half(%o: !xpu.buffer<f16>, %a: f16, %b: f16, %c: f16) {
  %c0 = arith.constant 0 : index
  %r = math.fma %a, %b, %c : f16
  xpu.store %r, %o[%c0] : !xpu.buffer<f16>
  xpu.return
}
