// math.fma computed exactly through the wider float type, for devices whose
// driver does not fuse it (see Passes.td). Reduced reproducer: on lavapipe
// (Mesa 22.3.6) `math.fma %a, %b, %c : f32` is a rounded product plus %c,
// up to 13,023 ULP from the fused result (measured by the calibration's fma
// probe, src/calibration/numeric_probes.cpp).
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

namespace xpu {
#define GEN_PASS_DEF_SOFTWAREFMA
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

/// `t` with its element type replaced by `elem` (scalars and vectors).
Type withElement(Type t, Type elem) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.clone(elem);
  return elem;
}

Value splat(OpBuilder &b, Location loc, Type t, TypedAttr scalar) {
  if (auto v = dyn_cast<VectorType>(t))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(v, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// fma(a, b, c) rounded once to the type of `a`: the exact product in the
/// wide type, its sum with c rounded to odd there, then one narrowing.
/// Round to odd: s = RN(p + c) and the exact error e = (p + c) - s (Knuth's
/// two-sum); when e != 0 and s is even, s moves one unit toward e, which
/// makes it odd. With at least 2p + 2 bits in the wide type, narrowing the
/// odd-rounded sum rounds the exact p + c correctly (Boldo, Melquiond,
/// "Emulation of FMA and correctly rounded sums", IEEE TC 2008). A product
/// of two narrow values is exact in the wide type; contraction of the wide
/// operations, where a fast-math kernel permits it, changes nothing, since
/// p is already exact.
Value softwareFma(OpBuilder &b, Location loc, Value a, Value x, Value c, FloatType wide,
                  IntegerType wideBits) {
  Type narrow = a.getType();
  Type w = withElement(narrow, wide), bitsTy = withElement(narrow, wideBits);
  Value A = arith::ExtFOp::create(b, loc, w, a);
  Value B = arith::ExtFOp::create(b, loc, w, x);
  Value C = arith::ExtFOp::create(b, loc, w, c);
  Value p = arith::MulFOp::create(b, loc, A, B);
  Value s = arith::AddFOp::create(b, loc, p, C);
  Value pv = arith::SubFOp::create(b, loc, s, C);  // the part of s from p
  Value cv = arith::SubFOp::create(b, loc, s, pv); // the part of s from C
  Value pe = arith::SubFOp::create(b, loc, p, pv);
  Value ce = arith::SubFOp::create(b, loc, C, cv);
  Value e = arith::AddFOp::create(b, loc, pe, ce);

  Value zeroF = splat(b, loc, w, b.getFloatAttr(wide, 0.0));
  Value one = splat(b, loc, bitsTy, b.getIntegerAttr(wideBits, 1));
  Value zeroI = splat(b, loc, bitsTy, b.getIntegerAttr(wideBits, 0));
  Value sBits = arith::BitcastOp::create(b, loc, bitsTy, s);
  // Ordered: with an infinite or NaN operand e is NaN, and s stands as it is.
  Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, e, zeroF);
  Value lowBit = arith::AndIOp::create(b, loc, sBits, one);
  Value even = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lowBit, zeroI);
  Value adjust = arith::AndIOp::create(b, loc, inexact, even);
  // Toward e: away from zero when e and s have the same sign (s != 0 here:
  // s == 0 means p == -C exactly, so e == 0).
  Value eNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, e, zeroF);
  Value sNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, s, zeroF);
  Value away = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, eNeg, sNeg);
  Value up = arith::AddIOp::create(b, loc, sBits, one);
  Value down = arith::SubIOp::create(b, loc, sBits, one);
  Value moved = arith::SelectOp::create(b, loc, away, up, down);
  Value oddBits = arith::SelectOp::create(b, loc, adjust, moved, sBits);
  Value odd = arith::BitcastOp::create(b, loc, w, oddBits);
  return arith::TruncFOp::create(b, loc, narrow, odd);
}

struct SoftwareFMAPass : xpu::impl::SoftwareFMABase<SoftwareFMAPass> {
  using SoftwareFMABase::SoftwareFMABase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SmallVector<math::FmaOp> fmas;
    getOperation().walk([&](math::FmaOp op) {
      Type e = getElementTypeOrSelf(op.getType());
      if ((e.isF16() && f16) || (e.isF32() && f32))
        fmas.push_back(op);
    });
    IRRewriter rw(ctx);
    for (math::FmaOp op : fmas) {
      rw.setInsertionPoint(op);
      bool half = getElementTypeOrSelf(op.getType()).isF16();
      FloatType wide = half ? FloatType(Float32Type::get(ctx)) : Float64Type::get(ctx);
      Value r = softwareFma(rw, op.getLoc(), op.getA(), op.getB(), op.getC(), wide,
                            IntegerType::get(ctx, half ? 32 : 64));
      rw.replaceOp(op, r);
    }
  }
};

} // namespace
