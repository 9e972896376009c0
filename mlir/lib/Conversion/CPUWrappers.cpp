// Adds the CPU entry points: a loop over a range of workgroups around a
// function that unpacks the argument block and runs one. See Passes.td.
#include "xpu/CpuAnyShape.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
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

/// Hidden trailing parameters of a CPU kernel body: launch, shared, status.
constexpr unsigned kHiddenParams = 3;
/// Static shared memory up to this size lives on the stack of the group
/// entry point instead of in the thread's shared block: LLVM then sees a
/// private array that dies at return, forwards what one region stores to
/// the loads of the next (a tree reduction's levels stay in registers) and
/// drops the stores nothing reads. The launch's block still holds the
/// dynamic shared memory, which follows the static part there.
/// (backends/common/llvm_codegen.cpp ends the CPU pipeline with that
/// forwarding.)
constexpr uint64_t kSharedOnStackBytes = 16 << 10;

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

/// Marks the kernel's pointer parameters `noalias`: each global buffer the
/// access list names and the shared block. Only valid when the launch has
/// checked that no written buffer overlaps another.
void markNoAlias(LLVM::LLVMFuncOp fn, ArrayRef<int32_t> access) {
  OpBuilder b(fn.getContext());
  unsigned arg = 0;
  for (int32_t mode : access) {
    if (mode >= 0)
      fn.setArgAttr(arg, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
    arg += mode >= 0 ? 2 : 1; // a buffer is (pointer, count)
  }
  unsigned shared = fn.getNumArguments() - 2;
  fn.setArgAttr(shared, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
}

/// Bytes of a memory type made of integers, floats and arrays of them.
uint64_t typeBytes(Type t) {
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(t))
    return array.getNumElements() * typeBytes(array.getElementType());
  if (auto vec = dyn_cast<VectorType>(t))
    return vec.getNumElements() * typeBytes(vec.getElementType());
  if (t.isIntOrFloat())
    return std::max(1u, t.getIntOrFloatBitWidth() / 8);
  return 8;
}

/// What the kernel's own arrays take on the stack.
uint64_t stackBytes(LLVM::LLVMFuncOp kernel) {
  uint64_t total = 0;
  kernel.walk([&](LLVM::AllocaOp a) { total += typeBytes(a.getElemType()) + 16; });
  return total;
}

/// An array of `bytes` in the current function's frame, aligned as the
/// shared block (kSharedAlign, the stack's own: the frame needs no
/// realignment).
Value privateArray(OpBuilder &b, Location loc, uint64_t bytes) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(), 1);
  return LLVM::AllocaOp::create(b, loc, ptrTy,
                                LLVM::LLVMArrayType::get(b.getI8Type(), bytes), one,
                                /*alignment=*/kSharedAlign);
}

/// Whether two buffers of the kernel could overlap with one of them
/// written: then the entry point needs a body compiled without `noalias`.
bool mayAlias(ArrayRef<int32_t> access) {
  unsigned buffers = 0, written = 0;
  for (int32_t mode : access) {
    buffers += mode >= 0;
    written += mode >= 0 && mode != int32_t(abi::Access::ro);
  }
  return buffers >= 2 && written >= 1;
}

/// `k.xpu_group(args, launch)`, one workgroup: the argument block
/// unpacked, the body with `noalias` or, for overlapping buffers (`aliased`
/// set), without. Compiled on its own (its stack array dies at its return,
/// so GVN and DSE take its stores), then inlined into the workgroup loop
/// (kCpuInlineLateAttr). Adds the array to `stackGlobal`'s bytes.
LLVM::LLVMFuncOp buildGroupFunction(OpBuilder &b, Location loc, const std::string &name,
                                    LLVM::LLVMFuncOp kernel, LLVM::LLVMFuncOp aliased,
                                    uint64_t shared, LLVM::GlobalOp stackGlobal) {
  MLIRContext *ctx = b.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  auto group = LLVM::LLVMFuncOp::create(
      b, loc, name + ".xpu_group", LLVM::LLVMFunctionType::get(voidTy, {ptrTy, ptrTy}));
  group.setLinkage(LLVM::Linkage::Internal);
  group.setNoInline(true);
  group.setPassthroughAttr(b.getArrayAttr({b.getStringAttr(abi::kCpuInlineLateAttr)}));
  OpBuilder::InsertionGuard guard(b);
  Block *entry = group.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  Value launch = entry->getArgument(1);
  SmallVector<Value> args = unpackArgs(b, loc, kernel, entry->getArgument(0));
  args.push_back(launch);
  Value sharedBlock = loadLaunchWord(b, loc, launch, abi::kLaunchSharedOffset, ptrTy);
  bool sharedOnStack = shared > 0 && shared <= kSharedOnStackBytes;
  args.push_back(sharedOnStack ? privateArray(b, loc, shared) : sharedBlock);
  args.push_back(loadLaunchWord(b, loc, launch, abi::kLaunchStatusOffset, ptrTy));
  if (sharedOnStack)
    stackGlobal.setValueAttr(
        b.getI64IntegerAttr(int64_t(stackBytes(kernel) + shared + kSharedAlign)));
  if (!aliased) {
    LLVM::CallOp::create(b, loc, kernel, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return group;
  }
  Value flags = loadLaunchWord(b, loc, launch, abi::kLaunchFlagsOffset, i32);
  Value bit = LLVM::ConstantOp::create(b, loc, i32, abi::kCpuBuffersDistinct);
  Value masked = LLVM::AndOp::create(b, loc, flags, bit);
  Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
  Value distinct = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, masked, zero);
  Block *fast = group.addBlock(), *slow = group.addBlock();
  LLVM::CondBrOp::create(b, loc, distinct, fast, slow);
  for (auto [block, callee] : {std::pair{fast, kernel}, std::pair{slow, aliased}}) {
    b.setInsertionPointToStart(block);
    // The array must not escape into the out-of-line body, or LLVM keeps
    // every store to it; that body takes the thread's block.
    if (callee == aliased && sharedOnStack)
      args[args.size() - 2] = sharedBlock;
    LLVM::CallOp::create(b, loc, callee, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }
  return group;
}

/// The entry point `k` + kCpuGroupSuffix: workgroups [begin, end) of the
/// grid (x fastest) in one call, a loop over them, so that the hardware
/// sees one stream of loads across them rather than a call per workgroup.
void buildRangeEntry(OpBuilder &b, Location loc, const std::string &name,
                     LLVM::LLVMFuncOp group) {
  MLIRContext *ctx = b.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto voidTy = LLVM::LLVMVoidType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  auto fn = LLVM::LLVMFuncOp::create(
      b, loc, name + abi::kCpuGroupSuffix,
      LLVM::LLVMFunctionType::get(voidTy, {ptrTy, ptrTy, i64, i64}));
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  Value argBlock = entry->getArgument(0), launch = entry->getArgument(1);
  auto i64Const = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i64, v); };
  auto gridExtent = [&](unsigned d) -> Value {
    Value n = loadLaunchWord(b, loc, launch, abi::kLaunchGridOffset + 4 * d, i32);
    return LLVM::ZExtOp::create(b, loc, i64, n);
  };
  Value begin = entry->getArgument(2), end = entry->getArgument(3);
  Value gx = gridExtent(0), gy = gridExtent(1);
  // Divides once, then counts.
  Value rows = LLVM::UDivOp::create(b, loc, begin, gx);
  Value x0 = LLVM::URemOp::create(b, loc, begin, gx);
  Value y0 = LLVM::URemOp::create(b, loc, rows, gy);
  Value z0 = LLVM::UDivOp::create(b, loc, rows, gy);
  Block *head = fn.addBlock(), *body = fn.addBlock(), *exit = fn.addBlock();
  for (int k = 0; k < 4; ++k)
    head->addArgument(i64, loc);
  LLVM::BrOp::create(b, loc, ValueRange{begin, x0, y0, z0}, head);

  b.setInsertionPointToStart(head);
  Value at = head->getArgument(0), x = head->getArgument(1), y = head->getArgument(2),
        z = head->getArgument(3);
  Value more = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, at, end);
  LLVM::CondBrOp::create(b, loc, more, body, exit);

  // The kernel reads its workgroup id from the launch record (plain
  // loads: xpu-lower-execution-model marks only the fixed fields
  // invariant).
  b.setInsertionPointToStart(body);
  Value ids[3] = {x, y, z};
  for (unsigned d = 0; d < 3; ++d)
    LLVM::StoreOp::create(b, loc, LLVM::TruncOp::create(b, loc, i32, ids[d]),
                          fieldAddress(b, loc, launch, abi::kLaunchWgOffset + 4 * d));
  LLVM::CallOp::create(b, loc, group, ValueRange{argBlock, launch});
  Value one = i64Const(1), zero64 = i64Const(0);
  Value x1 = LLVM::AddOp::create(b, loc, x, one);
  Value rowDone = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, x1, gx);
  Value x2 = LLVM::SelectOp::create(b, loc, rowDone, zero64, x1);
  Value y1 = LLVM::SelectOp::create(b, loc, rowDone, LLVM::AddOp::create(b, loc, y, one), y);
  Value planeDone = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, y1, gy);
  Value y2 = LLVM::SelectOp::create(b, loc, planeDone, zero64, y1);
  Value z2 = LLVM::SelectOp::create(b, loc, planeDone, LLVM::AddOp::create(b, loc, z, one), z);
  LLVM::BrOp::create(b, loc, ValueRange{LLVM::AddOp::create(b, loc, at, one), x2, y2, z2},
                     head);

  b.setInsertionPointToStart(exit);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

struct CPUWrappersPass : xpu::impl::CPUWrappersBase<CPUWrappersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Type i64 = IntegerType::get(&getContext(), 64);

    // Loop hints reach the back edges as discardable attributes (from
    // scf.for through cf); LLVM translation reads the branches' own.
    module.walk([](LLVM::BrOp br) {
      if (auto hint = br->getAttrOfType<LLVM::LoopAnnotationAttr>("llvm.loop_annotation")) {
        br->removeAttr("llvm.loop_annotation");
        br.setLoopAnnotationAttr(hint);
      }
    });

    SmallVector<LLVM::LLVMFuncOp> kernels;
    module.walk([&](LLVM::LLVMFuncOp fn) {
      if (fn->hasAttr("xpu.kernel"))
        kernels.push_back(fn);
    });
    for (LLVM::LLVMFuncOp kernel : kernels) {
      auto access = kernel->getAttrOfType<DenseI32ArrayAttr>(abi::kCpuBufferAccessAttr);
      auto sharedBytes = kernel->getAttrOfType<IntegerAttr>(abi::kCpuSharedBytesAttr);
      if (kernel.getArgumentTypes().size() < kHiddenParams || !access || !sharedBytes) {
        kernel.emitError("kernel lacks the CPU launch parameters "
                         "(xpu-lower-execution-model target=cpu)");
        return signalPassFailure();
      }
      Location loc = kernel.getLoc();
      std::string name = kernel.getSymName().str();
      kernel.setLinkage(LLVM::Linkage::Internal);
      kernel.setAlwaysInline(true);
      OpBuilder b(&getContext());
      b.setInsertionPointAfter(kernel);

      // The same body without `noalias`, for launches whose buffers overlap:
      // rare, so compiled small (no vectorization) to keep compiles fast.
      LLVM::LLVMFuncOp aliased;
      if (mayAlias(access.asArrayRef())) {
        aliased = cast<LLVM::LLVMFuncOp>(b.clone(*kernel));
        aliased.setSymName(name + ".may_alias");
        aliased.setAlwaysInline(false);
        aliased.setNoInline(true);
        aliased.setPassthroughAttr(
            b.getArrayAttr({b.getStringAttr("minsize"), b.getStringAttr("optsize")}));
      }
      markNoAlias(kernel, access.asArrayRef());

      LLVM::GlobalOp::create(b, loc, i64, /*isConstant=*/true,
                             LLVM::Linkage::External, name + abi::kCpuSharedBytesSuffix,
                             b.getI64IntegerAttr(sharedBytes.getInt()));
      auto stackGlobal = LLVM::GlobalOp::create(
          b, loc, i64, /*isConstant=*/true, LLVM::Linkage::External,
          name + abi::kCpuStackBytesSuffix, b.getI64IntegerAttr(int64_t(stackBytes(kernel))));
      LLVM::GlobalOp::create(b, loc, i64, /*isConstant=*/true,
                             LLVM::Linkage::External, name + abi::kCpuAnyShapeSuffix,
                             b.getI64IntegerAttr(kernel->hasAttr(abi::kCpuAnyShapeAttr)));

      LLVM::LLVMFuncOp group = buildGroupFunction(
          b, loc, name, kernel, aliased, uint64_t(sharedBytes.getInt()), stackGlobal);
      buildRangeEntry(b, loc, name, group);
    }
  }
};

} // namespace
