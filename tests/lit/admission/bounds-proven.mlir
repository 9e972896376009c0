// RUN: xpu-opt %s -xpu-admit | FileCheck %s
// Accesses the bounds prover proves at both index widths (32 and 64 bits):
// admission leaves them unchecked. One kernel per rule of docs/profiles.md
// ("Bounds proofs"); bounds-checked.mlir has the near misses.

// Range: the fixed launch shape bounds the global id to [0, 1023].
// CHECK-LABEL: xpu.kernel @saxpy_fixed_shape
// CHECK-NOT: checked
xpu.kernel @saxpy_fixed_shape(%y: !xpu.buffer<1024xf32>, %x: !xpu.buffer<1024xf32, ro>,
                              %a: f32, %n: i32)
    attributes {workgroup_size = array<i64: 256>, grid_size = array<i64: 4>} {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %xi = xpu.load %x[%i] : !xpu.buffer<1024xf32, ro>
    %yi = xpu.load %y[%i] : !xpu.buffer<1024xf32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<1024xf32>
  }
  xpu.return
}

// Range: a mask keeps the index in [0, 15].
// CHECK-LABEL: xpu.kernel @masked
// CHECK-NOT: checked
xpu.kernel @masked(%hist: !xpu.buffer<16xi32>, %in: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<i32, ro>
  %ok = arith.cmpi ult, %i, %n : index
  scf.if %ok {
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    %c15 = arith.constant 15 : i32
    %b = arith.andi %v, %c15 : i32
    %bi = arith.index_castui %b : i32 to index
    %one = arith.constant 1 : i32
    %old = xpu.atomic_rmw add %one, %hist[%bi] seq_cst device : !xpu.buffer<16xi32>
  }
  xpu.return
}

// Guard: i < xpu.buffer_size, unsigned; and the same, signed, for an index
// that is never negative.
// CHECK-LABEL: xpu.kernel @guard_buffer_size
// CHECK-NOT: checked
xpu.kernel @guard_buffer_size(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<i32, ro>
  %m = xpu.buffer_size %out : !xpu.buffer<i32>
  %a = arith.cmpi ult, %i, %n : index
  %b = arith.cmpi slt, %i, %m : index
  %ok = arith.andi %a, %b : i1
  scf.if %ok {
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    xpu.store %v, %out[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// Guard: i < minui(n, size); i < minsi(size, n) read signed with i >= 0
// (so the minimum is >= 1 and both operands are non-negative).
// CHECK-LABEL: xpu.kernel @guard_min
// CHECK-NOT: checked
xpu.kernel @guard_min(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
  %i = xpu.global_id x
  %ni = arith.index_cast %n : i32 to index
  %sin = xpu.buffer_size %in : !xpu.buffer<i32, ro>
  %sout = xpu.buffer_size %out : !xpu.buffer<i32>
  %mu = arith.minui %ni, %sin : index
  %ms = arith.minsi %sout, %ni : index
  %a = arith.cmpi ult, %i, %mu : index
  %b = arith.cmpi slt, %i, %ms : index
  %ok = arith.andi %a, %b : i1
  scf.if %ok {
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    xpu.store %v, %out[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// Loop: for i in [lo, size) with lo >= 0 and step 1 (i + 1 cannot pass the
// index range: i < size <= 2^63 - 1), and a shifted copy i - 1 for i >= 1.
// CHECK-LABEL: xpu.kernel @loop
// CHECK-NOT: checked
xpu.kernel @loop(%out: !xpu.buffer<i32>, %lo32: i32) {
  %c1 = arith.constant 1 : index
  %lo16 = arith.trunci %lo32 : i32 to i16
  %lo = arith.index_castui %lo16 : i16 to index
  %n = xpu.buffer_size %out : !xpu.buffer<i32>
  scf.for %i = %lo to %n step %c1 {
    %v = xpu.load %out[%i] : !xpu.buffer<i32>
    %one = arith.cmpi uge, %i, %c1 : index
    scf.if %one {
      %im1 = arith.subi %i, %c1 : index
      xpu.store %v, %out[%im1] : !xpu.buffer<i32>
    }
  }
  xpu.return
}

// Loop: for i in [0, minsi(n, size)): i >= 0 and i < the minimum make the
// minimum >= 1, so both operands are non-negative and i < size.
// CHECK-LABEL: xpu.kernel @loop_min
// CHECK-NOT: checked
xpu.kernel @loop_min(%b: !xpu.buffer<i32>, %n32: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %n32 : i32 to index
  %size = xpu.buffer_size %b : !xpu.buffer<i32>
  %ub = arith.minsi %n, %size : index
  scf.for %i = %c0 to %ub step %c1 {
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// Grid-stride loop, unsigned: i < size holds in every iteration however
// the counter wraps (bounds-checked.mlir has the signed one).
// CHECK-LABEL: xpu.kernel @grid_stride_unsigned
// CHECK-NOT: checked
xpu.kernel @grid_stride_unsigned(%b: !xpu.buffer<f32>) {
  %g = xpu.global_id x
  %step = xpu.global_size x
  %n = xpu.buffer_size %b : !xpu.buffer<f32>
  scf.for unsigned %i = %g to %n step %step {
    %v = xpu.load %b[%i] : !xpu.buffer<f32>
    %d = arith.addf %v, %v : f32
    xpu.store %d, %b[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// Stencil: 1 <= i and i + 1 < n give in[i - 1], in[i] and in[i + 1].
// CHECK-LABEL: xpu.kernel @stencil
// CHECK-NOT: checked
xpu.kernel @stencil(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
  %c1 = arith.constant 1 : index
  %i = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<f32, ro>
  %m = xpu.buffer_size %out : !xpu.buffer<f32>
  %ip1 = arith.addi %i, %c1 : index
  %lo = arith.cmpi sge, %i, %c1 : index
  %hi = arith.cmpi ult, %ip1, %n : index
  %fits = arith.cmpi ult, %i, %m : index
  %both = arith.andi %lo, %hi : i1
  %ok = arith.andi %both, %fits : i1
  scf.if %ok {
    %im1 = arith.subi %i, %c1 : index
    %l = xpu.load %in[%im1] : !xpu.buffer<f32, ro>
    %c = xpu.load %in[%i] : !xpu.buffer<f32, ro>
    %r = xpu.load %in[%ip1] : !xpu.buffer<f32, ro>
    %s = arith.addf %l, %c : f32
    %t = arith.addf %s, %r : f32
    xpu.store %t, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// Vector: i + 3 < size covers the four elements at i.
// CHECK-LABEL: xpu.kernel @vector_width
// CHECK-NOT: checked
xpu.kernel @vector_width(%b: !xpu.buffer<f32>) {
  %c3 = arith.constant 3 : index
  %i = xpu.global_id x
  %n = xpu.buffer_size %b : !xpu.buffer<f32>
  %last = arith.addi %i, %c3 : index
  %ok = arith.cmpi ult, %last, %n : index
  scf.if %ok {
    %v = xpu.load %b[%i] : !xpu.buffer<f32> -> vector<4xf32>
    xpu.store %v, %b[%i] : !xpu.buffer<f32> -> vector<4xf32>
  }
  xpu.return
}

// 2-D: y * w + x with x < w, y < h and the kernel's own check w * h <= size.
// w and h are 16-bit, so neither product wraps even with a 32-bit index
// (bounds-checked.mlir has the 32-bit version).
// CHECK-LABEL: xpu.kernel @two_d
// CHECK-NOT: checked
xpu.kernel @two_d(%img: !xpu.buffer<f32>, %w16: i16, %h16: i16) {
  %x = xpu.global_id x
  %y = xpu.global_id y
  %w = arith.index_castui %w16 : i16 to index
  %h = arith.index_castui %h16 : i16 to index
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
    %d = arith.addf %v, %v : f32
    xpu.store %d, %img[%at] : !xpu.buffer<f32>
  }
  xpu.return
}

// cf.cond_br: the edge into ^in carries i < size.
// CHECK-LABEL: xpu.kernel @branch
// CHECK-NOT: checked
xpu.kernel @branch(%b: !xpu.buffer<i32>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %b : !xpu.buffer<i32>
  %ok = arith.cmpi ult, %i, %n : index
  cf.cond_br %ok, ^in, ^out
^in:
  %v = xpu.load %b[%i] : !xpu.buffer<i32>
  xpu.store %v, %b[%i] : !xpu.buffer<i32>
  cf.br ^out
^out:
  xpu.return
}

// Negated guards: not (i >= size), and the else branch of i >= size.
// CHECK-LABEL: xpu.kernel @negated
// CHECK-NOT: checked
xpu.kernel @negated(%b: !xpu.buffer<i32>) {
  %true = arith.constant true
  %i = xpu.global_id x
  %n = xpu.buffer_size %b : !xpu.buffer<i32>
  %out = arith.cmpi uge, %i, %n : index
  %in = arith.xori %out, %true : i1
  scf.if %in {
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  scf.if %out {
  } else {
    %c7 = arith.constant 7 : i32
    xpu.store %c7, %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// Unreachable: no index is below zero (unsigned), so the access never runs.
// CHECK-LABEL: xpu.kernel @never
// CHECK-NOT: checked
xpu.kernel @never(%b: !xpu.buffer<i32>, %p: i64) {
  %c0 = arith.constant 0 : index
  %i = arith.index_cast %p : i64 to index
  %ok = arith.cmpi ult, %i, %c0 : index
  scf.if %ok {
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// Device functions: a guard inside the helper.
// CHECK-LABEL: xpu.func @helper
// CHECK-NOT: checked
xpu.func @helper(%b: !xpu.buffer<i32>, %i: index) {
  %n = xpu.buffer_size %b : !xpu.buffer<i32>
  %ok = arith.cmpi ult, %i, %n : index
  scf.if %ok {
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
  }
  xpu.return
}
