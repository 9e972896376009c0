// Integer lowerings to SPIR-V that MLIR 22 lacks or gets wrong: signed
// remainder, bit counts of every width, integer vector reductions of every
// kind, and arithmetic on i1. XPUToSPIRV hooks them in with one call each.
#include "xpu/IntegerToSPIRV.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace xpu {

namespace {

/// `t` with its elements (or itself, for a scalar) of type `elem`.
Type withElement(Type t, Type elem) {
  if (auto vec = dyn_cast<VectorType>(t))
    return VectorType::get(vec.getShape(), elem);
  return elem;
}

unsigned widthOf(Type t) { return getElementTypeOrSelf(t).getIntOrFloatBitWidth(); }

/// A SPIR-V constant of scalar or vector type `t` holding `v` in each lane.
Value constant(OpBuilder &b, Location loc, Type t, int64_t v) {
  Type e = getElementTypeOrSelf(t);
  APInt value(widthOf(t), v, /*isSigned=*/true, /*implicitTrunc=*/true);
  if (auto vec = dyn_cast<VectorType>(t))
    return spirv::ConstantOp::create(b, loc, vec, DenseElementsAttr::get(vec, value));
  return spirv::ConstantOp::create(b, loc, t, b.getIntegerAttr(e, value));
}

/// Unsigned conversion between widths (none when they are equal).
Value convert(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return spirv::UConvertOp::create(b, loc, to, v);
}

Value isZero(OpBuilder &b, Location loc, Value v) {
  return spirv::IEqualOp::create(b, loc, v, constant(b, loc, v.getType(), 0));
}

/// The low and high 32-bit halves of a 64-bit value.
std::pair<Value, Value> halves(OpBuilder &b, Location loc, Value v) {
  Type i32 = withElement(v.getType(), b.getI32Type());
  Value hi = spirv::ShiftRightLogicalOp::create(b, loc, v.getType(), v,
                                                constant(b, loc, v.getType(), 32));
  return {convert(b, loc, v, i32), convert(b, loc, hi, i32)};
}

template <typename Op>
struct Pattern : OpConversionPattern<Op> {
  Pattern(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<Op>(tc, ctx, /*benefit=*/10) {}
};

/// remsi takes the dividend's sign. MLIR 22 picks the sign by comparing
/// the dividend with its absolute value, which INT_MIN equals, so
/// INT_MIN rem 3 came out +2 (repro: shared/repros/differential/
/// vk-remsi-intmin.mlir). Vulkan leaves OpSRem undefined for negative
/// operands, so the remainder of the magnitudes is taken and given the
/// dividend's sign.
struct RemSILowering : Pattern<arith::RemSIOp> {
  using Pattern::Pattern;
  LogicalResult matchAndRewrite(arith::RemSIOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Value x = a.getLhs(), y = a.getRhs();
    if (!isa<IntegerType>(getElementTypeOrSelf(x.getType())) || widthOf(x.getType()) == 1)
      return failure();
    Location loc = op.getLoc();
    Value zero = constant(rw, loc, x.getType(), 0);
    auto magnitude = [&](Value v, Value negative) -> Value {
      return spirv::SelectOp::create(rw, loc, negative,
                                     spirv::SNegateOp::create(rw, loc, v.getType(), v), v);
    };
    Value xNeg = spirv::SLessThanOp::create(rw, loc, x, zero);
    Value yNeg = spirv::SLessThanOp::create(rw, loc, y, zero);
    Value r = spirv::UModOp::create(rw, loc, magnitude(x, xNeg), magnitude(y, yNeg));
    rw.replaceOp(op, magnitude(r, xNeg));
    return success();
  }
};

/// |x| with |MIN| = MIN (wrapping), without GLSL's SAbs, which leaves MIN
/// undefined.
struct AbsILowering : Pattern<math::AbsIOp> {
  using Pattern::Pattern;
  LogicalResult matchAndRewrite(math::AbsIOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Value x = a.getOperand();
    if (widthOf(x.getType()) == 1)
      return failure();
    Location loc = op.getLoc();
    Value neg = spirv::SLessThanOp::create(rw, loc, x, constant(rw, loc, x.getType(), 0));
    rw.replaceOpWithNewOp<spirv::SelectOp>(op, neg, spirv::SNegateOp::create(rw, loc, x.getType(), x),
                                           x);
    return success();
  }
};

/// Vulkan counts bits of 32-bit values only: narrower ones are widened,
/// 64-bit ones counted by halves.
struct CtPopLowering : Pattern<math::CtPopOp> {
  using Pattern::Pattern;
  LogicalResult matchAndRewrite(math::CtPopOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Value x = a.getOperand();
    Type t = x.getType();
    unsigned w = widthOf(t);
    if (w == 1)
      return failure();
    Location loc = op.getLoc();
    Type i32 = withElement(t, rw.getI32Type());
    Value count;
    if (w == 64) {
      auto [lo, hi] = halves(rw, loc, x);
      count = spirv::IAddOp::create(rw, loc, spirv::BitCountOp::create(rw, loc, lo.getType(), lo),
                                    spirv::BitCountOp::create(rw, loc, hi.getType(), hi));
    } else {
      count = spirv::BitCountOp::create(rw, loc, i32, convert(rw, loc, x, i32));
    }
    rw.replaceOp(op, convert(rw, loc, count, t));
    return success();
  }
};

/// Trailing zeros with FindILsb (-1 for 0): a bit just above the width
/// makes 0 count as the width.
struct CttzLowering : Pattern<math::CountTrailingZerosOp> {
  using Pattern::Pattern;
  LogicalResult matchAndRewrite(math::CountTrailingZerosOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Value x = a.getOperand();
    Type t = x.getType();
    unsigned w = widthOf(t);
    if (w == 1)
      return failure();
    Location loc = op.getLoc();
    Type i32 = withElement(t, rw.getI32Type());
    auto tz32 = [&](Value v) -> Value { // of a 32-bit value, 32 for 0
      return spirv::SelectOp::create(rw, loc, isZero(rw, loc, v), constant(rw, loc, i32, 32),
                                     spirv::GLFindILsbOp::create(rw, loc, i32, v));
    };
    Value count;
    if (w == 64) {
      auto [lo, hi] = halves(rw, loc, x);
      Value high = spirv::IAddOp::create(rw, loc, tz32(hi), constant(rw, loc, i32, 32));
      count = spirv::SelectOp::create(rw, loc, isZero(rw, loc, lo), high,
                                      spirv::GLFindILsbOp::create(rw, loc, i32, lo));
    } else if (w == 32) {
      count = tz32(x);
    } else {
      Value stop = spirv::BitwiseOrOp::create(rw, loc, convert(rw, loc, x, i32),
                                              constant(rw, loc, i32, int64_t(1) << w));
      count = spirv::GLFindILsbOp::create(rw, loc, i32, stop);
    }
    rw.replaceOp(op, convert(rw, loc, count, t));
    return success();
  }
};

/// Leading zeros as (width - 1) - FindUMsb, which is -1 for 0.
struct CtlzLowering : Pattern<math::CountLeadingZerosOp> {
  using Pattern::Pattern;
  LogicalResult matchAndRewrite(math::CountLeadingZerosOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Value x = a.getOperand();
    Type t = x.getType();
    unsigned w = widthOf(t);
    if (w == 1)
      return failure();
    Location loc = op.getLoc();
    Type i32 = withElement(t, rw.getI32Type());
    auto lz = [&](Value v32, unsigned width) -> Value {
      return spirv::ISubOp::create(rw, loc, constant(rw, loc, i32, width - 1),
                                   spirv::GLFindUMsbOp::create(rw, loc, i32, v32));
    };
    Value count;
    if (w == 64) {
      auto [lo, hi] = halves(rw, loc, x);
      Value low = spirv::IAddOp::create(rw, loc, lz(lo, 32), constant(rw, loc, i32, 32));
      count = spirv::SelectOp::create(rw, loc, isZero(rw, loc, hi), low, lz(hi, 32));
    } else {
      count = lz(convert(rw, loc, x, i32), w);
    }
    rw.replaceOp(op, convert(rw, loc, count, t));
    return success();
  }
};

/// Every integer reduction lane by lane (MLIR 22 has none for and/or/xor,
/// none for i1); min and max by compare and select.
struct ReductionLowering : Pattern<vector::ReductionOp> {
  using Pattern::Pattern;
  LogicalResult matchAndRewrite(vector::ReductionOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Type elem = op.getDest().getType();
    if (!isa<IntegerType>(elem))
      return failure();
    Location loc = op.getLoc();
    bool isBool = elem.isInteger(1);
    using K = vector::CombiningKind;
    K kind = op.getKind();
    auto combine = [&](Value l, Value r) -> Value {
      if (isBool) {
        switch (kind) {
        case K::ADD: case K::XOR:
          return spirv::LogicalNotEqualOp::create(rw, loc, l, r);
        case K::MUL: case K::AND: case K::MINUI: case K::MAXSI:
          return spirv::LogicalAndOp::create(rw, loc, l, r);
        default: // OR, MAXUI, MINSI (true is -1)
          return spirv::LogicalOrOp::create(rw, loc, l, r);
        }
      }
      switch (kind) {
      case K::ADD: return spirv::IAddOp::create(rw, loc, l, r);
      case K::MUL: return spirv::IMulOp::create(rw, loc, l, r);
      case K::AND: return spirv::BitwiseAndOp::create(rw, loc, l, r);
      case K::OR: return spirv::BitwiseOrOp::create(rw, loc, l, r);
      case K::XOR: return spirv::BitwiseXorOp::create(rw, loc, l, r);
      case K::MINSI:
        return spirv::SelectOp::create(rw, loc, spirv::SLessThanOp::create(rw, loc, l, r), l, r);
      case K::MAXSI:
        return spirv::SelectOp::create(rw, loc, spirv::SGreaterThanOp::create(rw, loc, l, r), l, r);
      case K::MINUI:
        return spirv::SelectOp::create(rw, loc, spirv::ULessThanOp::create(rw, loc, l, r), l, r);
      case K::MAXUI:
        return spirv::SelectOp::create(rw, loc, spirv::UGreaterThanOp::create(rw, loc, l, r), l, r);
      default:
        return Value();
      }
    };
    Value acc = a.getAcc();
    int64_t lanes = op.getSourceVectorType().getNumElements();
    for (int32_t k = 0; k < lanes; ++k) {
      Value lane = spirv::CompositeExtractOp::create(rw, loc, a.getVector(), {k});
      acc = acc ? combine(acc, lane) : lane;
      if (!acc)
        return rw.notifyMatchFailure(op, "not an integer combining kind");
    }
    rw.replaceOp(op, acc);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// i1 arithmetic, before conversion
//===----------------------------------------------------------------------===//

bool isBool(Type t) { return getElementTypeOrSelf(t).isInteger(1); }

Value extend(OpBuilder &b, Location loc, Value v, bool isSigned) {
  Type wide = withElement(v.getType(), b.getI32Type());
  return isSigned ? Value(arith::ExtSIOp::create(b, loc, wide, v))
                  : Value(arith::ExtUIOp::create(b, loc, wide, v));
}

Value narrow(OpBuilder &b, Location loc, Value v) {
  return arith::TruncIOp::create(b, loc, withElement(v.getType(), b.getI1Type()), v);
}

/// Rewrites one i1 op in 32-bit arithmetic (or in logic); true when it did.
bool widenBool(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto replace = [&](ValueRange values) {
    op->replaceAllUsesWith(values);
    op->erase();
    return true;
  };
  // Bit counts of one bit: ctpop x = x, ctlz x = cttz x = !x, |x| = x.
  if (isa<math::CtPopOp, math::AbsIOp, math::CountLeadingZerosOp,
          math::CountTrailingZerosOp>(op)) {
    Value x = op->getOperand(0);
    if (!isBool(x.getType()))
      return false;
    if (isa<math::CtPopOp, math::AbsIOp>(op))
      return replace(x);
    Value one = arith::ConstantOp::create(b, loc, x.getType(), b.getOneAttr(x.getType()));
    return replace(Value(arith::XOrIOp::create(b, loc, x, one)));
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    if (!isBool(cmp.getLhs().getType()) || p == P::eq || p == P::ne)
      return false;
    bool s = p == P::slt || p == P::sle || p == P::sgt || p == P::sge;
    return replace(Value(arith::CmpIOp::create(b, loc, p, extend(b, loc, cmp.getLhs(), s),
                                               extend(b, loc, cmp.getRhs(), s))));
  }
  if (isa<arith::MulSIExtendedOp, arith::MulUIExtendedOp>(op)) {
    if (!isBool(op->getOperand(0).getType()))
      return false;
    bool s = isa<arith::MulSIExtendedOp>(op);
    Value p = arith::MulIOp::create(b, loc, extend(b, loc, op->getOperand(0), s),
                                    extend(b, loc, op->getOperand(1), s));
    Value one = arith::ConstantOp::create(b, loc, p.getType(), b.getOneAttr(p.getType()));
    Value high = s ? Value(arith::ShRSIOp::create(b, loc, p, one))
                   : Value(arith::ShRUIOp::create(b, loc, p, one));
    return replace({narrow(b, loc, p), narrow(b, loc, high)});
  }
  if (auto add = dyn_cast<arith::AddUIExtendedOp>(op)) {
    if (!isBool(add.getLhs().getType()))
      return false;
    Value sum = arith::AddIOp::create(b, loc, extend(b, loc, add.getLhs(), false),
                                      extend(b, loc, add.getRhs(), false));
    Value one = arith::ConstantOp::create(b, loc, sum.getType(), b.getOneAttr(sum.getType()));
    return replace({narrow(b, loc, sum),
                    narrow(b, loc, arith::ShRUIOp::create(b, loc, sum, one))});
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
    Value in = op->getOperand(0);
    Type out = op->getResult(0).getType();
    bool s = isa<arith::IndexCastOp>(op);
    if (isBool(in.getType())) {
      OperationState state(loc, op->getName(), {extend(b, loc, in, s)}, {out});
      return replace(b.create(state)->getResults());
    }
    if (isBool(out)) {
      OperationState state(loc, op->getName(), {in}, {withElement(out, b.getI32Type())});
      return replace(narrow(b, loc, b.create(state)->getResult(0)));
    }
    return false;
  }
  bool shift = isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op);
  bool s = isa<arith::DivSIOp, arith::RemSIOp, arith::ShRSIOp, arith::MaxSIOp,
               arith::MinSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp>(op);
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp, arith::RemUIOp,
           arith::ShLIOp, arith::ShRUIOp, arith::MaxUIOp, arith::MinUIOp,
           arith::CeilDivUIOp>(op) && !s)
    return false;
  if (!isBool(op->getResult(0).getType()))
    return false;
  Value l = extend(b, loc, op->getOperand(0), s);
  Value r = extend(b, loc, op->getOperand(1), s && !shift);
  OperationState state(loc, op->getName(), {l, r}, {l.getType()});
  return replace(narrow(b, loc, b.create(state)->getResult(0)));
}

} // namespace

void populateIntegerToSPIRVPatterns(const TypeConverter &tc, RewritePatternSet &patterns) {
  patterns.add<RemSILowering, AbsILowering, CtPopLowering, CttzLowering, CtlzLowering,
               ReductionLowering>(tc, patterns.getContext());
}

void widenBoolArithmetic(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops)
    widenBool(op);
}

} // namespace xpu
