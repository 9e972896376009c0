// Lowers the interop ops (XPUInteropOps.td) for Vulkan; see
// InteropLowering.h.
#include "xpu/Conversion/InteropLowering.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace xpu;

namespace {

unsigned elementBytes(Type t) { return std::max(1u, t.getIntOrFloatBitWidth() / 8); }

/// Vulkan fixes a shader's workgroup memory when the pipeline is made, so
/// dynamic shared memory is the largest array the device leaves after the
/// static shared memory of the kernels that use it; launches are checked
/// against the size they ask for.
struct DynamicShared {
  int64_t bytes = 0; ///< per element type: this many bytes of it
};

spirv::PointerType dynamicArrayType(Type elem, int64_t bytes) {
  int64_t count = std::max<int64_t>(1, bytes / elementBytes(elem));
  return spirv::PointerType::get(spirv::ArrayType::get(elem, unsigned(count)),
                                 spirv::StorageClass::Workgroup);
}

struct DynamicSharedLowering : OpConversionPattern<DynamicSharedOp> {
  DynamicSharedLowering(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx) {}
  LogicalResult
  matchAndRewrite(DynamicSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rw) const override {
    auto ptrTy = dyn_cast_or_null<spirv::PointerType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    if (!ptrTy)
      return op.emitOpError("has no SPIR-V type for its element type");
    auto module = op->getParentOfType<spirv::ModuleOp>();
    std::string name;
    llvm::raw_string_ostream(name) << "__xpu_dynamic_shared_" << ptrTy.getPointeeType();
    for (char &c : name)
      if (!isalnum(static_cast<unsigned char>(c)))
        c = '_';
    auto var = module.lookupSymbol<spirv::GlobalVariableOp>(name);
    if (!var) {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(module.getBody());
      var = spirv::GlobalVariableOp::create(rw, op.getLoc(), TypeAttr::get(ptrTy),
                                            rw.getStringAttr(name));
    }
    rw.replaceOpWithNewOp<spirv::AddressOfOp>(op, var);
    return success();
  }
};

/// SubgroupId and NumSubgroups (32-bit Input builtins) as the index type.
template <typename Op, spirv::BuiltIn builtin>
struct WaveQueryLowering : OpConversionPattern<Op> {
  WaveQueryLowering(const SPIRVTypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<Op>(tc, ctx), indexTy(tc.getIndexType()) {}
  Type indexTy;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  ConversionPatternRewriter &rw) const override {
    Value v = spirv::getBuiltinVariableValue(op, builtin, rw.getI32Type(), rw);
    if (!v)
      return failure();
    if (indexTy != v.getType())
      v = spirv::UConvertOp::create(rw, op.getLoc(), indexTy, v);
    rw.replaceOp(op, v);
    return success();
  }
};

/// math.ctpop, which MLIR's math-to-SPIR-V lacks: OpBitCount (core).
struct CtPopLowering : OpConversionPattern<math::CtPopOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(math::CtPopOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<spirv::BitCountOp>(op, adaptor.getOperand());
    return success();
  }
};

} // namespace

void xpu::populateInteropToSPIRVPatterns(ModuleOp module, SPIRVTypeConverter &tc,
                                         RewritePatternSet &patterns) {
  MLIRContext *ctx = module.getContext();
  // The size of a dynamic shared buffer is what the launch gave.
  module.walk([&](BufferSizeOp size) {
    auto dyn = size.getBuffer().getDefiningOp<DynamicSharedOp>();
    if (!dyn)
      return;
    OpBuilder b(size);
    Value per = arith::ConstantIndexOp::create(
        b, size.getLoc(), elementBytes(dyn.getResult().getType().getElementType()));
    size.replaceAllUsesWith(
        arith::DivUIOp::create(b, size.getLoc(), dyn.getBytes(), per).getResult());
    size.erase();
  });
  // What the kernels that use dynamic shared memory leave of the limit.
  int64_t limit = spirv::lookupTargetEnvOrDefault(module)
                      .getResourceLimits()
                      .getMaxComputeSharedMemorySize();
  int64_t left = limit;
  module.walk([&](KernelOp k) {
    bool uses = false;
    k.walk([&](DynamicSharedOp) { uses = true; });
    if (uses)
      left = std::min<int64_t>(left, limit - int64_t(sharedScratchBytes(k)));
  });
  tc.addConversion([left](BufferType t) -> std::optional<Type> {
    if (t.getSpace() != Space::shared || t.hasStaticSize())
      return std::nullopt; // the other conversions apply
    return dynamicArrayType(t.getElementType(), left);
  });
  patterns.add<DynamicSharedLowering, CtPopLowering>(tc, ctx);
  patterns.add<WaveQueryLowering<WaveIdOp, spirv::BuiltIn::SubgroupId>,
               WaveQueryLowering<WaveCountOp, spirv::BuiltIn::NumSubgroups>>(tc, ctx);
}
