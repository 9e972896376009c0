// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-admit
// XPU-UC001 in both profiles: an op that every invocation of the workgroup
// must reach, under control flow that is not uniform across it.

// A condition on thread_id.
xpu.kernel @if_thread(%y: !xpu.buffer<f32>) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %first {
    // expected-error @+1 {{XPU-UC001: kernel 'if_thread': 'xpu.barrier' must be reached by every invocation of its workgroup, but it is under the 'scf.if' on line 12, whose condition differs between invocations (it depends on 'xpu.thread_id' on line 9)}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A reduction (deterministic-v1 too) under a condition on global_id.
xpu.kernel @reduce_global(%y: !xpu.buffer<64xi32>, %v: i32)
    attributes {profile = "deterministic-v1", workgroup_size = array<i64: 64>,
                grid_size = array<i64: 1>} {
  // expected-note @+1 {{where the value starts to differ}}
  %g = xpu.global_id x
  %c32 = arith.constant 32 : index
  %low = arith.cmpi ult, %g, %c32 : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %low {
    // expected-error @+1 {{'xpu.reduce' must be reached by every invocation of its workgroup}}
    %r = xpu.reduce add %v sequential : i32
    xpu.store %r, %y[%g] : !xpu.buffer<64xi32>
  }
  xpu.return
}

// -----

// A loop whose trip count differs between invocations.
xpu.kernel @for_bound() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  // expected-note @+1 {{the decision that is not uniform}}
  scf.for %i = %c0 to %t step %c1 {
    // expected-error @+1 {{under the 'scf.for' on line}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A while loop whose condition reads lane_id.
xpu.kernel @while_lane(%n: i32) {
  // expected-note @+1 {{where the value starts to differ}}
  %l = xpu.lane_id
  %l32 = arith.index_castui %l : index to i32
  %c1 = arith.constant 1 : i32
  // expected-note @+1 {{the decision that is not uniform}}
  %r = scf.while (%k = %l32) : (i32) -> i32 {
    %go = arith.cmpi slt, %k, %n : i32
    scf.condition(%go) %k : i32
  } do {
  ^bb0(%k: i32):
    // expected-error @+1 {{under the 'scf.while' on line}}
    xpu.barrier
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  }
  xpu.return
}

// -----

// A uniform while condition made divergent by what the body carries back.
xpu.kernel @while_carried(%n: i32, %y: !xpu.buffer<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %t32 = arith.index_castui %t : index to i32
  // expected-note @+1 {{the decision that is not uniform}}
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %go = arith.cmpi slt, %k, %n : i32
    scf.condition(%go) %k : i32
  } do {
  ^bb0(%k: i32):
    // expected-error @+1 {{under the 'scf.while' on line}}
    xpu.barrier
    %next = arith.addi %k, %t32 : i32
    scf.yield %next : i32
  }
  xpu.return
}

// -----

// An early exit: invocations past the end return before the barrier.
xpu.kernel @early_exit(%n: i32) {
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %ni = arith.index_castui %n : i32 to index
  %out = arith.cmpi uge, %t, %ni : index
  // expected-note @+1 {{the decision that is not uniform}}
  cf.cond_br %out, ^exit, ^work
^work:
  // expected-error @+1 {{under the 'cf.cond_br' on line}}
  xpu.barrier
  xpu.return
^exit:
  xpu.return
}

// -----

// A divergent diamond: one side waits, the other does not.
xpu.kernel @diamond() {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{the decision that is not uniform}}
  cf.cond_br %first, ^wait, ^join
^wait:
  // expected-error @+1 {{under the 'cf.cond_br' on line}}
  xpu.barrier
  cf.br ^join
^join:
  xpu.return
}

// -----

// A loop-carried value that picks up thread_id: the scf.if after the loop
// decides by it.
xpu.kernel @carried(%n32: i32) {
  %n = arith.index_castui %n32 : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %a = arith.addi %acc, %t : index
    scf.yield %a : index
  }
  %big = arith.cmpi ugt, %s, %n : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %big {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// The result of an scf.if selected by a divergent condition is divergent,
// even when both branches yield constants.
xpu.kernel @selected() {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  %flag = scf.if %first -> (i1) {
    %true = arith.constant true
    scf.yield %true : i1
  } else {
    %false = arith.constant false
    scf.yield %false : i1
  }
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %flag {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A load from a read-write buffer may see another invocation's store.
xpu.kernel @rw_load(%flags: !xpu.buffer<i32>) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %f = xpu.load %flags[%c0] : !xpu.buffer<i32>
  %c0i = arith.constant 0 : i32
  %set = arith.cmpi ne, %f, %c0i : i32
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %set {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A read-only buffer read at a divergent index.
xpu.kernel @ro_load_divergent(%flags: !xpu.buffer<i32, ro>) {
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %f = xpu.load %flags[%t] : !xpu.buffer<i32, ro>
  %c0i = arith.constant 0 : i32
  %set = arith.cmpi ne, %f, %c0i : i32
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %set {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// What an atomic returns depends on the schedule.
xpu.kernel @atomic_result(%counter: !xpu.buffer<i32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  // expected-note @+1 {{where the value starts to differ}}
  %old = xpu.atomic_rmw add %one, %counter[%c0] seq_cst device : !xpu.buffer<i32>
  %zero = arith.constant 0 : i32
  %first = arith.cmpi eq, %old, %zero : i32
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %first {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A helper that waits at a barrier, called under a divergent condition:
// refused at the call.
xpu.func @sync() {
  xpu.barrier
  xpu.return
}
xpu.kernel @call_under_if() {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %first {
    // expected-error @+1 {{'xpu.call' (whose callee waits for every invocation of its workgroup) must be reached}}
    xpu.call @sync() : () -> ()
  }
  xpu.return
}

// -----

// A helper whose parameter decides whether it waits, called with a
// divergent argument: refused in the helper, with the call noted.
xpu.func @maybe_sync(%go: i1) {
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %go {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}
xpu.kernel @divergent_argument() {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{called from here}}
  xpu.call @maybe_sync(%first) : (i1) -> ()
  xpu.return
}

// -----

// A helper's result carries its argument's divergence.
xpu.func @is_zero(%v: index) -> i1 {
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %v, %c0 : index
  xpu.return %z : i1
}
xpu.kernel @divergent_result() {
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %first = xpu.call @is_zero(%t) : (index) -> i1
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %first {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A switch on thread_id.
xpu.kernel @switch_thread() {
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  // expected-note @+1 {{the decision that is not uniform}}
  scf.index_switch %t
  case 0 {
    // expected-error @+1 {{whose selector differs between invocations}}
    xpu.barrier
    scf.yield
  }
  default {
    scf.yield
  }
  xpu.return
}

// -----

// A value that leaves a loop whose exit differs between invocations.
xpu.kernel @cfg_loop_exit(%n32: i32) {
  %n = arith.index_castui %n32 : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi ult, %i, %t : index
  cf.cond_br %more, ^body, ^done
^body:
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^done:
  %big = arith.cmpi ugt, %i, %n : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %big {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// Poison may be a different value in every invocation.
xpu.kernel @poison_condition() {
  // expected-note @+1 {{where the value starts to differ}}
  %p = ub.poison : i1
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %p {
    // expected-error @+1 {{'xpu.barrier' must be reached}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A wave operation under a condition that differs inside a wave.
xpu.kernel @wave_under_lane(%v: i32) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{where the value starts to differ}}
  %l = xpu.lane_id
  %first = arith.cmpi eq, %l, %c0 : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %first {
    // expected-error @+1 {{'xpu.wave_reduce' must be reached by every invocation of its wave, but it is under the 'scf.if'}}
    %s = xpu.wave_reduce add %v : i32
  }
  xpu.return
}

// -----

// What a wave reduction returns is the same across the wave, not across the
// workgroup: a barrier may not depend on it.
xpu.kernel @barrier_on_wave_value(%v: i32) {
  %c0 = arith.constant 0 : i32
  // expected-note @+1 {{where the value starts to differ}}
  %s = xpu.wave_reduce add %v : i32
  %pos = arith.cmpi sgt, %s, %c0 : i32
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %pos {
    // expected-error @+1 {{'xpu.barrier' must be reached by every invocation of its workgroup}}
    xpu.barrier
  }
  xpu.return
}

// -----

// A shuffle's result differs by lane; so does a broadcast from a lane that
// need not be live.
xpu.kernel @wave_on_shuffle(%v: i32, %k: i32) {
  %c0 = arith.constant 0 : i32
  %b = xpu.wave_broadcast %v, %k : i32
  // expected-note @+1 {{where the value starts to differ}}
  %r = xpu.wave_shuffle xor %b, %k : i32
  %pos = arith.cmpi sgt, %r, %c0 : i32
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %pos {
    // expected-error @+1 {{'xpu.wave_vote' must be reached by every invocation of its wave}}
    %any = xpu.wave_vote any %pos
  }
  xpu.return
}
