// Adds the CPU entry points that unpack the argument block and run one
// workgroup (or one invocation, for kernels with barriers). See Passes.td.
#include "xpu/KernelABI.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_CPUWRAPPERS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// Hidden trailing parameters of a CPU kernel body: launch, tx, ty, tz, status.
constexpr unsigned kHiddenParams = 5;

/// Bytes a flattened parameter occupies in its argument slot.
unsigned slotBytes(Type t) {
  if (isa<LLVM::LLVMPointerType>(t))
    return 8;
  if (auto vec = dyn_cast<VectorType>(t)) {
    unsigned lanes = vec.getNumElements() == 3 ? 4 : vec.getNumElements();
    return lanes * slotBytes(vec.getElementType());
  }
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

Value fieldAddress(OpBuilder &b, Location loc, Value base, unsigned offset) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

/// Loads the kernel's flattened user parameters from the argument block.
SmallVector<Value> unpackArgs(OpBuilder &b, Location loc, LLVM::LLVMFuncOp kernel,
                              Value args) {
  SmallVector<Value> values;
  ArrayRef<Type> params = kernel.getArgumentTypes();
  unsigned offset = 0;
  for (Type t : params.drop_back(kHiddenParams)) {
    auto load = LLVM::LoadOp::create(b, loc, t, fieldAddress(b, loc, args, offset),
                                     /*alignment=*/1);
    load.setInvariant(true);
    values.push_back(load);
    unsigned bytes = slotBytes(t);
    offset += (bytes + abi::kSlotAlign - 1) / abi::kSlotAlign * abi::kSlotAlign;
  }
  return values;
}

Value loadLaunchWord(OpBuilder &b, Location loc, Value launch, unsigned offset,
                     Type type) {
  auto load = LLVM::LoadOp::create(b, loc, type, fieldAddress(b, loc, launch, offset));
  load.setInvariant(true);
  return load;
}

/// Emits `for (iv = 0; iv < bound; ++iv) body(iv)` as LLVM blocks, leaving the
/// builder at the start of the exit block.
void emitLoop(OpBuilder &b, Location loc, Value bound,
              function_ref<void(OpBuilder &, Value)> body) {
  Region *region = b.getBlock()->getParent();
  Type i32 = b.getI32Type();
  Block *header = new Block(), *bodyBlock = new Block(), *exit = new Block();
  region->push_back(header);
  region->push_back(bodyBlock);
  region->push_back(exit);
  header->addArgument(i32, loc);
  Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
  LLVM::BrOp::create(b, loc, ValueRange{zero}, header);

  b.setInsertionPointToStart(header);
  Value iv = header->getArgument(0);
  Value more = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, iv, bound);
  LLVM::CondBrOp::create(b, loc, more, bodyBlock, exit);

  b.setInsertionPointToStart(bodyBlock);
  body(b, iv);
  Value one = LLVM::ConstantOp::create(b, loc, i32, 1);
  Value next = LLVM::AddOp::create(b, loc, iv, one);
  LLVM::BrOp::create(b, loc, ValueRange{next}, header);
  b.setInsertionPointToStart(exit);
}

struct CPUWrappersPass : xpu::impl::CPUWrappersBase<CPUWrappersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto voidTy = LLVM::LLVMVoidType::get(ctx);
    Type i32 = IntegerType::get(ctx, 32);

    SmallVector<LLVM::LLVMFuncOp> kernels;
    module.walk([&](LLVM::LLVMFuncOp fn) {
      if (fn->hasAttr("xpu.kernel"))
        kernels.push_back(fn);
    });
    for (LLVM::LLVMFuncOp kernel : kernels) {
      if (kernel.getArgumentTypes().size() < kHiddenParams) {
        kernel.emitError("kernel lacks the CPU launch parameters");
        return signalPassFailure();
      }
      Location loc = kernel.getLoc();
      std::string name = kernel.getSymName().str();
      kernel.setLinkage(LLVM::Linkage::Internal);
      kernel.setAlwaysInline(true);
      OpBuilder b(ctx);
      b.setInsertionPointAfter(kernel);

      if (kernel->hasAttr("xpu.barriers")) {
        // One invocation per call; the runtime runs each as a fiber.
        auto fn = LLVM::LLVMFuncOp::create(
            b, loc, name + abi::kCpuItemSuffix,
            LLVM::LLVMFunctionType::get(voidTy, {ptrTy, ptrTy, i32, i32, i32}));
        Block *entry = fn.addEntryBlock(b);
        b.setInsertionPointToStart(entry);
        Value launch = entry->getArgument(1);
        SmallVector<Value> args = unpackArgs(b, loc, kernel, entry->getArgument(0));
        args.push_back(launch);
        for (unsigned i = 2; i < 5; ++i)
          args.push_back(entry->getArgument(i));
        args.push_back(loadLaunchWord(b, loc, launch, abi::kLaunchStatusOffset, ptrTy));
        LLVM::CallOp::create(b, loc, kernel, args);
        LLVM::ReturnOp::create(b, loc, ValueRange{});
        continue;
      }

      // The whole workgroup in one call: loops over z, y, x.
      auto fn = LLVM::LLVMFuncOp::create(
          b, loc, name + abi::kCpuGroupSuffix,
          LLVM::LLVMFunctionType::get(voidTy, {ptrTy, ptrTy}));
      Block *entry = fn.addEntryBlock(b);
      b.setInsertionPointToStart(entry);
      Value launch = entry->getArgument(1);
      SmallVector<Value> args = unpackArgs(b, loc, kernel, entry->getArgument(0));
      Value status = loadLaunchWord(b, loc, launch, abi::kLaunchStatusOffset, ptrTy);
      Value extent[3];
      for (unsigned d = 0; d < 3; ++d)
        extent[d] = loadLaunchWord(b, loc, launch, abi::kLaunchBlockOffset + 4 * d, i32);
      emitLoop(b, loc, extent[2], [&](OpBuilder &b, Value tz) {
        emitLoop(b, loc, extent[1], [&](OpBuilder &b, Value ty) {
          emitLoop(b, loc, extent[0], [&](OpBuilder &b, Value tx) {
            SmallVector<Value> callArgs(args);
            callArgs.append({launch, tx, ty, tz, status});
            LLVM::CallOp::create(b, loc, kernel, callArgs);
          });
        });
      });
      LLVM::ReturnOp::create(b, loc, ValueRange{});
    }
  }
};

} // namespace
