// RUN: xpu-opt %s -xpu-place-shared-memory | FileCheck %s
// RUN: xpu-opt %s -xpu-place-shared-memory="static-limit=100000" | FileCheck %s --check-prefix=HIGH
// RUN: rm -rf %t && mkdir -p %t
// (Kernel source may not set xpu.alignment, which tile lowering sets.)
// RUN: sed 's/ {xpu.alignment = 1024 : i64}//' %s > %t/k.mlir
// RUN: env XPU_DUMP_DIR=%t xpujit compile %t/k.mlir --target=nvptx --chip=sm_90 -o %t/k.cubin
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=PTX
//
// A CUDA block has 48 KiB of static shared memory. A kernel whose shared
// allocations take more has them all as views of the dynamic window, at
// fixed offsets from its base rounded up to the largest alignment asked
// for; its dynamic shared memory follows them; the module records the
// bytes each launch adds. A kernel within the limit keeps its allocations.

// CHECK: module attributes {xpu.launch_shared_bytes = {big = 82928 : i64}}
// CHECK: llvm.mlir.global external @__xpu_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// HIGH-NOT: xpu.launch_shared_bytes
// HIGH-NOT: __xpu_dynamic_shared

// CHECK-LABEL: xpu.kernel @big
// CHECK: %[[RAW:.*]] = llvm.mlir.addressof @__xpu_dynamic_shared : !llvm.ptr<3>
// CHECK: %[[INT:.*]] = llvm.ptrtoint %[[RAW]] : !llvm.ptr<3> to i64
// CHECK: %[[UP:.*]] = llvm.add %[[INT]], %{{.*}} : i64
// CHECK: %[[DOWN:.*]] = llvm.and %[[UP]], %{{.*}} : i64
// CHECK: %[[BASE:.*]] = llvm.inttoptr %[[DOWN]] : i64 to !llvm.ptr<3>
// The first at the base, the 1024-aligned one at 65536, 16 KiB after it
// the caller's dynamic shared memory (65536 + 16384 + 1008 of rounding).
// CHECK: xpu.view %[[BASE]] : !llvm.ptr<3> -> !xpu.buffer<16384xf32, shared>
// CHECK: %[[B:.*]] = llvm.getelementptr %[[BASE]][65536] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: xpu.view %[[B]] : !llvm.ptr<3> -> !xpu.buffer<8192xbf16, shared>
// CHECK: %[[D:.*]] = llvm.getelementptr %[[BASE]][81920] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: xpu.dynamic_shared %{{.*}} at %[[D]] : !llvm.ptr<3> : !xpu.buffer<f32, shared>
// CHECK-NOT: xpu.alloc
xpu.kernel @big(%out: !xpu.buffer<f32>, %bytes: i64 {xpu.role = "dynamic_shared_bytes"})
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = xpu.alloc : !xpu.buffer<16384xf32, shared>
  %b = xpu.alloc {xpu.alignment = 1024 : i64} : !xpu.buffer<8192xbf16, shared>
  %n = arith.index_castui %bytes : i64 to index
  %d = xpu.dynamic_shared %n : !xpu.buffer<f32, shared>
  %v = xpu.load %a[%c0] : !xpu.buffer<16384xf32, shared>
  %w = xpu.load %d[%c0] : !xpu.buffer<f32, shared>
  %h = xpu.load %b[%c0] : !xpu.buffer<8192xbf16, shared>
  %hf = arith.extf %h : bf16 to f32
  %s0 = arith.addf %v, %w : f32
  %s = arith.addf %s0, %hf : f32
  xpu.store %s, %out[%c0] : !xpu.buffer<f32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @small
// CHECK: xpu.alloc : !xpu.buffer<1024xf32, shared>
xpu.kernel @small(%out: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %a = xpu.alloc : !xpu.buffer<1024xf32, shared>
  %v = xpu.load %a[%c0] : !xpu.buffer<1024xf32, shared>
  xpu.store %v, %out[%c0] : !xpu.buffer<f32>
  xpu.return
}

// In PTX the big kernel declares no shared array of its own; the small one
// keeps its static one.
// PTX: .extern .shared .align 16 .b8 __xpu_dynamic_shared[];
// PTX-LABEL: .entry big(
// PTX-NOT: __xpu_shared_
// PTX: mov.{{[bu]}}64 {{.*}}, __xpu_dynamic_shared;
// PTX-LABEL: .entry small(
// PTX: __xpu_shared_0
