// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-cpu-work-item-loops | FileCheck %s
// CPU region formation: a kernel becomes loops over its workgroup's
// invocations, split at barriers; uniform constructs around barriers run
// once per workgroup; values live across a barrier are recomputed or kept
// per invocation.

// A barrier splits the body into two loops over x (y and z are fixed at 1).
// The thread id is recomputed after the barrier; the loaded value is kept
// in a context array.
// CHECK-LABEL: xpu.kernel @split
// CHECK-SAME: xpu.work_item_loops
// CHECK: %[[CTX:.*]] = xpu.alloc : !xpu.buffer<64xi32, private>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   %[[V:.*]] = xpu.load %{{.*}}[%{{.*}}] : !xpu.buffer<i32, ro>
// CHECK:   xpu.store %[[V]], %[[CTX]][%{{.*}}] : !xpu.buffer<64xi32, private>
// CHECK:   xpu.store %[[V]], %{{.*}}[%[[T]]] : !xpu.buffer<64xi32, shared>
// CHECK: } {xpu.work_item_dim = 0 : i64}
// CHECK-NOT: xpu.barrier
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step
// CHECK:   %[[V2:.*]] = xpu.load %[[CTX]][%{{.*}}] : !xpu.buffer<64xi32, private>
// CHECK:   arith.addi %[[T2]], %{{.*}} : index
// CHECK:   xpu.load %{{.*}} : !xpu.buffer<64xi32, shared>
// CHECK: } {xpu.work_item_dim = 0 : i64}
xpu.kernel @split(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<64xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  xpu.store %v, %s[%t] : !xpu.buffer<64xi32, shared>
  xpu.barrier
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %n = arith.addi %t, %c1 : index
  %w = arith.andi %n, %c63 : index
  %x = xpu.load %s[%w] : !xpu.buffer<64xi32, shared>
  %r = arith.addi %x, %v : i32
  xpu.store %r, %out[%g] : !xpu.buffer<i32>
  xpu.return
}

// -----

// A uniform loop around barriers stays outside; its carried value moves to
// a context array that each invocation loads at the top of the body and
// stores at the bottom.
// CHECK-LABEL: xpu.kernel @carried
// CHECK: %[[ACC:.*]] = xpu.alloc : !xpu.buffer<1024xf32, private>
// CHECK: scf.for
// CHECK:   xpu.store %{{.*}}, %[[ACC]]
// CHECK: } {xpu.work_item_dim = 2 : i64}
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   scf.for
// CHECK:         xpu.load %[[ACC]]
// CHECK:   } {xpu.work_item_dim = 2 : i64}
// CHECK:   scf.for
// CHECK:         xpu.store %{{.*}}, %[[ACC]]
// CHECK:   } {xpu.work_item_dim = 2 : i64}
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK:   xpu.load %[[ACC]]
xpu.kernel @carried(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %n: i32) {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<1024xf32, shared>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = arith.index_castui %n : i32 to index
  %z = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %ni step %c1 iter_args(%acc = %z) -> (f32) {
    %x = xpu.load %in[%g] : !xpu.buffer<f32, ro>
    xpu.store %x, %s[%t] : !xpu.buffer<1024xf32, shared>
    xpu.barrier
    %y = xpu.load %s[%c0] : !xpu.buffer<1024xf32, shared>
    %a = arith.addf %acc, %y : f32
    xpu.barrier
    scf.yield %a : f32
  }
  xpu.store %r, %out[%g] : !xpu.buffer<f32>
  xpu.return
}

// -----

// Reductions need no barrier on the CPU: each invocation stores its value,
// the fold runs once per workgroup. Integer sums fold left to right from
// the identity over every slot; a float tree reduction halves pairwise.
// CHECK-LABEL: xpu.kernel @reductions
// CHECK: %[[IS:.*]] = xpu.alloc : !xpu.buffer<32xi32, private>
// CHECK: %[[FS:.*]] = xpu.alloc : !xpu.buffer<32xf32, private>
// CHECK: xpu.store %{{.*}}, %[[IS]]
// CHECK: } {xpu.work_item_dim = 0 : i64}
// CHECK: scf.for %{{.*}} = %c0{{[_0-9]*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %c0_i32{{[_0-9]*}}) -> (i32)
// CHECK:   xpu.load %[[IS]]
// CHECK:   arith.addi
// CHECK: xpu.store %{{.*}}, %[[FS]]
// CHECK: } {xpu.work_item_dim = 0 : i64}
// CHECK: scf.while
// CHECK: scf.while
// CHECK:   arith.minui
// CHECK:   scf.for
// CHECK:     arith.addf
// CHECK: xpu.load %[[FS]][%{{.*}}] : !xpu.buffer<32xf32, private>
// CHECK-NOT: xpu.reduce
// CHECK-NOT: xpu.barrier
xpu.kernel @reductions(%out: !xpu.buffer<f32>, %i: i32, %f: f32)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %is = xpu.reduce add %i unspecified : i32
  %fs = xpu.reduce add %f tree : f32
  %c = arith.sitofp %is : i32 to f32
  %r = arith.addf %fs, %c : f32
  %g = xpu.global_id x
  xpu.store %r, %out[%g] : !xpu.buffer<f32>
  xpu.return
}

// -----

// A private buffer used on both sides of a barrier gets a slice per
// invocation.
// CHECK-LABEL: xpu.kernel @private_across
// CHECK: %[[BASE:.*]] = llvm.alloca %{{.*}} x !llvm.array<64 x i32>
// CHECK: llvm.getelementptr %[[BASE]]
// CHECK: xpu.view %{{.*}} : !llvm.ptr -> !xpu.buffer<4xi32, private>
// CHECK: } {xpu.work_item_dim = 0 : i64}
// CHECK: llvm.getelementptr %[[BASE]]
// CHECK: xpu.view %{{.*}} : !llvm.ptr -> !xpu.buffer<4xi32, private>
xpu.kernel @private_across(%out: !xpu.buffer<i32>)
    attributes {workgroup_size = array<i64: 16, 1, 1>} {
  %p = xpu.alloc : !xpu.buffer<4xi32, private>
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  xpu.store %c7, %p[%c0] : !xpu.buffer<4xi32, private>
  xpu.barrier
  %v = xpu.load %p[%c0] : !xpu.buffer<4xi32, private>
  %g = xpu.global_id x
  xpu.store %v, %out[%g] : !xpu.buffer<i32>
  xpu.return
}

// -----

// Helpers that read thread ids take them as parameters.
// CHECK-LABEL: xpu.func @lane
// CHECK-SAME: (%[[X:.*]]: index, %{{.*}}: index, %{{.*}}: index) -> index
// CHECK: xpu.return %[[X]]
xpu.func @lane() -> index {
  %t = xpu.thread_id x
  xpu.return %t : index
}
// CHECK-LABEL: xpu.kernel @calls
// CHECK: scf.for %[[TZ:[^ ]*]] =
// CHECK: scf.for %[[TY:[^ ]*]] =
// CHECK: scf.for %[[TX:[^ ]*]] =
// CHECK: xpu.call @lane(%[[TX]], %[[TY]], %[[TZ]]) : (index, index, index) -> index
xpu.kernel @calls(%out: !xpu.buffer<i32>) {
  %t = xpu.call @lane() : () -> index
  %c = arith.constant 1 : i32
  xpu.store %c, %out[%t] : !xpu.buffer<i32>
  xpu.return
}

// -----

// A uniform while loop with a barrier: the condition is computed per
// invocation and read once per workgroup from invocation 0's slot.
// CHECK-LABEL: xpu.kernel @uniform_while
// CHECK: %[[C:.*]] = xpu.alloc : !xpu.buffer<1024xi1, private>
// CHECK: scf.while : () -> () {
// CHECK:   xpu.store %{{.*}}, %[[C]]
// CHECK:   } {xpu.work_item_dim = 2 : i64}
// CHECK:   %[[U:.*]] = xpu.load %[[C]][%c0{{.*}}] : !xpu.buffer<1024xi1, private>
// CHECK:   scf.condition(%[[U]])
xpu.kernel @uniform_while(%out: !xpu.buffer<i32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %k, %n : i32
    scf.condition(%more) %k : i32
  } do {
  ^bb0(%k2: i32):
    xpu.barrier
    %next = arith.addi %k2, %c1 : i32
    scf.yield %next : i32
  }
  %g = xpu.global_id x
  xpu.store %r, %out[%g] : !xpu.buffer<i32>
  xpu.return
}

// -----

// A barrier that only some invocations reach is refused, with its place.
xpu.kernel @divergent(%out: !xpu.buffer<i32>) {
  %t = xpu.thread_id x
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{the construct around it}}
  scf.if %z {
    // expected-error @+1 {{XPU-CPU001: this barrier is under 'scf.if', whose decision may differ between invocations}}
    xpu.barrier
  }
  xpu.return
}

// -----

xpu.kernel @divergent_loop(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // A bound read from a writable buffer may differ between invocations.
  %b = xpu.load %in[%c0] : !xpu.buffer<i32>
  %bi = arith.index_castui %b : i32 to index
  // expected-note @+1 {{the construct around it}}
  scf.for %k = %c0 to %bi step %c1 {
    // expected-error @+1 {{XPU-CPU001: this reduction is under 'scf.for', whose decision may differ between invocations}}
    %s = xpu.reduce add %b tree : i32
  }
  xpu.return
}

// -----

// A guard on the global id becomes the bounds of the loop over x: the
// invocations past n never run, and nothing is tested per invocation.
// CHECK-LABEL: xpu.kernel @guarded
// CHECK: %[[BASE:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[D:.*]] = arith.subi %{{.*}}, %[[BASE]] : index
// CHECK: arith.minui %[[D]]
// CHECK: %[[END:.*]] = arith.select
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step
// CHECK: scf.if %true
// CHECK: xpu.store
xpu.kernel @guarded(%out: !xpu.buffer<f32>, %n: i32) attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %i = xpu.global_id x
  %ni = arith.index_castui %n : i32 to index
  %ok = arith.cmpi ult, %i, %ni : index
  scf.if %ok {
    %z = arith.constant 1.0 : f32
    xpu.store %z, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// -----

// A branch on one comparison of the thread id splits the loop in two, each
// part running one branch, in the same order.
// CHECK-LABEL: xpu.kernel @split_on_id
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[AT:[^ ]*]] step
// CHECK-NOT: arith.subi
// CHECK: xpu.store %{{.*}} : !xpu.buffer<i32>
// CHECK-NEXT: } {xpu.work_item_dim = 0 : i64}
// CHECK-NEXT: scf.for %{{.*}} = %[[AT]] to %{{.*}} step
// CHECK-NOT: scf.if
// CHECK: arith.subi
// CHECK: } {xpu.work_item_dim = 0 : i64}
xpu.kernel @split_on_id(%out: !xpu.buffer<i32>, %d: i32) attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %di = arith.index_castui %d : i32 to index
  %low = arith.cmpi ult, %t, %di : index
  %v = scf.if %low -> (i32) {
    %one = arith.constant 1 : i32
    scf.yield %one : i32
  } else {
    %ti = arith.index_cast %t : index to i32
    %r = arith.subi %ti, %d : i32
    scf.yield %r : i32
  }
  xpu.store %v, %out[%g] : !xpu.buffer<i32>
  xpu.return
}

// -----

// A kernel that reads only global ids and shares nothing may run in any
// workgroup shape (the CPU runtime picks long rows along x for it).
// CHECK-LABEL: xpu.kernel @shape_blind
// CHECK-SAME: xpu.any_workgroup_shape
xpu.kernel @shape_blind(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %w: i32) {
  %x = xpu.global_id x
  %y = xpu.global_id y
  %wi = arith.index_castui %w : i32 to index
  %ok = arith.cmpi ult, %x, %wi : index
  scf.if %ok {
    %row = arith.muli %y, %wi : index
    %i = arith.addi %row, %x : index
    %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
    xpu.store %v, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// -----

// The workgroup id, a thread id, a workgroup size or a fixed size each tie
// the result to the launch's shape; a loop per invocation keeps the tile
// for its cache reuse.
// CHECK-LABEL: xpu.kernel @reads_group_id
// CHECK-NOT: xpu.any_workgroup_shape
// CHECK-LABEL: xpu.kernel @reads_thread_id
// CHECK-NOT: xpu.any_workgroup_shape
// CHECK-LABEL: xpu.kernel @reads_size
// CHECK-NOT: xpu.any_workgroup_shape
// CHECK-LABEL: xpu.kernel @fixed_size
// CHECK-NOT: xpu.any_workgroup_shape
// CHECK-LABEL: xpu.kernel @loops
// CHECK-NOT: xpu.any_workgroup_shape
// CHECK: xpu.return
xpu.kernel @reads_group_id(%out: !xpu.buffer<i32>) {
  %x = xpu.global_id x
  %g = xpu.workgroup_id x
  %v = arith.index_cast %g : index to i32
  xpu.store %v, %out[%x] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @reads_thread_id(%out: !xpu.buffer<i32>) {
  %x = xpu.global_id x
  %t = xpu.thread_id x
  %v = arith.index_cast %t : index to i32
  xpu.store %v, %out[%x] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @reads_size(%out: !xpu.buffer<i32>) {
  %x = xpu.global_id x
  %s = xpu.workgroup_size x
  %v = arith.index_cast %s : index to i32
  xpu.store %v, %out[%x] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @fixed_size(%out: !xpu.buffer<i32>) attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %x = xpu.global_id x
  %v = arith.index_cast %x : index to i32
  xpu.store %v, %out[%x] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @loops(%out: !xpu.buffer<i32>, %n: i32) {
  %x = xpu.global_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = arith.index_castui %n : i32 to index
  %z = arith.constant 0 : i32
  %s = scf.for %k = %c0 to %ni step %c1 iter_args(%a = %z) -> (i32) {
    %ki = arith.index_cast %k : index to i32
    %a2 = arith.addi %a, %ki : i32
    scf.yield %a2 : i32
  }
  xpu.store %s, %out[%x] : !xpu.buffer<i32>
  xpu.return
}
