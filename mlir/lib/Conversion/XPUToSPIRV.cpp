// Lowers xpu kernels and their bodies to one spirv.module for Vulkan compute:
// the SPIR-V sibling of XPUToLLVM. See Passes.td.
#include "xpu/Conversion/InteropLowering.h"
#include "xpu/IntegerToSPIRV.h"
#include "xpu/KernelABI.h"
#include "xpu/TileLowering.h"
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/ControlFlowToSPIRV/ControlFlowToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "llvm/ADT/SetVector.h"

namespace xpu {
#define GEN_PASS_DEF_CONVERTXPUTOSPIRV
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// What the kernel patterns record for the patterns of their bodies and for
/// the entry points made after conversion.
struct LoweringState {
  /// Where the element count of each global buffer variable lives: the
  /// argument-block variable and the member index.
  llvm::DenseMap<StringAttr, std::pair<StringAttr, unsigned>> counts;
  /// Kernels converted, and whether each permits contraction.
  SmallVector<std::pair<std::string, bool>> kernels;
  unsigned sharedVars = 0;
  /// The id of the next specialization constant a parameter is read from.
  uint32_t nextParamSpecId = abi::kVulkanParamSpecIdBase;
};

/// The type an element has in a storage buffer: bool is a byte, as on the
/// host. Shared and private scratch keep bool as SPIR-V's bool.
Type memoryType(Type elem, Space space) {
  if (elem.isInteger(1) && space == Space::global)
    return IntegerType::get(elem.getContext(), 8);
  return elem;
}

unsigned elementBytes(Type elem) {
  return std::max(1u, elem.getIntOrFloatBitWidth() / 8);
}

/// Global buffers are storage-buffer blocks of a runtime array; shared and
/// private scratch are fixed arrays in Workgroup and Function storage.
spirv::PointerType bufferPointerType(BufferType t) {
  Type mem = memoryType(t.getElementType(), t.getSpace());
  switch (t.getSpace()) {
  case Space::global: {
    SmallVector<spirv::StructType::MemberDecorationInfo> decorations;
    if (t.getAccess() == Access::ro)
      decorations.emplace_back(0, spirv::Decoration::NonWritable,
                               UnitAttr::get(t.getContext()));
    auto block = spirv::StructType::get(
        {spirv::RuntimeArrayType::get(mem, elementBytes(mem))}, {0}, decorations);
    return spirv::PointerType::get(block, spirv::StorageClass::StorageBuffer);
  }
  case Space::shared:
    return spirv::PointerType::get(spirv::ArrayType::get(mem, t.getSize()),
                                   spirv::StorageClass::Workgroup);
  case Space::private_:
    return spirv::PointerType::get(spirv::ArrayType::get(mem, t.getSize()),
                                   spirv::StorageClass::Function);
  }
  llvm_unreachable("space");
}

Value constant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return spirv::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

/// The address of element `index` (plus `offset`) of a lowered buffer.
Value elementPointer(OpBuilder &b, Location loc, Value buffer, Value index,
                     int64_t offset = 0) {
  auto ptrTy = cast<spirv::PointerType>(buffer.getType());
  if (offset)
    index = spirv::IAddOp::create(b, loc, index,
                                  constant(b, loc, index.getType(), offset));
  SmallVector<Value, 2> indices;
  if (isa<spirv::StructType>(ptrTy.getPointeeType()))
    indices.push_back(constant(b, loc, b.getI32Type(), 0));
  indices.push_back(index);
  return spirv::AccessChainOp::create(b, loc, buffer, indices);
}

/// Declares (once per module) and reads a compute builtin; `dim` selects a
/// component of the three-component ones. Vulkan builtins are 32-bit.
Value readBuiltin(OpBuilder &b, Operation *at, spirv::BuiltIn builtin,
                  std::optional<Dim> dim, Type indexTy) {
  Location loc = at->getLoc();
  auto module = at->getParentOfType<spirv::ModuleOp>();
  std::string name = ("__builtin_" + spirv::stringifyBuiltIn(builtin)).str();
  Type i32 = b.getI32Type();
  Type valueTy = dim ? Type(VectorType::get({3}, i32)) : i32;
  auto var = module.lookupSymbol<spirv::GlobalVariableOp>(name);
  if (!var) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    var = spirv::GlobalVariableOp::create(
        b, loc, spirv::PointerType::get(valueTy, spirv::StorageClass::Input), name,
        builtin);
  }
  Value v = spirv::LoadOp::create(b, loc, spirv::AddressOfOp::create(b, loc, var));
  if (dim)
    v = spirv::CompositeExtractOp::create(b, loc, v, {int32_t(*dim)});
  if (indexTy != i32)
    v = spirv::UConvertOp::create(b, loc, indexTy, v);
  return v;
}

/// The launch's workgroup size along `dim`: a specialization constant the
/// runtime sets when it makes the pipeline for a launch shape.
Value workgroupSize(OpBuilder &b, Location loc, Dim dim, Type indexTy) {
  Value v = spirv::ReferenceOfOp::create(b, loc, b.getI32Type(),
                                         kWorkgroupSizeSpecs[unsigned(dim)]);
  if (indexTy != b.getI32Type())
    v = spirv::UConvertOp::create(b, loc, indexTy, v);
  return v;
}

template <typename Op>
struct XPUPattern : OpConversionPattern<Op> {
  XPUPattern(const SPIRVTypeConverter &tc, MLIRContext *ctx, LoweringState &state)
      : OpConversionPattern<Op>(tc, ctx), state(state) {}
  Type indexType() const {
    return this->template getTypeConverter<SPIRVTypeConverter>()->getIndexType();
  }
  LoweringState &state;
};

//===----------------------------------------------------------------------===//
// Kernels: parameters become bindings and an argument block
//===----------------------------------------------------------------------===//

/// The argument-block member holding scalar parameter `p` of type `t`:
/// 8- and 16-bit lanes are widened to 32 bits (abi::vulkanArgLayout), an
/// index is 64 bits wide and read as the target's index type (its low word
/// when that is 32 bits; the block is little-endian).
Type memberType(const abi::Param &p, Type t, Type indexTy) {
  MLIRContext *ctx = t.getContext();
  Type elem = getElementTypeOrSelf(t);
  Type lane = elem.isIndex() ? indexTy
              : abi::scalarBytes(p.elem) < 4 ? IntegerType::get(ctx, 32)
                                              : elem;
  if (auto vec = dyn_cast<VectorType>(t))
    return VectorType::get(vec.getShape(), lane);
  return lane;
}

/// Turns a loaded member back into the parameter's value.
Value fromMember(OpBuilder &b, Location loc, Value raw, Type t) {
  Type elem = getElementTypeOrSelf(t);
  if (elem.isIndex() || raw.getType() == t)
    return raw;
  if (elem.isInteger(1))
    return spirv::INotEqualOp::create(
        b, loc, raw, spirv::ConstantOp::getZero(raw.getType(), loc, b));
  if (elem.isInteger())
    return spirv::UConvertOp::create(b, loc, t, raw);
  // f16: the low half of each 32-bit lane, read as two f16 (no 16-bit
  // integers needed).
  auto half = [&](Value lane) -> Value {
    Value pair = spirv::BitcastOp::create(b, loc, VectorType::get({2}, elem), lane);
    return spirv::CompositeExtractOp::create(b, loc, pair, {0});
  };
  auto vec = dyn_cast<VectorType>(t);
  if (!vec)
    return half(raw);
  SmallVector<Value, 4> lanes;
  for (int32_t k = 0; k < int32_t(vec.getNumElements()); ++k)
    lanes.push_back(half(spirv::CompositeExtractOp::create(b, loc, raw, {k})));
  return spirv::CompositeConstructOp::create(b, loc, t, lanes);
}

struct KernelLowering : XPUPattern<KernelOp> {
  KernelLowering(const SPIRVTypeConverter &tc, MLIRContext *ctx,
                 LoweringState &state, unsigned maxPushConstantBytes)
      : XPUPattern(tc, ctx, state), maxPush(maxPushConstantBytes) {}
  unsigned maxPush;

  LogicalResult
  matchAndRewrite(KernelOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Region &body = op.getBody();
    if (!body.hasOneBlock())
      return op.emitOpError("has unstructured control flow (more than one "
                            "block); SPIR-V needs structured control flow (scf)");
    Location loc = op.getLoc();
    std::string name = op.getSymName().str();
    Type indexTy = indexType();
    Type i32 = rw.getI32Type();

    // The user's parameters (the status word is not one) and their block.
    SmallVector<Type> types(op.getArgumentTypes());
    std::vector<abi::Param> params;
    SmallVector<int> paramOfArg(types.size(), -1);
    for (auto [i, t] : llvm::enumerate(types)) {
      if (op.getArgAttr(i, kStatusArgAttr))
        continue;
      paramOfArg[i] = int(params.size());
      params.push_back(paramOf(t));
    }
    abi::VulkanArgs layout = abi::vulkanArgLayout(params);
    unsigned numBuffers = llvm::count_if(params, [](auto &p) { return p.isBuffer; });

    rw.setInsertionPoint(op);
    spirv::GlobalVariableOp argsVar;
    spirv::StorageClass argsClass = spirv::StorageClass::PushConstant;
    SmallVector<Type> members;
    for (auto [i, t] : llvm::enumerate(types))
      if (paramOfArg[i] >= 0)
        members.push_back(params[paramOfArg[i]].isBuffer
                              ? i32
                              : memberType(params[paramOfArg[i]], t, indexTy));
    if (!members.empty()) {
      auto block = spirv::StructType::get(members, layout.offsets);
      std::string argsName = "__xpu_" + name + "_args";
      if (layout.bytes > maxPush) {
        argsClass = spirv::StorageClass::Uniform;
        argsVar = spirv::GlobalVariableOp::create(
            rw, loc, spirv::PointerType::get(block, argsClass), argsName,
            /*descriptorSet=*/0, /*binding=*/numBuffers + 1);
      } else {
        argsVar = spirv::GlobalVariableOp::create(
            rw, loc, TypeAttr::get(spirv::PointerType::get(block, argsClass)),
            rw.getStringAttr(argsName));
      }
    }

    // Parameters the pipelines are specialized on (abi::kSpecializeAttr)
    // are read from specialization constants instead of the argument block.
    SmallVector<spirv::SpecConstantOp> specs(types.size());
    for (auto [i, t] : llvm::enumerate(types)) {
      auto type = dyn_cast<IntegerType>(t);
      if (paramOfArg[i] < 0 || !op.getArgAttr(i, abi::kSpecializeAttr) || !type ||
          (type.getWidth() != 32 && type.getWidth() != 64))
        continue;
      specs[i] = spirv::SpecConstantOp::create(
          rw, loc,
          abi::kVulkanParamSpecPrefix + name + "_param" + std::to_string(paramOfArg[i]),
          rw.getIntegerAttr(type, 0));
      specs[i]->setAttr("spec_id", rw.getI32IntegerAttr(state.nextParamSpecId++));
    }

    // Buffers: one storage-buffer variable each, bound in parameter order.
    SmallVector<spirv::GlobalVariableOp> bufferVars(types.size());
    for (auto [i, t] : llvm::enumerate(types)) {
      auto buf = dyn_cast<BufferType>(t);
      if (!buf)
        continue;
      if (buf.getSpace() != Space::global)
        return op.emitOpError("parameter ")
               << i << " is a " << stringifySpace(buf.getSpace())
               << " buffer; kernels receive only global buffers";
      unsigned binding = 0;
      if (paramOfArg[i] >= 0)
        for (int k = 0; k < paramOfArg[i]; ++k)
          binding += params[k].isBuffer;
      else
        binding = numBuffers;
      bufferVars[i] = spirv::GlobalVariableOp::create(
          rw, loc, bufferPointerType(buf),
          "__xpu_" + name + "_binding" + std::to_string(binding), 0, binding);
      if (paramOfArg[i] >= 0)
        state.counts[bufferVars[i].getSymNameAttr()] = {
            argsVar.getSymNameAttr(), unsigned(paramOfArg[i])};
    }

    auto fn = spirv::FuncOp::create(rw, loc, name, rw.getFunctionType({}, {}));
    rw.inlineRegionBefore(body, fn.getBody(), fn.end());
    Block *entry = &fn.getBody().front();
    rw.setInsertionPointToStart(entry);
    TypeConverter::SignatureConversion sig(entry->getNumArguments());
    for (auto [i, t] : llvm::enumerate(types)) {
      if (bufferVars[i]) {
        Value addr = spirv::AddressOfOp::create(rw, loc, bufferVars[i]);
        sig.remapInput(i, addr);
        continue;
      }
      if (paramOfArg[i] < 0)
        return op.emitOpError("has a status word that is not a buffer; run "
                              "xpu-prepare-lowering with status-type=buffer");
      if (specs[i]) {
        Value value = spirv::ReferenceOfOp::create(rw, loc, t, specs[i].getSymName());
        sig.remapInput(i, value);
        continue;
      }
      unsigned member = paramOfArg[i];
      Value at = spirv::AccessChainOp::create(
          rw, loc, spirv::AddressOfOp::create(rw, loc, argsVar),
          ValueRange{constant(rw, loc, i32, member)});
      Value raw = spirv::LoadOp::create(rw, loc, at);
      Value value = fromMember(rw, loc, raw, t);
      sig.remapInput(i, value);
    }
    rw.applySignatureConversion(entry, sig, getTypeConverter());
    state.kernels.push_back({name, op.getFastmath()});
    rw.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : XPUPattern<ReturnOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (!op.getOperands().empty())
      return op.emitOpError("returns values from a kernel");
    rw.replaceOpWithNewOp<spirv::ReturnOp>(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

template <typename Op, spirv::BuiltIn builtin>
struct DimBuiltinLowering : XPUPattern<Op> {
  using XPUPattern<Op>::XPUPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, readBuiltin(rw, op, builtin, op.getDim(), this->indexType()));
    return success();
  }
};

struct WorkgroupSizeLowering : XPUPattern<WorkgroupSizeOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(WorkgroupSizeOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, workgroupSize(rw, op.getLoc(), op.getDim(), indexType()));
    return success();
  }
};

struct GlobalSizeLowering : XPUPattern<GlobalSizeOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(GlobalSizeOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Value grid = readBuiltin(rw, op, spirv::BuiltIn::NumWorkgroups, op.getDim(),
                             indexType());
    Value size = workgroupSize(rw, op.getLoc(), op.getDim(), indexType());
    rw.replaceOpWithNewOp<spirv::IMulOp>(op, grid, size);
    return success();
  }
};

/// Wave width and lane: the subgroup's, read where the kernel runs (variance
/// row 1: the subgroup size is only fixed when the pipeline is made).
template <typename Op, spirv::BuiltIn builtin>
struct SubgroupLowering : XPUPattern<Op> {
  using XPUPattern<Op>::XPUPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOp(op, readBuiltin(rw, op, builtin, std::nullopt, this->indexType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

struct LoadLowering : XPUPattern<LoadOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    BufferType type = op.getBufferType();
    bool byteBool = memoryType(type.getElementType(), type.getSpace()) !=
                    type.getElementType();
    // Lanes are read one by one: a vector at element i need not be aligned.
    SmallVector<Value, 4> lanes;
    for (int64_t k = 0; k < op.getWidth(); ++k) {
      Value at = elementPointer(rw, loc, adaptor.getBuffer(), adaptor.getIndex(), k);
      Value v = spirv::LoadOp::create(rw, loc, at);
      if (byteBool) // any nonzero byte is true
        v = spirv::INotEqualOp::create(
            rw, loc, v, spirv::ConstantOp::getZero(v.getType(), loc, rw));
      lanes.push_back(v);
    }
    Type resultTy = getTypeConverter()->convertType(op.getResult().getType());
    if (lanes.size() == 1)
      rw.replaceOp(op, lanes.front());
    else
      rw.replaceOpWithNewOp<spirv::CompositeConstructOp>(op, resultTy, lanes);
    return success();
  }
};

struct StoreLowering : XPUPattern<StoreOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    BufferType type = op.getBufferType();
    Type mem = memoryType(type.getElementType(), type.getSpace());
    Value value = adaptor.getValue();
    for (int64_t k = 0; k < op.getWidth(); ++k) {
      Value v = value;
      if (op.getWidth() > 1)
        v = spirv::CompositeExtractOp::create(rw, loc, value, {int32_t(k)});
      if (mem != type.getElementType())
        v = spirv::SelectOp::create(rw, loc, v, spirv::ConstantOp::getOne(mem, loc, rw),
                                    spirv::ConstantOp::getZero(mem, loc, rw));
      Value at = elementPointer(rw, loc, adaptor.getBuffer(), adaptor.getIndex(), k);
      spirv::StoreOp::create(rw, loc, at, v);
    }
    rw.eraseOp(op);
    return success();
  }
};

/// Global buffers: the element count the launch passed in the argument
/// block; scratch: the static size.
struct BufferSizeLowering : XPUPattern<BufferSizeOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(BufferSizeOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto type = cast<BufferType>(op.getBuffer().getType());
    Type indexTy = indexType();
    std::optional<std::pair<StringAttr, unsigned>> count;
    if (auto addr = adaptor.getBuffer().getDefiningOp<spirv::AddressOfOp>()) {
      auto it = state.counts.find(addr.getVariableAttr().getAttr());
      if (it != state.counts.end())
        count = it->second;
    }
    if (!count) {
      if (!type.hasStaticSize())
        return op.emitOpError("needs a buffer that comes straight from a kernel "
                              "parameter");
      rw.replaceOp(op, constant(rw, loc, indexTy, type.getSize()));
      return success();
    }
    auto module = op->getParentOfType<spirv::ModuleOp>();
    auto argsVar = module.lookupSymbol<spirv::GlobalVariableOp>(count->first);
    Value at = spirv::AccessChainOp::create(
        rw, loc, spirv::AddressOfOp::create(rw, loc, argsVar),
        ValueRange{constant(rw, loc, rw.getI32Type(), count->second)});
    Value n = spirv::LoadOp::create(rw, loc, at);
    if (indexTy != n.getType())
      n = spirv::UConvertOp::create(rw, loc, indexTy, n);
    rw.replaceOp(op, n);
    return success();
  }
};

/// Logical addressing has no addresses, but each buffer starts where its
/// binding does (offset 0 of its own VkBuffer: vulkan_kernels.cpp) or
/// where its Workgroup variable does, at least 16-byte aligned; so
/// buffer[index] lies at a multiple of `bytes` (up to 16) when index times
/// the element size is one.
struct AlignedLowering : XPUPattern<AlignedOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AlignedOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    int64_t bytes = op.getBytes();
    if (bytes > 16 || bytes <= 0 || (bytes & (bytes - 1)))
      return op.emitOpError("asks for an alignment of ")
             << bytes << " bytes; a Vulkan buffer's start is known to 16";
    Location loc = op.getLoc();
    Type elem = cast<BufferType>(op.getBuffer().getType()).getElementType();
    Value index = adaptor.getIndex();
    Type t = index.getType();
    Value offset = spirv::IMulOp::create(
        rw, loc, index, constant(rw, loc, t, std::max(1u, elem.getIntOrFloatBitWidth() / 8)));
    Value low = spirv::BitwiseAndOp::create(rw, loc, offset, constant(rw, loc, t, bytes - 1));
    rw.replaceOpWithNewOp<spirv::IEqualOp>(op, low, constant(rw, loc, t, 0));
    return success();
  }
};

/// Shared scratch is a Workgroup variable of the module; private scratch a
/// Function variable at the kernel's entry.
struct AllocLowering : XPUPattern<AllocOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    BufferType type = op.getResult().getType();
    spirv::PointerType ptrTy = bufferPointerType(type);
    if (type.getSpace() == Space::private_) {
      auto fn = op->getParentOfType<spirv::FuncOp>();
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(&fn.getBody().front());
      Value var = spirv::VariableOp::create(rw, loc, ptrTy,
                                            spirv::StorageClass::Function, Value());
      rw.replaceOp(op, var);
      return success();
    }
    auto module = op->getParentOfType<spirv::ModuleOp>();
    spirv::GlobalVariableOp var;
    {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(module.getBody());
      var = spirv::GlobalVariableOp::create(
          rw, loc, TypeAttr::get(ptrTy),
          rw.getStringAttr("__xpu_shared_" + std::to_string(state.sharedVars++)));
    }
    rw.replaceOpWithNewOp<spirv::AddressOfOp>(op, var);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Synchronization and atomics
//===----------------------------------------------------------------------===//

struct BarrierLowering : XPUPattern<BarrierOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    using S = spirv::MemorySemantics;
    rw.replaceOpWithNewOp<spirv::ControlBarrierOp>(
        op, spirv::Scope::Workgroup, spirv::Scope::Workgroup,
        S::AcquireRelease | S::WorkgroupMemory | S::UniformMemory);
    return success();
  }
};

/// The GLSL450 memory model has no QueueFamily scope; Device is the next
/// wider one. Invocation scope orders nothing across invocations, so the
/// narrowest scope Vulkan allows for atomics, Subgroup, serves it.
spirv::Scope scopeOf(Scope scope) {
  switch (scope) {
  case Scope::invocation:
  case Scope::subgroup:
    return spirv::Scope::Subgroup;
  case Scope::workgroup:
    return spirv::Scope::Workgroup;
  case Scope::queue_family:
  case Scope::device:
    return spirv::Scope::Device;
  }
  llvm_unreachable("scope");
}

/// Orderings name the storage class they order. Vulkan treats
/// SequentiallyConsistent as AcquireRelease, which is what it is given.
spirv::MemorySemantics semanticsOf(MemoryOrder order, Space space) {
  using S = spirv::MemorySemantics;
  S storage = space == Space::shared ? S::WorkgroupMemory : S::UniformMemory;
  switch (order) {
  case MemoryOrder::relaxed:
    return S::None;
  case MemoryOrder::acquire:
    return S::Acquire | storage;
  case MemoryOrder::release:
    return S::Release | storage;
  case MemoryOrder::acq_rel:
  case MemoryOrder::seq_cst:
    return S::AcquireRelease | storage;
  }
  llvm_unreachable("order");
}

struct AtomicLowering : XPUPattern<AtomicRMWOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto type = cast<BufferType>(op.getBuffer().getType());
    Value at = elementPointer(rw, loc, adaptor.getBuffer(), adaptor.getIndex());
    Value v = adaptor.getValue();
    Type t = v.getType();
    if (type.getSpace() == Space::private_) {
      // Private memory belongs to one invocation: a plain read-modify-write.
      Value old = spirv::LoadOp::create(rw, loc, at);
      Value next = privateUpdate(rw, loc, op.getKind(), old, v, adaptor.getExpected());
      spirv::StoreOp::create(rw, loc, at, next);
      rw.replaceOp(op, old);
      return success();
    }
    spirv::Scope scope = scopeOf(op.getScope());
    spirv::MemorySemantics sem = semanticsOf(op.getOrder(), type.getSpace());
    Value r;
    switch (op.getKind()) {
    case AtomicKind::add:
      r = spirv::AtomicIAddOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::sub:
      r = spirv::AtomicISubOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::smin:
      r = spirv::AtomicSMinOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::smax:
      r = spirv::AtomicSMaxOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::umin:
      r = spirv::AtomicUMinOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::umax:
      r = spirv::AtomicUMaxOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::and_:
      r = spirv::AtomicAndOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::or_:
      r = spirv::AtomicOrOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::xor_:
      r = spirv::AtomicXorOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::xchg:
      r = spirv::AtomicExchangeOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::fadd:
      r = spirv::EXTAtomicFAddOp::create(rw, loc, t, at, scope, sem, v);
      break;
    case AtomicKind::cmpxchg: {
      if (!isa<IntegerType>(t))
        return op.emitOpError("compare-exchanges floats: SPIR-V's compare-exchange "
                              "takes integers (xpu-spirv-float-atomics views the buffer "
                              "as integers first)");
      spirv::MemorySemantics failure = failureSemanticsOf(op.getOrder(), type.getSpace());
      r = spirv::AtomicCompareExchangeOp::create(rw, loc, t, at, scope, sem, failure, v,
                                                 adaptor.getExpected());
      break;
    }
    case AtomicKind::fmin:
    case AtomicKind::fmax:
      return op.emitOpError("needs a compare-exchange loop (xpu-spirv-float-atomics) "
                            "first: SPIR-V has no float min/max atomic here");
    }
    rw.replaceOp(op, r);
    return success();
  }

  /// A failed compare-exchange orders like a load: acquire at most.
  static spirv::MemorySemantics failureSemanticsOf(MemoryOrder order, Space space) {
    switch (order) {
    case MemoryOrder::release:
      return semanticsOf(MemoryOrder::relaxed, space);
    case MemoryOrder::acq_rel:
    case MemoryOrder::seq_cst:
      return semanticsOf(MemoryOrder::acquire, space);
    default:
      return semanticsOf(order, space);
    }
  }

  static Value privateUpdate(OpBuilder &b, Location loc, AtomicKind kind,
                             Value old, Value v, Value expected) {
    switch (kind) {
    case AtomicKind::add:
      return spirv::IAddOp::create(b, loc, old, v);
    case AtomicKind::sub:
      return spirv::ISubOp::create(b, loc, old, v);
    case AtomicKind::smin:
      return spirv::GLSMinOp::create(b, loc, old, v);
    case AtomicKind::smax:
      return spirv::GLSMaxOp::create(b, loc, old, v);
    case AtomicKind::umin:
      return spirv::GLUMinOp::create(b, loc, old, v);
    case AtomicKind::umax:
      return spirv::GLUMaxOp::create(b, loc, old, v);
    case AtomicKind::and_:
      return spirv::BitwiseAndOp::create(b, loc, old, v);
    case AtomicKind::or_:
      return spirv::BitwiseOrOp::create(b, loc, old, v);
    case AtomicKind::xor_:
      return spirv::BitwiseXorOp::create(b, loc, old, v);
    case AtomicKind::xchg:
      return v;
    case AtomicKind::fadd:
      return spirv::FAddOp::create(b, loc, old, v);
    case AtomicKind::fmin:
    case AtomicKind::fmax:
      llvm_unreachable("float min/max atomics are expanded by xpu-spirv-float-atomics");
    case AtomicKind::cmpxchg: {
      Type bits = b.getIntegerType(old.getType().getIntOrFloatBitWidth());
      Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         arith::BitcastOp::create(b, loc, bits, old),
                                         arith::BitcastOp::create(b, loc, bits, expected));
      return arith::SelectOp::create(b, loc, same, v, old);
    }
    }
    llvm_unreachable("atomic kind");
  }
};

/// A global buffer's elements as integers: a second variable on the same
/// descriptor binding (Vulkan lets variables alias a binding), so that
/// float compare-exchange loops can use SPIR-V's integer atomics.
struct BitsViewLowering : XPUPattern<BitsViewOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(BitsViewOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    auto addr = adaptor.getBuffer().getDefiningOp<spirv::AddressOfOp>();
    auto module = op->getParentOfType<spirv::ModuleOp>();
    auto var = addr ? module.lookupSymbol<spirv::GlobalVariableOp>(addr.getVariableAttr())
                    : spirv::GlobalVariableOp();
    if (!var || !var.getBinding())
      return op.emitOpError("views only a global buffer parameter as integers");
    std::string name = (var.getSymName() + "_bits").str();
    auto alias = module.lookupSymbol<spirv::GlobalVariableOp>(name);
    if (!alias) {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPoint(var);
      alias = spirv::GlobalVariableOp::create(rw, op.getLoc(),
                                              bufferPointerType(op.getResult().getType()),
                                              name, *var.getDescriptorSet(), *var.getBinding());
    }
    rw.replaceOpWithNewOp<spirv::AddressOfOp>(op, alias);
    return success();
  }
};

/// Count the violation and remember the first site (see abi::kStatusWords).
struct ReportLowering : XPUPattern<ReportOutOfBoundsOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(ReportOutOfBoundsOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (!isa<spirv::PointerType>(adaptor.getStatus().getType()))
      return op.emitOpError("needs a buffer status word (xpu-prepare-lowering "
                            "with status-type=buffer)");
    Location loc = op.getLoc();
    Type i32 = rw.getI32Type();
    using S = spirv::MemorySemantics;
    Value status = adaptor.getStatus();
    Value count = elementPointer(rw, loc, status, constant(rw, loc, i32, 0));
    spirv::AtomicIAddOp::create(rw, loc, i32, count, spirv::Scope::Device, S::None,
                                constant(rw, loc, i32, 1));
    Value first = elementPointer(rw, loc, status, constant(rw, loc, i32, 1));
    spirv::AtomicCompareExchangeOp::create(
        rw, loc, i32, first, spirv::Scope::Device, S::None, S::None,
        constant(rw, loc, i32, op.getSite() + 1), constant(rw, loc, i32, 0));
    rw.eraseOp(op);
    return success();
  }
};

template <typename Op>
struct RefuseLowering : XPUPattern<Op> {
  RefuseLowering(const SPIRVTypeConverter &tc, MLIRContext *ctx,
                 LoweringState &state, const char *why)
      : XPUPattern<Op>(tc, ctx, state), why(why) {}
  const char *why;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor, ConversionPatternRewriter &) const override {
    return op.emitOpError(why);
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Entry points (each kernel with the variables it uses) and, in kernels
/// without `fastmath`, NoContraction on float arithmetic so the driver forms
/// no fused multiply-add.
void finishKernels(spirv::ModuleOp module, const LoweringState &state,
                   spirv::Version version, bool preserveFloats) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  for (const auto &[name, fastmath] : state.kernels) {
    auto fn = module.lookupSymbol<spirv::FuncOp>(name);
    fn.walk([](spirv::AddressOfOp op) {
      if (op.use_empty())
        op.erase();
    });
    if (!fastmath)
      fn.walk([&](Operation *op) {
        if (isa<spirv::FAddOp, spirv::FSubOp, spirv::FMulOp, spirv::FDivOp,
                spirv::FRemOp, spirv::FModOp, spirv::VectorTimesScalarOp,
                spirv::DotOp>(op))
          op->setAttr("no_contraction", b.getUnitAttr());
      });
    // SPIR-V 1.4 lists every variable an entry point uses; before it, only
    // Input and Output ones.
    llvm::SetVector<Attribute> interface;
    fn.walk([&](spirv::AddressOfOp op) {
      auto var = module.lookupSymbol<spirv::GlobalVariableOp>(op.getVariableAttr());
      auto cls = cast<spirv::PointerType>(var.getType()).getStorageClass();
      if (version >= spirv::Version::V_1_4 || cls == spirv::StorageClass::Input ||
          cls == spirv::StorageClass::Output)
        interface.insert(op.getVariableAttr());
    });
    spirv::EntryPointOp::create(b, fn.getLoc(), spirv::ExecutionModel::GLCompute,
                                fn, interface.getArrayRef());
    // The real size comes from the specialization constants, decorated
    // WorkgroupSize when serialized (serializeSPIRV).
    spirv::ExecutionModeOp::create(b, fn.getLoc(), fn,
                                   spirv::ExecutionMode::LocalSize, {1, 1, 1});
    if (preserveFloats) {
      spirv::ExecutionModeOp::create(b, fn.getLoc(), fn,
                                     spirv::ExecutionMode::DenormPreserve, {32});
      spirv::ExecutionModeOp::create(
          b, fn.getLoc(), fn, spirv::ExecutionMode::SignedZeroInfNanPreserve, {32});
    }
  }
}

struct ConvertXPUToSPIRVPass
    : xpu::impl::ConvertXPUToSPIRVBase<ConvertXPUToSPIRVPass> {
  using ConvertXPUToSPIRVBase::ConvertXPUToSPIRVBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (indexBits != 32 && indexBits != 64) {
      module.emitError() << "index-bits must be 32 or 64, got " << indexBits;
      return signalPassFailure();
    }
    if (module.walk([](Operation *op) {
          if (isa<ReduceOp>(op))
            op->emitOpError("must be expanded (xpu-expand-reductions) first");
          else if (op->hasAttr("checked"))
            op->emitOpError("has an unmaterialized check (xpu-prepare-lowering)");
          else if (isa<CallOp>(op) && op->getParentOfType<KernelOp>())
            op->emitOpError("must be inlined (xpu-inline-helpers) first");
          else
            return WalkResult::advance();
          return WalkResult::interrupt();
        }).wasInterrupted())
      return signalPassFailure();

    // Math functions GLSL.std.450 lacks were rewritten by xpu-expand-math.
    spirv::TargetEnvAttr env = spirv::lookupTargetEnvOrDefault(module);
    Location loc = module.getLoc();
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto spv = spirv::ModuleOp::create(b, loc, spirv::AddressingModel::Logical,
                                       spirv::MemoryModel::GLSL450);
    spv->setAttr(spirv::getTargetEnvAttrName(), env);
    b.setInsertionPointToStart(spv.getBody());
    SmallVector<Attribute> specs;
    for (unsigned d = 0; d < 3; ++d) {
      auto spec = spirv::SpecConstantOp::create(b, loc, kWorkgroupSizeSpecs[d],
                                                b.getI32IntegerAttr(1));
      spec->setAttr("spec_id",
                    b.getI32IntegerAttr(abi::kVulkanWorkgroupSizeSpecId + d));
      specs.push_back(FlatSymbolRefAttr::get(spec.getSymNameAttr()));
    }
    spirv::SpecConstantCompositeOp::create(b, loc, VectorType::get({3}, b.getI32Type()),
                                           kWorkgroupSizeSymbol, b.getArrayAttr(specs));
    for (KernelOp k : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      k->moveBefore(spv.getBody(), spv.getBody()->end());
    widenBoolArithmetic(spv);
    for (FuncOp f : llvm::make_early_inc_range(module.getOps<FuncOp>()))
      f.erase(); // unused helpers (xpu-inline-helpers removes the rest)

    SPIRVConversionOptions options;
    options.use64bitIndex = indexBits == 64;
    // Narrow types are gated on the device's features, never emulated.
    options.emulateLT32BitScalarTypes = false;
    options.emulateUnsupportedFloatTypes = false;
    SPIRVTypeConverter tc(env, options);
    tc.addConversion([](BufferType t) -> Type { return bufferPointerType(t); });

    LoweringState state;
    RewritePatternSet patterns(ctx);
    patterns.add<KernelLowering>(tc, ctx, state, maxPushConstantBytes);
    patterns.add<
        ReturnLowering, LoadLowering, StoreLowering, BufferSizeLowering, AlignedLowering,
        AllocLowering, BarrierLowering, AtomicLowering, ReportLowering, BitsViewLowering,
        WorkgroupSizeLowering, GlobalSizeLowering,
        DimBuiltinLowering<ThreadIdOp, spirv::BuiltIn::LocalInvocationId>,
        DimBuiltinLowering<WorkgroupIdOp, spirv::BuiltIn::WorkgroupId>,
        DimBuiltinLowering<GlobalIdOp, spirv::BuiltIn::GlobalInvocationId>,
        DimBuiltinLowering<GridSizeOp, spirv::BuiltIn::NumWorkgroups>,
        SubgroupLowering<WaveWidthOp, spirv::BuiltIn::SubgroupSize>,
        SubgroupLowering<LaneIdOp, spirv::BuiltIn::SubgroupLocalInvocationId>>(
        tc, ctx, state);
    patterns.add<RefuseLowering<HostEffectOp>>(
        tc, ctx, state, "is a host effect, which cannot run on a device");
    patterns.add<RefuseLowering<ViewOp>>(
        tc, ctx, state, "views raw pointers, which SPIR-V's logical addressing lacks");
    populateInteropToSPIRVPatterns(module, tc, patterns);
    populateIntegerToSPIRVPatterns(tc, patterns);
    arith::populateArithToSPIRVPatterns(tc, patterns);
    populateMathToSPIRVPatterns(tc, patterns);
    ScfToSPIRVContext scfContext;
    populateSCFToSPIRVPatterns(tc, scfContext, patterns);
    cf::populateControlFlowToSPIRVPatterns(tc, patterns);
    populateVectorToSPIRVPatterns(tc, patterns);
    ub::populateUBToSPIRVConversionPatterns(tc, patterns);
    populateTileToSPIRVPatterns(tc, patterns);

    std::unique_ptr<SPIRVConversionTarget> target = SPIRVConversionTarget::get(env);
    if (failed(applyFullConversion(spv, *target, std::move(patterns))))
      return signalPassFailure();
    finishKernels(spv, state, env.getVersion(), preserveFloats);
  }
};

} // namespace
