// Target lowerings of xpu.dot4_i8, the packed 8-bit dot product the int8
// tile tier uses; see TileLowering.h.
#include "xpu/TileLowering.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"

using namespace mlir;

namespace xpu {

namespace {

struct Dot4ToLLVM : ConvertOpToLLVMPattern<Dot4I8Op> {
  Dot4ToLLVM(const LLVMTypeConverter &tc, StringRef target)
      : ConvertOpToLLVMPattern<Dot4I8Op>(tc), target(target.str()) {}
  std::string target;

  LogicalResult
  matchAndRewrite(Dot4I8Op op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type i32 = rw.getI32Type();
    if (target == "nvvm") {
      auto s8 = NVVM::DotAccumulateTypeAttr::get(rw.getContext(), NVVM::DotAccumulateType::SIGNED);
      rw.replaceOpWithNewOp<NVVM::DotAccumulate4WayOp>(op, i32, adaptor.getA(), s8,
                                                       adaptor.getB(), s8, adaptor.getAcc());
      return success();
    }
    if (target == "rocdl") {
      // v_dot4_i32_i8: the operands as packed words, no clamping (wraps).
      Value a = LLVM::BitcastOp::create(rw, loc, i32, adaptor.getA());
      Value b = LLVM::BitcastOp::create(rw, loc, i32, adaptor.getB());
      Value clamp = LLVM::ConstantOp::create(rw, loc, rw.getI1Type(), 0);
      auto call = LLVM::CallIntrinsicOp::create(
          rw, loc, i32, rw.getStringAttr("llvm.amdgcn.sdot4"),
          ValueRange{a, b, adaptor.getAcc(), clamp});
      rw.replaceOp(op, call.getResult(0));
      return success();
    }
    auto wide = VectorType::get({4}, i32);
    Value a = LLVM::SExtOp::create(rw, loc, wide, adaptor.getA());
    Value b = LLVM::SExtOp::create(rw, loc, wide, adaptor.getB());
    Value prod = LLVM::MulOp::create(rw, loc, a, b);
    Value sum = LLVM::vector_reduce_add::create(rw, loc, i32, prod);
    rw.replaceOpWithNewOp<LLVM::AddOp>(op, sum, adaptor.getAcc());
    return success();
  }
};

struct Dot4ToSPIRV : OpConversionPattern<Dot4I8Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Dot4I8Op op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value dot = spirv::SDotOp::create(rw, loc, rw.getI32Type(), adaptor.getA(),
                                      adaptor.getB(), spirv::PackedVectorFormatAttr());
    rw.replaceOpWithNewOp<spirv::IAddOp>(op, dot, adaptor.getAcc());
    return success();
  }
};

} // namespace

void populateTileToLLVMPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns,
                                StringRef target) {
  patterns.add<Dot4ToLLVM>(converter, target);
}

void populateTileToSPIRVPatterns(SPIRVTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<Dot4ToSPIRV>(converter, patterns.getContext());
  populateCoopMatrixToSPIRVPatterns(converter, patterns);
}

} // namespace xpu
