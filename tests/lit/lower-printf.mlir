// RUN: xpu-opt %s -xpu-lower-printf | FileCheck %s
// printf: the kernel (and the helper on the way) gains the print buffer;
// each printf reserves room with a compare-exchange loop that never passes
// the end, writes 1 + its site and its values as 32-bit words, or counts a
// dropped record in word 1; the sites are listed on the module.

// CHECK: module attributes {xpu.print_sites = [{args = [i32, f64], format = "v=%d %f\0A", location = "{{.*}}"}]}
// CHECK-LABEL: xpu.func @helper
// CHECK-SAME: %__xpu_print: !xpu.buffer<i32> {xpu.print_buffer}
xpu.func @helper(%v: i32, %d: f64) {
  // The values' words first (an f64 is two), then the reservation.
  // CHECK: arith.bitcast %{{.*}} : f64 to i64
  // CHECK: arith.trunci
  // CHECK: %[[FIRST:.*]] = xpu.atomic_rmw add %c0_i32, %__xpu_print[%c0] relaxed device
  // CHECK: scf.while (%[[GUESS:.*]] = %[[FIRST]]) : (i32) -> i32 {
  // CHECK: xpu.atomic_rmw cmpxchg %{{.*}}, %__xpu_print[%c0] expected %[[GUESS]] relaxed device
  // CHECK: scf.if
  // CHECK: xpu.store %c1_i32, %__xpu_print[%{{.*}}]
  // CHECK: xpu.store %{{.*}}, %__xpu_print[%{{.*}}]
  // CHECK: xpu.store %{{.*}}, %__xpu_print[%{{.*}}]
  // CHECK: xpu.store %{{.*}}, %__xpu_print[%{{.*}}]
  // CHECK: } else {
  // CHECK: xpu.atomic_rmw add %c1_i32{{.*}}, %__xpu_print[%c1] relaxed device
  xpu.printf "v=%d %f\n"(%v, %d) : i32, f64
  xpu.return
}

// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: %__xpu_print: !xpu.buffer<i32> {xpu.print_buffer}
// CHECK: xpu.call @helper(%{{.*}}, %{{.*}}, %__xpu_print)
xpu.kernel @k(%v: i32, %d: f64) {
  xpu.call @helper(%v, %d) : (i32, f64) -> ()
  xpu.return
}

// A kernel that does not print keeps its parameters.
// CHECK-LABEL: xpu.kernel @quiet(%{{[a-z0-9]+}}: i32) {
xpu.kernel @quiet(%v: i32) {
  xpu.return
}
