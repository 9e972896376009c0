// RUN: xpu-opt %s -xpu-math-to-libcalls=target=rocdl | FileCheck %s
// AMD: functions without an instruction call ocml; f32 exp and log stay
// math ops (LLVM intrinsics on AMDGPU need no library); f64 exp calls ocml.

// CHECK-LABEL: func.func @f
func.func @f(%x: f32, %d: f64) -> (f32, f32, f32, f64) {
  // CHECK: math.exp %{{.*}} : f32
  %e = math.exp %x : f32
  // CHECK: math.log %{{.*}} : f32
  %l = math.log %x : f32
  // CHECK: llvm.call @__ocml_sin_f32
  %s = math.sin %x : f32
  // CHECK: llvm.call @__ocml_exp_f64
  %ed = math.exp %d : f64
  return %e, %l, %s, %ed : f32, f32, f32, f64
}
