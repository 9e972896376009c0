// RUN: xpu-opt %s -xpu-lower-execution-model="target=nvvm wave-width=32" -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=nvvm | FileCheck %s --check-prefixes=CHECK,NV
// RUN: xpu-opt %s -xpu-lower-execution-model="target=rocdl wave-width=64" -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=rocdl | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: xpu-opt %s -xpu-cpu-work-item-loops -xpu-lower-execution-model=target=cpu -xpu-prepare-lowering -convert-scf-to-cf -xpu-to-llvm=target=cpu | FileCheck %s --check-prefixes=CHECK,CPU
// Compare-exchange and float min/max on the LLVM-based targets: cmpxchg on
// the element's bits (floats bitcast), a failure ordering no stronger than
// acquire, the scope's sync-scope; fmin/fmax are LLVM's fminimum/fmaximum,
// which the back ends expand into compare-exchange loops.

// CHECK-LABEL: llvm.func @atomics
xpu.kernel @atomics(%a: !xpu.buffer<i32>, %f: !xpu.buffer<f32>, %d: !xpu.buffer<f64>,
                    %x: i32, %y: i32, %u: f32, %v: f32, %w: f64) {
  %i = xpu.thread_id x
  // NV: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("device") acq_rel acquire {alignment = 4 : i64} : !llvm.ptr<1>, i32
  // AMD: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("agent") acq_rel acquire {alignment = 4 : i64} : !llvm.ptr<1>, i32
  // CPU: llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} acq_rel acquire {alignment = 4 : i64} : !llvm.ptr, i32
  %o1 = xpu.atomic_rmw cmpxchg %y, %a[%i] expected %x acq_rel device : !xpu.buffer<i32>
  // CHECK: llvm.bitcast %{{.*}} : f32 to i32
  // CHECK: llvm.bitcast %{{.*}} : f32 to i32
  // NV: llvm.cmpxchg {{.*}} syncscope("block") release monotonic
  // CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i32, i1)>
  // CHECK: llvm.bitcast %{{.*}} : i32 to f32
  %o2 = xpu.atomic_rmw cmpxchg %v, %f[%i] expected %u release workgroup : !xpu.buffer<f32>
  // CHECK: llvm.atomicrmw fminimum %{{.*}}, %{{.*}} {{.*}}monotonic
  %o3 = xpu.atomic_rmw fmin %u, %f[%i] relaxed device : !xpu.buffer<f32>
  // CHECK: llvm.atomicrmw fmaximum %{{.*}}, %{{.*}} {{.*}}seq_cst
  %o4 = xpu.atomic_rmw fmax %w, %d[%i] seq_cst device : !xpu.buffer<f64>
  xpu.return
}
