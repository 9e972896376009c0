// RUN: xpu-opt %s -xpu-lower-function-values | FileCheck %s
// A bounded function value is its position in the set; a call through it a
// chain of direct calls, zeros past the set.

xpu.func @a(%x: i32) -> i32 { xpu.return %x : i32 }
xpu.func @b(%x: i32) -> i32 {
  %r = arith.addi %x, %x : i32
  xpu.return %r : i32
}

// CHECK-LABEL: xpu.kernel @k
// CHECK: %[[F:.*]] = arith.constant 1 : i32
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[F]], %{{.*}} : i32
// CHECK: scf.if %[[IS0]] -> (i32) {
// CHECK: xpu.call @a(%{{.*}}) : (i32) -> i32
// CHECK: } else {
// CHECK: arith.cmpi eq, %[[F]], %{{.*}} : i32
// CHECK: xpu.call @b(%{{.*}}) : (i32) -> i32
// CHECK: } else {
// CHECK: arith.constant 0 : i32
xpu.kernel @k(%out: !xpu.buffer<i32>, %x: i32) {
  %f = xpu.fn_value @b of [@a, @b] : i32
  %r = xpu.fn_call %f of [@a, @b](%x) : (i32) -> i32
  %i = xpu.global_id x
  xpu.store %r, %out[%i] : !xpu.buffer<i32>
  xpu.return
}
