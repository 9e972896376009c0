// RUN: xpu-opt %s -xpu-spirv-float-atomics | FileCheck %s
// RUN: xpu-opt %s -xpu-prepare-lowering=status-type=buffer -xpu-spirv-float-atomics -xpu-to-spirv=index-bits=64 | FileCheck %s --check-prefix=SPV
// Vulkan: an integer compare-exchange is OpAtomicCompareExchange (a failure
// orders as acquire at most); a float one, and float min/max, run on the
// buffer's bits through a second variable on the same binding, min/max as
// a compare-exchange loop computing them exactly.

module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.5,
    [Shader, Int64, Int64Atomics, Float64, GroupNonUniform],
    [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {

// CHECK-LABEL: xpu.kernel @atomics
// SPV: spirv.GlobalVariable @__xpu_atomics_binding1_bits bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
// SPV-LABEL: spirv.func @atomics
xpu.kernel @atomics(%a: !xpu.buffer<i32>, %f: !xpu.buffer<f32>, %x: i32, %y: i32,
                    %u: f32, %v: f32) {
  %i = xpu.thread_id x
  // CHECK: xpu.atomic_rmw cmpxchg %{{.*}}, %{{.*}}[%{{.*}}] expected %{{.*}} acq_rel device : !xpu.buffer<i32>
  // SPV: spirv.AtomicCompareExchange <Device> <AcquireRelease|UniformMemory> <Acquire|UniformMemory>
  %o1 = xpu.atomic_rmw cmpxchg %y, %a[%i] expected %x acq_rel device : !xpu.buffer<i32>
  // CHECK: %[[BITS:.*]] = xpu.bits_view %{{.*}} : !xpu.buffer<f32> -> !xpu.buffer<i32>
  // CHECK: xpu.atomic_rmw cmpxchg %{{.*}}, %[[BITS]][%{{.*}}] expected %{{.*}} release workgroup : !xpu.buffer<i32>
  // CHECK: arith.bitcast %{{.*}} : i32 to f32
  // SPV: spirv.mlir.addressof @__xpu_atomics_binding1_bits
  // SPV: spirv.AtomicCompareExchange <Workgroup> <Release|UniformMemory> <None>
  %o2 = xpu.atomic_rmw cmpxchg %v, %f[%i] expected %u release workgroup : !xpu.buffer<f32>
  // CHECK: %[[B2:.*]] = xpu.bits_view
  // CHECK: scf.while (%[[SEEN:.*]] = %{{.*}}) : (i32) -> i32 {
  // CHECK: arith.cmpi slt
  // CHECK: arith.cmpf uno
  // CHECK: %[[NOW:.*]] = xpu.atomic_rmw cmpxchg %{{.*}}, %[[B2]][%{{.*}}] expected %[[SEEN]] relaxed device
  // CHECK: %[[AGAIN:.*]] = arith.cmpi ne, %[[NOW]], %[[SEEN]] : i32
  // CHECK: scf.condition(%[[AGAIN]]) %[[NOW]] : i32
  // SPV: spirv.mlir.loop
  // SPV: spirv.AtomicCompareExchange <Device> <None> <None>
  %o3 = xpu.atomic_rmw fmin %u, %f[%i] relaxed device : !xpu.buffer<f32>
  xpu.return
}

// Private memory belongs to one invocation: no atomics, no view.
// CHECK-LABEL: xpu.kernel @private
// CHECK-NOT: xpu.bits_view
// SPV-LABEL: spirv.func @private
// SPV-NOT: spirv.Atomic
xpu.kernel @private(%out: !xpu.buffer<f32>, %u: f32) {
  %c0 = arith.constant 0 : index
  %p = xpu.alloc : !xpu.buffer<4xf32, private>
  %r = xpu.atomic_rmw fmax %u, %p[%c0] relaxed workgroup : !xpu.buffer<4xf32, private>
  xpu.store %r, %out[%c0] : !xpu.buffer<f32>
  xpu.return
}

}
