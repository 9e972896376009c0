// RUN: xpu-opt %s -xpu-import-gpu | FileCheck %s
// Upstream gpu.module kernels over memrefs become xpu kernels.

// CHECK-NOT: gpu.module
// CHECK-LABEL: xpu.func @twice
// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: (%[[A:.*]]: !xpu.buffer<f32>, %[[M:.*]]: !xpu.buffer<12xi32>)
// CHECK: %[[SH:.*]] = xpu.alloc : !xpu.buffer<64xf32, shared>
// CHECK: %[[T:.*]] = xpu.thread_id x
// CHECK: xpu.load %[[A]][%[[T]]] : !xpu.buffer<f32>
// CHECK: xpu.barrier
// The 3x4 memref is linearized: row * 4 + column.
// CHECK: %[[R:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[L:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK: xpu.load %[[M]][%[[L]]] : !xpu.buffer<12xi32>
// CHECK: xpu.call @twice
// CHECK: xpu.buffer_size %[[A]]
// CHECK: xpu.return
gpu.module @m {
  func.func @twice(%x: f32) -> f32 {
    %r = arith.addf %x, %x : f32
    return %r : f32
  }
  gpu.func @k(%a: memref<?xf32>, %m: memref<3x4xi32>)
      workgroup(%sh: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %t = gpu.thread_id x
    %v = memref.load %a[%t] : memref<?xf32>
    memref.store %v, %sh[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %e = memref.load %m[%c2, %c1] : memref<3x4xi32>
    %d = func.call @twice(%v) : (f32) -> f32
    %c0 = arith.constant 0 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    gpu.return
  }
}
