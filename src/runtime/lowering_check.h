// `xpujit check --target T` runs the target's lowering, so it refuses
// exactly what `compile --target T` (and a device of T) cannot lower.
#pragma once

#include "capability/target_facts.h"
#include "runtime/status.h"
#include "xpu/Diagnostic.h"

#include "mlir/IR/BuiltinOps.h"

namespace xpu::rt {

/// The SPIR-V target of a capable Vulkan 1.3 device (every integer and
/// float width, 8/16-bit storage, 64-bit atomics, subgroups): what
/// `--target spirv` lowers for without a device. Whether a device has a
/// capability is the capability gate's question, not the lowering's.
/// `coopMatrix` adds cooperative matrices (the "cooperative-matrix" chip).
void setDefaultVulkanTarget(mlir::ModuleOp module, bool coopMatrix = false);

/// Lowers a copy of the admitted `module` for `target` as code generation
/// would; every op that fails is reported in `diags` as an XPU-LOWER error
/// at its location, naming the op and the target.
Status checkLowering(mlir::ModuleOp module, cap::TargetKind target,
                     DiagnosticList &diags);

} // namespace xpu::rt
