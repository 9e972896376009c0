// RUN: xpu-opt %s -split-input-file -xpu-define-integer-semantics | FileCheck %s
// RUN: xpu-opt %s -split-input-file -xpu-define-integer-semantics=index-bits=32 | FileCheck %s --check-prefix=IDX32
// Integer semantics (docs/profiles.md): guards where a divisor or shift
// amount may be out of range, none where a constant proves it in range.

// CHECK-LABEL: xpu.kernel @variable_divisors
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[ISZ:.*]] = arith.cmpi eq, %[[B:.*]], %[[Z]] : i32
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: %[[ISMIN:.*]] = arith.cmpi eq, %[[A:.*]], %[[MIN]] : i32
// CHECK: %[[ISM1:.*]] = arith.cmpi eq, %[[B]], %[[M1]] : i32
// CHECK: %[[BOTH:.*]] = arith.andi %[[ISMIN]], %[[ISM1]] : i1
// CHECK: %[[BAD:.*]] = arith.ori %[[ISZ]], %[[BOTH]] : i1
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[D:.*]] = arith.select %[[BAD]], %[[ONE]], %[[B]] : i32
// CHECK: arith.divsi %[[A]], %[[D]] : i32
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: arith.remui
xpu.kernel @variable_divisors(%o: !xpu.buffer<i32>, %a: i32, %b: i32) {
  %q = arith.divsi %a, %b : i32
  %r = arith.remui %a, %b : i32
  %s = arith.addi %q, %r : i32
  %c0 = arith.constant 0 : index
  xpu.store %s, %o[%c0] : !xpu.buffer<i32>
  xpu.return
}

// -----

// No guard at all: nonzero constant divisors (no -1 for signed), constant
// shift amounts below the width.
// CHECK-LABEL: xpu.kernel @constant_operands
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.andi
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.remsi %{{.*}}, %{{.*}} : vector<2xi16>
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: arith.shli %{{.*}}, %{{.*}} : i32
// CHECK: arith.shrsi %{{.*}}, %{{.*}} : vector<2xi16>
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i8
// CHECK-NOT: arith.select
// CHECK: xpu.return
xpu.kernel @constant_operands(%o: !xpu.buffer<i32>, %a: i32, %v: vector<2xi16>, %w: i64, %x: i8) {
  %c7 = arith.constant 7 : i32
  %q = arith.divsi %a, %c7 : i32
  %cv = arith.constant dense<[3, -5]> : vector<2xi16>
  %r = arith.remsi %v, %cv : vector<2xi16>
  %cm1 = arith.constant -1 : i64
  %u = arith.divui %w, %cm1 : i64
  %c31 = arith.constant 31 : i32
  %s = arith.shli %q, %c31 : i32
  %c15 = arith.constant dense<15> : vector<2xi16>
  %t = arith.shrsi %r, %c15 : vector<2xi16>
  // -1 is safe against a dividend that is a constant other than MIN.
  %c5 = arith.constant 5 : i8
  %cm1_8 = arith.constant -1 : i8
  %d = arith.divsi %c5, %cm1_8 : i8
  %c0 = arith.constant 0 : index
  xpu.store %s, %o[%c0] : !xpu.buffer<i32>
  xpu.return
}

// -----

// Signed division by a constant -1 is guarded (MIN / -1); a shift amount
// is taken modulo the width, a non-constant one and a constant one too large.
// CHECK-LABEL: xpu.kernel @guards_left
// CHECK: arith.select
// CHECK: arith.divsi
// CHECK: %[[M:.*]] = arith.constant 63 : i64
// CHECK: arith.andi %{{.*}}, %[[M]] : i64
// CHECK: arith.shrui
// CHECK: %[[M8:.*]] = arith.constant dense<7> : vector<3xi8>
// CHECK: arith.andi %{{.*}}, %[[M8]] : vector<3xi8>
// CHECK: arith.shli
// CHECK: %[[M1:.*]] = arith.constant false
// CHECK: arith.andi %{{.*}}, %[[M1]] : i1
// CHECK: arith.shrsi
xpu.kernel @guards_left(%o: !xpu.buffer<i32>, %a: i32, %w: i64, %v: vector<3xi8>, %b: i1) {
  %cm1 = arith.constant -1 : i32
  %q = arith.divsi %a, %cm1 : i32
  %s = arith.shrui %w, %w : i64
  %c9 = arith.constant dense<9> : vector<3xi8>
  %t = arith.shli %v, %c9 : vector<3xi8>
  %u = arith.shrsi %b, %b : i1
  %c0 = arith.constant 0 : index
  xpu.store %q, %o[%c0] : !xpu.buffer<i32>
  xpu.return
}

// -----

// floordiv/ceildiv are rebuilt on the guarded truncating division; flags
// that make results poison go.
// CHECK-LABEL: xpu.kernel @rounded_and_flags
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.ceildivui
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: arith.divui
// CHECK: arith.remui
// CHECK-NOT: overflow
// CHECK-NOT: exact
// CHECK: xpu.return
xpu.kernel @rounded_and_flags(%o: !xpu.buffer<i32>, %a: i32, %b: i32) {
  %f = arith.floordivsi %a, %b : i32
  %c = arith.ceildivui %a, %b : i32
  %s = arith.addi %f, %c overflow<nsw> : i32
  %t = arith.shrui %s, %a exact : i32
  %c0 = arith.constant 0 : index
  xpu.store %t, %o[%c0] : !xpu.buffer<i32>
  xpu.return
}

// -----

// index takes the target's width: MIN and the shift mask follow it.
// CHECK-LABEL: xpu.kernel @index_width
// CHECK: arith.constant -9223372036854775808 : index
// CHECK: arith.constant 63 : index
// IDX32-LABEL: xpu.kernel @index_width
// IDX32: arith.constant -2147483648 : index
// IDX32: arith.constant 31 : index
xpu.kernel @index_width(%o: !xpu.buffer<i32>, %a: i32) {
  %i = xpu.global_id x
  %j = arith.index_cast %a : i32 to index
  %q = arith.divsi %i, %j : index
  %s = arith.shli %q, %j : index
  %r = arith.index_cast %s : index to i32
  %c0 = arith.constant 0 : index
  xpu.store %r, %o[%c0] : !xpu.buffer<i32>
  xpu.return
}

// -----

// RUN: xpu-opt %s -split-input-file -xpu-poison-to-zero | FileCheck %s --check-prefix=POISON
// POISON-LABEL: xpu.kernel @poison
// POISON-NOT: ub.poison
// POISON: arith.constant dense<0> : vector<2xi8>
// POISON: arith.constant 0 : i32
// POISON: arith.addui_extended
xpu.kernel @poison(%o: !xpu.buffer<i32>) {
  %v = ub.poison : vector<2xi8>
  %p = ub.poison : i32
  %c5 = arith.constant 5 : i32
  %s, %f = arith.addui_extended %p, %c5 : i32, i1
  %c0 = arith.constant 0 : index
  xpu.store %s, %o[%c0] : !xpu.buffer<i32>
  xpu.return
}
