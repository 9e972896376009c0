// RUN: xpu-opt %s -split-input-file | xpu-opt -split-input-file | FileCheck %s
// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-lower-wave-ops=target=cpu | FileCheck %s --check-prefix=CPU
// Wave operations print in a form that parses back; on the CPU (waves of
// one lane) each becomes its one-lane result.

// CHECK-LABEL: xpu.kernel @waves
// CPU-LABEL: xpu.kernel @waves
xpu.kernel @waves(%v: f32, %k: i32, %p: i1, %x: i64) {
  // CHECK: xpu.wave_shuffle xor %{{.*}}, %{{.*}} : f32
  // CHECK: xpu.wave_shuffle up %{{.*}}, %{{.*}} : f32
  // CHECK: xpu.wave_shuffle down %{{.*}}, %{{.*}} : i64
  // CHECK: xpu.wave_shuffle index %{{.*}}, %{{.*}} : f32
  // CHECK: xpu.wave_broadcast %{{.*}}, %{{.*}} : f32
  // CHECK: xpu.wave_ballot %{{.*}} : vector<4xi32>
  // CHECK: xpu.wave_vote any %{{.*}}
  // CHECK: xpu.wave_vote all %{{.*}}
  // CHECK: xpu.wave_reduce add %{{.*}} : f32
  // CHECK: xpu.wave_reduce umax %{{.*}} : i64
  // CHECK: xpu.wave_scan fmin %{{.*}} inclusive : f32
  // CHECK: xpu.wave_scan xor %{{.*}} exclusive : i64
  // CPU-NOT: xpu.wave_
  // CPU: %[[BIT:.*]] = arith.extui %{{.*}} : i1 to i32
  // CPU: vector.from_elements %[[BIT]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>
  // CPU: arith.constant 0 : i64
  %a = xpu.wave_shuffle xor %v, %k : f32
  %b = xpu.wave_shuffle up %v, %k : f32
  %c = xpu.wave_shuffle down %x, %k : i64
  %d = xpu.wave_shuffle index %v, %k : f32
  %e = xpu.wave_broadcast %v, %k : f32
  %m = xpu.wave_ballot %p : vector<4xi32>
  %any = xpu.wave_vote any %p
  %all = xpu.wave_vote all %p
  %s = xpu.wave_reduce add %v : f32
  %u = xpu.wave_reduce umax %x : i64
  %f = xpu.wave_scan fmin %v inclusive : f32
  %g = xpu.wave_scan xor %x exclusive : i64
  xpu.return
}
