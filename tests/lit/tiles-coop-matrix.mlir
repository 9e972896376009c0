// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t xpujit compile %s --target=spirv --chip=cooperative-matrix -o %t/k.spv 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: cat %t/*lowered-spirv.mlir | FileCheck %s --check-prefix=SPV
// RUN: xpujit compile %s --target=spirv -o %t/plain.spv 2>&1 | FileCheck %s --check-prefix=PLAIN
//
// The cooperative-matrix tier (issue 15) offline, for the SPIR-V target of
// a Vulkan 1.3 device with VK_KHR_cooperative_matrix (the chip
// "cooperative-matrix"): f16 macs with f32 sums become 16x16x16 cooperative
// matrix multiply-adds on sums held by the subgroups (SubgroupId) in a
// Function array of matrices, the operands read a K step ahead by
// cooperative-matrix loads and stored into shared memory, the sums stored
// into C (straight, or through a shared
// scratch when the tile may not fit) or into shared memory for an
// epilogue; a workgroup that is not whole subgroups of 32
// or a shape not made of 16x16x16 steps demotes to the software tile, and
// without the chip (no device facts) no kernel takes the tier. Vulkan asks
// for its memory model with cooperative matrices: the module declares it,
// shared and global accesses are NonPrivatePointer, barriers make writes
// available and visible.
// tiles-coop-matrix-valid.mlir runs spirv-val on the module.

// NOTE-DAG: [mma-tiering] kernel 'gemm': cooperative-matrix (cooperative matrices (VK_KHR_cooperative_matrix))
// NOTE-DAG: [mma-tiering] kernel 'single': cooperative-matrix (
// NOTE-DAG: [mma-tiering] kernel 'ragged': software ({{.*}}); not cooperative-matrix: cooperative-matrix is issued by whole subgroups of 32: the kernel must fix its workgroup_size to a multiple of 32 (it is 48)
// NOTE-DAG: [mma-tiering] kernel 'narrow': software ({{.*}}); not cooperative-matrix: the 16x8x16 f16 mac at {{.*}} is not made of the cooperative-matrix tier's 16x16x16 steps
// PLAIN-DAG: [mma-tiering] kernel 'gemm': software ({{.*}}); not cooperative-matrix: unknown
// SPV: spirv.module Logical Vulkan requires #spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR{{.*}}VulkanMemoryModel, VulkanMemoryModelDeviceScope{{.*}}], [{{.*}}SPV_KHR_cooperative_matrix{{.*}}]>
// SPV-DAG: spirv.GlobalVariable @__builtin__SubgroupId__ built_in("SubgroupId")
// SPV-LABEL: spirv.func @gemm
// SPV-DAG: spirv.Variable : !spirv.ptr<!spirv.array<4 x !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>>, Function>
// SPV-DAG: spirv.Variable : !spirv.ptr<!spirv.array<4 x !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>>, Function>
// SPV-DAG: spirv.Variable : !spirv.ptr<!spirv.array<2 x !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>>, Function>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <ColumnMajor>, <NonPrivatePointer> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPV: spirv.mlir.loop
// SPV: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory|MakeAvailable|MakeVisible>
// SPV: spirv.KHR.CooperativeMatrixStore {{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, Workgroup>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, i32
// SPV: spirv.Store "Workgroup" %{{.*}}, %{{.*}} ["NonPrivatePointer"]
// SPV: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory|MakeAvailable|MakeVisible>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <ColumnMajor>, <NonPrivatePointer> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
// SPV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPV-COUNT-7: spirv.KHR.CooperativeMatrixMulAdd
// SPV-NOT: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.KHR.CooperativeMatrixStore {{.*}}, <RowMajor>, <NonPrivatePointer> : !spirv.ptr<f32, Workgroup>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
// SPV-LABEL: spirv.func @single
// SPV: spirv.KHR.CooperativeMatrixMulAdd
// SPV-NOT: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.KHR.CooperativeMatrixStore {{.*}} : !spirv.ptr<f32, StorageBuffer>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
// SPV: spirv.KHR.CooperativeMatrixStore {{.*}} : !spirv.ptr<f32, Workgroup>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, i32
// SPV-LABEL: spirv.func @ragged
// SPV-NOT: spirv.KHR.CooperativeMatrix
// SPV-LABEL: spirv.func @narrow
// SPV-NOT: spirv.KHR.CooperativeMatrix

// 64x32 result blocks over a K loop of 32-deep tiles: 8 blocks of 16x16 for
// 2 subgroups, two multiply-adds per block and mac; B column-major.
xpu.kernel @gemm(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %k32: i32)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %init = xpu.tile_fill %z : !xpu.tile<64x32xf32>
  %acc = scf.for %kk = %o to %k step %c32 iter_args(%c = %init) -> (!xpu.tile<64x32xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<f16, ro> -> !xpu.tile<64x32xf16>
    %b = xpu.tile_load %B[%kk], %k col_major : !xpu.buffer<f16, ro> -> !xpu.tile<32x32xf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<64x32xf32>, !xpu.tile<64x32xf16>, !xpu.tile<32x32xf16>
    scf.yield %r : !xpu.tile<64x32xf32>
  }
  %two = arith.constant 2.0 : f32
  %s = xpu.tile_scale %acc, %two : !xpu.tile<64x32xf32>
  xpu.tile_store %s, %C[%o], %c32 : !xpu.tile<64x32xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @single(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @ragged(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 48, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @narrow(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %ldc = arith.constant 8 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x8xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %b = xpu.tile_load %A[%o], %ldc : !xpu.buffer<f16, ro> -> !xpu.tile<16x8xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<16x8xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x8xf16>
  xpu.tile_store %r, %C[%o], %ldc : !xpu.tile<16x8xf32>, !xpu.buffer<f32>
  xpu.return
}
