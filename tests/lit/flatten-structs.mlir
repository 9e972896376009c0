// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-flatten-structs | FileCheck %s
// A struct parameter becomes one parameter per field, named param.field and
// marked with its C offset and the struct's size; xpu.struct_get becomes
// the field's parameter. (xpu.name is what the kernel parser records for
// each parameter's source name; xpu-opt's generic parse does not.)

// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: (%out: !xpu.buffer<f32>, %p.a: f32 {xpu.struct_field = {bytes = 32 : i64, offset = 0 : i64, struct = "p", type = "P"}},
// CHECK-SAME: %p.v: vector<3xf32> {xpu.struct_field = {bytes = 32 : i64, offset = 4 : i64, struct = "p", type = "P"}},
// CHECK-SAME: %p.flag: i1 {xpu.struct_field = {bytes = 32 : i64, offset = 16 : i64, struct = "p", type = "P"}},
// CHECK-SAME: %p.big: i64 {xpu.struct_field = {bytes = 32 : i64, offset = 24 : i64, struct = "p", type = "P"}},
// CHECK-SAME: %n: i32)
// CHECK-NOT: xpu.struct_get
// CHECK: xpu.store %p.a, %out
xpu.kernel @k(%out: !xpu.buffer<f32> {xpu.name = "out"},
              %p: !xpu.struct<"P", a: f32, v: vector<3xf32>, flag: i1, big: i64> {xpu.name = "p"},
              %n: i32 {xpu.name = "n"}) {
  %a = xpu.struct_get %p["a"] : !xpu.struct<"P", a: f32, v: vector<3xf32>, flag: i1, big: i64> -> f32
  %i = xpu.global_id x
  xpu.store %a, %out[%i] : !xpu.buffer<f32>
  xpu.return
}

// -----

xpu.kernel @k(%p: !xpu.struct<"P", a: f32>) {
  // expected-error @+1 {{struct 'P' has no field 'b'}}
  %b = xpu.struct_get %p["b"] : !xpu.struct<"P", a: f32> -> f32
  xpu.return
}

// -----

// expected-error @+1 {{field 'b' of struct 'P' has type 'index'}}
xpu.kernel @k(%p: !xpu.struct<"P", a: f32, b: index>) {
  xpu.return
}
