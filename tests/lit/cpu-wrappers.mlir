// RUN: xpu-opt %s -split-input-file -xpu-cpu-wrappers | FileCheck %s
// The CPU entry point of a kernel runs a range of workgroups, calling the
// one-workgroup function for each: a small static shared block is an array
// in that function's own frame (LLVM forwards its stores to its loads and
// drops them), except for the out-of-line body without `noalias`, which takes
// the thread's block so the array does not escape; a large one stays in the
// thread's block.

// CHECK: llvm.mlir.global external constant @small.xpu_shared_bytes(1024 : i64)
// CHECK: llvm.mlir.global external constant @small.xpu_stack_bytes(1040 : i64)
// One workgroup, compiled on its own and inlined last:
// CHECK-LABEL: llvm.func internal @small.xpu_group
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %[[L:.*]]: !llvm.ptr)
// CHECK-SAME: no_inline, passthrough = ["xpu-inline-late"]
// CHECK: %[[BLOCKAT:.*]] = llvm.getelementptr %[[L]][40]
// CHECK: %[[BLOCK:.*]] = llvm.load %[[BLOCKAT]] invariant
// CHECK: %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1024 x i8> {alignment = 16 : i64}
// CHECK: llvm.call @small(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[L]], %[[ARRAY]], %{{.*}})
// CHECK: llvm.call @small.may_alias(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[L]], %[[BLOCK]], %{{.*}})
// The entry point: the workgroups [begin, end) in one loop, x fastest, each
// one's id written into the launch record before its body runs.
// CHECK-LABEL: llvm.func @small.xpu_wg
// CHECK-SAME: (%[[ARGS:.*]]: !llvm.ptr, %[[L2:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK: %[[GX:.*]] = llvm.zext
// CHECK: %[[GY:.*]] = llvm.zext
// CHECK: llvm.udiv %[[BEGIN]], %[[GX]]
// CHECK: %[[X0:.*]] = llvm.urem %[[BEGIN]], %[[GX]]
// CHECK: llvm.br ^[[HEAD:.*]](%[[BEGIN]], %[[X0]],
// CHECK: ^[[HEAD]](%[[AT:.*]]: i64, %[[X:.*]]: i64, %{{.*}}: i64, %{{.*}}: i64):
// CHECK: llvm.icmp "ult" %[[AT]], %[[END]]
// CHECK: %[[XI:.*]] = llvm.trunc %[[X]] : i64 to i32
// CHECK: %[[WGX:.*]] = llvm.getelementptr %[[L2]][0]
// CHECK: llvm.store %[[XI]], %[[WGX]]
// CHECK: llvm.getelementptr %[[L2]][4]
// CHECK: llvm.getelementptr %[[L2]][8]
// CHECK: llvm.call @small.xpu_group(%[[ARGS]], %[[L2]])
// CHECK: %[[X1:.*]] = llvm.add %[[X]], %{{.*}} : i64
// CHECK: llvm.icmp "eq" %[[X1]], %[[GX]]
llvm.func @small(%out: !llvm.ptr, %n: i64, %in: !llvm.ptr, %m: i64, %launch: !llvm.ptr,
                 %shared: !llvm.ptr, %status: !llvm.ptr)
    attributes {xpu.kernel, xpu.buffer_access = array<i32: 0, 1>, xpu.shared_bytes = 1024 : i64} {
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func internal @large.xpu_group
// CHECK-NOT: llvm.alloca
// CHECK: %[[BLOCKAT:.*]] = llvm.getelementptr %arg1[40]
// CHECK: %[[BLOCK:.*]] = llvm.load %[[BLOCKAT]] invariant
// CHECK-NOT: llvm.alloca
// CHECK: llvm.call @large(%{{.*}}, %{{.*}}, %arg1, %[[BLOCK]], %{{.*}})
llvm.func @large(%out: !llvm.ptr, %n: i64, %launch: !llvm.ptr, %shared: !llvm.ptr,
                 %status: !llvm.ptr)
    attributes {xpu.kernel, xpu.buffer_access = array<i32: 0>, xpu.shared_bytes = 16400 : i64} {
  llvm.return
}

// -----

// CHECK: llvm.mlir.global external constant @none.xpu_stack_bytes(0 : i64)
// CHECK-LABEL: llvm.func internal @none.xpu_group
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return
llvm.func @none(%out: !llvm.ptr, %n: i64, %launch: !llvm.ptr, %shared: !llvm.ptr,
                %status: !llvm.ptr)
    attributes {xpu.kernel, xpu.buffer_access = array<i32: 0>, xpu.shared_bytes = 0 : i64} {
  llvm.return
}
