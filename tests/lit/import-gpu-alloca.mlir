// RUN: xpu-opt %s -xpu-import-gpu -split-input-file -verify-diagnostics | FileCheck %s
// memref.alloca keeps its memory space through the import: workgroup memory
// is one buffer per workgroup (shared/repros/interop/t21: it became private,
// and a transpose through it was wrong), no space is the invocation's own.

// CHECK-LABEL: xpu.kernel @k
// The parameter keeps its name (xpu.name) for diagnostics.
// CHECK-SAME: (%out: !xpu.buffer<f32>)
// CHECK: xpu.alloc : !xpu.buffer<272xf32, shared>
// CHECK: xpu.alloc : !xpu.buffer<4xi32, private>
// CHECK: xpu.alloc : !xpu.buffer<2xf32, private>
gpu.module @m {
  gpu.func @k(%out: memref<?xf32> {xpu.name = "out"}) kernel {
    %tile = memref.alloca() : memref<272xf32, #gpu.address_space<workgroup>>
    %acc = memref.alloca() : memref<4xi32>
    %p = memref.alloca() : memref<2xf32, #gpu.address_space<private>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%out: memref<?xf32>) kernel {
    // expected-error @+1 {{memref.alloca in global memory is not imported}}
    %g = memref.alloca() : memref<4xf32, #gpu.address_space<global>>
    gpu.return
  }
}
