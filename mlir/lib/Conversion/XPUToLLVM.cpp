// Lowers xpu kernels, device functions and their bodies to the LLVM dialect
// for the LLVM-based targets (cpu, nvvm, rocdl). See Passes.td.
#include "xpu/Conversion/InteropLowering.h"
#include "xpu/CpuAnyShape.h"
#include "xpu/KernelABI.h"
#include "xpu/TileLowering.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace xpu {
#define GEN_PASS_DEF_CONVERTXPUTOLLVM
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

enum class Target { cpu, nvvm, rocdl };

/// Address space numbers per target (NVPTX and AMDGPU agree on 1/3/5 for
/// global/shared/private; the CPU has one flat space).
unsigned addressSpace(Space space, Target target) {
  if (target == Target::cpu)
    return 0;
  switch (space) {
  case Space::global:
    return 1;
  case Space::shared:
    return 3;
  case Space::private_:
    return target == Target::rocdl ? 5 : 0;
  }
  return 0;
}

/// The type an element has in memory: bool is a byte, as on the host.
Type memoryType(Type elem) {
  if (elem.isInteger(1))
    return IntegerType::get(elem.getContext(), 8);
  return elem;
}
Type memoryType(Type value, Type elem) {
  if (auto vec = dyn_cast<VectorType>(value))
    return VectorType::get(vec.getShape(), memoryType(elem));
  return memoryType(elem);
}

unsigned elementBytes(Type elem) {
  return std::max(1u, elem.getIntOrFloatBitWidth() / 8);
}

/// The alignment of an access: its element's size, or more where the
/// maker of the access proved more (xpu.align, set by xpu-lower-tiles on
/// the wide copies it guards with xpu.aligned). NVPTX splits a vector
/// access into element accesses unless it is aligned to the vector.
unsigned accessAlignment(Operation *op, Type elem) {
  unsigned bytes = elementBytes(elem);
  if (auto a = op->getAttrOfType<IntegerAttr>("xpu.align"))
    bytes = std::max<unsigned>(bytes, a.getInt());
  return bytes;
}

//===----------------------------------------------------------------------===//
// Conversion patterns
//===----------------------------------------------------------------------===//

template <typename Op>
struct XPUPattern : ConvertOpToLLVMPattern<Op> {
  XPUPattern(const LLVMTypeConverter &tc, Target target)
      : ConvertOpToLLVMPattern<Op>(tc), target(target) {}
  Target target;
};

/// Moves a function body into `fn`, converting the entry block's arguments.
LogicalResult moveBody(FunctionOpInterface from, LLVM::LLVMFuncOp fn,
                       const TypeConverter &tc, ConversionPatternRewriter &rw) {
  Region &body = from.getFunctionBody();
  TypeConverter::SignatureConversion sig(body.getNumArguments());
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Type t = tc.convertType(arg.getType());
    if (!t)
      return rw.notifyMatchFailure(from, "unconvertible parameter type");
    sig.addInputs(i, t);
  }
  rw.inlineRegionBefore(body, fn.getBody(), fn.getBody().end());
  rw.applySignatureConversion(&fn.getBody().front(), sig, &tc);
  return success();
}

/// A vector of i1 travels as one byte per lane, as the host passes it: LLVM
/// 22 stores <N x i1> bit-packed, and NVPTX declares such a parameter one
/// byte long while reading N (found by tests/differential: lanes 1 and 2
/// of a vector<3xi1> parameter read as false on the CPU).
Type parameterType(Type converted) {
  auto vec = dyn_cast<VectorType>(converted);
  if (vec && vec.getElementType().isInteger(1))
    return VectorType::get(vec.getShape(), IntegerType::get(vec.getContext(), 8));
  return converted;
}

/// Kernel -> llvm.func whose parameters follow the kernel ABI: buffers are
/// flattened into (pointer, element count); everything else stays one value.
struct KernelLowering : XPUPattern<KernelOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(KernelOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    const auto &tc = *getTypeConverter();
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    Type i64 = rw.getI64Type();
    SmallVector<Type> flat;
    for (Type t : op.getArgumentTypes()) {
      if (auto buf = dyn_cast<BufferType>(t)) {
        flat.push_back(LLVM::LLVMPointerType::get(
            ctx, addressSpace(buf.getSpace(), target)));
        flat.push_back(i64);
      } else {
        flat.push_back(parameterType(tc.convertType(t)));
      }
    }
    auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), flat);
    auto fn = LLVM::LLVMFuncOp::create(rw, loc, op.getSymName(), fnType);
    if (failed(moveBody(op, fn, tc, rw)))
      return failure();
    Block *body = &fn.getBody().front();

    // New entry: rebuild each buffer value from its two flat parameters.
    SmallVector<Location> locs(flat.size(), loc);
    Block *entry = rw.createBlock(&fn.getBody(), fn.getBody().begin(), flat, locs);
    SmallVector<Value> values;
    unsigned next = 0;
    for (Type t : op.getArgumentTypes()) {
      if (isa<BufferType>(t)) {
        Type structTy = tc.convertType(t);
        Value v = LLVM::PoisonOp::create(rw, loc, structTy);
        v = LLVM::InsertValueOp::create(rw, loc, v, entry->getArgument(next),
                                        ArrayRef<int64_t>{0});
        v = LLVM::InsertValueOp::create(rw, loc, v, entry->getArgument(next + 1),
                                        ArrayRef<int64_t>{1});
        values.push_back(v);
        next += 2;
      } else {
        Value v = entry->getArgument(next++);
        if (v.getType() != tc.convertType(t))
          v = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ne, v,
                                   LLVM::ZeroOp::create(rw, loc, v.getType()));
        values.push_back(v);
      }
    }
    LLVM::BrOp::create(rw, loc, values, body);

    fn->setAttr("xpu.kernel", rw.getUnitAttr());
    for (StringRef name :
         {abi::kCpuSharedBytesAttr, abi::kCpuBufferAccessAttr, abi::kCpuAnyShapeAttr})
      if (Attribute a = op->getAttr(name))
        fn->setAttr(name, a);
    if (target == Target::nvvm)
      fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), rw.getUnitAttr());
    if (target == Target::rocdl) {
      fn->setAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName(), rw.getUnitAttr());
      // MLIR's default bound is 256 work-items; AMD hardware allows 1024, and
      // a launch above the bound the code was compiled for is undefined.
      std::string flat = "1,1024";
      if (auto wg = op.getWorkgroupSize()) {
        SmallVector<int32_t> dims(wg->begin(), wg->end());
        dims.resize(3, 1);
        fn->setAttr("rocdl.reqd_work_group_size", rw.getDenseI32ArrayAttr(dims));
        int64_t n = int64_t(dims[0]) * dims[1] * dims[2];
        flat = std::to_string(n) + "," + std::to_string(n);
      }
      fn->setAttr("rocdl.flat_work_group_size", rw.getStringAttr(flat));
    }
    if (auto wg = op.getWorkgroupSize(); wg && target == Target::nvvm) {
      SmallVector<int32_t> dims(wg->begin(), wg->end());
      fn->setAttr("nvvm.reqntid", rw.getDenseI32ArrayAttr(dims));
    }
    rw.eraseOp(op);
    return success();
  }
};

struct FuncLowering : XPUPattern<FuncOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(FuncOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    const auto &tc = *getTypeConverter();
    MLIRContext *ctx = op.getContext();
    SmallVector<Type> inputs;
    for (Type t : op.getArgumentTypes())
      inputs.push_back(tc.convertType(t));
    Type result = LLVM::LLVMVoidType::get(ctx);
    if (op.getResultTypes().size() == 1)
      result = tc.convertType(op.getResultTypes().front());
    else if (!op.getResultTypes().empty())
      return rw.notifyMatchFailure(op, "device functions return at most one value");
    auto fn = LLVM::LLVMFuncOp::create(rw, op.getLoc(), op.getSymName(),
                                       LLVM::LLVMFunctionType::get(result, inputs),
                                       LLVM::Linkage::Internal);
    if (failed(moveBody(op, fn, tc, rw)))
      return failure();
    rw.eraseOp(op);
    return success();
  }
};

struct CallLowering : XPUPattern<CallOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(CallOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), results)))
      return failure();
    rw.replaceOpWithNewOp<LLVM::CallOp>(op, results, op.getCallee(),
                                        adaptor.getOperands());
    return success();
  }
};

struct ReturnLowering : XPUPattern<ReturnOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<LLVM::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

Value elementAddress(OpBuilder &b, Location loc, Value buffer, Value index,
                     Type elem) {
  Value base = LLVM::ExtractValueOp::create(b, loc, buffer, ArrayRef<int64_t>{0});
  return LLVM::GEPOp::create(b, loc, base.getType(), memoryType(elem), base,
                             ValueRange{index});
}

struct LoadLowering : XPUPattern<LoadOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type elem = op.getBufferType().getElementType();
    Type valueTy = getTypeConverter()->convertType(op.getResult().getType());
    Type memTy = getTypeConverter()->convertType(memoryType(op.getResult().getType(), elem));
    Value addr = elementAddress(rw, loc, adaptor.getBuffer(), adaptor.getIndex(), elem);
    Value v = LLVM::LoadOp::create(rw, loc, memTy, addr, accessAlignment(op, elem));
    if (memTy != valueTy) { // bool: any nonzero byte is true
      Value zero = LLVM::ZeroOp::create(rw, loc, memTy);
      v = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::ne, v, zero);
    }
    rw.replaceOp(op, v);
    return success();
  }
};

struct StoreLowering : XPUPattern<StoreOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type elem = op.getBufferType().getElementType();
    Type memTy = getTypeConverter()->convertType(memoryType(op.getValue().getType(), elem));
    Value addr = elementAddress(rw, loc, adaptor.getBuffer(), adaptor.getIndex(), elem);
    Value v = adaptor.getValue();
    if (v.getType() != memTy)
      v = LLVM::ZExtOp::create(rw, loc, memTy, v);
    rw.replaceOpWithNewOp<LLVM::StoreOp>(op, v, addr, accessAlignment(op, elem));
    return success();
  }
};

struct BufferSizeLowering : XPUPattern<BufferSizeOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(BufferSizeOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, adaptor.getBuffer(),
                                                ArrayRef<int64_t>{1});
    return success();
  }
};

struct AlignedLowering : XPUPattern<AlignedOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AlignedOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type elem = cast<BufferType>(op.getBuffer().getType()).getElementType();
    Value addr = elementAddress(rw, loc, adaptor.getBuffer(), adaptor.getIndex(), elem);
    Type i64 = rw.getI64Type();
    Value bits = LLVM::PtrToIntOp::create(rw, loc, i64, addr);
    Value low = LLVM::AndOp::create(
        rw, loc, bits, LLVM::ConstantOp::create(rw, loc, i64, op.getBytes() - 1));
    rw.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::eq, low,
                                        LLVM::ConstantOp::create(rw, loc, i64, 0));
    return success();
  }
};

struct MatrixLoadLowering : XPUPattern<MatrixLoadOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(MatrixLoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (target != Target::nvvm)
      return rw.notifyMatchFailure(op, "ldmatrix is NVIDIA's");
    Location loc = op.getLoc();
    Type elem = cast<BufferType>(op.getBuffer().getType()).getElementType();
    Value addr = elementAddress(rw, loc, adaptor.getBuffer(), adaptor.getIndex(), elem);
    auto vec = cast<VectorType>(op.getResult().getType());
    int64_t n = vec.getNumElements();
    Type i32 = rw.getI32Type();
    Type words = LLVM::LLVMStructType::getLiteral(rw.getContext(), SmallVector<Type>(n, i32));
    Value m = NVVM::LdMatrixOp::create(
        rw, loc, words, addr, uint32_t(n),
        op.getTranspose() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(rw.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
    Value v = LLVM::PoisonOp::create(rw, loc, vec);
    for (int64_t i = 0; i < n; ++i)
      v = LLVM::InsertElementOp::create(
          rw, loc, v, LLVM::ExtractValueOp::create(rw, loc, m, ArrayRef<int64_t>{i}),
          LLVM::ConstantOp::create(rw, loc, i32, i));
    rw.replaceOp(op, v);
    return success();
  }
};

/// One inline-PTX statement of the wgmma tier over a warpgroup's sums:
/// `inputs` (constrained by `inputConstraints`, comma-separated) and then
/// the sums, each tied to one of the statement's f32 results, which it
/// returns. Memory is clobbered: the tensor cores read shared memory.
SmallVector<Value> sumsStatement(ConversionPatternRewriter &rw, Location loc,
                                 const std::string &code, SmallVector<Value> inputs,
                                 const std::string &inputConstraints, ValueRange sums) {
  std::string constraints;
  for (size_t e = 0; e < sums.size(); ++e)
    constraints += "=f,";
  constraints += inputConstraints.empty() ? "" : inputConstraints + ",";
  for (size_t e = 0; e < sums.size(); ++e) {
    constraints += std::to_string(e) + ",";
    inputs.push_back(sums[e]);
  }
  constraints += "~{memory}";
  Type result = LLVM::LLVMStructType::getLiteral(
      rw.getContext(), SmallVector<Type>(sums.size(), rw.getF32Type()));
  auto asmOp = LLVM::InlineAsmOp::create(rw, loc, result, inputs, code, constraints,
                                         /*has_side_effects=*/true, /*is_align_stack=*/false,
                                         LLVM::tailcallkind::TailCallKind::None,
                                         LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> out;
  for (size_t e = 0; e < sums.size(); ++e)
    out.push_back(LLVM::ExtractValueOp::create(rw, loc, asmOp.getResult(0),
                                               ArrayRef<int64_t>{int64_t(e)}));
  return out;
}

/// One warpgroup's wgmma steps as a single inline-PTX block: fence, the
/// rows x steps wgmma.mma_async, commit, wait for all. Being one statement,
/// the sums cannot be read or moved by LLVM while the tensor cores write
/// them. Each operand's shared-memory descriptor is built here from the
/// element's shared address (PTX ISA, "Matrix Descriptor Format": address,
/// leading and stride byte offsets in 16-byte units at bits 0, 16 and 32;
/// swizzle mode at bit 62: 1 = 128 B, 2 = 64 B, 3 = 32 B).
struct WarpgroupMmaLowering : XPUPattern<WarpgroupMmaOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(WarpgroupMmaOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (target != Target::nvvm)
      return rw.notifyMatchFailure(op, "wgmma is NVIDIA's");
    Location loc = op.getLoc();
    Type elem = cast<BufferType>(op.getA().getType()).getElementType();
    Type i64 = rw.getI64Type();
    auto c64 = [&](int64_t v) { return LLVM::ConstantOp::create(rw, loc, i64, v); };
    auto descriptor = [&](Value buffer, Value index, int64_t lbo, int64_t sbo,
                          int64_t swizzle) -> Value {
      Value addr = LLVM::PtrToIntOp::create(rw, loc, i64,
                                            elementAddress(rw, loc, buffer, index, elem));
      Value start = LLVM::LShrOp::create(rw, loc, LLVM::AndOp::create(rw, loc, addr, c64(0x3ffff)),
                                         c64(4));
      int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
      int64_t fields = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62);
      return LLVM::OrOp::create(rw, loc, start, c64(fields));
    };
    SmallVector<Value> operands;
    for (Value i : adaptor.getAIndex())
      operands.push_back(descriptor(adaptor.getA(), i, op.getALbo(), op.getASbo(),
                                    op.getASwizzle()));
    for (Value i : adaptor.getBIndex())
      operands.push_back(descriptor(adaptor.getB(), i, op.getBLbo(), op.getBSbo(),
                                    op.getBSwizzle()));
    int64_t sums = op.getAcc().size(), n = op.getN(), rows = op.getRows(),
            steps = op.getSteps(), perBlock = n / 2;
    std::string type = elem.isBF16() ? "bf16" : "f16";
    std::string code = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                       std::to_string(sums + rows * steps + steps) +
                       ", 0;\nwgmma.fence.sync.aligned;\n";
    for (int64_t s = 0; s < steps; ++s)
      for (int64_t i = 0; i < rows; ++i) {
        code += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." + type +
                "." + type + " {";
        for (int64_t e = 0; e < perBlock; ++e)
          code += (e ? ", $" : "$") + std::to_string(i * perBlock + e);
        code += "}, $" + std::to_string(sums + i * steps + s) + ", $" +
                std::to_string(sums + rows * steps + s) + ", p, 1, 1, " +
                (op.getATranspose() ? "1" : "0") + ", " + (op.getBTranspose() ? "1" : "0") +
                ";\n";
      }
    code += "wgmma.commit_group.sync.aligned;\n";
    if (!op.getNoWait())
      code += "wgmma.wait_group.sync.aligned 0;\n";
    code += "}";
    std::string constraints;
    for (size_t d = 0; d < operands.size(); ++d)
      constraints += "l,";
    constraints += "r";
    operands.push_back(LLVM::ConstantOp::create(rw, loc, rw.getI32Type(), 1));
    rw.replaceOp(op, sumsStatement(rw, loc, code, operands, constraints, adaptor.getAcc()));
    return success();
  }
};

/// The wait a `no_wait` xpu.warpgroup_mma left: the sums pass through the
/// statement (tied), so nothing after it reads them before the wait.
struct WarpgroupWaitLowering : XPUPattern<WarpgroupWaitOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(WarpgroupWaitOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (target != Target::nvvm)
      return rw.notifyMatchFailure(op, "wgmma is NVIDIA's");
    std::string code = "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) + ";";
    rw.replaceOp(op, sumsStatement(rw, op.getLoc(), code, {}, "", adaptor.getAcc()));
    return success();
  }
};

Value makeBuffer(OpBuilder &b, Location loc, Type structTy, Value ptr,
                 int64_t size) {
  Value v = LLVM::PoisonOp::create(b, loc, structTy);
  v = LLVM::InsertValueOp::create(b, loc, v, ptr, ArrayRef<int64_t>{0});
  Value n = LLVM::ConstantOp::create(b, loc, b.getI64Type(), size);
  return LLVM::InsertValueOp::create(b, loc, v, n, ArrayRef<int64_t>{1});
}

struct ViewLowering : XPUPattern<ViewOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    BufferType type = op.getResult().getType();
    rw.replaceOp(op, makeBuffer(rw, op.getLoc(), getTypeConverter()->convertType(type),
                                adaptor.getPointer(), type.getSize()));
    return success();
  }
};

/// Private scratch is an alloca at function entry; shared scratch on a GPU
/// is a workgroup-space global.
struct AllocLowering : XPUPattern<AllocOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    BufferType type = op.getResult().getType();
    Type structTy = getTypeConverter()->convertType(type);
    Type elem = memoryType(type.getElementType());
    auto arrayTy = LLVM::LLVMArrayType::get(elem, type.getSize());
    unsigned as = addressSpace(type.getSpace(), target);
    auto ptrTy = LLVM::LLVMPointerType::get(op.getContext(), as);
    Value ptr;
    if (type.getSpace() == Space::private_) {
      Region *scope = op->getParentWithTrait<OpTrait::AutomaticAllocationScope>()
                          ? &op->getParentWithTrait<OpTrait::AutomaticAllocationScope>()->getRegion(0)
                          : nullptr;
      if (auto fn = op->getParentOfType<LLVM::LLVMFuncOp>())
        scope = &fn.getBody();
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(&scope->front());
      Value one = LLVM::ConstantOp::create(rw, loc, rw.getI64Type(), 1);
      ptr = LLVM::AllocaOp::create(rw, loc, ptrTy, arrayTy, one, 16);
    } else {
      if (target == Target::cpu)
        return rw.notifyMatchFailure(op, "CPU shared memory is lowered earlier");
      auto module = op->getParentOfType<ModuleOp>();
      std::string name;
      for (unsigned i = 0;; ++i) {
        name = "__xpu_shared_" + std::to_string(i);
        if (!module.lookupSymbol(name))
          break;
      }
      {
        OpBuilder::InsertionGuard g(rw);
        rw.setInsertionPointToStart(module.getBody());
        // xpu.alignment: the wgmma tier's swizzled operand storage.
        uint64_t alignment = 16;
        if (auto a = op->getAttrOfType<IntegerAttr>("xpu.alignment"))
          alignment = std::max<uint64_t>(alignment, a.getInt());
        LLVM::GlobalOp::create(rw, loc, arrayTy, /*isConstant=*/false,
                               LLVM::Linkage::Internal, name, Attribute(), alignment, as);
      }
      ptr = LLVM::AddressOfOp::create(rw, loc, ptrTy, name);
    }
    rw.replaceOp(op, makeBuffer(rw, loc, structTy, ptr, type.getSize()));
    return success();
  }
};

struct BarrierLowering : XPUPattern<BarrierOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    if (target == Target::nvvm)
      NVVM::Barrier0Op::create(rw, op.getLoc());
    else if (target == Target::rocdl)
      ROCDL::BarrierOp::create(rw, op.getLoc());
    else
      return rw.notifyMatchFailure(op, "CPU barriers are lowered earlier");
    rw.eraseOp(op);
    return success();
  }
};

LLVM::AtomicOrdering ordering(MemoryOrder order) {
  switch (order) {
  case MemoryOrder::relaxed:
    return LLVM::AtomicOrdering::monotonic;
  case MemoryOrder::acquire:
    return LLVM::AtomicOrdering::acquire;
  case MemoryOrder::release:
    return LLVM::AtomicOrdering::release;
  case MemoryOrder::acq_rel:
    return LLVM::AtomicOrdering::acq_rel;
  case MemoryOrder::seq_cst:
    return LLVM::AtomicOrdering::seq_cst;
  }
  return LLVM::AtomicOrdering::seq_cst;
}

/// LLVM sync-scope names for the Vulkan scope set; "" is the system scope.
StringRef syncScope(Scope scope, Target target) {
  if (target == Target::cpu)
    return scope == Scope::invocation ? "singlethread" : "";
  bool amd = target == Target::rocdl;
  switch (scope) {
  case Scope::invocation:
    return "singlethread";
  case Scope::subgroup:
    return amd ? "wavefront" : "block";
  case Scope::workgroup:
    return amd ? "workgroup" : "block";
  case Scope::queue_family:
  case Scope::device:
    return amd ? "agent" : "device";
  }
  return "";
}

struct AtomicLowering : XPUPattern<AtomicRMWOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    using B = LLVM::AtomicBinOp;
    B bin;
    switch (op.getKind()) {
    case AtomicKind::add: bin = B::add; break;
    case AtomicKind::sub: bin = B::sub; break;
    case AtomicKind::smin: bin = B::min; break;
    case AtomicKind::smax: bin = B::max; break;
    case AtomicKind::umin: bin = B::umin; break;
    case AtomicKind::umax: bin = B::umax; break;
    case AtomicKind::and_: bin = B::_and; break;
    case AtomicKind::or_: bin = B::_or; break;
    case AtomicKind::xor_: bin = B::_xor; break;
    case AtomicKind::xchg: bin = B::xchg; break;
    case AtomicKind::fadd: bin = B::fadd; break;
    case AtomicKind::fmin: bin = B::fminimum; break;
    case AtomicKind::fmax: bin = B::fmaximum; break;
    case AtomicKind::cmpxchg: bin = B::xchg; break;
    }
    Type elem = cast<BufferType>(op.getBuffer().getType()).getElementType();
    Value addr = elementAddress(rw, op.getLoc(), adaptor.getBuffer(), adaptor.getIndex(), elem);
    if (op.getKind() == AtomicKind::cmpxchg) {
      rw.replaceOp(op, compareExchange(rw, op.getLoc(), op, addr, adaptor.getExpected(),
                                       adaptor.getValue(), elem));
      return success();
    }
    rw.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, bin, addr, adaptor.getValue(), ordering(op.getOrder()),
        syncScope(op.getScope(), target), elementBytes(elem));
    return success();
  }

  /// cmpxchg on the element's bits (LLVM compare-exchanges integers only);
  /// a failure orders like a load of the same order.
  Value compareExchange(OpBuilder &b, Location loc, AtomicRMWOp op, Value addr,
                        Value expected, Value desired, Type elem) const {
    Type bits = b.getIntegerType(elem.getIntOrFloatBitWidth());
    bool isFloat = isa<FloatType>(elem);
    if (isFloat) {
      expected = LLVM::BitcastOp::create(b, loc, bits, expected);
      desired = LLVM::BitcastOp::create(b, loc, bits, desired);
    }
    LLVM::AtomicOrdering success = ordering(op.getOrder());
    LLVM::AtomicOrdering failure =
        success == LLVM::AtomicOrdering::acq_rel   ? LLVM::AtomicOrdering::acquire
        : success == LLVM::AtomicOrdering::release ? LLVM::AtomicOrdering::monotonic
                                                   : success;
    auto cx = LLVM::AtomicCmpXchgOp::create(b, loc, addr, expected, desired, success, failure,
                                            syncScope(op.getScope(), target),
                                            elementBytes(elem));
    Value old = LLVM::ExtractValueOp::create(b, loc, cx, ArrayRef<int64_t>{0});
    return isFloat ? Value(LLVM::BitcastOp::create(b, loc, elem, old)) : old;
  }
};

/// An in-bounds element of an asynchronous copy marked cp_async (NVIDIA
/// sm_80+): cp.async of its 4 or 8 bytes, or of the 16 bytes `bytes` names
/// (cached in L2 only: each chunk is read once per workgroup).
struct AsyncCopyElementLowering : XPUPattern<AsyncCopyElementOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyElementOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    if (!op.getCpAsync() || target != Target::nvvm)
      return op.emitOpError("must be lowered by xpu-lower-async-copies first");
    Location loc = op.getLoc();
    Type elem = cast<BufferType>(op.getSrc().getType()).getElementType();
    Value from = elementAddress(rw, loc, adaptor.getSrc(), adaptor.getSrcIndex(), elem);
    Value to = elementAddress(rw, loc, adaptor.getDst(), adaptor.getDstIndex(), elem);
    int64_t bytes = op.getBytes() ? int64_t(*op.getBytes()) : int64_t(elementBytes(elem));
    NVVM::CpAsyncOp::create(rw, loc, to, from, bytes,
                            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                        : NVVM::LoadCacheModifierKind::CA,
                            Value());
    rw.eraseOp(op);
    return success();
  }
};

/// Count the violation and remember the first site (see abi::kStatusWords).
struct ReportLowering : XPUPattern<ReportOutOfBoundsOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(ReportOutOfBoundsOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value status = adaptor.getStatus();
    if (!isa<LLVM::LLVMPointerType>(status.getType()))
      return op.emitOpError("needs an !llvm.ptr status word (xpu-prepare-lowering "
                            "with status-type=ptr)");
    Type i32 = rw.getI32Type();
    Value one = LLVM::ConstantOp::create(rw, loc, i32, 1);
    LLVM::AtomicRMWOp::create(rw, loc, LLVM::AtomicBinOp::add, status, one,
                              LLVM::AtomicOrdering::monotonic);
    Value first = LLVM::GEPOp::create(rw, loc, status.getType(), i32, status,
                                      ArrayRef<LLVM::GEPArg>{1});
    Value zero = LLVM::ConstantOp::create(rw, loc, i32, 0);
    Value id = LLVM::ConstantOp::create(rw, loc, i32, int32_t(op.getSite() + 1));
    LLVM::AtomicCmpXchgOp::create(rw, loc, first, zero, id,
                                  LLVM::AtomicOrdering::monotonic,
                                  LLVM::AtomicOrdering::monotonic);
    rw.eraseOp(op);
    return success();
  }
};

struct HostEffectLowering : XPUPattern<HostEffectOp> {
  using XPUPattern::XPUPattern;
  LogicalResult
  matchAndRewrite(HostEffectOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    return op.emitOpError() << "host effect '" << op.getEffect()
                            << "' cannot run on a device";
  }
};

struct ConvertXPUToLLVMPass
    : xpu::impl::ConvertXPUToLLVMBase<ConvertXPUToLLVMPass> {
  using ConvertXPUToLLVMBase::ConvertXPUToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Target tgt;
    if (target == "cpu")
      tgt = Target::cpu;
    else if (target == "nvvm")
      tgt = Target::nvvm;
    else if (target == "rocdl")
      tgt = Target::rocdl;
    else {
      module.emitError() << "unknown target '" << target
                         << "' (accepted: cpu, nvvm, rocdl)";
      return signalPassFailure();
    }
    if (module.walk([](Operation *op) {
          if (isa<ReduceOp>(op))
            op->emitOpError("must be expanded (xpu-expand-reductions) first");
          else if (op->hasAttr("checked"))
            op->emitOpError("has an unmaterialized check (xpu-prepare-lowering)");
          else if (isa<scf::SCFDialect>(op->getDialect()))
            op->emitOpError("must be lowered to cf (convert-scf-to-cf) first");
          else
            return WalkResult::advance();
          return WalkResult::interrupt();
        }).wasInterrupted())
      return signalPassFailure();

    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter tc(ctx, options);
    tc.addConversion([&, tgt](BufferType t) -> Type {
      return LLVM::LLVMStructType::getLiteral(
          ctx, {LLVM::LLVMPointerType::get(ctx, addressSpace(t.getSpace(), tgt)),
                IntegerType::get(ctx, 64)});
    });

    RewritePatternSet patterns(ctx);
    patterns.add<KernelLowering, FuncLowering, CallLowering, ReturnLowering,
                 LoadLowering, StoreLowering, BufferSizeLowering, AlignedLowering, MatrixLoadLowering, WarpgroupMmaLowering, WarpgroupWaitLowering, ViewLowering,
                 AllocLowering, BarrierLowering, AtomicLowering,
                 ReportLowering, HostEffectLowering, AsyncCopyElementLowering>(tc, tgt);
    populateInteropToLLVMPatterns(tc, patterns, tgt == Target::cpu);
    arith::populateArithToLLVMConversionPatterns(tc, patterns);
    populateMathToLLVMConversionPatterns(tc, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(tc, patterns);
    index::populateIndexToLLVMConversionPatterns(tc, patterns);
    ub::populateUBToLLVMConversionPatterns(tc, patterns);
    populateVectorToLLVMConversionPatterns(tc, patterns);
    populateTileToLLVMPatterns(tc, patterns, target);

    LLVMConversionTarget ct(*ctx);
    ct.addLegalOp<ModuleOp>();
    ct.addLegalDialect<NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
    ct.addIllegalDialect<XPUDialect, arith::ArithDialect, cf::ControlFlowDialect,
                         math::MathDialect, vector::VectorDialect>();
    if (failed(applyFullConversion(module, ct, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
