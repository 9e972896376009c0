// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// Several rules fail at once; the RFC's precedence decides which one is
// reported, and only that one. Each kernel is refused on its own.
// CHECK-DAG: precedence.mlir:8:1: error: XPU-GC001: kernel 'effects_first'
// CHECK-DAG: precedence.mlir:16:35: error: XPU-GC004: kernel 'types_before_capacity'
// CHECK-DAG: precedence.mlir:21:32: error: XPU-GC005: kernel 'modes_before_shape'
// CHECK-DAG: precedence.mlir:29:3: error: XPU-GC012: kernel 'body_in_order'
xpu.kernel @effects_first(%a: !xpu.buffer<f32, owned>, %n: f32)
    attributes {profile = "deterministic-v1", effects = ["Network"],
                workgroup_size = array<i64: 4096, 1, 1>} {
  %i = xpu.global_id x
  %v = xpu.load %a[%i] : !xpu.buffer<f32, owned>
  xpu.return
}

xpu.kernel @types_before_capacity(%a: !xpu.buffer<33554432xf32>)
    attributes {profile = "deterministic-v1"} {
  xpu.return
}

xpu.kernel @modes_before_shape(%a: !xpu.buffer<i32, alias>)
    attributes {profile = "deterministic-v1", workgroup_size = array<i64: 0, 1, 1>} {
  xpu.return
}

xpu.kernel @body_in_order(%a: !xpu.buffer<i32>, %n: i32)
    attributes {profile = "deterministic-v1"} {
  %i = xpu.global_id x
  xpu.host_effect "print" %n : i32
  %f = arith.constant 2.0 : f32
  %v = xpu.load %a[%i] : !xpu.buffer<i32>
  xpu.return
}
