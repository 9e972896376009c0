// RUN: xpu-opt %s -xpu-admit | FileCheck %s
// Accesses that no proof covers: each gets a run-time check. Every kernel
// here has an input for which the access is out of bounds (named in its
// comment); the near misses of bounds-proven.mlir and the shapes of the
// reproducers in shared/repros/soundness/gc007-hole-*.

// j < minsi(size, n) read unsigned: n < 0 makes the minimum negative, a
// huge unsigned value (s = 5000, n = -1).
// CHECK-LABEL: xpu.kernel @minsi_ult
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @minsi_ult(%out: !xpu.buffer<i32>, %dyn: !xpu.buffer<i32, ro>, %s: i32, %n: i32) {
  %j = arith.index_cast %s : i32 to index
  %sz = xpu.buffer_size %dyn : !xpu.buffer<i32, ro>
  %ni = arith.index_cast %n : i32 to index
  %m = arith.minsi %sz, %ni : index
  %ok = arith.cmpi ult, %j, %m : index
  scf.if %ok {
    %z = xpu.load %dyn[%j] : !xpu.buffer<i32, ro>
  }
  xpu.return
}

// j < b read unsigned with b in [-5, 2]: b < 0 bounds nothing (s = 100).
// CHECK-LABEL: xpu.kernel @negative_bound
// CHECK: xpu.atomic_rmw {{.*}} {checked}
xpu.kernel @negative_bound(%hist: !xpu.buffer<16xi32>, %s: i32) {
  %j = arith.index_cast %s : i32 to index
  %c7 = arith.constant 7 : i32
  %lo = arith.andi %s, %c7 : i32
  %c5 = arith.constant 5 : i32
  %bb = arith.subi %lo, %c5 : i32
  %bix = arith.index_cast %bb : i32 to index
  %ok = arith.cmpi ult, %j, %bix : index
  scf.if %ok {
    %c1 = arith.constant 1 : i32
    %o = xpu.atomic_rmw add %c1, %hist[%j] seq_cst device : !xpu.buffer<16xi32>
  }
  xpu.return
}

// (j + K) < size read signed with K = 2^63 - 1: j + K wraps negative
// (n = 1). The overflow flag is the kernel's claim, not a fact.
// CHECK-LABEL: xpu.kernel @signed_wrap
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @signed_wrap(%dyn: !xpu.buffer<i32, ro>, %n: i64) {
  %mask = arith.constant 9223372036854775807 : i64
  %nn = arith.andi %n, %mask : i64
  %j = arith.index_cast %nn : i64 to index
  %k = arith.constant 9223372036854775807 : index
  %jk = arith.addi %j, %k overflow<nsw> : index
  %sz = xpu.buffer_size %dyn : !xpu.buffer<i32, ro>
  %ok = arith.cmpi slt, %jk, %sz : index
  scf.if %ok {
    %z = xpu.load %dyn[%j] : !xpu.buffer<i32, ro>
  }
  xpu.return
}

// i < n says nothing about the buffers: n may exceed them.
// CHECK-LABEL: xpu.kernel @saxpy_dynamic
// CHECK: xpu.load %{{.*}} {checked}
// CHECK: xpu.load %{{.*}} {checked}
// CHECK: xpu.store %{{.*}} {checked}
xpu.kernel @saxpy_dynamic(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %yi = xpu.load %y[%i] : !xpu.buffer<f32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// i + 1 < size proves b[i + 1] but not b[i]: for i = 2^64 - 1, i + 1
// wraps to 0.
// CHECK-LABEL: xpu.kernel @wrapping_successor
// CHECK: xpu.load %{{.*}}[%{{.*}}] : !xpu.buffer<i32>
// CHECK: xpu.load %{{.*}}[%{{.*}}] {checked}
xpu.kernel @wrapping_successor(%b: !xpu.buffer<i32>, %p: i64) {
  %c1 = arith.constant 1 : index
  %i = arith.index_cast %p : i64 to index
  %n = xpu.buffer_size %b : !xpu.buffer<i32>
  %ip1 = arith.addi %i, %c1 : index
  %ok = arith.cmpi ult, %ip1, %n : index
  scf.if %ok {
    %next = xpu.load %b[%ip1] : !xpu.buffer<i32>
    %here = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// i < size read signed, with i from a signed cast: i may be negative.
// CHECK-LABEL: xpu.kernel @negative_index
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @negative_index(%b: !xpu.buffer<i32>, %p: i32) {
  %i = arith.index_cast %p : i32 to index
  %n = xpu.buffer_size %b : !xpu.buffer<i32>
  %ok = arith.cmpi slt, %i, %n : index
  scf.if %ok {
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// A guard on one element does not cover a vector of four.
// CHECK-LABEL: xpu.kernel @vector_width
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @vector_width(%b: !xpu.buffer<f32>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %b : !xpu.buffer<f32>
  %ok = arith.cmpi ult, %i, %n : index
  scf.if %ok {
    %v = xpu.load %b[%i] : !xpu.buffer<f32> -> vector<4xf32>
  }
  xpu.return
}

// A guard against another buffer's size.
// CHECK-LABEL: xpu.kernel @other_buffer
// CHECK: xpu.store %{{.*}} {checked}
xpu.kernel @other_buffer(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<i32, ro>
  %ok = arith.cmpi ult, %i, %n : index
  scf.if %ok {
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    xpu.store %v, %out[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// A loop whose step can carry the counter past 2^63 - 1: i wraps negative
// and still passes i < size (signed), so i >= lo does not hold.
// CHECK-LABEL: xpu.kernel @loop_step_wraps
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @loop_step_wraps(%b: !xpu.buffer<i32>, %st: i64) {
  %c0 = arith.constant 0 : index
  %step = arith.index_cast %st : i64 to index
  %n = xpu.buffer_size %b : !xpu.buffer<i32>
  scf.for %i = %c0 to %n step %step {
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// Grid-stride loop, signed: with a 32-bit index, i + the global size can
// pass 2^31 - 1, wrap negative and still pass i < size (signed). Proven
// with a 64-bit index (test_bounds_rules.cpp); the unsigned loop is proven
// at both (bounds-proven.mlir).
// CHECK-LABEL: xpu.kernel @grid_stride_signed
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @grid_stride_signed(%b: !xpu.buffer<f32>) {
  %g = xpu.global_id x
  %step = xpu.global_size x
  %n = xpu.buffer_size %b : !xpu.buffer<f32>
  scf.for %i = %g to %n step %step {
    %v = xpu.load %b[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// 2-D with 32-bit extents: with a 32-bit index h * w can wrap, so
// w * h <= size bounds nothing there (w = h = 65536: w * h = 0).
// CHECK-LABEL: xpu.kernel @two_d_wide
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @two_d_wide(%img: !xpu.buffer<f32>, %w32: i32, %h32: i32) {
  %x = xpu.global_id x
  %y = xpu.global_id y
  %w = arith.index_castui %w32 : i32 to index
  %h = arith.index_castui %h32 : i32 to index
  %size = xpu.buffer_size %img : !xpu.buffer<f32>
  %wh = arith.muli %h, %w : index
  %inx = arith.cmpi ult, %x, %w : index
  %iny = arith.cmpi ult, %y, %h : index
  %fits = arith.cmpi ule, %wh, %size : index
  %a = arith.andi %inx, %iny : i1
  %ok = arith.andi %a, %fits : i1
  scf.if %ok {
    %row = arith.muli %y, %w : index
    %at = arith.addi %row, %x : index
    %v = xpu.load %img[%at] : !xpu.buffer<f32>
  }
  xpu.return
}

// The launch shape bounds the id to [0, 17], past a buffer of 16.
// CHECK-LABEL: xpu.kernel @shape_too_big
// CHECK: xpu.store %{{.*}} {checked}
xpu.kernel @shape_too_big(%out: !xpu.buffer<16xi32>)
    attributes {workgroup_size = array<i64: 2>, grid_size = array<i64: 9>} {
  %g = xpu.global_id x
  %c = arith.constant 7 : i32
  xpu.store %c, %out[%g] : !xpu.buffer<16xi32>
  xpu.return
}

// An index constant above 2^32 - 1 is truncated where index is 32 bits:
// 2^32 + 3 becomes 3 there, but is far out of bounds with 64 bits.
// CHECK-LABEL: xpu.kernel @wide_constant
// CHECK: xpu.load %{{.*}} {checked}
xpu.kernel @wide_constant(%b: !xpu.buffer<16xi32>) {
  %k = arith.constant 4294967299 : index
  %v = xpu.load %b[%k] : !xpu.buffer<16xi32>
  xpu.return
}
