// AMD code generation: an admitted module through the ROCDL lowering to
// LLVM's AMDGPU backend, the device libraries linked when a kernel calls
// them, and lld, to a code object v5 (HSACO) for one gfx architecture.
#pragma once

#include "runtime/backend.h"

#include <string>

namespace xpu::hip {

/// The target for a gfx architecture ("gfx90a", "gfx942", "gfx1100"; a HIP
/// gcnArchName's ":xnack-" features are ignored: the code runs in either
/// mode). The wave size comes from the architecture: 64 on gfx9 (GCN, CDNA),
/// 32 on gfx10 and later unless `waveWidth` asks for 64; 0 takes the
/// default. Architectures before gfx9 and widths the chip lacks are refused.
rt::Status amdgcnTarget(const std::string &chip, unsigned waveWidth,
                        rt::TargetDesc &out);

/// Generates a code object for `target` and checks its kernel metadata
/// against `kernels` (see hip_code_object.h). `out.format` is "hsaco".
rt::Status compileForAMDGPU(mlir::ModuleOp module, const rt::TargetDesc &target,
                            const std::vector<abi::KernelInfo> &kernels, rt::Blob &out);

/// LLVM, lld and the device libraries, for cache keys.
std::string amdgpuToolchainIdentity();

} // namespace xpu::hip
