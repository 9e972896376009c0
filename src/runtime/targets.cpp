// Targets by name and their code generators; see targets.h.
#include "runtime/targets.h"
#include "capability/tile_facts.h"
#include "runtime/dump.h"
#include "runtime/env.h"
#include "runtime/lowering_check.h"
#include "xpu/Pipeline.h"

#include "../../backends/cpu/cpu_codegen.h"
#include "../../backends/cuda/cuda_codegen.h"
#include "../../backends/hip/hip_codegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Config/llvm-config.h"

#include <cstdlib>
#include <cstring>

namespace xpu::rt {

namespace {

Status nvptxTarget(const std::string &chip, unsigned waveWidth, TargetDesc &out) {
  // "sm_90" -> 9.0, "sm_120" -> 12.0
  char *end = nullptr;
  long cc = chip.rfind("sm_", 0) == 0 ? std::strtol(chip.c_str() + 3, &end, 10) : 0;
  if (cc < 50 || !end || *end)
    return invalidArgument("unknown NVIDIA architecture '" + chip +
                           "' (sm_XY, sm_50 or later, e.g. sm_90)");
  XPU_RETURN_IF_ERROR(cuda::checkNvptxChip(chip));
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

/// SPIR-V words for the device-less Vulkan target (setDefaultVulkanTarget);
/// a device compiles for its own features instead (backends/vulkan).
Status compileSPIRVOffline(mlir::ModuleOp module, const TargetDesc &target, Blob &out) {
  setDefaultVulkanTarget(module, !target.chip.empty()); // a cooperative-matrix chip
  SPIRVOptions options;
  options.indexBits = 64;
  options.specializeTileStrides = tileSpecialization();
  options.splitCopyingTiles = tileSplit();
  std::vector<uint32_t> words;
  if (mlir::failed(lowerToSPIRV(module, options)))
    return {XPU_ERROR_COMPILE, "lowering to SPIR-V failed"};
  dumpStage("lowered-spirv.mlir", module);
  if (mlir::failed(serializeSPIRV(module, words)))
    return {XPU_ERROR_COMPILE, "SPIR-V serialization failed"};
  out.code.resize(words.size() * sizeof(uint32_t));
  std::memcpy(out.code.data(), words.data(), out.code.size());
  out.format = "spirv";
  out.toolchain = "MLIR SPIR-V serializer";
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
  if (target == "spirv") {
    // The chips "cooperative-matrix" and "cooperative-matrix-workgroup" add
    // what the cooperative-matrix tile tiers need (tile_facts.h), as
    // NVIDIA's driver offers it.
    if (!chip.empty() && chip != cap::kSpirvCoopMatrixChip &&
        chip != cap::kSpirvCoopMatrixWorkgroupChip)
      return invalidArgument("target spirv takes no chip (a capable Vulkan 1.3 device: "
                             "SPIR-V 1.6, 64-bit index), the chip '" +
                             std::string(cap::kSpirvCoopMatrixChip) +
                             "' (the same with VK_KHR_cooperative_matrix) or '" +
                             cap::kSpirvCoopMatrixWorkgroupChip +
                             "' (and VK_NV_cooperative_matrix2's workgroup scope)");
    if (!chip.empty() && waveWidth && waveWidth != 32)
      return invalidArgument("the chip '" + chip + "' has subgroups of 32");
    out = {TargetDesc::Kind::spirv, "spirv1.6-unknown-vulkan1.3", chip, "index64",
           waveWidth ? waveWidth : 32};
    return {};
  }
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
    return compileSPIRVOffline(module, target, out);
  }
  return {XPU_ERROR_UNSUPPORTED, "unknown target kind"};
}

} // namespace xpu::rt
