// Helpers for checked accesses; see CheckedAccess.h.
#include "CheckedAccess.h"

using namespace mlir;

namespace xpu {

AccessParts accessParts(Operation *op) {
  AccessParts parts;
  bool load = isa<LoadOp>(op);
  parts.buffer = op->getOperand(load ? 0 : 1);
  parts.index = op->getOperand(load ? 1 : 2);
  if (auto l = dyn_cast<LoadOp>(op))
    parts.width = l.getWidth();
  else if (auto s = dyn_cast<StoreOp>(op))
    parts.width = s.getWidth();
  return parts;
}

Value inBounds(OpBuilder &b, Location loc, Value index, Value size, int64_t width) {
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size);
  if (width == 1)
    return ok;
  Value room = arith::SubIOp::create(b, loc, size, index);
  Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, room,
                                     arith::ConstantIndexOp::create(b, loc, width));
  return arith::AndIOp::create(b, loc, ok, fits);
}

arith::CmpIPredicate swapSides(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::ult: return P::ugt;
  case P::ule: return P::uge;
  case P::ugt: return P::ult;
  case P::uge: return P::ule;
  case P::slt: return P::sgt;
  case P::sle: return P::sge;
  case P::sgt: return P::slt;
  case P::sge: return P::sle;
  default: return p;
  }
}

} // namespace xpu
