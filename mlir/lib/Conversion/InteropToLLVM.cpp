// Lowers xpu.dynamic_shared for the LLVM-based targets; see
// InteropLowering.h. Wave ids are expanded earlier (LowerInteropOps.cpp).
#include "xpu/Conversion/InteropLowering.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace xpu;

namespace {

/// The workgroup array CUDA and AMD size at launch (`extern __shared__`):
/// NVPTX prints it `.extern .shared .align 16 .b8 name[]`, AMDGPU places
/// it after the static LDS.
constexpr llvm::StringLiteral kDynamicSharedSymbol = "__xpu_dynamic_shared";
constexpr unsigned kWorkgroupSpace = 3;

struct DynamicSharedLowering : ConvertOpToLLVMPattern<DynamicSharedOp> {
  DynamicSharedLowering(const LLVMTypeConverter &tc, bool cpu)
      : ConvertOpToLLVMPattern(tc), cpu(cpu) {}
  bool cpu;

  LogicalResult
  matchAndRewrite(DynamicSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value base = adaptor.getBase();
    if (cpu && !base)
      return op.emitOpError("has no base pointer; on the CPU "
                            "xpu-lower-execution-model sets it");
    if (!base)
      base = dynamicSharedAddress(rw, loc, op->getParentOfType<ModuleOp>());
    Type elem = op.getResult().getType().getElementType();
    Value bytesPerElement = LLVM::ConstantOp::create(
        rw, loc, rw.getI64Type(), std::max(1u, elem.getIntOrFloatBitWidth() / 8));
    Value count = LLVM::UDivOp::create(rw, loc, adaptor.getBytes(), bytesPerElement);
    Type structTy = getTypeConverter()->convertType(op.getResult().getType());
    Value v = LLVM::PoisonOp::create(rw, loc, structTy);
    v = LLVM::InsertValueOp::create(rw, loc, v, base, ArrayRef<int64_t>{0});
    v = LLVM::InsertValueOp::create(rw, loc, v, count, ArrayRef<int64_t>{1});
    rw.replaceOp(op, v);
    return success();
  }
};

} // namespace

Value xpu::dynamicSharedAddress(OpBuilder &b, Location loc, ModuleOp module) {
  if (!module.lookupSymbol(kDynamicSharedSymbol)) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kDynamicSharedSymbol, Attribute(), /*alignment=*/16,
                           kWorkgroupSpace);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kWorkgroupSpace),
      kDynamicSharedSymbol);
}

void xpu::populateInteropToLLVMPatterns(LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns, bool cpu) {
  patterns.add<DynamicSharedLowering>(converter, cpu);
}
