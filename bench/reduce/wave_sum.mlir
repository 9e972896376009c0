// The f32 sum of bench/reduce: each workgroup sums its grid-stride slice of
// `in` into out[workgroup]. Every invocation keeps four float4 accumulators
// (four independent 16-byte loads in flight per iteration), folds them,
// then a wave reduction per wave, the waves' sums in shared memory, and
// wave 0 folds those. Run twice: over the data with many workgroups, then
// over their partial sums with one.
xpu.kernel @wave_sum(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
  %gid = xpu.global_id x
  %gsize = xpu.global_size x
  %t = xpu.thread_id x
  %wg = xpu.workgroup_id x
  %size = xpu.workgroup_size x
  %width = xpu.wave_width
  %lane = xpu.lane_id
  %n = xpu.buffer_size %in : !xpu.buffer<f32, ro>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %vzero = arith.constant dense<0.0> : vector<4xf32>
  // Iteration k reads float4 number gid + (4k + j) * gsize, j = 0..3.
  %quad = arith.muli %gsize, %c4 : index
  %stride = arith.muli %gsize, %c16 : index
  %start = arith.muli %gid, %c4 : index
  %rounds = arith.divui %n, %stride : index
  %end = arith.muli %rounds, %stride : index
  %acc:4 = scf.for %i = %start to %end step %stride
      iter_args(%a0 = %vzero, %a1 = %vzero, %a2 = %vzero, %a3 = %vzero)
      -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
    %i1 = arith.addi %i, %quad : index
    %q2 = arith.muli %quad, %c2 : index
    %i2 = arith.addi %i, %q2 : index
    %q3 = arith.muli %quad, %c3 : index
    %i3 = arith.addi %i, %q3 : index
    %v0 = xpu.load %in[%i] : !xpu.buffer<f32, ro> -> vector<4xf32>
    %v1 = xpu.load %in[%i1] : !xpu.buffer<f32, ro> -> vector<4xf32>
    %v2 = xpu.load %in[%i2] : !xpu.buffer<f32, ro> -> vector<4xf32>
    %v3 = xpu.load %in[%i3] : !xpu.buffer<f32, ro> -> vector<4xf32>
    %b0 = arith.addf %a0, %v0 : vector<4xf32>
    %b1 = arith.addf %a1, %v1 : vector<4xf32>
    %b2 = arith.addf %a2, %v2 : vector<4xf32>
    %b3 = arith.addf %a3, %v3 : vector<4xf32>
    scf.yield %b0, %b1, %b2, %b3 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  }
  // The rest, [end, n), one float at a time.
  %first = arith.addi %end, %gid : index
  %rest = scf.for %j = %first to %n step %gsize iter_args(%r = %zero) -> (f32) {
    %x = xpu.load %in[%j] : !xpu.buffer<f32, ro>
    %r2 = arith.addf %r, %x : f32
    scf.yield %r2 : f32
  }
  %s01 = arith.addf %acc#0, %acc#1 : vector<4xf32>
  %s23 = arith.addf %acc#2, %acc#3 : vector<4xf32>
  %s = arith.addf %s01, %s23 : vector<4xf32>
  %lanes = vector.reduction <add>, %s : vector<4xf32> into f32
  %mine = arith.addf %lanes, %rest : f32
  %wave_sum = xpu.wave_reduce add %mine : f32
  %partials = xpu.alloc : !xpu.buffer<1024xf32, shared>
  %wave = arith.divui %t, %width : index
  %is_lane0 = arith.cmpi eq, %lane, %c0 : index
  scf.if %is_lane0 {
    xpu.store %wave_sum, %partials[%wave] : !xpu.buffer<1024xf32, shared>
  }
  xpu.barrier
  %waves = arith.ceildivui %size, %width : index
  // Wave 0 decides by lane 0's wave index, the same in every lane of a
  // wave: the wave reduction below needs wave-uniform control (XPU-UC001).
  %c0i = arith.constant 0 : i32
  %wave32 = arith.index_castui %wave : index to i32
  %wave_u = xpu.wave_broadcast %wave32, %c0i : i32
  %is_wave0 = arith.cmpi eq, %wave_u, %c0i : i32
  scf.if %is_wave0 {
    %total = scf.for %c = %c0 to %waves step %width iter_args(%acc2 = %zero) -> (f32) {
      %k = arith.addi %c, %lane : index
      %has = arith.cmpi ult, %k, %waves : index
      %p = scf.if %has -> f32 {
        %y = xpu.load %partials[%k] : !xpu.buffer<1024xf32, shared>
        scf.yield %y : f32
      } else {
        scf.yield %zero : f32
      }
      %w = xpu.wave_reduce add %p : f32
      %next = arith.addf %acc2, %w : f32
      scf.yield %next : f32
    }
    scf.if %is_lane0 {
      xpu.store %total, %out[%wg] : !xpu.buffer<f32>
    }
  }
  xpu.return
}
