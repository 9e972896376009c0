// RUN: xpu-opt %s -xpu-lower-execution-model="target=nvvm wave-width=32" -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=nvvm | FileCheck %s
// NVIDIA: special registers, bar.sync, shared memory in address space 3, and
// the kernel ABI (buffer = pointer + element count, status word last).

// CHECK: llvm.mlir.global internal @__xpu_shared_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
// CHECK-LABEL: llvm.func @k
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: !llvm.ptr)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 128>
xpu.kernel @k(%out: !xpu.buffer<f32>, %v: f32) attributes {workgroup_size = array<i64: 128>} {
  // CHECK: nvvm.read.ptx.sreg.ctaid.x
  // CHECK: nvvm.read.ptx.sreg.ntid.x
  // CHECK: nvvm.read.ptx.sreg.tid.x
  %i = xpu.global_id x
  // CHECK: llvm.mlir.constant(32 : index)
  %w = xpu.wave_width
  %s = xpu.alloc : !xpu.buffer<128xf32, shared>
  // CHECK: nvvm.barrier0
  xpu.barrier
  // CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
  xpu.store %v, %out[%i] : !xpu.buffer<f32>
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("block") monotonic
  %o = xpu.atomic_rmw fadd %v, %s[%w] relaxed workgroup : !xpu.buffer<128xf32, shared>
  xpu.return
}
