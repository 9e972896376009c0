// The combiners of reductions and scans; see Combiners.h.
#include "xpu/Dialect/XPU/IR/Combiners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

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

/// IEEE 754-2019 minimum/maximum (NaN wins, -0 < +0). LLVM's NVPTX back
/// end selects min.NaN/max.NaN for llvm.minimum/maximum, which on the H200
/// (sm_90, CUDA 13) returned +0 for min(+0, -0) (tests/conformance/test_wave.cpp,
/// "wave reductions and scans of every combiner", 2026-12-01). Operands
/// that compare equal are therefore combined by their bits: OR picks -0
/// for the minimum, AND +0 for the maximum, and equal non-zero values are
/// unchanged.
static Value orderedMinMax(OpBuilder &b, Location loc, bool isMin, Value l, Value r) {
  Value m = isMin ? Value(arith::MinimumFOp::create(b, loc, l, r))
                  : Value(arith::MaximumFOp::create(b, loc, l, r));
  Type it = b.getIntegerType(getElementTypeOrSelf(l.getType()).getIntOrFloatBitWidth());
  if (auto vt = dyn_cast<VectorType>(l.getType()))
    it = vt.clone(it);
  Value lb = arith::BitcastOp::create(b, loc, it, l);
  Value rb = arith::BitcastOp::create(b, loc, it, r);
  Value bits = isMin ? Value(arith::OrIOp::create(b, loc, lb, rb))
                     : Value(arith::AndIOp::create(b, loc, lb, rb));
  Value same = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, r);
  return arith::SelectOp::create(b, loc, same,
                                 arith::BitcastOp::create(b, loc, l.getType(), bits), m);
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
  case ReduceKind::fmax:
    return orderedMinMax(b, loc, kind == ReduceKind::fmin, l, r);
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
