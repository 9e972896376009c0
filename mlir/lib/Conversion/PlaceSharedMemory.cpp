// Shared memory beyond a CUDA block's static limit, placed in the dynamic
// shared window; see Passes.td.
#include "xpu/Conversion/InteropLowering.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/KernelABI.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace xpu {
#define GEN_PASS_DEF_PLACESHAREDMEMORY
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

uint64_t bytesOf(BufferType t) {
  return uint64_t(t.getSize()) * std::max(1u, t.getElementType().getIntOrFloatBitWidth() / 8);
}

uint64_t alignmentOf(AllocOp op) {
  if (auto a = op->getAttrOfType<IntegerAttr>("xpu.alignment"))
    return std::max<uint64_t>(kSharedAlign, a.getInt());
  return kSharedAlign;
}

struct PlaceSharedMemoryPass : xpu::impl::PlaceSharedMemoryBase<PlaceSharedMemoryPass> {
  using PlaceSharedMemoryBase::PlaceSharedMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A helper's dynamic shared memory would start at the window's base,
    // over a placed kernel's own buffers.
    Operation *inHelper = nullptr;
    module.walk([&](DynamicSharedOp op) {
      if (!op->getParentOfType<KernelOp>())
        inHelper = op;
    });
    SmallVector<NamedAttribute> placed;
    for (KernelOp kernel : module.getOps<KernelOp>())
      if (uint64_t bytes = place(module, kernel))
        placed.push_back(NamedAttribute(kernel.getSymNameAttr(),
                                        IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                                         int64_t(bytes))));
    if (!placed.empty() && inHelper) {
      inHelper->emitOpError()
          << "is in a helper function, and kernel '"
          << placed.front().getName().getValue()
          << "' of this module has more than " << uint64_t(staticLimit)
          << " bytes of shared memory, so its own buffers are in the dynamic window "
             "there; take the dynamic shared memory in the kernel and pass it to the helper";
      return signalPassFailure();
    }
    if (!placed.empty())
      module->setAttr(abi::kLaunchSharedBytesAttr, DictionaryAttr::get(&getContext(), placed));
  }

  /// Places `kernel`'s shared allocations in the dynamic window when they
  /// exceed the static limit; returns the bytes the launch must then add
  /// (0: left static).
  uint64_t place(ModuleOp module, KernelOp kernel) {
    SmallVector<AllocOp> allocs;
    kernel.walk([&](AllocOp op) {
      if (op.getResult().getType().getSpace() == Space::shared)
        allocs.push_back(op);
    });
    SmallVector<uint64_t> offsets;
    uint64_t end = 0, alignment = kSharedAlign;
    for (AllocOp op : allocs) {
      uint64_t a = alignmentOf(op);
      offsets.push_back(llvm::alignTo(end, a));
      end = offsets.back() + bytesOf(op.getResult().getType());
      alignment = std::max(alignment, a);
    }
    if (end <= staticLimit)
      return 0;

    // The window's base is only known to be 16-byte aligned: rounding it up
    // to the largest alignment asked for costs that much less 16 bytes. The
    // mask (not a fixed offset) lets LLVM see the alignment of every view.
    OpBuilder b(&getContext());
    b.setInsertionPointToStart(&kernel.getBody().front());
    Location loc = kernel.getLoc();
    Value base = dynamicSharedAddress(b, loc, module);
    Type ptrTy = base.getType(), i8 = b.getI8Type(), i64 = b.getI64Type();
    if (alignment > kSharedAlign) {
      Value at = LLVM::PtrToIntOp::create(b, loc, i64, base);
      Value up = LLVM::AddOp::create(
          b, loc, at, LLVM::ConstantOp::create(b, loc, i64, int64_t(alignment - 1)));
      Value rounded = LLVM::AndOp::create(
          b, loc, up, LLVM::ConstantOp::create(b, loc, i64, -int64_t(alignment)));
      base = LLVM::IntToPtrOp::create(b, loc, ptrTy, rounded);
    }
    auto at = [&](uint64_t offset) -> Value {
      return offset ? LLVM::GEPOp::create(b, loc, ptrTy, i8, base,
                                          ArrayRef<LLVM::GEPArg>{int32_t(offset)})
                    : base;
    };
    for (auto [op, offset] : llvm::zip(allocs, offsets)) {
      b.setInsertionPoint(op);
      Value view = ViewOp::create(b, op.getLoc(), op.getResult().getType(), at(offset));
      op.getResult().replaceAllUsesWith(view);
      op.erase();
    }
    // The caller's dynamic shared memory follows.
    uint64_t own = llvm::alignTo(end, kSharedAlign);
    kernel.walk([&](DynamicSharedOp op) {
      b.setInsertionPoint(op);
      op.getBaseMutable().assign(at(own));
    });
    return own + (alignment - kSharedAlign);
  }
};

} // namespace
