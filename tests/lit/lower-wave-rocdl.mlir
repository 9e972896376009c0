// RUN: xpu-opt %s -xpu-lower-wave-ops="target=rocdl wave-width=64" | FileCheck %s --check-prefixes=CHECK,W64
// RUN: xpu-opt %s -xpu-lower-wave-ops="target=rocdl wave-width=32" | FileCheck %s --check-prefixes=CHECK,W32
// RUN: not xpu-opt %s -xpu-lower-wave-ops="target=rocdl wave-width=16" 2>&1 | FileCheck %s --check-prefix=BAD
// AMD, wave64 (gfx9) and wave32 (gfx10 and later): an exchange is
// ds_bpermute (addresses in bytes); butterfly steps inside 32 lanes are
// ds_swizzle in bit mode (offset xor_mask << 10 | and_mask 0x1f), across
// the halves of a wave64 ds_bpermute; ballots are llvm.amdgcn.ballot of
// the wave's width; all = the ballot equals the ballot of every live lane.

// CHECK-LABEL: xpu.kernel @shuffle
// W64: arith.andi %{{.*}}, %c-64 : index
// W32: arith.andi %{{.*}}, %c-32 : index
// CHECK: %[[ADDR:.*]] = arith.shli %{{.*}}, %c2_i32 : i32
// CHECK: rocdl.ds_bpermute %[[ADDR]], %{{.*}} : (i32, i32) -> i32
xpu.kernel @shuffle(%out: !xpu.buffer<f32>, %v: f32, %k: i32) {
  %i = xpu.global_id x
  %r = xpu.wave_shuffle index %v, %k : f32
  xpu.store %r, %out[%i] : !xpu.buffer<f32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @reduce
// CHECK: rocdl.ds_swizzle %{{.*}}, %c1055_i32 : (i32, i32) -> i32
// CHECK: rocdl.ds_swizzle %{{.*}}, %c2079_i32 : (i32, i32) -> i32
// CHECK: rocdl.ds_swizzle %{{.*}}, %c4127_i32 : (i32, i32) -> i32
// CHECK: rocdl.ds_swizzle %{{.*}}, %c8223_i32 : (i32, i32) -> i32
// CHECK: rocdl.ds_swizzle %{{.*}}, %c16415_i32 : (i32, i32) -> i32
// W64: arith.xori %{{.*}}, %c32_i32 : i32
// W64: rocdl.ds_bpermute
// CHECK: arith.maxsi
// CHECK: rocdl.ds_bpermute
xpu.kernel @reduce(%out: !xpu.buffer<i32>, %v: i32) {
  %i = xpu.global_id x
  %r = xpu.wave_reduce smax %v : i32
  xpu.store %r, %out[%i] : !xpu.buffer<i32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @votes
// W64: rocdl.ballot %{{.*}} : i64
// W64: arith.trunci %{{.*}} : i64 to i32
// W32: rocdl.ballot %{{.*}} : i32
// CHECK: vector.from_elements
// W64: %[[B:.*]] = rocdl.ballot %{{.*}} : i64
// W64: %[[ALL:.*]] = rocdl.ballot %true : i64
// W64: arith.cmpi eq, %[[B]], %[[ALL]] : i64
// W32: rocdl.ballot %true : i32
xpu.kernel @votes(%out: !xpu.buffer<i32>, %p: i1) {
  %i = xpu.global_id x
  %m = xpu.wave_ballot %p : vector<4xi32>
  xpu.store %m, %out[%i] : !xpu.buffer<i32> -> vector<4xi32>
  %b = xpu.wave_vote all %p
  %b32 = arith.extui %b : i1 to i32
  xpu.store %b32, %out[%i] : !xpu.buffer<i32>
  xpu.return
}

// BAD: error: target 'rocdl' with wave-width 16 is not one of cpu, nvvm (32), rocdl (32, 64), spirv
