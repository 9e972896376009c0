// RUN: not xpujit check %s --target spirv 2>&1 | FileCheck %s --check-prefix=SPIRV
// RUN: xpujit check %s --target nvptx 2>&1 | FileCheck %s --check-prefix=NVPTX
// RUN: not xpujit check %s --target vax 2>&1 | FileCheck %s --check-prefix=BAD
// Static capability verdicts: what the target language cannot express is
// refused; everything else names who decides it.

// SPIRV: check-target.mlir:12:43: error: XPU-CAP001: kernel 'widen' needs bf16 in memory; target spirv cannot express it
// SPIRV: check-target.mlir:12:19: remark: XPU-CAP000: kernel 'widen' needs f64 in memory; on spirv decided by the device: shaderFloat64
// NVPTX: remark: XPU-CAP000: kernel 'widen' needs bf16 in memory; on nvptx decided by the target
// NVPTX-NOT: error
// BAD: unknown target 'vax' (accepted: cpu, nvptx, amdgcn, spirv)
xpu.kernel @widen(%out: !xpu.buffer<f64>, %in: !xpu.buffer<bf16, ro>) {
  %i = xpu.global_id x
  %v = xpu.load %in[%i] : !xpu.buffer<bf16, ro>
  %w = arith.extf %v : bf16 to f64
  xpu.store %w, %out[%i] : !xpu.buffer<f64>
  xpu.return
}
