// f32 exp and exp2 whose results are subnormal, for devices whose
// exponential flushes them to zero (see Passes.td). Reduced reproducer: on
// lavapipe (Mesa 22.3.6) `math.exp %x : f32` with %x = -90 returns 0, not
// 8.194e-40, although its multiplications keep subnormal results (both
// measured by the calibration's numeric probe, src/calibration).
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

namespace xpu {
#define GEN_PASS_DEF_SUBNORMALEXP
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

Value splat(OpBuilder &b, Location loc, Type t, float v) {
  auto attr = b.getF32FloatAttr(v);
  if (auto vec = dyn_cast<VectorType>(t))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vec, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// exp(x) below the normal range as exp(x/2)^2: the half is exact, exp(x/2)
/// is a normal number, and the square rounds once into the subnormal range
/// (the device's multiplication keeps subnormals; measured).
template <typename Op>
void rewrite(IRRewriter &rw, Op op, float normalLimit) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  Type t = op.getType();
  Value x = op.getOperand();
  Value whole = Op::create(rw, loc, x);
  Value halfX = arith::MulFOp::create(rw, loc, x, splat(rw, loc, t, 0.5f));
  Value half = Op::create(rw, loc, halfX);
  Value squared = arith::MulFOp::create(rw, loc, half, half);
  Value low = arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OLT, x,
                                    splat(rw, loc, t, normalLimit));
  rw.replaceOpWithNewOp<arith::SelectOp>(op, low, squared, whole);
}

struct SubnormalExpPass : xpu::impl::SubnormalExpBase<SubnormalExpPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<math::ExpOp, math::Exp2Op>(op) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    // Results below 2^-126, the least normal f32, are subnormal.
    for (Operation *op : ops) {
      if (auto e = dyn_cast<math::ExpOp>(op))
        rewrite(rw, e, -87.3365447f); // ln(2^-126)
      else
        rewrite(rw, cast<math::Exp2Op>(op), -126.0f);
    }
  }
};

} // namespace
