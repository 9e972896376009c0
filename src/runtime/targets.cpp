// Targets by name and their code generators; see targets.h.
#include "runtime/targets.h"

#include "../../backends/cpu/cpu_codegen.h"
#include "../../backends/cuda/cuda_codegen.h"
#include "../../backends/hip/hip_codegen.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdlib>

namespace xpu::rt {

namespace {

Status nvptxTarget(const std::string &chip, unsigned waveWidth, TargetDesc &out) {
  // "sm_90" -> 9.0, "sm_120" -> 12.0
  char *end = nullptr;
  long cc = chip.rfind("sm_", 0) == 0 ? std::strtol(chip.c_str() + 3, &end, 10) : 0;
  if (cc < 50 || !end || *end)
    return invalidArgument("unknown NVIDIA architecture '" + chip +
                           "' (sm_XY, sm_50 or later, e.g. sm_90)");
  if (waveWidth != 0 && waveWidth != 32)
    return invalidArgument("NVIDIA GPUs run warps of 32, not " + std::to_string(waveWidth));
  out = cuda::nvptxTarget(int(cc / 10), int(cc % 10));
  return {};
}

Status hostTarget(const std::string &chip, unsigned waveWidth, TargetDesc &out) {
  const TargetDesc &host = cpu::hostTarget();
  if (!chip.empty() && chip != "host" && chip != host.chip)
    return {XPU_ERROR_UNSUPPORTED, "the CPU code generator targets this host only (" +
                                       host.chip + "), not '" + chip + "'"};
  if (waveWidth > 1)
    return invalidArgument("the CPU runs waves of width 1");
  out = host;
  return {};
}

} // namespace

Status describeTarget(const std::string &target, const std::string &chip,
                      unsigned waveWidth, TargetDesc &out) {
  if (target == "amdgcn") {
    if (chip.empty())
      return invalidArgument("target amdgcn needs a chip (e.g. gfx90a, gfx942, gfx1100)");
    return hip::amdgcnTarget(chip, waveWidth, out);
  }
  if (target == "nvptx")
    return nvptxTarget(chip, waveWidth, out);
  if (target == "cpu")
    return hostTarget(chip, waveWidth, out);
  if (target == "spirv")
    return {XPU_ERROR_UNSUPPORTED, "this build has no SPIR-V code generator"};
  return invalidArgument("unknown target '" + target +
                         "' (accepted: cpu, nvptx, amdgcn, spirv)");
}

Status generateCode(mlir::ModuleOp module, const TargetDesc &target,
                    const std::vector<abi::KernelInfo> &kernels, Blob &out) {
  switch (target.kind) {
  case TargetDesc::Kind::cpu:
    return cpu::compileForHost(module, out);
  case TargetDesc::Kind::nvptx:
    return cuda::compileForNVPTX(module, target, out, &kernels);
  case TargetDesc::Kind::amdgcn:
    return hip::compileForAMDGPU(module, target, kernels, out);
  case TargetDesc::Kind::spirv:
    break;
  }
  return {XPU_ERROR_UNSUPPORTED, "this build has no SPIR-V code generator"};
}

} // namespace xpu::rt
