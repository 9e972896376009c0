// RUN: xpu-opt %s -xpu-lower-wave-ops="target=nvvm wave-width=32 chip=sm_90" | FileCheck %s
// RUN: xpu-opt %s -xpu-lower-wave-ops="target=nvvm wave-width=32 chip=sm_75" | FileCheck %s --check-prefix=SM75
// RUN: xpu-opt %s -xpu-lower-wave-ops="target=nvvm wave-width=32 chip=sm_90" -xpu-lower-execution-model="target=nvvm wave-width=32" -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=nvvm | FileCheck %s --check-prefix=LLVM
// NVIDIA: every exchange is shfl.sync whose member mask is the wave's live
// lanes, computed from the linear invocation index (a partial last warp
// names only its lanes); a source outside them reads the lane itself;
// 32-bit integer reductions are redux.sync from sm_80, other reductions a
// butterfly toward lane 0 and a broadcast; scans sweep upward.

// CHECK-LABEL: xpu.kernel @shuffle
// The live-lane count and mask: min(32, invocations - wave start).
// CHECK: %[[START:.*]] = arith.andi %{{.*}}, %c-32 : index
// CHECK: arith.minui %c32, %{{.*}} : index
// CHECK: %[[MASK:.*]] = arith.select %{{.*}}, %c-1_i32, %{{.*}} : i32
// CHECK: %[[SRC:.*]] = arith.xori %{{.*}}, %{{.*}} : i32
// CHECK: %[[LIVE:.*]] = arith.cmpi ult, %[[SRC]], %{{.*}} : i32
// CHECK: %[[FROM:.*]] = arith.select %[[LIVE]], %[[SRC]], %{{.*}} : i32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: nvvm.shfl.sync  idx %[[MASK]], %[[BITS]], %[[FROM]], %{{.*}} : i32 -> i32
// LLVM-LABEL: llvm.func @shuffle
// LLVM: nvvm.read.ptx.sreg.tid.x
// LLVM: nvvm.shfl.sync  idx
xpu.kernel @shuffle(%out: !xpu.buffer<f32>, %v: f32, %k: i32) {
  %i = xpu.global_id x
  %r = xpu.wave_shuffle xor %v, %k : f32
  xpu.store %r, %out[%i] : !xpu.buffer<f32>
  xpu.return
}

// 64-bit values travel as two halves from the same lane.
// CHECK-LABEL: xpu.kernel @wide
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: nvvm.shfl.sync  idx
// CHECK: arith.shrui %{{.*}}, %c32_i64 : i64
// CHECK: nvvm.shfl.sync  idx
// CHECK: arith.shli %{{.*}}, %c32_i64{{.*}} : i64
xpu.kernel @wide(%out: !xpu.buffer<i64>, %v: i64, %k: i32) {
  %i = xpu.global_id x
  %r = xpu.wave_shuffle down %v, %k : i64
  xpu.store %r, %out[%i] : !xpu.buffer<i64>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @reduce
// CHECK: nvvm.redux.sync  add %{{.*}}, %{{.*}} : i32 -> i32
// SM75-LABEL: xpu.kernel @reduce
// SM75-NOT: nvvm.redux.sync
// SM75-COUNT-5: nvvm.shfl.sync  bfly
// SM75: nvvm.shfl.sync  idx
// Floats: a butterfly of 5 steps, each taken only from a live lane, then
// lane 0's value for everyone.
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c1_i32{{.*}}, %c31_i32
// CHECK: arith.maximumf
// CHECK: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %c16_i32, %c31_i32
// CHECK: nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %c0_i32, %c31_i32
xpu.kernel @reduce(%out: !xpu.buffer<i32>, %fout: !xpu.buffer<f32>, %v: i32, %f: f32) {
  %i = xpu.global_id x
  %r = xpu.wave_reduce add %v : i32
  xpu.store %r, %out[%i] : !xpu.buffer<i32>
  %s = xpu.wave_reduce fmax %f : f32
  xpu.store %s, %fout[%i] : !xpu.buffer<f32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @scan
// CHECK-COUNT-5: nvvm.shfl.sync  idx
// The exclusive scan: the inclusive one from the lane below, the identity
// in lane 0.
// CHECK: nvvm.shfl.sync  idx
// CHECK: arith.select %{{.*}}, %{{.*}}, %c0_i32 : i32
xpu.kernel @scan(%out: !xpu.buffer<i32>, %v: i32) {
  %i = xpu.global_id x
  %r = xpu.wave_scan add %v exclusive : i32
  xpu.store %r, %out[%i] : !xpu.buffer<i32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @votes
// CHECK: nvvm.vote.sync  ballot %{{.*}}, %{{.*}} -> i32
// CHECK: vector.from_elements %{{.*}}, %c0_i32{{.*}}, %c0_i32{{.*}}, %c0_i32{{.*}} : vector<4xi32>
// CHECK: nvvm.vote.sync  any %{{.*}}, %{{.*}} -> i1
// CHECK: nvvm.vote.sync  all %{{.*}}, %{{.*}} -> i1
xpu.kernel @votes(%out: !xpu.buffer<i32>, %p: i1) {
  %i = xpu.global_id x
  %m = xpu.wave_ballot %p : vector<4xi32>
  xpu.store %m, %out[%i] : !xpu.buffer<i32> -> vector<4xi32>
  %a = xpu.wave_vote any %p
  %b = xpu.wave_vote all %p
  xpu.return
}
