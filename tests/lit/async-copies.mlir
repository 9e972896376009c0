// RUN: xpu-opt %s -xpu-expand-async-copies | FileCheck %s
// RUN: xpu-opt %s -xpu-expand-async-copies -xpu-lower-async-copies="target=nvvm chip=sm_90" | FileCheck %s --check-prefix=SM90
// RUN: xpu-opt %s -xpu-expand-async-copies -xpu-lower-async-copies="target=nvvm chip=sm_90" -xpu-lower-execution-model="target=nvvm wave-width=32" -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=nvvm | FileCheck %s --check-prefix=PTX
// RUN: xpu-opt %s -xpu-expand-async-copies -xpu-lower-async-copies="target=rocdl chip=gfx942" | FileCheck %s --check-prefix=PLAIN
// An asynchronous copy: the workgroup's invocations each take elements, in
// bounds an async element (else the checked load and store a copy makes);
// the wait keeps its barrier. cp.async on sm_80+, loads and stores elsewhere.

// CHECK-LABEL: xpu.kernel @tile
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: xpu.async_copy_element %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}] : !xpu.buffer<f32, ro> to !xpu.buffer<64xf32, shared>
// CHECK: } else {
// CHECK: xpu.load %{{.*}}[%{{.*}}] {checked}
// CHECK: xpu.store %{{.*}}, %{{.*}}[%{{.*}}] {checked}
// CHECK: xpu.async_wait
// CHECK-NEXT: xpu.barrier
// SM90: xpu.async_copy_element {{.*}} {cp_async}
// SM90: nvvm.cp.async.commit.group
// SM90-NEXT: nvvm.cp.async.wait.group 0
// SM90-NEXT: xpu.barrier
// PTX: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
// PLAIN-NOT: xpu.async_copy_element
// PLAIN-NOT: xpu.async_wait
// PLAIN: xpu.load
// PLAIN: xpu.store
xpu.kernel @tile(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %tile = xpu.alloc : !xpu.buffer<64xf32, shared>
  %t = xpu.async_copy %in[%c0] to %tile[%c0], %c64 : !xpu.buffer<f32, ro> to !xpu.buffer<64xf32, shared>
  xpu.async_wait %t
  %i = xpu.thread_id x
  %v = xpu.load %tile[%i] : !xpu.buffer<64xf32, shared>
  xpu.store %v, %out[%i] : !xpu.buffer<f32>
  xpu.return
}
