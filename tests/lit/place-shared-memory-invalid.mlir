// RUN: not xpu-opt %s -xpu-place-shared-memory 2>&1 | FileCheck %s
//
// A helper's dynamic shared memory would start at the window's base, where
// a placed kernel keeps its own buffers: refused, at the helper's op.

// CHECK: error: 'xpu.dynamic_shared' op is in a helper function, and kernel 'big' of this module has more than 49152 bytes of shared memory
xpu.func @helper(%bytes: index) -> f32 {
  %c0 = arith.constant 0 : index
  %d = xpu.dynamic_shared %bytes : !xpu.buffer<f32, shared>
  %v = xpu.load %d[%c0] : !xpu.buffer<f32, shared>
  xpu.return %v : f32
}

xpu.kernel @big(%out: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = xpu.alloc : !xpu.buffer<16384xf32, shared>
  %v = xpu.load %a[%c0] : !xpu.buffer<16384xf32, shared>
  xpu.store %v, %out[%c0] : !xpu.buffer<f32>
  xpu.return
}
