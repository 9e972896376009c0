// RUN: xpu-opt %s -xpu-prepare-lowering=status-type=buffer -xpu-guard-loop-limit | FileCheck %s
// Loops numbered as check sites (xpu.site) become scf.while loops that also
// yield their condition xor a value the driver's compiler cannot know is
// false; a loop the device stopped yields true and reports its site.

// CHECK-LABEL: xpu.kernel @count
// CHECK-SAME: %[[STATUS:[a-z0-9]+]]: !xpu.buffer<2xi32> {xpu.status})
// CHECK: %[[G:.*]] = xpu.grid_size x
// CHECK: %[[NEVER:.*]] = arith.cmpi eq, %[[G]], %{{.*}} : index
// CHECK: %[[W:.*]]:3 = scf.while (%[[I:.*]] = %{{.*}}, %[[A:.*]] = %{{.*}}) : (index, i32) -> (index, i32, i1) {
// CHECK:   %[[C:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK:   %[[X:.*]] = arith.xori %[[C]], %[[NEVER]] : i1
// CHECK:   scf.condition(%[[C]]) %[[I]], %[[A]], %[[X]] : index, i32, i1
// CHECK: } do {
// CHECK:   arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:   %[[NEXT:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:   scf.yield %[[NEXT]], %{{.*}} : index, i32
// CHECK: scf.if %[[W]]#2 {
// CHECK:   xpu.report_out_of_bounds %[[STATUS]] site 7 : !xpu.buffer<2xi32>
// CHECK: xpu.store %[[W]]#1
xpu.kernel @count(%out: !xpu.buffer<i32>, %n: index) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
    %a = arith.addi %acc, %one : i32
    scf.yield %a : i32
  } {xpu.site = 7 : i64}
  xpu.store %r, %out[%c0] : !xpu.buffer<i32>
  xpu.return
}

// An scf.while keeps its shape and gains the flag; loops without a site
// (made after the front end numbered them) are left alone.
// CHECK-LABEL: xpu.kernel @search
// CHECK: scf.while {{.*}} -> (index, i1)
// CHECK: scf.condition(%[[C2:.*]]) %{{.*}}, %{{.*}} : index, i1
// CHECK: xpu.report_out_of_bounds %{{.*}} site 2
// CHECK: scf.for
// CHECK-NOT: report_out_of_bounds
xpu.kernel @search(%x: !xpu.buffer<i32, ro>, %out: !xpu.buffer<i32>, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %r = scf.while (%i = %c0) : (index) -> index {
    %e = xpu.load %x[%i] : !xpu.buffer<i32, ro>
    %c = arith.cmpi ne, %e, %v : i32
    scf.condition(%c) %i : index
  } do {
  ^bb0(%j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  } attributes {xpu.site = 2 : i64}
  %s = scf.for %i = %c0 to %r step %c1 iter_args(%acc = %zero) -> (i32) {
    scf.yield %acc : i32
  }
  xpu.store %s, %out[%c0] : !xpu.buffer<i32>
  xpu.return
}
