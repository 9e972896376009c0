// RUN: xpu-opt %s -xpu-prepare-lowering=status-type=buffer -xpu-to-spirv=index-bits=64 | FileCheck %s
// RUN: xpu-opt %s -xpu-prepare-lowering=status-type=buffer -xpu-to-spirv="index-bits=64 preserve-floats=true" | FileCheck %s --check-prefix=IEEE
// Vulkan's binding model from the parameter list: buffers are storage-buffer
// bindings of set 0 in parameter order, element counts and scalars share one
// push-constant block (abi::vulkanArgLayout), the status word is binding B;
// coordinates are builtins, the workgroup size is specialization constants,
// float arithmetic is NoContraction outside fastmath kernels.

module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.5,
    [Shader, Int64, GroupNonUniform, AtomicFloat32AddEXT],
    [SPV_KHR_storage_buffer_storage_class, SPV_EXT_shader_atomic_float_add]>,
    #spirv.resource_limits<>>} {

// CHECK: spirv.module Logical GLSL450
// CHECK-DAG: spirv.SpecConstant @__xpu_workgroup_size_x spec_id(0) = 1 : i32
// CHECK-DAG: spirv.SpecConstantComposite @__xpu_workgroup_size (@__xpu_workgroup_size_x, @__xpu_workgroup_size_y, @__xpu_workgroup_size_z) : vector<3xi32>
// CHECK-DAG: spirv.GlobalVariable @__xpu_shared_0 : !spirv.ptr<!spirv.array<64 x f32>, Workgroup>
// CHECK: spirv.GlobalVariable @__xpu_saxpy_args : !spirv.ptr<!spirv.struct<(i32 [0], i32 [4], f32 [8], i32 [12])>, PushConstant>
// CHECK: spirv.GlobalVariable @__xpu_saxpy_binding0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK: spirv.GlobalVariable @__xpu_saxpy_binding1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0, NonWritable])>, StorageBuffer>
// CHECK: spirv.GlobalVariable @__xpu_saxpy_binding2 bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
// CHECK-LABEL: spirv.func @saxpy() "None"
xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  // CHECK: %[[PA:.*]] = spirv.AccessChain %{{.*}}[%cst2_i32] : !spirv.ptr<!spirv.struct<(i32 [0], i32 [4], f32 [8], i32 [12])>, PushConstant>, i32 -> !spirv.ptr<f32, PushConstant>
  // CHECK: %[[A:.*]] = spirv.Load "PushConstant" %[[PA]] : f32
  // CHECK: spirv.Load "Input" %__builtin_GlobalInvocationId_addr : vector<3xi32>
  // CHECK: spirv.UConvert %{{.*}} : i32 to i64
  %i = xpu.global_id x
  // The buffer's length: its count in the push-constant block.
  // CHECK: spirv.AccessChain %{{.*}}[%cst1_i32] : {{.*}} -> !spirv.ptr<i32, PushConstant>
  // CHECK: spirv.ULessThan
  // CHECK: spirv.mlir.selection
  // CHECK: spirv.AtomicIAdd <Device> <None>
  // CHECK: spirv.AtomicCompareExchange <Device> <None> <None>
  %xi = xpu.load %x[%i] {checked, xpu.site = 0 : i64} : !xpu.buffer<f32, ro>
  // CHECK: spirv.FMul %[[A]], %{{.*}} {no_contraction} : f32
  %ax = arith.mulf %a, %xi : f32
  xpu.store %ax, %y[%i] : !xpu.buffer<f32>
  // CHECK: spirv.mlir.referenceof @__xpu_workgroup_size_y : i32
  %wy = xpu.workgroup_size y
  // CHECK: spirv.Load "Input" %__builtin_SubgroupSize_addr : i32
  %w = xpu.wave_width
  %s = xpu.alloc : !xpu.buffer<64xf32, shared>
  // CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
  xpu.barrier
  // CHECK: spirv.EXT.AtomicFAdd <Workgroup> <AcquireRelease|WorkgroupMemory>
  %o = xpu.atomic_rmw fadd %a, %s[%w] acq_rel workgroup : !xpu.buffer<64xf32, shared>
  xpu.return
}

// CHECK-LABEL: spirv.func @fast() "None"
// CHECK: spirv.FAdd
// CHECK-NOT: no_contraction
// CHECK: spirv.Return
xpu.kernel @fast(%a: f32) attributes {fastmath} {
  %b = arith.addf %a, %a : f32
  xpu.return
}

// CHECK: spirv.EntryPoint "GLCompute" @saxpy, {{.*}}@__xpu_saxpy_binding0, @__xpu_saxpy_binding1, {{.*}}@__xpu_saxpy_args
// CHECK: spirv.ExecutionMode @saxpy "LocalSize", 1, 1, 1
// CHECK-NOT: DenormPreserve

// Where the device promises IEEE f32 behavior it is asked for.
// IEEE: spirv.ExecutionMode @saxpy "DenormPreserve", 32
// IEEE: spirv.ExecutionMode @saxpy "SignedZeroInfNanPreserve", 32
}
