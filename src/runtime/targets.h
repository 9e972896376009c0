// Code generation for a named target without a device (`xpujit compile`,
// xpu_compile_for_target): the target a (name, chip, wave width) stands for,
// and the code generator of the backend that owns it.
#pragma once

#include "runtime/backend.h"

#include <string>

namespace xpu::rt {

/// "amdgcn" + "gfx942", "nvptx" + "sm_90", "cpu" + "" (the host). A wave
/// width of 0 takes the target's default. Unknown names and chips are
/// XPU_ERROR_INVALID_ARGUMENT; a target without a code generator in this
/// build is XPU_ERROR_UNSUPPORTED.
Status describeTarget(const std::string &target, const std::string &chip,
                      unsigned waveWidth, TargetDesc &out);

/// Lowers an admitted module and generates code for `target` with the
/// owning backend's code generator (the same one its devices use).
Status generateCode(mlir::ModuleOp module, const TargetDesc &target,
                    const std::vector<abi::KernelInfo> &kernels, Blob &out);

} // namespace xpu::rt
