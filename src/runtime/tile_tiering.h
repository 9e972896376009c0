// Tile tiering (issue 15; spec §17.5): which realization each kernel's
// tiles get on a target, chosen per kernel and whole (a shape or type one
// tier cannot do demotes the entire kernel one tier), and reported once per
// kernel as an "[mma-tiering]" note, never silently.
#pragma once

#include "capability/capability.h"
#include "runtime/backend.h"
#include "xpu/Diagnostic.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace xpu::rt {

/// Gives each kernel with tile ops the attribute `xpu.mma_tier` (the tier
/// xpu-lower-tiles and the target lowerings read), adds one note per such
/// kernel to `diags`, and appends the same lines to `buildInfo`. The tiers,
/// fastest first: NVIDIA wgmma, mma.sync, dp4a; AMD MFMA, WMMA, dot4; Vulkan
/// cooperative matrix, integer dot product; then the software tile, which
/// every target has. A tier is taken when the device has its hardware (the
/// fact, with its query), xpujit lowers it, and every mac of the kernel
/// fits its shapes and types.
void selectTileTiers(mlir::ModuleOp module, const TargetDesc &target,
                     const cap::FactTable &facts, DiagnosticList &diags,
                     std::string &buildInfo);

} // namespace xpu::rt
