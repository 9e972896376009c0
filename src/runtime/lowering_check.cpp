// The lowering half of `xpujit check --target T`; see lowering_check.h.
#include "runtime/lowering_check.h"

#include "xpu/Pipeline.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Diagnostics.h"

namespace xpu::rt {

using namespace mlir;

// Optional features (64-bit atomics, float atomic adds, subgroup operations)
// are on: whether a device has them is the capability gate's question, not
// the lowering's.
void setDefaultVulkanTarget(ModuleOp module, bool coopMatrix) {
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<spirv::SPIRVDialect>();
  using C = spirv::Capability;
  using E = spirv::Extension;
  SmallVector<C> caps = {
      C::Shader, C::Int64, C::Int16, C::Int8, C::Float64, C::Float16,
      C::StorageBuffer8BitAccess, C::StorageBuffer16BitAccess, C::Int64Atomics,
      C::AtomicFloat32AddEXT, C::AtomicFloat64AddEXT, C::GroupNonUniform,
      C::GroupNonUniformVote, C::GroupNonUniformArithmetic, C::GroupNonUniformBallot,
      C::GroupNonUniformShuffle, C::GroupNonUniformShuffleRelative,
      C::GroupNonUniformClustered};
  SmallVector<E> exts = {E::SPV_KHR_storage_buffer_storage_class, E::SPV_KHR_8bit_storage,
                         E::SPV_KHR_16bit_storage, E::SPV_EXT_shader_atomic_float_add};
  if (coopMatrix) {
    caps.push_back(C::CooperativeMatrixKHR);
    exts.push_back(E::SPV_KHR_cooperative_matrix);
  }
  auto vce = spirv::VerCapExtAttr::get(spirv::Version::V_1_6, caps, exts, ctx);
  module->setAttr(spirv::getTargetEnvAttrName(),
                  spirv::TargetEnvAttr::get(vce, spirv::getDefaultResourceLimits(ctx),
                                            spirv::ClientAPI::Vulkan,
                                            spirv::Vendor::Unknown,
                                            spirv::DeviceType::Unknown,
                                            spirv::TargetEnvAttr::kUnknownDeviceID));
}

Status checkLowering(ModuleOp module, cap::TargetKind target, DiagnosticList &diags) {
  OwningOpRef<ModuleOp> copy(module.clone());
  const char *name = cap::targetName(target);
  size_t before = diags.size();
  // The lowering's own errors become XPU-LOWER ones that name the target;
  // its notes ("see current operation: ...") give the op's types.
  ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    Diagnostic rec;
    rec.code = "XPU-LOWER";
    std::string text = d.str();
    std::string types;
    for (mlir::Diagnostic &note : d.getNotes()) {
      std::string n = note.str();
      size_t at = n.find("see current operation: ");
      size_t colon = n.rfind(" : (");
      if (at != std::string::npos && colon != std::string::npos)
        types = n.substr(colon + 3, n.find('\n', colon) - colon - 3);
    }
    rec.message = "cannot be lowered for target " + std::string(name) + ": " +
                  text.substr(0, text.find('\n')) + (types.empty() ? "" : " " + types);
    resolveLocation(d.getLocation(), rec.file, rec.line, rec.column);
    diags.push_back(std::move(rec));
    return success();
  });
  LogicalResult lowered = success();
  switch (target) {
  case cap::TargetKind::cpu:
    lowered = lowerToLLVMDialect(*copy, LLVMTarget::cpu, 1);
    break;
  case cap::TargetKind::nvptx:
    lowered = lowerToLLVMDialect(*copy, LLVMTarget::nvvm, 32);
    break;
  case cap::TargetKind::amdgcn:
    lowered = lowerToLLVMDialect(*copy, LLVMTarget::rocdl, 64);
    break;
  case cap::TargetKind::spirv: {
    setDefaultVulkanTarget(*copy);
    SPIRVOptions options;
    options.indexBits = 64;
    lowered = lowerToSPIRV(*copy, options);
    break;
  }
  }
  if (succeeded(lowered))
    return {};
  if (diags.size() == before)
    diags.push_back({Diagnostic::Severity::error, "XPU-LOWER",
                     std::string("lowering for target ") + name + " failed"});
  return {XPU_ERROR_COMPILE, diags[before].file + ":" + std::to_string(diags[before].line) +
                                 ": " + diags[before].message};
}

} // namespace xpu::rt
