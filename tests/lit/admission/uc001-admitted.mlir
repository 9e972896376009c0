// RUN: xpujit check %s 2>&1 | count 0
// XPU-UC001's other side: barriers and reductions under control flow that
// every invocation of the workgroup takes the same way are admitted.

// Conditions and loop bounds from parameters, sizes, workgroup_id.
xpu.kernel @uniform_control(%buf: !xpu.buffer<i32>, %n: i32, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = arith.index_castui %n : i32 to index
  scf.if %flag {
    xpu.barrier
  }
  scf.for %i = %c0 to %ni step %c1 {
    xpu.barrier
  }
  %wg = xpu.workgroup_id x
  %size = xpu.workgroup_size x
  %grid = xpu.grid_size y
  %even = arith.remui %wg, %size : index
  %z = arith.cmpi eq, %even, %c0 : index
  scf.if %z {
    scf.for %j = %c0 to %grid step %size {
      xpu.barrier
    }
  }
  xpu.return
}

// A reduction's result is the same for the whole workgroup; so is a load
// at a uniform index of a read-only buffer.
xpu.kernel @uniform_values(%out: !xpu.buffer<i32>, %params: !xpu.buffer<i32, ro>) {
  %c0 = arith.constant 0 : index
  %t = xpu.thread_id x
  %t32 = arith.index_castui %t : index to i32
  %sum = xpu.reduce add %t32 sequential : i32
  %c100 = arith.constant 100 : i32
  %big = arith.cmpi sgt, %sum, %c100 : i32
  scf.if %big {
    xpu.barrier
  }
  %count = xpu.load %params[%c0] : !xpu.buffer<i32, ro>
  %ci = arith.index_castui %count : i32 to index
  %c1 = arith.constant 1 : index
  %last = scf.for %i = %c0 to %ci step %c1 iter_args(%acc = %c0) -> (index) {
    xpu.barrier
    %next = arith.addi %acc, %c1 : index
    scf.yield %next : index
  }
  %again = arith.cmpi ugt, %last, %c1 : index
  scf.if %again {
    %r = xpu.reduce add %count sequential : i32
  }
  xpu.return
}

// Divergent code that ends before the barrier is fine: every invocation
// reaches the barrier after the join, structured or not.
xpu.kernel @join_then_wait(%out: !xpu.buffer<i32>, %v: i32) {
  %t = xpu.thread_id x
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %n = xpu.buffer_size %out : !xpu.buffer<i32>
    %in = arith.cmpi ult, %c0, %n : index
    scf.if %in {
      xpu.store %v, %out[%c0] : !xpu.buffer<i32>
    }
  }
  xpu.barrier
  cf.cond_br %first, ^side, ^join
^side:
  %w = arith.addi %v, %v : i32
  cf.br ^join
^join:
  xpu.barrier
  xpu.return
}

// A uniform while loop, and a uniform branch whose join merges uniform values.
xpu.kernel @uniform_while(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> i32 {
    %go = arith.cmpi slt, %k, %n : i32
    scf.condition(%go) %k : i32
  } do {
  ^bb0(%k: i32):
    xpu.barrier
    %next = arith.addi %k, %c1 : i32
    scf.yield %next : i32
  }
  %pos = arith.cmpi sgt, %n, %c0 : i32
  cf.cond_br %pos, ^a, ^b
^a:
  cf.br ^m(%c1 : i32)
^b:
  cf.br ^m(%c0 : i32)
^m(%x: i32):
  %again = arith.cmpi eq, %x, %c1 : i32
  scf.if %again {
    xpu.barrier
  }
  xpu.return
}

// Helpers: called with uniform arguments under uniform control.
xpu.func @sync_if(%go: i1) {
  scf.if %go {
    xpu.barrier
  }
  xpu.return
}
xpu.func @positive(%v: i32) -> i1 {
  %c0 = arith.constant 0 : i32
  %p = arith.cmpi sgt, %v, %c0 : i32
  xpu.return %p : i1
}
xpu.kernel @uniform_helpers(%n: i32) {
  %p = xpu.call @positive(%n) : (i32) -> i1
  xpu.call @sync_if(%p) : (i1) -> ()
  %t = xpu.thread_id x
  %t32 = arith.index_castui %t : index to i32
  // Divergent arguments to a helper that does not wait are fine.
  %q = xpu.call @positive(%t32) : (i32) -> i1
  xpu.return
}

// Wave operations under control uniform across the wave: the workgroup's
// decisions, and what wave reductions, votes and a broadcast from lane 0
// return.
xpu.kernel @wave_uniform(%v: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %wg = xpu.workgroup_id x
  %s = xpu.wave_reduce add %v : i32
  %first = xpu.wave_broadcast %v, %c0 : i32
  %pos = arith.cmpi sgt, %s, %first : i32
  %any = xpu.wave_vote any %pos
  scf.if %any {
    %m = xpu.wave_ballot %pos : vector<4xi32>
    %again = xpu.wave_reduce add %first : i32
  }
  %big = arith.cmpi sgt, %n, %c0 : i32
  scf.if %big {
    %t = xpu.wave_scan add %v exclusive : i32
  }
  xpu.return
}

// deterministic-v1: a barrier in a loop over the fixed grid.
xpu.kernel @deterministic(%out: !xpu.buffer<64xi32>, %k: i32)
    attributes {profile = "deterministic-v1", workgroup_size = array<i64: 64>,
                grid_size = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ki = arith.index_castui %k : i32 to index
  %g = xpu.global_id x
  scf.for %i = %c0 to %ki step %c1 {
    xpu.barrier
  }
  %s = xpu.reduce add %k sequential : i32
  xpu.store %s, %out[%g] : !xpu.buffer<64xi32>
  xpu.return
}
