// RUN: xpu-opt %s -xpu-lower-execution-model="target=rocdl wave-width=32" -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=rocdl | FileCheck %s
// AMD: ids from registers, sizes from the HSA dispatch packet (code object
// v5 keeps it: workgroup_size_{x,y,z} u16 at bytes 4/6/8, grid_size_{x,y,z}
// in work-items u32 at 12/16/20), the wave width given to the pass, lane ids
// from mbcnt, shared memory in address space 3, private in 5, and the
// kernel ABI (buffer = global pointer + count, status word last).

// CHECK: llvm.mlir.global internal @__xpu_shared_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
// CHECK-LABEL: llvm.func @k
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: !llvm.ptr)
// CHECK-SAME: rocdl.flat_work_group_size = "128,128"
// CHECK-SAME: rocdl.kernel
// CHECK-SAME: rocdl.reqd_work_group_size = array<i32: 64, 2, 1>
// CHECK: llvm.alloca %{{.*}} x !llvm.array<4 x f32> {alignment = 16 : i64} : (i64) -> !llvm.ptr<5>
xpu.kernel @k(%out: !xpu.buffer<f32>, %v: f32) attributes {workgroup_size = array<i64: 64, 2>} {
  // CHECK: rocdl.workgroup.id.x
  // CHECK: llvm.call_intrinsic "llvm.amdgcn.dispatch.ptr"
  // CHECK-NEXT: llvm.getelementptr %{{.*}}[4] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
  // CHECK-NEXT: llvm.load %{{.*}} invariant : !llvm.ptr<4> -> i16
  // CHECK: rocdl.workitem.id.x
  %i = xpu.global_id x
  // Workgroups in y: ceil(grid_size_y / workgroup_size_y).
  // CHECK: llvm.getelementptr %{{.*}}[16] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
  // CHECK-NEXT: llvm.load %{{.*}} invariant : !llvm.ptr<4> -> i32
  // CHECK: llvm.getelementptr %{{.*}}[6] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
  // CHECK: llvm.udiv
  %g = xpu.grid_size y
  // CHECK: llvm.getelementptr %{{.*}}[8] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
  %ws = xpu.workgroup_size z
  // CHECK: llvm.mlir.constant(32 : index)
  %w = xpu.wave_width
  // CHECK: rocdl.mbcnt.lo
  // CHECK: rocdl.mbcnt.hi
  %l = xpu.lane_id
  %p = xpu.alloc : !xpu.buffer<4xf32, private>
  %s = xpu.alloc : !xpu.buffer<128xf32, shared>
  // CHECK: rocdl.barrier
  xpu.barrier
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
  xpu.store %v, %out[%i] : !xpu.buffer<f32>
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("workgroup") monotonic
  %o = xpu.atomic_rmw fadd %v, %s[%w] relaxed workgroup : !xpu.buffer<128xf32, shared>
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic
  %o2 = xpu.atomic_rmw fadd %v, %out[%l] relaxed device : !xpu.buffer<f32>
  %gi = arith.index_cast %g : index to i32
  %gf = arith.sitofp %gi : i32 to f32
  xpu.store %gf, %out[%ws] : !xpu.buffer<f32>
  xpu.return
}


// Without a declared size the bound is AMD's hardware limit, not MLIR's 256.
// CHECK-LABEL: llvm.func @free
// CHECK-SAME: rocdl.flat_work_group_size = "1,1024"
// CHECK-NOT: reqd_work_group_size
xpu.kernel @free(%out: !xpu.buffer<f32>) {
  xpu.return
}
