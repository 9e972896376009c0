// RUN: xpu-opt %s -xpu-lower-tiles=target=spirv -xpu-expand-reductions -xpu-expand-math="target=spirv loops-only=true" -xpu-spirv-float-atomics | FileCheck %s
// Loops that lowerings make of tile ops, reductions, ipowi and float
// min/max atomics take the loop site (xpu.loop_site) their op was given, so
// a device's loop guard (xpu-guard-loop-limit) reports them too: the loop
// budget is shared.

// CHECK-LABEL: xpu.kernel @tiles
// CHECK-NOT: xpu.tile_
// CHECK: scf.for
// CHECK: } {xpu.site = 3 : i64}
// CHECK: } {xpu.site = 3 : i64}
// CHECK: scf.for
// CHECK: } {xpu.site = 4 : i64}
// CHECK: } {xpu.site = 4 : i64}
// CHECK: scf.for
// CHECK: } {xpu.site = 5 : i64}
// CHECK: } {xpu.site = 5 : i64}
xpu.kernel @tiles(%in: !xpu.buffer<i32, ro>, %out: !xpu.buffer<i32>)
    attributes {workgroup_size = array<i64: 4, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ld = arith.constant 8 : index
  %t = xpu.tile_load %in[%c0], %ld {xpu.loop_site = 3 : i64} : !xpu.buffer<i32, ro> -> !xpu.tile<8x8xi32>
  %u = xpu.tile_add %t, %t {xpu.loop_site = 4 : i64} : !xpu.tile<8x8xi32>
  xpu.tile_store %u, %out[%c0], %ld {xpu.loop_site = 5 : i64} : !xpu.tile<8x8xi32>, !xpu.buffer<i32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @mac
// CHECK-COUNT-2: } {xpu.site = 6 : i64}
xpu.kernel @mac(%a: !xpu.buffer<f32, ro>, %c: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 4, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ld = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %acc = xpu.tile_fill %z : !xpu.tile<8x8xf32>
  %x = xpu.tile_load %a[%c0], %ld : !xpu.buffer<f32, ro> -> !xpu.tile<8x8xf32>
  %r = xpu.mac %acc, %x, %x {xpu.loop_site = 6 : i64} : !xpu.tile<8x8xf32>, !xpu.tile<8x8xf32>, !xpu.tile<8x8xf32>
  xpu.tile_store %r, %c[%c0], %ld : !xpu.tile<8x8xf32>, !xpu.buffer<f32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @reduce_and_ipowi
// CHECK: scf.while
// CHECK: } attributes {xpu.site = 7 : i64}
// CHECK: scf.while
// CHECK: } attributes {xpu.site = 7 : i64}
// CHECK: scf.while
// CHECK: } attributes {xpu.site = 8 : i64}
xpu.kernel @reduce_and_ipowi(%out: !xpu.buffer<i32>, %p: i32) {
  %i = xpu.global_id x
  %v = arith.index_castui %i : index to i32
  %s = xpu.reduce add %v unspecified {xpu.loop_site = 7 : i64} : i32
  %q = math.ipowi %s, %p {xpu.loop_site = 8 : i64} : i32
  xpu.store %q, %out[%i] : !xpu.buffer<i32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @float_max
// CHECK: scf.while
// CHECK: xpu.atomic_rmw cmpxchg
// CHECK: } attributes {xpu.site = 9 : i64}
xpu.kernel @float_max(%m: !xpu.buffer<f32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %r = xpu.atomic_rmw fmax %v, %m[%c0] relaxed device {xpu.loop_site = 9 : i64} : !xpu.buffer<f32>
  xpu.return
}
