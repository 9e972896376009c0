// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-inline-helpers | FileCheck %s
// Helpers are copied into the kernels that call them, through chains of
// calls, and removed.

// CHECK-NOT: xpu.func
// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK: %[[T:.*]] = arith.addi %[[X]], %[[X]] : i32
// CHECK: %[[Q:.*]] = arith.addi %[[T]], %[[T]] : i32
// CHECK-NOT: xpu.call
// CHECK: xpu.return
xpu.func @twice(%v: i32) -> i32 {
  %r = arith.addi %v, %v : i32
  xpu.return %r : i32
}
xpu.func @quad(%v: i32) -> i32 {
  %t = xpu.call @twice(%v) : (i32) -> i32
  %q = xpu.call @twice(%t) : (i32) -> i32
  xpu.return %q : i32
}
xpu.kernel @k(%x: i32) {
  %y = xpu.call @quad(%x) : (i32) -> i32
  xpu.return
}

// -----

xpu.func @forever(%v: i32) -> i32 {
  // expected-error @+1 {{reaches 'forever' recursively}}
  %r = xpu.call @forever(%v) : (i32) -> i32
  xpu.return %r : i32
}
xpu.kernel @k(%x: i32) {
  %y = xpu.call @forever(%x) : (i32) -> i32
  xpu.return
}
