// Rewrites the math functions a target has no instruction for into calls to
// the math library: the vendor's device library on GPUs, the host's libm on
// the CPU. See Passes.td.
#include "xpu/Conversion/MathLibrary.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToROCDL/MathToROCDL.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace xpu {
#define GEN_PASS_DEF_MATHTOLIBCALLS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

/// A libm call for a unary math op on f32 or f64 (`name` + "f" for f32);
/// vectors call it lane by lane.
struct LibmCall : RewritePattern {
  LibmCall(MLIRContext *ctx, StringRef op, StringRef name)
      : RewritePattern(op, 1, ctx), name(name.str()) {}
  std::string name;

  Value call(PatternRewriter &rw, Location loc, Value x) const {
    Type t = x.getType();
    std::string fn = t.isF32() ? name + "f" : name;
    auto module = rw.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    if (!module.lookupSymbol(fn)) {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(module.getBody());
      LLVM::LLVMFuncOp::create(rw, loc, fn, LLVM::LLVMFunctionType::get(t, {t}));
    }
    return LLVM::CallOp::create(rw, loc, TypeRange{t}, fn, ValueRange{x}).getResult();
  }

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rw) const override {
    Value x = op->getOperand(0);
    Location loc = op->getLoc();
    Type elem = getElementTypeOrSelf(x.getType());
    if (!elem.isF32() && !elem.isF64())
      return rw.notifyMatchFailure(op, "libm has f32 and f64 forms");
    auto vec = dyn_cast<VectorType>(x.getType());
    if (!vec) {
      rw.replaceOp(op, call(rw, loc, x));
      return success();
    }
    if (vec.getRank() != 1 || vec.isScalable())
      return rw.notifyMatchFailure(op, "fixed 1-D vectors only");
    SmallVector<Value> lanes;
    for (int64_t i = 0; i < vec.getNumElements(); ++i)
      lanes.push_back(call(rw, loc, vector::ExtractOp::create(rw, loc, x, ArrayRef<int64_t>{i})));
    rw.replaceOpWithNewOp<vector::FromElementsOp>(op, vec, lanes);
    return success();
  }
};

struct MathToLibCallsPass : xpu::impl::MathToLibCallsBase<MathToLibCallsPass> {
  using MathToLibCallsBase::MathToLibCallsBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (target != "cpu" && target != "nvvm" && target != "rocdl") {
      getOperation().emitError() << "unknown target '" << target
                                 << "' (accepted: cpu, nvvm, rocdl)";
      return signalPassFailure();
    }
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter tc(ctx, options);
    RewritePatternSet patterns(ctx);
    ConversionTarget ct(*ctx);
    ct.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (target == "cpu") {
      // LLVM has intrinsics, which the CPU back end expands or calls libm
      // for, for the others. expm1 and log1p too: MLIR's LLVM lowering
      // writes them exp(x) - 1 and log(1 + x), thousands of ULP off near 0.
      for (auto [op, name] : {std::pair{"math.acosh", "acosh"}, {"math.asinh", "asinh"},
                              {"math.atanh", "atanh"}, {"math.cbrt", "cbrt"},
                              {"math.erf", "erf"}, {"math.erfc", "erfc"},
                              {"math.expm1", "expm1"}, {"math.log1p", "log1p"}}) {
        patterns.add<LibmCall>(ctx, op, name);
        ct.addIllegalOp(OperationName(op, ctx));
      }
    } else {
      if (target == "nvvm")
        populateLibDeviceConversionPatterns(tc, patterns);
      else
        populateMathToROCDLConversionPatterns(tc, patterns, std::nullopt);
      // Only what needs the library becomes a call; everything else stays
      // for the LLVM lowering (sqrt, fabs, fma, ... are instructions).
      getOperation().walk([&](Operation *op) {
        if (xpu::needsMathLibrary(op))
          ct.addIllegalOp(op->getName());
      });
      // AMDGPU has f32 exp and log of library accuracy as LLVM intrinsics,
      // and MLIR's ocml table leaves them to those.
      if (target == "rocdl")
        ct.addDynamicallyLegalOp<math::ExpOp, math::LogOp>([](Operation *op) {
          return getElementTypeOrSelf(op->getResult(0).getType()).isF32();
        });
    }
    if (failed(applyPartialConversion(getOperation(), ct, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
