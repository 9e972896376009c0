// RUN: xpu-opt %s -split-input-file -verify-diagnostics -xpu-lower-execution-model=target=cpu | FileCheck %s
// On the CPU a kernel runs once per workgroup (after xpu-cpu-work-item-loops):
// its workgroup's coordinates come from the launch record, shared scratch is
// a slice of the shared block, and helpers get the launch record too.

// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: (%[[OUT:.*]]: !xpu.buffer<i32>, %[[IN:.*]]: !xpu.buffer<i32, ro>, %[[N:.*]]: i32, %[[L:.*]]: !llvm.ptr, %[[SH:.*]]: !llvm.ptr)
// CHECK-SAME: xpu.buffer_access = array<i32: 0, 1, -1>
// CHECK-SAME: xpu.shared_bytes = 288
xpu.kernel @k(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
  // CHECK: %[[WGP:.*]] = llvm.getelementptr %[[L]][4] : (!llvm.ptr) -> !llvm.ptr, i8
  // The workgroup id is a plain load: the entry point rewrites it between
  // the workgroups it runs (xpu-cpu-wrappers).
  // CHECK: llvm.load %[[WGP]] : !llvm.ptr -> i32
  %w = xpu.workgroup_id y
  // CHECK: llvm.getelementptr %[[L]][20]
  %b = xpu.workgroup_size z
  // CHECK: %[[S0:.*]] = llvm.getelementptr %[[SH]][0] : (!llvm.ptr) -> !llvm.ptr, i8
  // CHECK: xpu.view %[[S0]] : !llvm.ptr -> !xpu.buffer<65xi32, shared>
  %s = xpu.alloc : !xpu.buffer<65xi32, shared>
  // The second allocation starts at the next 16-byte boundary after 260 bytes.
  // CHECK: llvm.getelementptr %[[SH]][272] : (!llvm.ptr) -> !llvm.ptr, i8
  %s2 = xpu.alloc : !xpu.buffer<1xi8, shared>
  // CHECK: arith.constant 1 : index
  %ww = xpu.wave_width
  // CHECK: arith.constant 0 : index
  %lane = xpu.lane_id
  // CHECK: xpu.call @h(%[[L]]) : (!llvm.ptr) -> index
  %g = xpu.call @h() : () -> index
  xpu.return
}

// CHECK-LABEL: xpu.func @h
// CHECK-SAME: (%[[HL:.*]]: !llvm.ptr) -> index
xpu.func @h() -> index {
  // CHECK: llvm.getelementptr %[[HL]][24]
  %n = xpu.grid_size x
  xpu.return %n : index
}

// -----

// Barriers and thread ids must be gone (xpu-cpu-work-item-loops).
xpu.kernel @stale() {
  // expected-error @+1 {{remains for the CPU; run xpu-cpu-work-item-loops first}}
  xpu.barrier
  xpu.return
}
