// RUN: xpu-opt %s -xpu-lower-execution-model=target=cpu | FileCheck %s
// On the CPU, coordinates come from hidden parameters and the launch record,
// barriers call the runtime, and shared scratch is a slice of the launch's
// shared block.

// CHECK: llvm.func @__xpu_cpu_barrier(!llvm.ptr)
// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: (%[[OUT:.*]]: !xpu.buffer<i32>, %[[L:.*]]: !llvm.ptr, %[[TX:.*]]: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK-SAME: xpu.barriers
// CHECK-SAME: xpu.shared_bytes = 288
xpu.kernel @k(%out: !xpu.buffer<i32>) {
  // CHECK: %[[T:.*]] = arith.index_castui %[[TX]] : i32 to index
  %t = xpu.thread_id x
  // CHECK: %[[WGP:.*]] = llvm.getelementptr %[[L]][4] : (!llvm.ptr) -> !llvm.ptr, i8
  // CHECK: llvm.load %[[WGP]] invariant : !llvm.ptr -> i32
  %w = xpu.workgroup_id y
  // CHECK: llvm.getelementptr %[[L]][40]
  // CHECK: %[[S0:.*]] = llvm.getelementptr %{{.*}}[0] : (!llvm.ptr) -> !llvm.ptr, i8
  // CHECK: xpu.view %[[S0]] : !llvm.ptr -> !xpu.buffer<65xi32, shared>
  %s = xpu.alloc : !xpu.buffer<65xi32, shared>
  // The second allocation starts at the next 16-byte boundary after 260 bytes.
  // CHECK: llvm.getelementptr %{{.*}}[272] : (!llvm.ptr) -> !llvm.ptr, i8
  %s2 = xpu.alloc : !xpu.buffer<1xi8, shared>
  // CHECK: llvm.call @__xpu_cpu_barrier(%[[L]])
  xpu.barrier
  // CHECK: arith.constant 1 : index
  %ww = xpu.wave_width
  xpu.return
}
