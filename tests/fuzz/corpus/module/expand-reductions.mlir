// RUN: xpu-opt %s -xpu-expand-reductions | FileCheck %s
// A sequential reduction: every invocation stores its value, invocation 0
// folds left to right, everyone reads the result slot.

// CHECK-LABEL: xpu.kernel @seq
xpu.kernel @seq(%v: i32) attributes {workgroup_size = array<i64: 8, 4, 1>} {
  // CHECK: %[[S:.*]] = xpu.alloc : !xpu.buffer<33xi32, shared>
  // CHECK: xpu.store %{{.*}}, %[[S]][%{{.*}}]
  // CHECK: xpu.barrier
  // CHECK: scf.if
  // CHECK:   scf.for
  // CHECK:     arith.addi
  // CHECK: xpu.barrier
  // CHECK: xpu.load %[[S]][%c32]
  // CHECK: xpu.barrier
  // CHECK-NOT: xpu.reduce
  %r = xpu.reduce add %v sequential : i32
  xpu.return
}

// CHECK-LABEL: xpu.kernel @tree
xpu.kernel @tree(%v: f32) {
  // Without a fixed workgroup size the scratch holds the largest workgroup.
  // CHECK: xpu.alloc : !xpu.buffer<1025xf32, shared>
  // CHECK: scf.while
  // CHECK: arith.maximumf
  // CHECK: xpu.barrier
  %r = xpu.reduce fmax %v tree : f32
  xpu.return
}
