// RUN: xpu-opt %s -split-input-file -xpu-zero-scratch -xpu-cpu-work-item-loops | FileCheck %s
// Shared scratch starts as zeros; on the CPU the zero fill is dropped when
// every invocation overwrites its own element before anyone reads it.

// Each invocation stores s[t] first: no zero can be seen, no fill remains.
// CHECK-LABEL: xpu.kernel @overwritten
// CHECK-NOT: arith.constant 0 : i32
// CHECK: xpu.load %{{.*}} : !xpu.buffer<i32, ro>
// CHECK: xpu.store %{{.*}} : !xpu.buffer<64xi32, shared>
// CHECK: xpu.return
xpu.kernel @overwritten(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<64xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  xpu.store %v, %s[%t] : !xpu.buffer<64xi32, shared>
  xpu.barrier
  %c63 = arith.constant 63 : index
  %r = arith.subi %c63, %t : index
  %w = xpu.load %s[%r] : !xpu.buffer<64xi32, shared>
  xpu.store %w, %out[%g] : !xpu.buffer<i32>
  xpu.return
}

// -----

// A read before the next barrier may see an element another invocation has
// not written yet (zero), a buffer larger than the workgroup keeps zeros
// past it, a store under a condition may not happen: each keeps its fill.
// CHECK-LABEL: xpu.kernel @read_early
// CHECK: arith.constant 0 : i32
// CHECK: xpu.store %{{.*}} : !xpu.buffer<64xi32, shared>
// CHECK: xpu.load %{{.*}} : !xpu.buffer<64xi32, shared>
// CHECK-LABEL: xpu.kernel @larger
// CHECK: arith.constant 0 : i32
// CHECK: xpu.store %{{.*}} : !xpu.buffer<128xi32, shared>
// CHECK-LABEL: xpu.kernel @conditional
// CHECK: arith.constant 0 : i32
// CHECK: xpu.store %{{.*}} : !xpu.buffer<64xi32, shared>
xpu.kernel @read_early(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<64xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  xpu.store %v, %s[%t] : !xpu.buffer<64xi32, shared>
  %c63 = arith.constant 63 : index
  %r = arith.subi %c63, %t : index
  %w = xpu.load %s[%r] : !xpu.buffer<64xi32, shared>
  xpu.store %w, %out[%g] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @larger(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<128xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  xpu.store %v, %s[%t] : !xpu.buffer<128xi32, shared>
  xpu.barrier
  %c64 = arith.constant 64 : index
  %r = arith.addi %c64, %t : index
  %w = xpu.load %s[%r] : !xpu.buffer<128xi32, shared>
  xpu.store %w, %out[%g] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @conditional(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<64xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  %c32 = arith.constant 32 : index
  %low = arith.cmpi ult, %t, %c32 : index
  scf.if %low {
    xpu.store %v, %s[%t] : !xpu.buffer<64xi32, shared>
  }
  xpu.barrier
  %w = xpu.load %s[%t] : !xpu.buffer<64xi32, shared>
  xpu.store %w, %out[%g] : !xpu.buffer<i32>
  xpu.return
}
