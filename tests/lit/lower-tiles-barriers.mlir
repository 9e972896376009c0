// RUN: xpu-opt %s -xpu-lower-tiles | FileCheck %s
// xpu-lower-tiles removes the barriers that order nothing in a kernel with
// tiles: a barrier with another barrier before it in its block, where no
// access between the two must stay ordered with one between it and the
// next barrier (a write to the same shared allocation, or global memory
// written on one side and touched on the other). The others stay.

// CHECK-LABEL: xpu.kernel @barriers
// The fill's leading barrier stays; its trailing one and the user's first
// order nothing (only the fill's own buffer is written before them).
// CHECK: xpu.barrier
// CHECK-NOT: xpu.barrier
// CHECK: xpu.store %{{.*}}, %[[X:[0-9]+]][%{{.*}}] : !xpu.buffer<32xf32, shared>
// Kept: X written before, read after.
// CHECK-NEXT: xpu.barrier
// CHECK-NEXT: xpu.load %[[X]]
// CHECK-NEXT: xpu.store %{{.*}}, %[[Y:[0-9]+]][%{{.*}}] : !xpu.buffer<32xf32, shared>
// Removed: Y written before, only X (read on both sides) after.
// CHECK-NEXT: xpu.load %[[X]]
// CHECK-NEXT: xpu.store %{{.*}}, %arg0
// Kept: global memory written before and read after.
// CHECK-NEXT: xpu.barrier
// CHECK-NEXT: xpu.load %arg0
xpu.kernel @barriers(%g: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %i = xpu.thread_id x
  %x = xpu.alloc : !xpu.buffer<32xf32, shared>
  %y = xpu.alloc : !xpu.buffer<32xf32, shared>
  %t = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  xpu.barrier
  xpu.store %z, %x[%i] : !xpu.buffer<32xf32, shared>
  xpu.barrier
  %v = xpu.load %x[%o] : !xpu.buffer<32xf32, shared>
  xpu.store %v, %y[%i] : !xpu.buffer<32xf32, shared>
  xpu.barrier
  %w = xpu.load %x[%i] : !xpu.buffer<32xf32, shared>
  xpu.store %w, %g[%i] : !xpu.buffer<f32>
  xpu.barrier
  %u = xpu.load %g[%o] : !xpu.buffer<f32>
  xpu.store %u, %y[%o] : !xpu.buffer<32xf32, shared>
  xpu.barrier
  xpu.tile_store %t, %g[%o], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}
