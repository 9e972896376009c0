// RUN: xpu-opt %s | xpu-opt | FileCheck %s
// The dialect's types and ops print in a form that parses back.

// CHECK-LABEL: xpu.kernel @types
// CHECK-SAME: (%{{.*}}: !xpu.buffer<f32>, %{{.*}}: !xpu.buffer<i32, ro>, %{{.*}}: !xpu.buffer<1024xi64, ro>, %{{.*}}: !xpu.buffer<i8, owned>, %{{.*}}: vector<4xi32>)
xpu.kernel @types(%a: !xpu.buffer<f32, global, rw>, %b: !xpu.buffer<i32, ro>,
                  %c: !xpu.buffer<1024xi64, ro, global>, %d: !xpu.buffer<i8, owned>,
                  %e: vector<4xi32>) {
  // CHECK: xpu.alloc : !xpu.buffer<256xf32, shared>
  %s = xpu.alloc : !xpu.buffer<256xf32, shared>
  // CHECK: xpu.alloc : !xpu.buffer<4xi32, private>
  %p = xpu.alloc : !xpu.buffer<4xi32, private>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @ops
xpu.kernel @ops(%a: !xpu.buffer<f32>, %n: i32) attributes {profile = "portable", workgroup_size = array<i64: 64, 1, 1>} {
  // CHECK: xpu.thread_id x
  // CHECK: xpu.workgroup_id y
  // CHECK: xpu.global_id z
  // CHECK: xpu.workgroup_size x
  // CHECK: xpu.grid_size x
  // CHECK: xpu.global_size x
  // CHECK: xpu.wave_width
  // CHECK: xpu.lane_id
  %t = xpu.thread_id x
  %w = xpu.workgroup_id y
  %g = xpu.global_id z
  %ws = xpu.workgroup_size x
  %gs = xpu.grid_size x
  %gl = xpu.global_size x
  %ww = xpu.wave_width
  %l = xpu.lane_id
  // CHECK: %[[V:.*]] = xpu.load %{{.*}}[%{{.*}}] : !xpu.buffer<f32>
  // CHECK: xpu.load %{{.*}}[%{{.*}}] : !xpu.buffer<f32> -> vector<4xf32>
  // CHECK: xpu.store %[[V]], %{{.*}}[%{{.*}}] : !xpu.buffer<f32>
  // CHECK: xpu.buffer_size %{{.*}} : !xpu.buffer<f32>
  %v = xpu.load %a[%t] : !xpu.buffer<f32>
  %v4 = xpu.load %a[%t] : !xpu.buffer<f32> -> vector<4xf32>
  xpu.store %v, %a[%t] : !xpu.buffer<f32>
  %sz = xpu.buffer_size %a : !xpu.buffer<f32>
  // CHECK: xpu.barrier
  xpu.barrier
  // CHECK: xpu.atomic_rmw fadd %{{.*}}, %{{.*}}[%{{.*}}] relaxed workgroup : !xpu.buffer<f32>
  %old = xpu.atomic_rmw fadd %v, %a[%t] relaxed workgroup : !xpu.buffer<f32>
  // CHECK: xpu.reduce add %{{.*}} sequential : i32
  %r = xpu.reduce add %n sequential : i32
  // CHECK: xpu.host_effect "print"
  xpu.host_effect "print" %n : i32
  xpu.return
}

// CHECK-LABEL: xpu.func @helper
// CHECK: xpu.call @helper
xpu.func @helper(%x: i32) -> i32 {
  xpu.return %x : i32
}
xpu.kernel @caller(%n: i32) {
  %r = xpu.call @helper(%n) : (i32) -> i32
  xpu.return
}
