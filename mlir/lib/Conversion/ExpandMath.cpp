// Rewrites the math ops a target's lowering lacks into ones it has, so that
// every math op runs on every backend. See Passes.td (xpu-expand-math).
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace xpu {
#define GEN_PASS_DEF_EXPANDMATH
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

/// A scalar or splat constant of `type` (float or integer element).
Value splat(OpBuilder &b, Location loc, Type type, double f, int64_t i = 0) {
  Type elem = getElementTypeOrSelf(type);
  TypedAttr a = isa<FloatType>(elem) ? TypedAttr(b.getFloatAttr(elem, f))
                                     : TypedAttr(b.getIntegerAttr(elem, i));
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shaped, a));
  return arith::ConstantOp::create(b, loc, a);
}

Value splatAP(OpBuilder &b, Location loc, Type type, const APFloat &v) {
  Type elem = getElementTypeOrSelf(type);
  TypedAttr a = b.getFloatAttr(elem, v);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shaped, a));
  return arith::ConstantOp::create(b, loc, a);
}

/// |x| <pred> inf, for the float class tests below.
Value compareAbsToInf(PatternRewriter &rw, Location loc, Value x, arith::CmpFPredicate pred) {
  Type t = x.getType();
  auto ft = cast<FloatType>(getElementTypeOrSelf(t));
  Value inf = splatAP(rw, loc, t, APFloat::getInf(ft.getFloatSemantics()));
  return arith::CmpFOp::create(rw, loc, pred, math::AbsFOp::create(rw, loc, x), inf);
}

/// isinf(x) = |x| == inf.
struct IsInfExpansion : OpRewritePattern<math::IsInfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsInfOp op, PatternRewriter &rw) const override {
    rw.replaceOp(op, compareAbsToInf(rw, op.getLoc(), op.getOperand(), arith::CmpFPredicate::OEQ));
    return success();
  }
};

/// isfinite(x) = |x| < inf (false for NaN: ordered). MLIR's SPIR-V lowering
/// emits OpIsFinite, which needs the Kernel capability: a Vulkan module with
/// it is invalid, and NVIDIA's driver 580 crashed the host process creating
/// the pipeline (tests/interop/test_math.py, float classes, on the H200).
struct IsFiniteExpansion : OpRewritePattern<math::IsFiniteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsFiniteOp op, PatternRewriter &rw) const override {
    rw.replaceOp(op, compareAbsToInf(rw, op.getLoc(), op.getOperand(), arith::CmpFPredicate::OLT));
    return success();
  }
};

/// isnormal(x) = smallest normal <= |x| < inf (false for NaN: ordered).
struct IsNormalExpansion : OpRewritePattern<math::IsNormalOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsNormalOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type t = op.getOperand().getType();
    auto ft = cast<FloatType>(getElementTypeOrSelf(t));
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    Value a = math::AbsFOp::create(rw, loc, op.getOperand());
    Value lo = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OGE, a,
                                     splatAP(rw, loc, t, APFloat::getSmallestNormalized(sem)));
    Value hi = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OLT, a,
                                     splatAP(rw, loc, t, APFloat::getInf(sem)));
    rw.replaceOpWithNewOp<arith::AndIOp>(op, lo, hi);
    return success();
  }
};

/// ipowi(b, p) by square-and-multiply; for p < 0 the integer result is
/// 1 for b == 1, +-1 for b == -1 and 0 otherwise (0 ** -n too: there is
/// no trap to report).
struct IPowIExpansion : OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value base = op.getLhs(), exp = op.getRhs();
    Type t = base.getType();
    Value zero = splat(rw, loc, t, 0, 0), one = splat(rw, loc, t, 0, 1);
    Value minusOne = splat(rw, loc, t, 0, -1);
    // Loop: (result, b, p) while p != 0.
    auto loop = scf::WhileOp::create(rw, loc, TypeRange{t, t, t},
                                     ValueRange{one, base, exp});
    xpu::inheritLoopSite(loop, op);
    {
      OpBuilder::InsertionGuard g(rw);
      Block *before = rw.createBlock(&loop.getBefore(), {}, {t, t, t}, {loc, loc, loc});
      Value p = before->getArgument(2);
      Value more = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sgt, p, zero);
      scf::ConditionOp::create(rw, loc, more, before->getArguments());
      Block *after = rw.createBlock(&loop.getAfter(), {}, {t, t, t}, {loc, loc, loc});
      Value r = after->getArgument(0), b = after->getArgument(1);
      Value q = after->getArgument(2);
      Value odd = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ne,
                                        arith::AndIOp::create(rw, loc, q, one), zero);
      Value r2 = arith::SelectOp::create(rw, loc, odd, arith::MulIOp::create(rw, loc, r, b), r);
      Value b2 = arith::MulIOp::create(rw, loc, b, b);
      Value q2 = arith::ShRSIOp::create(rw, loc, q, one);
      scf::YieldOp::create(rw, loc, ValueRange{r2, b2, q2});
    }
    Value positive = loop.getResult(0);
    Value negExp = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, exp, zero);
    Value isOne = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, base, one);
    Value isMinusOne = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, base, minusOne);
    Value oddExp = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::ne,
                                         arith::AndIOp::create(rw, loc, exp, one), zero);
    Value signed_ = arith::SelectOp::create(rw, loc, oddExp, minusOne, one);
    Value negative = arith::SelectOp::create(
        rw, loc, isOne, one, arith::SelectOp::create(rw, loc, isMinusOne, signed_, zero));
    rw.replaceOpWithNewOp<arith::SelectOp>(op, negExp, negative, positive);
    return success();
  }
};

/// trunc(x) = copysign(floor(|x|), x).
struct TruncExpansion : OpRewritePattern<math::TruncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::TruncOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value f = math::FloorOp::create(rw, loc, math::AbsFOp::create(rw, loc, x));
    rw.replaceOpWithNewOp<math::CopySignOp>(op, f, x);
    return success();
  }
};

/// f64 roundeven from floor: with a = |x|, f = floor(a) and d = a - f
/// (exact), the result is f + 1 when d > 1/2 or d = 1/2 and f is odd, else
/// f, with x's sign (so -0.5 gives -0). Lavapipe (Mesa 22.3.6) rounds f64
/// halves with an odd integer part down (RoundEven(17.5) = 17;
/// tests/interop/test_math.py found 238 of 4,099 inputs wrong).
struct RoundEvenF64Expansion : OpRewritePattern<math::RoundEvenOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RoundEvenOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type t = x.getType();
    if (!getElementTypeOrSelf(t).isF64())
      return rw.notifyMatchFailure(op, "only f64 is expanded");
    Value a = math::AbsFOp::create(rw, loc, x);
    Value f = math::FloorOp::create(rw, loc, a);
    Value d = arith::SubFOp::create(rw, loc, a, f);
    Value half = splat(rw, loc, t, 0.5);
    Value halfOfF = math::FloorOp::create(rw, loc, arith::MulFOp::create(rw, loc, f, half));
    Value odd = arith::CmpFOp::create(
        rw, loc, arith::CmpFPredicate::OEQ,
        arith::SubFOp::create(rw, loc, f, arith::AddFOp::create(rw, loc, halfOfF, halfOfF)),
        splat(rw, loc, t, 1.0));
    Value above = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OGT, d, half);
    Value tie = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OEQ, d, half);
    Value up = arith::OrIOp::create(rw, loc, above, arith::AndIOp::create(rw, loc, tie, odd));
    Value r = arith::SelectOp::create(
        rw, loc, up, arith::AddFOp::create(rw, loc, f, splat(rw, loc, t, 1.0)), f);
    rw.replaceOpWithNewOp<math::CopySignOp>(op, r, x);
    return success();
  }
};

/// cttz(x) = ctpop((x & -x) - 1): the bits below the lowest set one (all
/// of them for 0); ctpop is SPIR-V's OpBitCount (InteropToSPIRV.cpp).
struct CttzExpansion : OpRewritePattern<math::CountTrailingZerosOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CountTrailingZerosOp op,
                                PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type t = x.getType();
    Value neg = arith::SubIOp::create(rw, loc, splat(rw, loc, t, 0, 0), x);
    Value low = arith::AndIOp::create(rw, loc, x, neg);
    Value below = arith::SubIOp::create(rw, loc, low, splat(rw, loc, t, 0, 1));
    rw.replaceOpWithNewOp<math::CtPopOp>(op, below);
    return success();
  }
};

struct SincosExpansion : OpRewritePattern<math::SincosOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::SincosOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value s = math::SinOp::create(rw, loc, op.getOperand());
    Value c = math::CosOp::create(rw, loc, op.getOperand());
    rw.replaceOp(op, ValueRange{s, c});
    return success();
  }
};

/// tan of f32 by reduction to r = |x| - j pi/2 (pi/2 in three parts, so
/// j * part is exact for j < 2^16: Cody and Waite), tan(r) = r + r^3 P(r^2)
/// on |r| <= pi/4 with Cephes' tanf coefficients (2.8 ULP peak relative
/// error for |x| <= 4096), -1 / tan(r) for odd j, negated for negative x (tan is odd).
/// For SPIR-V: GLSL's Tan is only "inherited from sin(x)/cos(x)", and
/// NVIDIA's driver 580 computes it with its 2^-11-absolute sin and cos: 287
/// of 4099 f32 tangents in [-1.2, 1.2] were off by more than 16 ULP on the
/// H200 (tan(-0.012704376) = -0.0127048735, not -0.0127050597).
struct TanF32Expansion : OpRewritePattern<math::TanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::TanOp op, PatternRewriter &rw) const override {
    Type t = op.getType();
    if (!getElementTypeOrSelf(t).isF32())
      return failure();
    Location loc = op.getLoc();
    auto c = [&](double v) { return splat(rw, loc, t, v); };
    auto mul = [&](Value a, Value b) { return arith::MulFOp::create(rw, loc, a, b); };
    auto sub = [&](Value a, Value b) { return arith::SubFOp::create(rw, loc, a, b); };
    auto add = [&](Value a, Value b) { return arith::AddFOp::create(rw, loc, a, b); };
    Value x = op.getOperand();
    Value ax = math::AbsFOp::create(rw, loc, x);
    Value j = math::FloorOp::create(rw, loc, add(mul(ax, c(2.0 / M_PI)), c(0.5)));
    Value r = sub(sub(sub(ax, mul(j, c(1.5703125))), mul(j, c(4.837512969970703125e-4))),
                  mul(j, c(7.54978995489188216e-8)));
    Value z = mul(r, r);
    Value p = c(9.38540185543e-3);
    for (double k : {3.11992232697e-3, 2.44301354525e-2, 5.34112807005e-2, 1.33387994085e-1,
                     3.33331568548e-1})
      p = add(mul(p, z), c(k));
    Value tr = add(mul(mul(p, z), r), r);
    // j is odd when j - 2 floor(j / 2) is 1.
    Value half = math::FloorOp::create(rw, loc, mul(j, c(0.5)));
    Value odd = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OEQ,
                                      sub(j, mul(half, c(2.0))), c(1.0));
    Value folded = arith::SelectOp::create(rw, loc, odd, arith::DivFOp::create(rw, loc, c(-1.0), tr),
                                           tr);
    // tan(x) = -tan(|x|) for negative x (and -0).
    Value negative = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OLT,
                                           math::CopySignOp::create(rw, loc, c(1.0), x), c(0.0));
    rw.replaceOpWithNewOp<arith::SelectOp>(op, negative, arith::NegFOp::create(rw, loc, folded),
                                           folded);
    return success();
  }
};

/// sinh(x) = sign(x) (e + e / (e + 1)) / 2 with e = expm1(|x|), which keeps
/// its relative accuracy near 0 where (exp(x) - exp(-x)) / 2 cancels.
struct SinhExpansion : OpRewritePattern<math::SinhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::SinhOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type t = op.getType();
    // Of |x|, then the sign of x (sinh is odd): for x < 0, e + 1 = exp(x)
    // cancels (sinh(-4.833626) came out 2,000 ULP off on the H200).
    Value x = op.getOperand();
    Value e = math::ExpM1Op::create(rw, loc, math::AbsFOp::create(rw, loc, x));
    Value one = splat(rw, loc, t, 1.0), half = splat(rw, loc, t, 0.5);
    Value q = arith::DivFOp::create(rw, loc, e, arith::AddFOp::create(rw, loc, e, one));
    Value r = arith::MulFOp::create(rw, loc, arith::AddFOp::create(rw, loc, e, q), half);
    // Once expm1 overflows, e / (e + 1) is inf / inf: the result is inf.
    Value huge = compareAbsToInf(rw, loc, e, arith::CmpFPredicate::OEQ);
    r = arith::SelectOp::create(rw, loc, huge, e, r);
    rw.replaceOpWithNewOp<math::CopySignOp>(op, r, x);
    return success();
  }
};

/// asinh(x) = sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); for large
/// |x|, where x^2 overflows, log(|x|) + log(2).
struct AsinhExpansion : OpRewritePattern<math::AsinhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AsinhOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type t = x.getType();
    Value one = splat(rw, loc, t, 1.0);
    Value a = math::AbsFOp::create(rw, loc, x);
    Value a2 = arith::MulFOp::create(rw, loc, a, a);
    Value root = math::SqrtOp::create(rw, loc, arith::AddFOp::create(rw, loc, one, a2));
    Value small = math::Log1pOp::create(
        rw, loc,
        arith::AddFOp::create(rw, loc, a,
                              arith::DivFOp::create(rw, loc, a2,
                                                    arith::AddFOp::create(rw, loc, one, root))));
    Value large = arith::AddFOp::create(rw, loc, math::LogOp::create(rw, loc, a),
                                        splat(rw, loc, t, std::log(2.0)));
    Value big = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OGT, a,
                                      splat(rw, loc, t, 1e18));
    Value r = arith::SelectOp::create(rw, loc, big, large, small);
    rw.replaceOpWithNewOp<math::CopySignOp>(op, r, x);
    return success();
  }
};

/// atanh(x) = sign(x) * log1p(2|x| / (1 - |x|)) / 2.
struct AtanhExpansion : OpRewritePattern<math::AtanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AtanhOp op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type t = x.getType();
    Value a = math::AbsFOp::create(rw, loc, x);
    Value twice = arith::AddFOp::create(rw, loc, a, a);
    Value rest = arith::SubFOp::create(rw, loc, splat(rw, loc, t, 1.0), a);
    Value l = math::Log1pOp::create(rw, loc, arith::DivFOp::create(rw, loc, twice, rest));
    Value r = arith::MulFOp::create(rw, loc, l, splat(rw, loc, t, 0.5));
    rw.replaceOpWithNewOp<math::CopySignOp>(op, r, x);
    return success();
  }
};

/// log10(x) = log(x) * log10(e), with the approximated log.
struct Log10Expansion : OpRewritePattern<math::Log10Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Log10Op op, PatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value l = math::LogOp::create(rw, loc, op.getOperand());
    rw.replaceOpWithNewOp<arith::MulFOp>(op, l,
                                         splat(rw, loc, op.getType(), 1.0 / std::log(10.0)));
    return success();
  }
};

/// Functions whose f16/bf16 forms compute in f32 (the others are exact or
/// have native forms everywhere).
bool widened(StringRef name) {
  static const llvm::StringSet<> exact = {
      "math.absf", "math.copysign", "math.ceil", "math.floor", "math.round",
      "math.roundeven", "math.trunc", "math.fma", "math.isnan", "math.isinf",
      "math.isfinite", "math.isnormal", "math.clampf"};
  return !exact.contains(name);
}

struct ExpandMathPass : xpu::impl::ExpandMathBase<ExpandMathPass> {
  using ExpandMathBase::ExpandMathBase;

  void runOnOperation() override {
    if (target != "cpu" && target != "nvvm" && target != "rocdl" && target != "spirv") {
      getOperation().emitError() << "unknown target '" << target
                                 << "' (accepted: cpu, nvvm, rocdl, spirv)";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    if (loopsOnly) {
      patterns.add<IPowIExpansion>(ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        signalPassFailure();
      return;
    }
    populateMathF32ExpansionPatterns(patterns, widened);
    math::populateExpansionPatterns(patterns, {"clampf"});
    patterns.add<IsFiniteExpansion, IsNormalExpansion, IPowIExpansion>(ctx);
    if (target != "spirv") {
      patterns.add<IsInfExpansion>(ctx);
    } else {
      // GLSL.std.450 lacks erf, erfc, cbrt and (in MLIR's lowering) atan2;
      // for the functions whose GLSL forms Vulkan holds only to formulas
      // ("inherited from" in its precision table: thousands of ULP on
      // lavapipe for asin, atan, tanh, log1p, ...) MLIR's polynomial
      // approximations are used too, which stay within a few ULP on every
      // driver (tests/interop/test_math.py measures them).
      math::populateExpansionPatterns(patterns, {"exp2", "fpowi"});
      populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
        return llvm::is_contained({"math.erf", "math.erfc", "math.atan2", "math.cbrt",
                                   "math.atan", "math.asin", "math.acos", "math.tanh",
                                   "math.log", "math.log2", "math.log1p", "math.expm1",
                                   "math.exp"},
                                  name);
      });
      patterns.add<SinhExpansion, AsinhExpansion, AtanhExpansion, Log10Expansion>(ctx);
      patterns.add<TruncExpansion, CttzExpansion, SincosExpansion, TanF32Expansion,
                   RoundEvenF64Expansion>(ctx);
    }
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
