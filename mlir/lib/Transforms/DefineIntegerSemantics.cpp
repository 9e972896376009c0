// Gives every integer operation a result on every input, the same on every
// backend (docs/profiles.md, "Integer semantics"): guarded division,
// remainder and shifts, no poison-producing flags. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace xpu {
#define GEN_PASS_DEF_DEFINEINTEGERSEMANTICS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// The bit width of `t`'s elements; `index` has the target's width.
unsigned widthOf(Type t, unsigned indexBits) {
  Type e = getElementTypeOrSelf(t);
  return e.isIndex() ? indexBits : e.getIntOrFloatBitWidth();
}

/// A constant of `t` (scalar or splat) holding `v` truncated to the width.
Value splat(OpBuilder &b, Location loc, Type t, APInt v) {
  Type e = getElementTypeOrSelf(t);
  if (e.isIndex()) // attributes hold an index in 64 bits
    v = v.sextOrTrunc(IndexType::kInternalStorageBitWidth);
  if (auto vec = dyn_cast<VectorType>(t))
    return arith::ConstantOp::create(b, loc, vec, DenseElementsAttr::get(vec, v));
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(e, v));
}

Value splat(OpBuilder &b, Location loc, Type t, unsigned width, int64_t v) {
  return splat(b, loc, t, APInt(width, v, /*isSigned=*/true, /*implicitTrunc=*/true));
}

/// Every lane of `v` when it is a constant, else nothing.
std::optional<SmallVector<APInt>> constantLanes(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return SmallVector<APInt>{i.getValue()};
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr))
    return llvm::to_vector(dense.getValues<APInt>());
  return std::nullopt;
}

/// A divisor needs no guard when it is a constant with no lane 0 (nor -1
/// for signed division, unless the dividend is a constant without MIN).
bool divisorIsSafe(Value dividend, Value divisor, bool isSigned) {
  auto lanes = constantLanes(divisor);
  if (!lanes)
    return false;
  bool minusOne = false;
  for (const APInt &d : *lanes) {
    if (d.isZero())
      return false;
    minusOne |= isSigned && d.isAllOnes();
  }
  if (!minusOne)
    return true;
  auto num = constantLanes(dividend);
  return num && llvm::none_of(*num, [](const APInt &a) { return a.isMinSignedValue(); });
}

/// The divisor every backend divides by: 1 where the divisor is 0, or -1
/// against a dividend of MIN (signed). x / 1 = x and x rem 1 = 0 give the
/// defined results of those cases.
Value safeDivisor(OpBuilder &b, Location loc, Value dividend, Value divisor,
                  bool isSigned, unsigned indexBits) {
  Type t = divisor.getType();
  unsigned w = widthOf(t, indexBits);
  using P = arith::CmpIPredicate;
  Value zero = splat(b, loc, t, w, 0);
  Value bad = arith::CmpIOp::create(b, loc, P::eq, divisor, zero);
  if (isSigned) {
    Value min = splat(b, loc, t, APInt::getSignedMinValue(w));
    Value minusOne = splat(b, loc, t, APInt::getAllOnes(w));
    Value isMin = arith::CmpIOp::create(b, loc, P::eq, dividend, min);
    Value isMinusOne = arith::CmpIOp::create(b, loc, P::eq, divisor, minusOne);
    bad = arith::OrIOp::create(b, loc, bad,
                               arith::AndIOp::create(b, loc, isMin, isMinusOne));
  }
  return arith::SelectOp::create(b, loc, bad, splat(b, loc, t, w, 1), divisor);
}

/// The shift amount every backend shifts by: the amount modulo the width
/// (WGSL's rule), unless it is a constant already below the width.
Value safeShiftAmount(OpBuilder &b, Location loc, Value amount, unsigned indexBits) {
  Type t = amount.getType();
  unsigned w = widthOf(t, indexBits);
  if (auto lanes = constantLanes(amount))
    if (llvm::all_of(*lanes, [&](const APInt &s) { return s.ult(w); }))
      return amount;
  if (llvm::isPowerOf2_32(w))
    return arith::AndIOp::create(b, loc, amount, splat(b, loc, t, w, w - 1));
  return arith::RemUIOp::create(b, loc, amount, splat(b, loc, t, w, w));
}

/// floordiv and ceildiv from the truncating quotient and remainder of a
/// safe divisor: q - 1 when the remainder is nonzero and has the other sign
/// than the divisor (floor), q + 1 when it has the same sign (ceil). Neither
/// adjustment can overflow: q is MIN or MAX only with a remainder of 0.
Value roundedQuotient(OpBuilder &b, Location loc, Value a, Value d, bool isSigned,
                      bool up, unsigned indexBits) {
  using P = arith::CmpIPredicate;
  Type t = a.getType();
  unsigned w = widthOf(t, indexBits);
  Value zero = splat(b, loc, t, w, 0);
  Value one = splat(b, loc, t, w, 1);
  Value q = isSigned ? Value(arith::DivSIOp::create(b, loc, a, d))
                     : Value(arith::DivUIOp::create(b, loc, a, d));
  Value r = isSigned ? Value(arith::RemSIOp::create(b, loc, a, d))
                     : Value(arith::RemUIOp::create(b, loc, a, d));
  Value inexact = arith::CmpIOp::create(b, loc, P::ne, r, zero);
  if (!isSigned) // ceildivui
    return arith::AddIOp::create(b, loc, q,
                                 arith::SelectOp::create(b, loc, inexact, one, zero));
  Value rNeg = arith::CmpIOp::create(b, loc, P::slt, r, zero);
  Value dNeg = arith::CmpIOp::create(b, loc, P::slt, d, zero);
  Value signsDiffer = arith::XOrIOp::create(b, loc, rNeg, dNeg);
  Value adjust;
  if (up) {
    Value same = arith::XOrIOp::create(
        b, loc, signsDiffer, splat(b, loc, signsDiffer.getType(), 1, 1));
    adjust = arith::AndIOp::create(b, loc, inexact, same);
    return arith::AddIOp::create(b, loc, q,
                                 arith::SelectOp::create(b, loc, adjust, one, zero));
  }
  adjust = arith::AndIOp::create(b, loc, inexact, signsDiffer);
  return arith::SubIOp::create(b, loc, q,
                               arith::SelectOp::create(b, loc, adjust, one, zero));
}

/// Rewrites one op; returns true when it replaced it.
bool define(Operation *op, unsigned indexBits) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto div = [&](auto typed, bool isSigned) {
    Value a = typed.getLhs(), d = typed.getRhs();
    if (divisorIsSafe(a, d, isSigned))
      return false;
    typed.getRhsMutable().assign(safeDivisor(b, loc, a, d, isSigned, indexBits));
    return false;
  };
  auto shift = [&](auto typed) {
    Value s = safeShiftAmount(b, loc, typed.getRhs(), indexBits);
    if (s != typed.getRhs())
      typed.getRhsMutable().assign(s);
    return false;
  };
  auto rounded = [&](auto typed, bool isSigned, bool up) {
    Value a = typed.getLhs(), d = typed.getRhs();
    if (!divisorIsSafe(a, d, isSigned))
      d = safeDivisor(b, loc, a, d, isSigned, indexBits);
    typed.replaceAllUsesWith(roundedQuotient(b, loc, a, d, isSigned, up, indexBits));
    typed.erase();
    return true;
  };
  if (auto o = dyn_cast<arith::DivSIOp>(op))
    return div(o, true);
  if (auto o = dyn_cast<arith::RemSIOp>(op))
    return div(o, true);
  if (auto o = dyn_cast<arith::DivUIOp>(op))
    return div(o, false);
  if (auto o = dyn_cast<arith::RemUIOp>(op))
    return div(o, false);
  if (auto o = dyn_cast<arith::FloorDivSIOp>(op))
    return rounded(o, true, false);
  if (auto o = dyn_cast<arith::CeilDivSIOp>(op))
    return rounded(o, true, true);
  if (auto o = dyn_cast<arith::CeilDivUIOp>(op))
    return rounded(o, false, true);
  if (auto o = dyn_cast<arith::ShLIOp>(op))
    return shift(o);
  if (auto o = dyn_cast<arith::ShRSIOp>(op))
    return shift(o);
  if (auto o = dyn_cast<arith::ShRUIOp>(op))
    return shift(o);
  return false;
}

/// Flags that make a result poison (nsw/nuw overflow, exact, nneg) are
/// dropped: results wrap, and an inexact division or shift is just that.
void dropPoisonFlags(Operation *op) {
  if (auto flags = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op))
    if (flags.hasNoSignedWrap() || flags.hasNoUnsignedWrap())
      op->setAttr(flags.getIntegerOverflowAttrName(),
                  arith::IntegerOverflowFlagsAttr::get(op->getContext(),
                                                       arith::IntegerOverflowFlags::none));
  for (StringRef name : {"isExact", "nonNeg"})
    op->removeAttr(name);
}

struct DefineIntegerSemanticsPass
    : xpu::impl::DefineIntegerSemanticsBase<DefineIntegerSemanticsPass> {
  using DefineIntegerSemanticsBase::DefineIntegerSemanticsBase;
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      dropPoisonFlags(op);
      ops.push_back(op);
    });
    for (Operation *op : ops)
      define(op, indexBits);
  }
};

} // namespace
