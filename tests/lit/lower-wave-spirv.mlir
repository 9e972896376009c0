// RUN: xpu-opt %s -xpu-lower-wave-ops=target=spirv | FileCheck %s
// RUN: xpu-opt %s -xpu-prepare-lowering=status-type=buffer -xpu-lower-wave-ops=target=spirv -xpu-to-spirv=index-bits=64 | FileCheck %s --check-prefix=SPV
// Vulkan: reductions and scans are GroupNonUniform arithmetic over the
// active lanes; float min/max compare the floats as integers that order
// like them (SPIR-V leaves NaNs and the order of zeros to the device), with
// a NaN flag; a shuffle's source must be an active lane (a ballot of
// everyone), 64-bit integers are exchanged as two halves (no extended
// subgroup types needed), f64 whole.

module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.5,
    [Shader, Int64, Float64, GroupNonUniform, GroupNonUniformArithmetic,
     GroupNonUniformBallot, GroupNonUniformShuffle, GroupNonUniformVote],
    [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {

// CHECK-LABEL: xpu.kernel @shuffle
// CHECK: %[[LANE:.*]] = arith.index_castui %{{.*}} : index to i32
// CHECK: %[[SRC:.*]] = arith.addi %[[LANE]], %{{.*}} : i32
// CHECK: %[[ACTIVE:.*]] = spirv.GroupNonUniformBallot <Subgroup> %true : vector<4xi32>
// CHECK: vector.extract %[[ACTIVE]][%{{.*}}] : i32 from vector<4xi32>
// CHECK: %[[FROM:.*]] = arith.select %{{.*}}, %[[SRC]], %[[LANE]] : i32
// CHECK: spirv.GroupNonUniformShuffle <Subgroup> %{{.*}}, %[[FROM]] : f64, i32
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: spirv.GroupNonUniformShuffle <Subgroup> %{{.*}}, %{{.*}} : i32, i32
// CHECK: spirv.GroupNonUniformShuffle <Subgroup> %{{.*}}, %{{.*}} : i32, i32
// SPV-LABEL: spirv.func @shuffle
// SPV: spirv.VectorExtractDynamic
// SPV: spirv.GroupNonUniformShuffle <Subgroup> %{{.*}}, %{{.*}} : f64, i32
xpu.kernel @shuffle(%out: !xpu.buffer<f64>, %o64: !xpu.buffer<i64>, %v: f64, %x: i64, %k: i32) {
  %i = xpu.global_id x
  %r = xpu.wave_shuffle down %v, %k : f64
  xpu.store %r, %out[%i] : !xpu.buffer<f64>
  %y = xpu.wave_broadcast %x, %k : i64
  xpu.store %y, %o64[%i] : !xpu.buffer<i64>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @reduce
// CHECK-NOT: spirv.GroupNonUniformBallot
// CHECK: spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %{{.*}} : i32 -> i32
// CHECK: spirv.GroupNonUniformBitwiseXor <Subgroup> <InclusiveScan> %{{.*}} : i64 -> i64
// CHECK: spirv.GroupNonUniformFMul <Subgroup> <ExclusiveScan> %{{.*}} : f32 -> f32
// The min: keys with the magnitude bits of negatives flipped.
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[SIGN:.*]] = arith.shrsi %[[BITS]], %c31_i32 : i32
// CHECK: %[[FLIP:.*]] = arith.andi %[[SIGN]], %c2147483647_i32 : i32
// CHECK: %[[KEY:.*]] = arith.xori %[[BITS]], %[[FLIP]] : i32
// CHECK: spirv.GroupNonUniformSMin <Subgroup> <Reduce> %[[KEY]] : i32 -> i32
// CHECK: arith.cmpf uno
// CHECK: spirv.GroupNonUniformUMax <Subgroup> <Reduce> %{{.*}} : i32 -> i32
// CHECK: arith.select %{{.*}}, %cst{{.*}}, %{{.*}} : f32
xpu.kernel @reduce(%out: !xpu.buffer<i32>, %o64: !xpu.buffer<i64>, %fout: !xpu.buffer<f32>,
                   %v: i32, %x: i64, %f: f32) {
  %i = xpu.global_id x
  %r = xpu.wave_reduce add %v : i32
  xpu.store %r, %out[%i] : !xpu.buffer<i32>
  %s = xpu.wave_scan xor %x inclusive : i64
  xpu.store %s, %o64[%i] : !xpu.buffer<i64>
  %p = xpu.wave_scan mul %f exclusive : f32
  xpu.store %p, %fout[%i] : !xpu.buffer<f32>
  %m = xpu.wave_reduce fmin %f : f32
  xpu.store %m, %fout[%i] : !xpu.buffer<f32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @votes
// CHECK: spirv.GroupNonUniformBallot <Subgroup> %{{.*}} : vector<4xi32>
// CHECK: spirv.GroupNonUniformAny <Subgroup> %{{.*}} : i1
// CHECK: spirv.GroupNonUniformAll <Subgroup> %{{.*}} : i1
xpu.kernel @votes(%out: !xpu.buffer<i32>, %p: i1) {
  %i = xpu.global_id x
  %m = xpu.wave_ballot %p : vector<4xi32>
  xpu.store %m, %out[%i] : !xpu.buffer<i32> -> vector<4xi32>
  %a = xpu.wave_vote any %p
  %b = xpu.wave_vote all %p
  %ab = arith.andi %a, %b : i1
  %ab32 = arith.extui %ab : i1 to i32
  xpu.store %ab32, %out[%i] : !xpu.buffer<i32>
  xpu.return
}

}
