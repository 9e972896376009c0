// The combiners of reductions and scans; see Combiners.h.
#include "xpu/Dialect/XPU/IR/Combiners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace xpu {

LogicalResult verifyCombiner(Operation *op, ReduceKind kind, Type type) {
  bool isFloat = isa<FloatType>(type);
  bool floatOnly = kind == ReduceKind::fmin || kind == ReduceKind::fmax;
  bool intOnly = kind != ReduceKind::add && kind != ReduceKind::mul && !floatOnly;
  if (!type.isIntOrFloat() || (isFloat && intOnly) || (!isFloat && floatOnly))
    return op->emitOpError() << "'" << stringifyReduceKind(kind)
                             << "' does not apply to " << type;
  return success();
}

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value l, Value r) {
  bool isFloat = isa<FloatType>(l.getType());
  switch (kind) {
  case ReduceKind::add:
    return isFloat ? Value(arith::AddFOp::create(b, loc, l, r))
                   : Value(arith::AddIOp::create(b, loc, l, r));
  case ReduceKind::mul:
    return isFloat ? Value(arith::MulFOp::create(b, loc, l, r))
                   : Value(arith::MulIOp::create(b, loc, l, r));
  case ReduceKind::smin:
    return arith::MinSIOp::create(b, loc, l, r);
  case ReduceKind::smax:
    return arith::MaxSIOp::create(b, loc, l, r);
  case ReduceKind::umin:
    return arith::MinUIOp::create(b, loc, l, r);
  case ReduceKind::umax:
    return arith::MaxUIOp::create(b, loc, l, r);
  case ReduceKind::and_:
    return arith::AndIOp::create(b, loc, l, r);
  case ReduceKind::or_:
    return arith::OrIOp::create(b, loc, l, r);
  case ReduceKind::xor_:
    return arith::XOrIOp::create(b, loc, l, r);
  case ReduceKind::fmin:
    return arith::MinimumFOp::create(b, loc, l, r);
  case ReduceKind::fmax:
    return arith::MaximumFOp::create(b, loc, l, r);
  }
  llvm_unreachable("reduce kind");
}

TypedAttr combinerIdentity(Builder &b, ReduceKind kind, Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case ReduceKind::mul:
      return b.getFloatAttr(f, llvm::APFloat::getOne(sem));
    case ReduceKind::fmin:
      return b.getFloatAttr(f, llvm::APFloat::getInf(sem));
    case ReduceKind::fmax:
      return b.getFloatAttr(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
    default:
      return b.getFloatAttr(f, llvm::APFloat::getZero(sem));
    }
  }
  unsigned w = type.getIntOrFloatBitWidth();
  llvm::APInt v;
  switch (kind) {
  case ReduceKind::mul:
    v = llvm::APInt(w, 1);
    break;
  case ReduceKind::and_:
  case ReduceKind::umin:
    v = llvm::APInt::getAllOnes(w);
    break;
  case ReduceKind::smin:
    v = llvm::APInt::getSignedMaxValue(w);
    break;
  case ReduceKind::smax:
    v = llvm::APInt::getSignedMinValue(w);
    break;
  default:
    v = llvm::APInt::getZero(w);
    break;
  }
  return b.getIntegerAttr(type, v);
}

} // namespace xpu
