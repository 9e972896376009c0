// RUN: xpu-opt %s --xpu-expand-math=target=spirv | FileCheck %s
//
// On SPIR-V, f64 roundeven is computed from floor (lavapipe's f64
// RoundEven rounds 17.5 to 17: tests/interop/test_math.py); f32 keeps
// math.roundeven (GLSL RoundEven, correct on the drivers measured).

// CHECK-LABEL: func.func @even64
// CHECK-NOT: math.roundeven
// CHECK: math.absf
// CHECK: math.floor
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: math.copysign
func.func @even64(%x: f64) -> f64 {
  %r = math.roundeven %x : f64
  return %r : f64
}

// CHECK-LABEL: func.func @even32
// CHECK: math.roundeven
func.func @even32(%x: f32) -> f32 {
  %r = math.roundeven %x : f32
  return %r : f32
}
