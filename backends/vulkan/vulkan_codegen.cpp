// Vulkan code generation; see vulkan_codegen.h.
#include "vulkan_codegen.h"

#include "runtime/dump.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Pipeline.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Config/llvm-config.h"

namespace xpu::vk {

using namespace mlir;

namespace {

/// What SPIR-V may use on the device: its version and the capabilities and
/// extensions of the features enabled on it.
struct SPIRVTarget {
  spirv::Version version;
  SmallVector<spirv::Capability> caps;
  SmallVector<spirv::Extension> exts;
  unsigned indexBits;
  unsigned maxPushConstantBytes;
  bool preserveFloats;
};

bool subgroupsInCompute(const PhysicalInfo &info) {
  return (info.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
         (info.subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT);
}

SPIRVTarget spirvTarget(const PhysicalInfo &info) {
  const FeatureSet &on = info.requested;
  SPIRVTarget t;
  // Vulkan 1.2 consumes SPIR-V up to 1.5, Vulkan 1.3 up to 1.6.
  t.version = VK_API_VERSION_MINOR(info.props.apiVersion) >= 3 ? spirv::Version::V_1_6
                                                               : spirv::Version::V_1_5;
  using C = spirv::Capability;
  using E = spirv::Extension;
  t.caps = {C::Shader};
  t.exts = {E::SPV_KHR_storage_buffer_storage_class};
  auto cap = [&](bool enabled, C c) {
    if (enabled)
      t.caps.push_back(c);
  };
  cap(on[Feature::shaderInt64], C::Int64);
  cap(on[Feature::shaderFloat64], C::Float64);
  cap(on[Feature::shaderInt16], C::Int16);
  cap(on[Feature::shaderInt8], C::Int8);
  cap(on[Feature::shaderFloat16], C::Float16);
  cap(on[Feature::storageBuffer8BitAccess], C::StorageBuffer8BitAccess);
  cap(on[Feature::storageBuffer16BitAccess], C::StorageBuffer16BitAccess);
  cap(on[Feature::shaderBufferInt64Atomics] || on[Feature::shaderSharedInt64Atomics],
      C::Int64Atomics);
  cap(on[Feature::shaderBufferFloat32AtomicAdd] || on[Feature::shaderSharedFloat32AtomicAdd],
      C::AtomicFloat32AddEXT);
  cap(on[Feature::shaderBufferFloat64AtomicAdd] || on[Feature::shaderSharedFloat64AtomicAdd],
      C::AtomicFloat64AddEXT);
  cap(subgroupsInCompute(info), C::GroupNonUniform);
  // IEEE f32 behavior where the device can promise it (Vulkan 1.2 float
  // controls); elsewhere denormals may flush.
  t.preserveFloats = info.floatControls.shaderDenormPreserveFloat32 &&
                     info.floatControls.shaderSignedZeroInfNanPreserveFloat32;
  cap(t.preserveFloats, C::DenormPreserve);
  cap(t.preserveFloats, C::SignedZeroInfNanPreserve);
  if (on[Feature::storageBuffer8BitAccess])
    t.exts.push_back(E::SPV_KHR_8bit_storage);
  if (on[Feature::storageBuffer16BitAccess])
    t.exts.push_back(E::SPV_KHR_16bit_storage);
  if (on[Feature::shaderBufferFloat32AtomicAdd] || on[Feature::shaderSharedFloat32AtomicAdd] ||
      on[Feature::shaderBufferFloat64AtomicAdd] || on[Feature::shaderSharedFloat64AtomicAdd])
    t.exts.push_back(E::SPV_EXT_shader_atomic_float_add);
  // `index` is 64 bits wide as on the CPU, where the device can.
  t.indexBits = on[Feature::shaderInt64] ? 64 : 32;
  t.maxPushConstantBytes = info.props.limits.maxPushConstantsSize;
  return t;
}

spirv::Vendor vendorOf(uint32_t id) {
  switch (id) {
  case 0x10DE: return spirv::Vendor::NVIDIA;
  case 0x1002: return spirv::Vendor::AMD;
  case 0x8086: return spirv::Vendor::Intel;
  case 0x13B5: return spirv::Vendor::ARM;
  case 0x5143: return spirv::Vendor::Qualcomm;
  case 0x1010: return spirv::Vendor::Imagination;
  case 0x106B: return spirv::Vendor::Apple;
  default: return spirv::Vendor::Unknown;
  }
}

spirv::DeviceType deviceTypeOf(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return spirv::DeviceType::DiscreteGPU;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return spirv::DeviceType::IntegratedGPU;
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return spirv::DeviceType::CPU;
  default: return spirv::DeviceType::Other;
  }
}

spirv::TargetEnvAttr targetEnv(MLIRContext *ctx, const PhysicalInfo &info,
                               const SPIRVTarget &t) {
  const VkPhysicalDeviceLimits &l = info.props.limits;
  Builder b(ctx);
  auto limits = spirv::ResourceLimitsAttr::get(
      ctx, int(l.maxComputeSharedMemorySize), int(l.maxComputeWorkGroupInvocations),
      b.getI32ArrayAttr({int32_t(l.maxComputeWorkGroupSize[0]),
                         int32_t(l.maxComputeWorkGroupSize[1]),
                         int32_t(l.maxComputeWorkGroupSize[2])}),
      int(info.subgroup.subgroupSize), std::nullopt, std::nullopt, ArrayAttr(),
      ArrayAttr());
  auto vce = spirv::VerCapExtAttr::get(t.version, t.caps, t.exts, ctx);
  return spirv::TargetEnvAttr::get(vce, limits, spirv::ClientAPI::Vulkan,
                                   vendorOf(info.props.vendorID),
                                   deviceTypeOf(info.props.deviceType),
                                   info.props.deviceID);
}

//===----------------------------------------------------------------------===//
// The feature gate
//===----------------------------------------------------------------------===//

/// The device features a kernel (or device function) needs, each with the
/// first reason found.
class Needs {
public:
  void add(Feature f, std::string why) {
    if (!seen[f]) {
      seen[f] = true;
      list.push_back({f, std::move(why)});
    }
  }
  /// Values of type `t` are computed with.
  void value(Type t) {
    t = getElementTypeOrSelf(t);
    if (t.isInteger(64))
      add(Feature::shaderInt64, "64-bit integers");
    else if (t.isF64())
      add(Feature::shaderFloat64, "f64 values");
    else if (t.isInteger(16))
      add(Feature::shaderInt16, "16-bit integers");
    else if (t.isF16())
      add(Feature::shaderFloat16, "f16 values");
    else if (t.isInteger(8))
      add(Feature::shaderInt8, "8-bit integers");
    else if (t.isBF16())
      bf16 = true;
  }
  /// A buffer of `t` is read or written; storage buffers need the device to
  /// access their element width.
  void buffer(BufferType t) {
    Type e = t.getElementType();
    value(e);
    if (t.getSpace() != Space::global)
      return;
    if (e.isInteger(1) || e.isInteger(8)) {
      add(Feature::storageBuffer8BitAccess, "buffers of 8-bit elements");
      add(Feature::shaderInt8, "buffers of 8-bit elements");
    } else if (e.isInteger(16) || e.isF16()) {
      add(Feature::storageBuffer16BitAccess, "buffers of 16-bit elements");
    }
  }
  void atomic(AtomicRMWOp op) {
    auto t = cast<BufferType>(op.getBuffer().getType());
    Type e = t.getElementType();
    bool shared = t.getSpace() == Space::shared;
    if (t.getSpace() == Space::private_)
      return; // not an atomic on the device
    std::string where = shared ? " on shared memory" : " on buffers";
    if (e.isInteger(64))
      add(shared ? Feature::shaderSharedInt64Atomics : Feature::shaderBufferInt64Atomics,
          "64-bit atomics" + where);
    bool f32 = e.isF32(), f64 = e.isF64();
    if (op.getKind() == AtomicKind::fadd && (f32 || f64))
      add(f32 ? (shared ? Feature::shaderSharedFloat32AtomicAdd
                        : Feature::shaderBufferFloat32AtomicAdd)
              : (shared ? Feature::shaderSharedFloat64AtomicAdd
                        : Feature::shaderBufferFloat64AtomicAdd),
          std::string("atomic adds of ") + (f32 ? "f32" : "f64") + where);
    if (op.getKind() == AtomicKind::xchg && (f32 || f64))
      add(f32 ? (shared ? Feature::shaderSharedFloat32Atomics
                        : Feature::shaderBufferFloat32Atomics)
              : (shared ? Feature::shaderSharedFloat64Atomics
                        : Feature::shaderBufferFloat64Atomics),
          std::string("atomic exchanges of ") + (f32 ? "f32" : "f64") + where);
  }

  struct Need {
    Feature feature;
    std::string why;
  };
  std::vector<Need> list;
  bool bf16 = false, subgroups = false;

private:
  FeatureSet seen;
};

Status gate(const VulkanDevice &device, ModuleOp module) {
  const PhysicalInfo &info = device.info;
  std::string deviceName = "vulkan device '" + device.id.name + "'";
  Status result;
  module.walk([&](FunctionOpInterface fn) {
    if (!isa<KernelOp, FuncOp>(fn))
      return WalkResult::advance();
    std::string who = std::string(isa<KernelOp>(fn) ? "kernel '" : "device function '") +
                      fn.getName().str() + "'";
    Needs needs;
    auto visitType = [&](Type t) {
      if (auto buf = dyn_cast<BufferType>(t))
        needs.buffer(buf);
      else
        needs.value(t);
    };
    for (Type t : fn.getArgumentTypes()) {
      visitType(t);
      // An f16 scalar parameter arrives as the low 16 bits of a 32-bit lane.
      if (getElementTypeOrSelf(t).isF16())
        needs.add(Feature::shaderInt16, "f16 parameters");
    }
    fn.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        visitType(t);
      for (Type t : op->getOperandTypes())
        visitType(t);
      if (auto atomic = dyn_cast<AtomicRMWOp>(op))
        needs.atomic(atomic);
      if (isa<WaveWidthOp, LaneIdOp>(op))
        needs.subgroups = true;
    });
    auto refuse = [&](const std::string &why) {
      result = {XPU_ERROR_UNSUPPORTED, who + " " + why};
      return WalkResult::interrupt();
    };
    if (needs.bf16)
      return refuse("uses bf16, which Vulkan 1.2/1.3 SPIR-V cannot express "
                    "(it needs VK_KHR_shader_bfloat16, not supported by xpujit)");
    for (const auto &need : needs.list) {
      const char *name = featureName(need.feature);
      if (!info.supported[need.feature])
        return refuse("uses " + need.why + ": " + deviceName + " reports " + name +
                      "=false (vkGetPhysicalDeviceFeatures2: " +
                      featureQuery(need.feature) + ")");
      if (!info.requested[need.feature])
        return refuse("uses " + need.why + ": " + deviceName + " supports " + name +
                      ", but it was not enabled when the logical device was created "
                      "(XPU_VULKAN_DISABLE_FEATURES)");
    }
    if (needs.subgroups && !subgroupsInCompute(info))
      return refuse("uses the wave width or lane id: " + deviceName +
                    " reports no basic subgroup operations in compute shaders "
                    "(vkGetPhysicalDeviceProperties2: VkPhysicalDeviceSubgroupProperties)");
    if (auto kernel = dyn_cast<KernelOp>(fn.getOperation())) {
      uint64_t shared = sharedScratchBytes(kernel);
      uint32_t limit = info.props.limits.maxComputeSharedMemorySize;
      if (shared > limit)
        return refuse("needs " + std::to_string(shared) +
                      " bytes of workgroup-shared memory: " + deviceName +
                      " reports maxComputeSharedMemorySize = " + std::to_string(limit) +
                      " (vkGetPhysicalDeviceProperties2: VkPhysicalDeviceLimits)");
    }
    return WalkResult::advance();
  });
  return result;
}

} // namespace

rt::TargetDesc describeTarget(const PhysicalInfo &info) {
  SPIRVTarget t = spirvTarget(info);
  rt::TargetDesc desc;
  desc.kind = rt::TargetDesc::Kind::spirv;
  desc.triple = "spirv" + spirv::stringifyVersion(t.version).drop_front(1).str() +
                "-unknown-vulkan" + std::to_string(VK_API_VERSION_MAJOR(info.props.apiVersion)) +
                "." + std::to_string(VK_API_VERSION_MINOR(info.props.apiVersion));
  desc.chip = info.props.deviceName;
  desc.features = "index" + std::to_string(t.indexBits) + ",push" +
                  std::to_string(t.maxPushConstantBytes) +
                  (t.preserveFloats ? ",ieee-f32" : "");
  for (spirv::Capability c : t.caps)
    desc.features += ",+" + spirv::stringifyCapability(c).str();
  desc.waveWidth = info.subgroup.subgroupSize;
  return desc;
}

Status compileSPIRV(VulkanDevice &device, ModuleOp module,
                    const std::vector<abi::KernelInfo> &, rt::Blob &out) {
  XPU_RETURN_IF_ERROR(gate(device, module));
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<spirv::SPIRVDialect>();
  SPIRVTarget t = spirvTarget(device.info);
  module->setAttr(spirv::getTargetEnvAttrName(), targetEnv(ctx, device.info, t));
  xpu::SPIRVOptions options;
  options.indexBits = t.indexBits;
  options.maxPushConstantBytes = t.maxPushConstantBytes;
  options.preserveFloats = t.preserveFloats;
  if (failed(lowerToSPIRV(module, options)))
    return {XPU_ERROR_COMPILE, "lowering to SPIR-V failed"};
  rt::dumpStage("lowered-spirv.mlir", module);
  std::vector<uint32_t> words;
  if (failed(serializeSPIRV(module, words)))
    return {XPU_ERROR_COMPILE, "SPIR-V serialization failed"};
  out.code.resize(words.size() * sizeof(uint32_t));
  std::memcpy(out.code.data(), words.data(), out.code.size());
  out.format = "spirv";
  out.toolchain = "MLIR " LLVM_VERSION_STRING " SPIR-V serializer";
  rt::dumpStage("spv", out.code.data(), out.code.size());
  return {};
}

} // namespace xpu::vk
