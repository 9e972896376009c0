// The Vulkan memory model for SPIR-V modules with cooperative matrices
// (issue 15); see TileLowering.h.
//
// Vulkan asks modules that declare CooperativeMatrixKHR to declare
// VulkanMemoryModel too (spirv-val: "If the Shader and CooperativeMatrixKHR
// capabilities are declared, the VulkanMemoryModel capability must also be
// declared"). Under that model plain loads and stores are private: they
// order nothing between invocations unless they are NonPrivatePointer and a
// barrier or atomic makes their writes available (MakeAvailable) and
// visible (MakeVisible). xpujit's kernels communicate through shared and
// global memory between barriers, so every such access becomes
// non-private and every releasing (acquiring) semantics makes available
// (visible), as GLSL's coherent shared memory does.
#include "xpu/TileLowering.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

using namespace mlir;

namespace xpu {

namespace {

bool sharedOrGlobal(Type pointer) {
  auto ptr = dyn_cast<spirv::PointerType>(pointer);
  if (!ptr)
    return false;
  spirv::StorageClass c = ptr.getStorageClass();
  return c == spirv::StorageClass::Workgroup || c == spirv::StorageClass::StorageBuffer ||
         c == spirv::StorageClass::PhysicalStorageBuffer;
}

/// `op`'s memory access attribute `name` with NonPrivatePointer added.
void nonPrivate(Operation *op, StringRef name) {
  auto access = spirv::MemoryAccess::None;
  if (auto old = op->getAttrOfType<spirv::MemoryAccessAttr>(name))
    access = old.getValue();
  op->setAttr(name, spirv::MemoryAccessAttr::get(
                        op->getContext(), access | spirv::MemoryAccess::NonPrivatePointer));
}

spirv::MemorySemantics withAvailability(spirv::MemorySemantics s) {
  using S = spirv::MemorySemantics;
  if (spirv::bitEnumContainsAny(s, S::Release | S::AcquireRelease))
    s = s | S::MakeAvailable;
  if (spirv::bitEnumContainsAny(s, S::Acquire | S::AcquireRelease))
    s = s | S::MakeVisible;
  return s;
}

} // namespace

bool useVulkanMemoryModelForCoopMatrices(spirv::ModuleOp module) {
  bool coop = false;
  module.walk([&](Operation *op) {
    coop |= isa<spirv::KHRCooperativeMatrixLoadOp, spirv::KHRCooperativeMatrixStoreOp,
                spirv::KHRCooperativeMatrixMulAddOp>(op);
  });
  if (!coop)
    return false;
  module.setMemoryModel(spirv::MemoryModel::Vulkan);
  module.walk([&](Operation *op) {
    if (auto load = dyn_cast<spirv::LoadOp>(op)) {
      if (sharedOrGlobal(load.getPtr().getType()))
        nonPrivate(op, load.getMemoryAccessAttrName());
    } else if (auto store = dyn_cast<spirv::StoreOp>(op)) {
      if (sharedOrGlobal(store.getPtr().getType()))
        nonPrivate(op, store.getMemoryAccessAttrName());
    } else if (auto load = dyn_cast<spirv::KHRCooperativeMatrixLoadOp>(op)) {
      nonPrivate(op, load.getMemoryOperandAttrName());
    } else if (auto store = dyn_cast<spirv::KHRCooperativeMatrixStoreOp>(op)) {
      nonPrivate(op, store.getMemoryOperandAttrName());
    }
    for (NamedAttribute attr : op->getAttrs())
      if (auto s = dyn_cast<spirv::MemorySemanticsAttr>(attr.getValue()))
        op->setAttr(attr.getName(), spirv::MemorySemanticsAttr::get(
                                        op->getContext(), withAvailability(s.getValue())));
  });
  return true;
}

} // namespace xpu
