// The capability gates: a static gate at compile time for what the target
// language cannot express, and a device gate for what the device, its host
// toolchain and our policies provide. Both decide through cap::permits().
#pragma once

#include "capability/target_facts.h"
#include "xpu/Diagnostic.h"

namespace xpu::cap {

/// Refuses needs the target cannot express (backend-structural), with one
/// XPU-CAP001 error per refused need. With `remarks`, every other need is
/// listed as a remark saying who decides it (for `xpujit check --target`).
rt::Status staticGate(TargetKind target,
                      const std::vector<KernelRequirements> &kernels,
                      DiagnosticList &diags, bool remarks = false);

/// Refuses needs the device's facts do not permit: XPU-CAP001 when
/// unavailable, XPU-CAP002 when unknown. `label` names the device in
/// messages ("vulkan device 'llvmpipe'").
rt::Status deviceGate(const FactTable &facts, const std::string &label,
                      const std::vector<KernelRequirements> &kernels,
                      DiagnosticList &diags);

/// The facts code generated without a device is judged by: the target's
/// rules and the host toolchain; what a device decides counts as available
/// (its device gate decides when it loads the code).
FactTable offlineFacts(const rt::TargetDesc &target);

/// The gate for code generated without a device (xpu_compile_for_target):
/// the static gate, then what the host toolchain and our policies decide
/// for `target`. What a device would decide is left to the device that
/// loads the code.
rt::Status offlineGate(const rt::TargetDesc &target,
                       const std::vector<KernelRequirements> &kernels,
                       DiagnosticList &diags);

} // namespace xpu::cap
