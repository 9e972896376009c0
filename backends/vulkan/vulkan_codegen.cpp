// Vulkan code generation; see vulkan_codegen.h.
#include "vulkan_codegen.h"
#include "vulkan_tiles.h"
#include "vulkan_wave.h"

#include "calibration/device_calibration.h"
#include "capability/capability.h"
#include "runtime/dump.h"
#include "runtime/env.h"
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
  addSubgroupCapabilities(info, t.caps);
  addTileCapabilities(info, t.caps, t.exts);
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

} // namespace

//===----------------------------------------------------------------------===//
// Capabilities and the gate the capability model leaves to this backend
//===----------------------------------------------------------------------===//

cap::Fact featureFact(const VulkanDevice &device, Capability c,
                      std::initializer_list<Feature> features) {
  const PhysicalInfo &info = device.info;
  std::string evidence = "vkGetPhysicalDeviceFeatures2:";
  for (Feature f : features)
    evidence += std::string(" ") + featureQuery(f) + "." + featureName(f) + "=" +
                (info.supported[f] ? "true" : "false");
  for (Feature f : features) {
    const char *name = featureName(f);
    if (!info.supported[f])
      return {c, cap::Kind::deviceOptional,
              cap::Unavailable{cap::Kind::deviceOptional,
                               std::string("the device reports ") + name + "=false"},
              evidence};
    if (!info.requested[f])
      return {c, cap::Kind::deviceOptional,
              cap::Unavailable{cap::Kind::deviceOptional,
                               std::string("the device supports ") + name +
                                   ", but it was not enabled when the logical "
                                   "device was created (XPU_VULKAN_DISABLE_FEATURES)"},
              evidence};
  }
  return {c, cap::Kind::deviceOptional, cap::Available{}, evidence + ", enabled"};
}

namespace {

/// Measured on lavapipe (Mesa 22.3.6, LLVM 15.0.6, 2026-12-01): a
/// compare-exchange whose order releases (release, acq_rel, seq_cst; the
/// release part is a barrier before the exchange, which an explicit
/// OpMemoryBarrier reproduces) loses updates in a compare-exchange loop.
/// Reduced: 2560 invocations each adding 1 to acc[i % 8] with
///   %r = scf.while (%old = %guess) : (i32) -> i32 {
///     %seen = xpu.atomic_rmw cmpxchg %old+1, %acc[%j] expected %old acq_rel device
///     scf.condition(%seen != %old) %seen }
/// leave 40 in each element instead of 320; relaxed and acquire orders give
/// 320, and so do adds of any order in loops. Refused there, never run.
Status lavapipeCompareExchangeGate(const VulkanDevice &device, AtomicRMWOp op) {
  auto type = cast<BufferType>(op.getBuffer().getType());
  bool exchanges = op.getKind() == AtomicKind::cmpxchg ||
                   (isa<FloatType>(type.getElementType()) &&
                    (op.getKind() == AtomicKind::fmin || op.getKind() == AtomicKind::fmax));
  MemoryOrder order = op.getOrder();
  bool releases = order == MemoryOrder::release || order == MemoryOrder::acq_rel ||
                  order == MemoryOrder::seq_cst;
  if (device.info.driver.driverID != VK_DRIVER_ID_MESA_LLVMPIPE || !exchanges || !releases ||
      type.getSpace() == Space::private_)
    return {};
  std::string file;
  unsigned line = 0, col = 0;
  resolveLocation(op.getLoc(), file, line, col);
  return {XPU_ERROR_REFUSED,
          file + ":" + std::to_string(line) + ":" + std::to_string(col) +
              ": error: XPU-CAP001: kernel '" +
              op->getParentOfType<FunctionOpInterface>().getName().str() + "' needs a " +
              stringifyAtomicKind(op.getKind()).str() + " ordered " +
              stringifyMemoryOrder(order).str() + " (a compare-exchange that releases); " +
              device.label() +
              ": lavapipe loses such compare-exchange updates in loops (policy "
              "vulkan.lavapipe-cas-release, resting on a measurement: a loop of 2560 "
              "compare-exchange adds leaves 40 of 320; measured 2026-12-01 on Mesa 22.3.6, "
              "LLVM 15.0.6); relaxed and acquire orders are right there"};
}

/// Refuses what the capability model does not tell apart on Vulkan: atomics
/// on shared memory need their own features, and atomic exchanges of floats
/// need the float-atomics ones.
Status gate(const VulkanDevice &device, ModuleOp module) {
  Status result;
  module.walk([&](AtomicRMWOp op) {
    auto type = cast<BufferType>(op.getBuffer().getType());
    Type e = type.getElementType();
    bool shared = type.getSpace() == Space::shared;
    if (type.getSpace() == Space::private_)
      return WalkResult::advance(); // one invocation's memory: no atomic
    std::optional<Feature> need;
    std::string what;
    AtomicKind kind = op.getKind();
    if (Status st = lavapipeCompareExchangeGate(device, op); !st.isOk()) {
      result = st;
      return WalkResult::interrupt();
    }
    if (shared && isa<FloatType>(e) &&
        (kind == AtomicKind::cmpxchg || kind == AtomicKind::fmin || kind == AtomicKind::fmax)) {
      std::string file;
      unsigned line = 0, col = 0;
      resolveLocation(op.getLoc(), file, line, col);
      result = {XPU_ERROR_REFUSED,
                file + ":" + std::to_string(line) + ":" + std::to_string(col) +
                    ": error: XPU-CAP001: kernel '" +
                    op->getParentOfType<FunctionOpInterface>().getName().str() + "' needs " +
                    stringifyAtomicKind(kind).str() + " atomics of floats on shared memory; " +
                    device.label() +
                    ": SPIR-V compare-exchanges integers only, and a shared float array "
                    "has no integer view under logical addressing (backend-structural; "
                    "they work on global buffers)"};
      return WalkResult::interrupt();
    }
    if (op.getKind() == AtomicKind::xchg && (e.isF32() || e.isF64())) {
      bool f32 = e.isF32();
      need = shared ? (f32 ? Feature::shaderSharedFloat32Atomics
                           : Feature::shaderSharedFloat64Atomics)
                    : (f32 ? Feature::shaderBufferFloat32Atomics
                           : Feature::shaderBufferFloat64Atomics);
      what = std::string("atomic exchanges of ") + (f32 ? "f32" : "f64");
    } else if (shared && e.isInteger(64)) {
      need = Feature::shaderSharedInt64Atomics;
      what = "64-bit atomics";
    } else if (shared && op.getKind() == AtomicKind::fadd) {
      need = e.isF32() ? Feature::shaderSharedFloat32AtomicAdd
                       : Feature::shaderSharedFloat64AtomicAdd;
      what = std::string("atomic adds of ") + (e.isF32() ? "f32" : "f64");
    }
    if (!need)
      return WalkResult::advance();
    what += shared ? " on shared memory" : " on buffers";
    auto kernel = op->getParentOfType<FunctionOpInterface>();
    cap::Fact fact = featureFact(device, Capability::atomicI32, {*need});
    if (auto *no = std::get_if<cap::Unavailable>(&fact.verdict)) {
      std::string file;
      unsigned line = 0, col = 0;
      resolveLocation(op.getLoc(), file, line, col);
      result = {XPU_ERROR_REFUSED,
                file + ":" + std::to_string(line) + ":" + std::to_string(col) +
                    ": error: XPU-CAP001: kernel '" + kernel.getName().str() +
                    "' needs " + what + "; " + device.label() + ": " + no->reason +
                    " (device-optional; " + fact.evidence + ")"};
      return WalkResult::interrupt();
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
  // The enabled features decide what compiles (and what the backend's gate
  // lets through), so they belong in cache keys too.
  for (size_t f = 0; f < size_t(Feature::count); ++f)
    if (info.requested.has[f])
      desc.features += std::string(",vk.") + featureName(Feature(f));
  desc.waveWidth = info.subgroup.subgroupSize;
  return desc;
}

std::vector<cap::Fact> VulkanDevice::probeCapabilities() {
  using C = Capability;
  using F = Feature;
  // Storage of a narrow type also declares values of it in SPIR-V, so it
  // needs the arithmetic feature as well as the storage one.
  std::vector<cap::Fact> facts = {
      featureFact(*this, C::i8Storage, {F::storageBuffer8BitAccess, F::shaderInt8}),
      featureFact(*this, C::i8Arith, {F::shaderInt8}),
      featureFact(*this, C::i16Storage, {F::storageBuffer16BitAccess, F::shaderInt16}),
      featureFact(*this, C::i16Arith, {F::shaderInt16}),
      featureFact(*this, C::i64Storage, {F::shaderInt64}),
      featureFact(*this, C::i64Arith, {F::shaderInt64}),
      featureFact(*this, C::f16Storage, {F::storageBuffer16BitAccess, F::shaderFloat16}),
      featureFact(*this, C::f16Arith, {F::shaderFloat16}),
      featureFact(*this, C::f64Storage, {F::shaderFloat64}),
      featureFact(*this, C::f64Arith, {F::shaderFloat64}),
      featureFact(*this, C::atomicI64, {F::shaderBufferInt64Atomics}),
      featureFact(*this, C::atomicF32Add, {F::shaderBufferFloat32AtomicAdd}),
      featureFact(*this, C::atomicF64Add, {F::shaderBufferFloat64AtomicAdd}),
  };
  std::string subgroup =
      "vkGetPhysicalDeviceProperties2: VkPhysicalDeviceSubgroupProperties "
      "subgroupSize=" + std::to_string(info.subgroup.subgroupSize) +
      ", basic operations in compute: " + (subgroupsInCompute(info) ? "yes" : "no");
  if (subgroupsInCompute(info))
    facts.push_back({C::waveOps, cap::Kind::deviceOptional, cap::Available{}, subgroup});
  else
    facts.push_back({C::waveOps, cap::Kind::deviceOptional,
                     cap::Unavailable{cap::Kind::deviceOptional,
                                      "the device has no basic subgroup operations "
                                      "in compute shaders"},
                     subgroup});
  addWaveFacts(*this, facts);
  addTileFacts(*this, facts);
  const VkPhysicalDeviceLimits &l = info.props.limits;
  facts.push_back({C::sharedMemory, cap::Kind::deviceOptional, cap::Available{},
                   "vkGetPhysicalDeviceProperties2: maxComputeSharedMemorySize=" +
                       std::to_string(l.maxComputeSharedMemorySize),
                   uint64_t(l.maxComputeSharedMemorySize)});
  facts.push_back({C::workgroupInvocations, cap::Kind::deviceOptional, cap::Available{},
                   "vkGetPhysicalDeviceProperties2: maxComputeWorkGroupInvocations=" +
                       std::to_string(l.maxComputeWorkGroupInvocations),
                   uint64_t(l.maxComputeWorkGroupInvocations)});
  return facts;
}

std::string VulkanDevice::toolchainIdentity() const {
  // The blob is SPIR-V; the driver compiles it when it makes a pipeline.
  return "MLIR " LLVM_VERSION_STRING " SPIR-V";
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
  // What was measured on this device that the code must work around (none
  // while the calibration's own probes are being built).
  cal::DeviceCalibration &measured = device.calibration();
  options.guardLoops = measured.loopPassLimit().has_value();
  options.softwareFmaF16 = measured.fmaUnfused("f16");
  options.softwareFmaF32 =
      measured.fmaUnfused("f32") && device.info.requested[Feature::shaderFloat64];
  options.subnormalExp = measured.expFlushesSubnormals();
  options.specializeTileStrides = rt::tileSpecialization();
  options.splitCopyingTiles = rt::tileSplit();
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
