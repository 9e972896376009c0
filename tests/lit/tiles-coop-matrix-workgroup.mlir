// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t XPU_TILE_TIERS_OFF=cooperative-matrix xpujit compile %s --target=spirv --chip=cooperative-matrix-workgroup -o %t/k.spv 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: cat %t/*lowered-spirv.mlir | FileCheck %s --check-prefix=SPV
// RUN: cat %t/*lowered-spirv.mlir | FileCheck %s --check-prefix=SPEC --implicit-check-not=__xpu_spec_wide
// RUN: rm -rf %t/off && mkdir -p %t/off
// RUN: env XPU_DUMP_DIR=%t/off XPU_TILE_TIERS_OFF=cooperative-matrix XPU_TILE_SPECIALIZE=off xpujit compile %s --target=spirv --chip=cooperative-matrix-workgroup -o %t/off.spv
// RUN: cat %t/off/*lowered-spirv.mlir | FileCheck %s --check-prefix=OFF --implicit-check-not=__xpu_spec_
// RUN: env XPU_TILE_TIERS_OFF=cooperative-matrix xpujit compile %s --target=spirv --chip=cooperative-matrix -o %t/khr.spv 2>&1 | FileCheck %s --check-prefix=KHR
// RUN: xpujit compile %s --target=spirv --chip=cooperative-matrix-workgroup -o %t/first.spv 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: rm -rf %t/split && mkdir -p %t/split
// RUN: env XPU_DUMP_DIR=%t/split XPU_TILE_TIERS_OFF=cooperative-matrix XPU_TILE_SPLIT=on xpujit compile %s --target=spirv --chip=cooperative-matrix-workgroup -o %t/split.spv
// RUN: cat %t/split/*lowered-spirv.mlir | FileCheck %s --check-prefix=SPLIT --implicit-check-not=carried.xpu_copying --implicit-check-not=early.xpu_copying
// RUN: cat %t/*lowered-spirv.mlir | FileCheck %s --check-prefix=WHOLE --implicit-check-not=xpu_copying
//
// The workgroup-scope cooperative-matrix tier (issue 15) offline, for a
// Vulkan device with VK_NV_cooperative_matrix2 as NVIDIA's driver offers it
// (the chip "cooperative-matrix-workgroup"): each tile's sums are one f32
// matrix of Workgroup scope in a Function variable, each mac one
// multiply-add of a workgroup-scope A (rows x K) and B (K x cols) read
// straight from their read-only buffers where the tiles lie in them with
// rows 16-byte aligned, else copied into padded shared rows element by
// element, 32 deep at a time, and multiplied from there. A K loop of such
// macs runs in two versions: a scalar loop over its iterations first checks
// every tile; when all can be read straight, a copy of the K loop with only
// the loads and multiply-adds runs, else the loop choosing per iteration.
// A store that may not fit C stores each invocation's elements where the
// stride-0 position matrices say they lie. Sums not made of 32x32 blocks, a
// workgroup that is not a power of two subgroups, or operands past the
// shared memory the driver leaves demote (here, with the subgroup tier
// turned off, to the software tile); with the KHR chip alone the tier is
// unknown. The workgroup tier comes first where both fit, the subgroup
// tier takes what it cannot (tile_tiering.cpp says why).

// NOTE-DAG: [mma-tiering] kernel 'gemm': cooperative-matrix-workgroup (workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2))
// NOTE-DAG: [mma-tiering] kernel 'small': software ({{.*}}; not cooperative-matrix-workgroup: the 16x16x16 f16 mac at {{.*}} is not made of 32x32 blocks of C
// NOTE-DAG: [mma-tiering] kernel 'three': software ({{.*}}; not cooperative-matrix-workgroup: workgroup-scope matrices need a workgroup of 1, 2, 4 or 8 subgroups of 32 (it has 3)
// NOTE-DAG: [mma-tiering] kernel 'wide': software ({{.*}}; not cooperative-matrix-workgroup: its tiles take 53248 bytes of shared memory, more than the 40960 the device leaves beside workgroup-scope matrices
// NOTE-DAG: [mma-tiering] kernel 'deep': cooperative-matrix-workgroup (
// KHR-DAG: [mma-tiering] kernel 'gemm': software ({{.*}}; not cooperative-matrix-workgroup: unknown
// FIRST-DAG: [mma-tiering] kernel 'gemm': cooperative-matrix-workgroup (workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2))
// FIRST-DAG: [mma-tiering] kernel 'small': cooperative-matrix (cooperative matrices (VK_KHR_cooperative_matrix)); not cooperative-matrix-workgroup: the 16x16x16 f16 mac at {{.*}} is not made of 32x32 blocks of C
// The arguments the tiles' strides come from are read from specialization
// constants (NVIDIA's driver spills with run-time strides); the software
// tile's ('wide') are not, nor anything with XPU_TILE_SPECIALIZE=off.
// SPEC-DAG: spirv.SpecConstant @__xpu_spec_gemm_param3 spec_id({{[0-9]+}}) = 0 : i32
// SPEC-DAG: spirv.SpecConstant @__xpu_spec_gemm_param4 spec_id({{[0-9]+}}) = 0 : i32
// SPEC-DAG: spirv.SpecConstant @__xpu_spec_deep_param3 spec_id({{[0-9]+}}) = 0 : i32
// SPEC-DAG: spirv.mlir.referenceof @__xpu_spec_gemm_param3 : i32
// SPEC-DAG: spirv.mlir.referenceof @__xpu_spec_gemm_param4 : i32
// OFF: spirv.func @gemm
// With XPU_TILE_SPLIT=on, a kernel with one versioned K loop, before which
// nothing is written outside the workgroup, is split: @gemm keeps the
// direct version and runs where the scan found every tile readable
// straight, gemm.xpu_copying the copying one where it did not (a launch
// runs both); so is the lone mac of 'deep'. The direct entry point's
// interface has only the sums' position array (the edge store's), none of
// the copying version's padded slices (the companion's lists all three):
// NVIDIA's driver stages the direct loads in the shared memory left free.
// Not split: a loop not versioned (carried), a write to a global buffer
// before the loop (early), and by default (WHOLE) every kernel.
// SPLIT-LABEL: spirv.func @gemm() "None"
// SPLIT: spirv.mlir.loop
// SPLIT: spirv.mlir.selection
// SPLIT-NOT: spirv.func
// SPLIT-NOT: !spirv.ptr<f16, Workgroup>
// SPLIT: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<128x64xf16, Workgroup, MatrixA>
// SPLIT-NOT: !spirv.ptr<f16, Workgroup>
// SPLIT: spirv.KHR.CooperativeMatrixStore
// SPLIT-NOT: !spirv.ptr<f16, Workgroup>
// The companion's strides are specialization constants of its own name,
// which the runtime sets for its pipelines as for the kernel's.
// SPLIT: spirv.SpecConstant @__xpu_spec_gemm.xpu_copying_param3 spec_id({{[0-9]+}}) = 0 : i32
// SPLIT-NEXT: spirv.SpecConstant @__xpu_spec_gemm.xpu_copying_param4 spec_id({{[0-9]+}}) = 0 : i32
// SPLIT-LABEL: spirv.func @gemm.xpu_copying() "None"
// SPLIT: spirv.mlir.loop
// SPLIT: spirv.LogicalNotEqual
// SPLIT: spirv.mlir.selection
// SPLIT: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<128x32xf16, Workgroup, MatrixA>
// SPLIT: spirv.EntryPoint "GLCompute" @gemm, @__xpu_gemm_binding0, @__xpu_gemm_binding1, @__xpu_gemm_binding2, @__xpu_gemm_binding3, @__builtin_LocalInvocationId, @__xpu_shared_{{[0-9]+}}, @__xpu_gemm_args{{$}}
// SPLIT: spirv.EntryPoint "GLCompute" @gemm.xpu_copying, {{.*}}@__builtin_LocalInvocationId, @__xpu_shared_{{[0-9]+}}, @__xpu_shared_{{[0-9]+}}, @__xpu_shared_{{[0-9]+}}, @__xpu_gemm.xpu_copying_args{{$}}
// SPLIT: spirv.EntryPoint "GLCompute" @deep, {{.*}}@__builtin_LocalInvocationId, @__xpu_shared_{{[0-9]+}}, @__xpu_deep_args{{$}}
// SPLIT: spirv.EntryPoint "GLCompute" @deep.xpu_copying,
// WHOLE: spirv.EntryPoint "GLCompute" @gemm, {{.*}}@__xpu_shared_{{[0-9]+}}, @__xpu_shared_{{[0-9]+}}, @__xpu_shared_{{[0-9]+}}, @__xpu_gemm_args
// OFF: spirv.func @deep
// The scan over the K loop's iterations, then the two versions.
// SPV-LABEL: spirv.func @gemm
// SPV-DAG: spirv.Variable : !spirv.ptr<!spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>, Function>
// SPV: spirv.mlir.loop
// SPV-NOT: spirv.KHR.CooperativeMatrix
// SPV: spirv.mlir.selection
// SPV: spirv.mlir.loop
// SPV-NOT: spirv.ControlBarrier
// SPV-NOT: spirv.mlir.selection
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<128x64xf16, Workgroup, MatrixA>
// SPV-NEXT: spirv.Constant
// SPV-NEXT: spirv.AccessChain
// SPV-NEXT: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<64x128xf16, Workgroup, MatrixB>
// SPV-NEXT: spirv.Load "Function"
// SPV-NEXT: spirv.KHR.CooperativeMatrixMulAdd
// SPV-NEXT: spirv.Store "Function"
// SPV-NEXT: spirv.Branch
// SPV: spirv.mlir.loop
// SPV: spirv.mlir.selection
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<128x64xf16, Workgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<64x128xf16, Workgroup, MatrixB>
// SPV: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.ControlBarrier
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<128x32xf16, Workgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<32x128xf16, Workgroup, MatrixB>
// SPV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<128x32xf16, Workgroup, MatrixA>, !spirv.coopmatrix<32x128xf16, Workgroup, MatrixB> -> !spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>
// SPV-NOT: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.KHR.CooperativeMatrixStore {{.*}} : !spirv.ptr<f32, StorageBuffer>, !spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>, i32
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, %{{.*}}, <ColumnMajor>, {{.*}} : !spirv.ptr<f32, Workgroup>, i32 -> !spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}}, %{{.*}}, <RowMajor>, {{.*}} : !spirv.ptr<f32, Workgroup>, i32 -> !spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>
// SPV: spirv.KHR.CooperativeMatrixLength : !spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>
// SPV: spirv.AccessChain {{.*}} : !spirv.ptr<!spirv.coopmatrix<128x128xf32, Workgroup, MatrixAcc>, Function>, i32 -> !spirv.ptr<f32, Function>
// SPV-LABEL: spirv.func @small
// SPV-NOT: Workgroup, MatrixAcc
// SPV-LABEL: spirv.func @three
// SPV-LABEL: spirv.func @carried
// SPV: spirv.mlir.loop
// SPV-NOT: spirv.mlir.merge
// SPV: spirv.mlir.selection
// SPV-NEXT: spirv.BranchConditional
// SPV-NOT: spirv.mlir.merge
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<128x64xf16, Workgroup, MatrixA>

// 128x128 blocks of C over a K loop of 64-deep tiles on 8 subgroups.
xpu.kernel @gemm(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %acc = scf.for %kk = %o to %k step %c64 iter_args(%c = %init) -> (!xpu.tile<128x128xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<f16, ro> -> !xpu.tile<128x64xf16>
    %bo = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%bo], %n : !xpu.buffer<f16, ro> -> !xpu.tile<64x128xf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x64xf16>, !xpu.tile<64x128xf16>
    scf.yield %r : !xpu.tile<128x128xf32>
  }
  xpu.tile_store %acc, %C[%o], %n : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @small(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
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

xpu.kernel @three(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 96, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 32 : index
  %init = xpu.tile_fill %z : !xpu.tile<32x32xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<32x32xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<32x32xf32>, !xpu.tile<32x32xf16>, !xpu.tile<32x32xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<32x32xf32>, !xpu.buffer<f32>
  xpu.return
}

// A of a writable buffer is copied at its load, whole: too much beside B's
// slices. (Both read-only, the same mac fits: 'deep'.)
xpu.kernel @wide(%A: !xpu.buffer<f16>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x256xf32>
  %a = xpu.tile_load %A[%o], %c64 : !xpu.buffer<f16> -> !xpu.tile<128x64xf16>
  %b = xpu.tile_load %B[%o], %n : !xpu.buffer<f16, ro> -> !xpu.tile<64x256xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<128x256xf32>, !xpu.tile<128x64xf16>, !xpu.tile<64x256xf16>
  xpu.tile_store %r, %C[%o], %n : !xpu.tile<128x256xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @deep(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x256xf32>
  %a = xpu.tile_load %A[%o], %c64 : !xpu.buffer<f16, ro> -> !xpu.tile<128x64xf16>
  %b = xpu.tile_load %B[%o], %n : !xpu.buffer<f16, ro> -> !xpu.tile<64x256xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<128x256xf32>, !xpu.tile<128x64xf16>, !xpu.tile<64x256xf16>
  xpu.tile_store %r, %C[%o], %n : !xpu.tile<128x256xf32>, !xpu.buffer<f32>
  xpu.return
}

// A's offset carried by the K loop (not a function of the induction
// variable alone): the loop keeps its per-iteration choice, unversioned.
xpu.kernel @carried(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %acc:2 = scf.for %kk = %o to %k step %c64 iter_args(%c = %init, %ao = %o) -> (!xpu.tile<128x128xf32>, index) {
    %a = xpu.tile_load %A[%ao], %k : !xpu.buffer<f16, ro> -> !xpu.tile<128x64xf16>
    %bo = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%bo], %n : !xpu.buffer<f16, ro> -> !xpu.tile<64x128xf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x64xf16>, !xpu.tile<64x128xf16>
    %an = arith.addi %ao, %c64 : index
    scf.yield %r, %an : !xpu.tile<128x128xf32>, index
  }
  xpu.tile_store %acc#0, %C[%o], %n : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}

// C written before the K loop: a workgroup skipping the rest after the scan
// would leave that undone in the other kernel's, so the loop keeps both
// versions in one kernel.
xpu.kernel @early(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %i = xpu.global_id x
  xpu.store %z, %C[%i] : !xpu.buffer<f32>
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %acc = scf.for %kk = %o to %k step %c64 iter_args(%c = %init) -> (!xpu.tile<128x128xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<f16, ro> -> !xpu.tile<128x64xf16>
    %bo = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%bo], %n : !xpu.buffer<f16, ro> -> !xpu.tile<64x128xf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x64xf16>, !xpu.tile<64x128xf16>
    scf.yield %r : !xpu.tile<128x128xf32>
  }
  xpu.tile_store %acc, %C[%o], %n : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}
