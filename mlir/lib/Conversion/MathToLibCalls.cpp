// Rewrites the math functions GPUs have no instruction for into calls to the
// vendor's device library. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToROCDL/MathToROCDL.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace xpu {
#define GEN_PASS_DEF_MATHTOLIBCALLS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

struct MathToLibCallsPass : xpu::impl::MathToLibCallsBase<MathToLibCallsPass> {
  using MathToLibCallsBase::MathToLibCallsBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (target != "nvvm" && target != "rocdl") {
      getOperation().emitError() << "unknown target '" << target
                                 << "' (accepted: nvvm, rocdl)";
      return signalPassFailure();
    }
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter tc(ctx, options);
    RewritePatternSet patterns(ctx);
    if (target == "nvvm")
      populateLibDeviceConversionPatterns(tc, patterns);
    else
      populateMathToROCDLConversionPatterns(tc, patterns, std::nullopt);

    // Only what needs the library becomes a call; everything else stays for
    // the LLVM lowering (sqrt, fabs, fma, ... are instructions).
    ConversionTarget ct(*ctx);
    ct.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    ct.addIllegalOp<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                    math::Log2Op, math::Log10Op, math::Log1pOp, math::SinOp,
                    math::CosOp, math::TanOp, math::TanhOp, math::SinhOp,
                    math::CoshOp, math::AsinOp, math::AcosOp, math::AtanOp,
                    math::Atan2Op, math::PowFOp, math::ErfOp, math::CbrtOp>();
    // AMDGPU has f32 exp and log of library accuracy as LLVM intrinsics, and
    // MLIR's ocml table leaves them to those.
    if (target == "rocdl")
      ct.addDynamicallyLegalOp<math::ExpOp, math::LogOp>([](Operation *op) {
        return getElementTypeOrSelf(op->getResult(0).getType()).isF32();
      });
    if (failed(applyPartialConversion(getOperation(), ct, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
