// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-admit
// The kernel-surface ops that need uniform control flow: every wave op at
// wave scope, async copies and waits at workgroup scope (XPU-UC001); ballots,
// votes and reductions hand the wave one value, so a branch on one is
// wave-uniform.

// A wave reduction under a branch on the thread id, though it keeps whole
// waves together when the workgroup is a multiple of the wave: the analysis
// cannot know.
xpu.kernel @reduce_first_wave(%y: !xpu.buffer<i32>, %v: i32) {
  %c32 = arith.constant 32 : index
  // expected-note @+1 {{where the value starts to differ}}
  %t = xpu.thread_id x
  %low = arith.cmpi ult, %t, %c32 : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %low {
    // expected-error @+1 {{XPU-UC001: kernel 'reduce_first_wave': 'xpu.wave_reduce' must be reached by every invocation of its wave}}
    %s = xpu.wave_reduce add %v : i32
  }
  xpu.return
}

// -----

// A shuffle under a branch on a lane's own value.
xpu.kernel @shuffle_divergent(%y: !xpu.buffer<i32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  // expected-note @+1 {{where the value starts to differ}}
  %x = xpu.load %y[%c0] : !xpu.buffer<i32>
  %pos = arith.cmpi sgt, %x, %one : i32
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %pos {
    // expected-error @+1 {{'xpu.wave_shuffle' must be reached by every invocation of its wave}}
    %s = xpu.wave_shuffle xor %x, %one : i32
  }
  xpu.return
}

// -----

// An async wait under a branch on the global id.
xpu.kernel @wait_divergent(%in: !xpu.buffer<f32, ro>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %tile = xpu.alloc : !xpu.buffer<64xf32, shared>
  %tok = xpu.async_copy %in[%c0] to %tile[%c0], %c64 : !xpu.buffer<f32, ro> to !xpu.buffer<64xf32, shared>
  // expected-note @+1 {{where the value starts to differ}}
  %g = xpu.global_id x
  %low = arith.cmpi ult, %g, %c64 : index
  // expected-note @+1 {{the decision that is not uniform}}
  scf.if %low {
    // expected-error @+1 {{'xpu.async_wait' must be reached by every invocation of its workgroup}}
    xpu.async_wait %tok
  }
  xpu.return
}

// -----

// Admitted: a branch on a ballot, a vote or a reduction is wave-uniform, and
// wave ops under it are fine; so are wave ops under a uniform loop.
xpu.kernel @wave_uniform(%y: !xpu.buffer<i32>, %v: i32, %n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %t = xpu.thread_id x
  %ti = arith.index_castui %t : index to i32
  %p = arith.cmpi sgt, %ti, %v : i32
  %any = xpu.wave_vote any %p
  scf.if %any {
    %s = xpu.wave_reduce add %v : i32
    %big = arith.cmpi sgt, %s, %zero : i32
    scf.if %big {
      %m = xpu.wave_ballot %big : vector<4xi32>
      %w = vector.extract %m[0] : i32 from vector<4xi32>
      %again = xpu.wave_reduce or %w : i32
      %nz = arith.cmpi ne, %again, %zero : i32
      scf.if %nz {
        %b = xpu.wave_broadcast %ti, %again : i32
        xpu.store %b, %y[%t] : !xpu.buffer<i32>
      }
    }
  }
  %ni = arith.index_castui %n : i32 to index
  scf.for %i = %c0 to %ni step %c1 {
    %e = xpu.wave_scan add %v exclusive : i32
    xpu.store %e, %y[%t] : !xpu.buffer<i32>
  }
  xpu.return
}
