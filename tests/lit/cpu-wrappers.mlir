// RUN: xpu-opt %s -split-input-file -xpu-cpu-wrappers | FileCheck %s
// The CPU entry point of a kernel: a small static shared block is an array
// in the entry point's own frame (LLVM forwards its stores to its loads and
// drops them), except for the out-of-line body without `noalias`, which takes
// the thread's block so the array does not escape; a large one stays in the
// thread's block.

// CHECK: llvm.mlir.global external constant @small.xpu_shared_bytes(1024 : i64)
// CHECK: llvm.mlir.global external constant @small.xpu_stack_bytes(1040 : i64)
// CHECK-LABEL: llvm.func @small.xpu_wg
// CHECK: %[[BLOCKAT:.*]] = llvm.getelementptr %arg1[40]
// CHECK: %[[BLOCK:.*]] = llvm.load %[[BLOCKAT]] invariant
// CHECK: %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.array<1024 x i8> {alignment = 16 : i64}
// CHECK: llvm.call @small(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg1, %[[ARRAY]], %{{.*}})
// CHECK: llvm.call @small.may_alias(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg1, %[[BLOCK]], %{{.*}})
llvm.func @small(%out: !llvm.ptr, %n: i64, %in: !llvm.ptr, %m: i64, %launch: !llvm.ptr,
                 %shared: !llvm.ptr, %status: !llvm.ptr)
    attributes {xpu.kernel, xpu.buffer_access = array<i32: 0, 1>, xpu.shared_bytes = 1024 : i64} {
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @large.xpu_wg
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
// CHECK-LABEL: llvm.func @none.xpu_wg
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return
llvm.func @none(%out: !llvm.ptr, %n: i64, %launch: !llvm.ptr, %shared: !llvm.ptr,
                %status: !llvm.ptr)
    attributes {xpu.kernel, xpu.buffer_access = array<i32: 0>, xpu.shared_bytes = 0 : i64} {
  llvm.return
}
