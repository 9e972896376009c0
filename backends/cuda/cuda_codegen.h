// NVIDIA code generation: an admitted module to PTX with LLVM's NVPTX
// backend (libdevice linked when math functions need it), then to a cubin
// with ptxas when one is found, else PTX for the driver's JIT.
#pragma once

#include "runtime/backend.h"

#include <string>
#include <vector>

namespace xpu::cuda {

/// The ptxas this process uses: XPU_PTXAS, else $CUDA_PATH/bin/ptxas, else
/// /usr/local/cuda/bin/ptxas. `path` is empty when none runs.
struct Ptxas {
  std::string path;
  std::string version; ///< "13.0.88"
  std::string why;     ///< why none was found
  /// Set when XPU_PTXAS names a program that does not run: compiling then
  /// fails instead of using another ptxas or none.
  std::string error;
};
const Ptxas &ptxas();

/// The toolchain as cache keys name it: LLVM, and the identity of each
/// ptxas candidate and of libdevice, without running anything.
std::string nvptxToolchainIdentity();

/// The architectures LLVM's NVPTX back end generates code for (sm_50 and
/// later, without the "a"/"f" variants), and a check that `chip` is one of
/// them (XPU_ERROR_INVALID_ARGUMENT listing them otherwise).
const std::vector<std::string> &nvptxChips();
rt::Status checkNvptxChip(const std::string &chip);

/// The target for a device of compute capability major.minor.
rt::TargetDesc nvptxTarget(int major, int minor);

/// Generates code for `target`; `out.format` is "cubin" or "ptx", and
/// `out.toolchain` names LLVM, the PTX version and ptxas (or its absence).
/// With `kernels`, `out.footprints` holds what ptxas reported of each.
rt::Status compileForNVPTX(mlir::ModuleOp module, const rt::TargetDesc &target,
                           rt::Blob &out,
                           const std::vector<abi::KernelInfo> *kernels = nullptr);

} // namespace xpu::cuda
