// Float compare-exchange and min/max atomics on global buffers as integer
// atomics on the buffer's bits, for SPIR-V. See Passes.td.
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_SPIRVFLOATATOMICS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

bool isMinMax(AtomicRMWOp op) {
  return op.getKind() == AtomicKind::fmin || op.getKind() == AtomicKind::fmax;
}

bool needsIntegerForm(AtomicRMWOp op) {
  auto type = cast<BufferType>(op.getBuffer().getType());
  return type.getSpace() == Space::global && isa<FloatType>(type.getElementType()) &&
         (op.getKind() == AtomicKind::cmpxchg || isMinMax(op));
}

/// arith.minimumf / maximumf exactly: MLIR's SPIR-V lowering of those
/// leaves the order of -0 and +0 to GLSL's FMin/FMax, which may return
/// either (lavapipe: fmax(-0, +0) = -0). Floats compare as integers that
/// order like them (negative values with their magnitude bits flipped); a
/// NaN on either side gives NaN.
Value exactMinMax(OpBuilder &b, Location loc, Value x, Value y, bool min) {
  auto ft = cast<FloatType>(x.getType());
  unsigned w = ft.getWidth();
  Type it = b.getIntegerType(w);
  auto key = [&](Value f) -> Value {
    Value bits = arith::BitcastOp::create(b, loc, it, f);
    Value sign = arith::ShRSIOp::create(b, loc, bits,
                                        arith::ConstantIntOp::create(b, loc, it, w - 1));
    Value flip = arith::AndIOp::create(
        b, loc, sign,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, llvm::APInt::getSignedMaxValue(w))));
    return arith::XOrIOp::create(b, loc, bits, flip);
  };
  Value less = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key(x), key(y));
  Value pick = min ? arith::SelectOp::create(b, loc, less, x, y)
                   : arith::SelectOp::create(b, loc, less, y, x);
  Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, y);
  Value qnan = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(ft, llvm::APFloat::getQNaN(ft.getFloatSemantics())));
  return arith::SelectOp::create(b, loc, nan, qnan, pick);
}

/// Private memory is one invocation's: the read, the exact min/max, the write.
void expandPrivate(AtomicRMWOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type elem = cast<BufferType>(op.getBuffer().getType()).getElementType();
  Value old = LoadOp::create(b, loc, elem, op.getBuffer(), op.getIndex());
  Value next = exactMinMax(b, loc, old, op.getValue(), op.getKind() == AtomicKind::fmin);
  StoreOp::create(b, loc, next, op.getBuffer(), op.getIndex());
  op.replaceAllUsesWith(old);
  op.erase();
}

void expand(AtomicRMWOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto type = cast<BufferType>(op.getBuffer().getType());
  Type elem = type.getElementType();
  Type bits = b.getIntegerType(elem.getIntOrFloatBitWidth());
  auto bitsType = BufferType::get(b.getContext(), bits, type.getSpace(), type.getAccess(),
                                  type.getSize());
  Value view = BitsViewOp::create(b, loc, bitsType, op.getBuffer());
  auto asBits = [&](Value f) { return arith::BitcastOp::create(b, loc, bits, f); };
  auto exchange = [&](OpBuilder &at, Value desired, Value expected) -> Value {
    return AtomicRMWOp::create(at, loc, bits, AtomicKind::cmpxchg, desired, view,
                               op.getIndex(), expected, op.getOrder(), op.getScope());
  };
  Value found;
  if (op.getKind() == AtomicKind::cmpxchg) {
    found = exchange(b, asBits(op.getValue()), asBits(op.getExpected()));
  } else {
    // Until the element is the one the exchange expected: min/max of what
    // the last attempt found (first guess: the operand itself).
    auto loop = scf::WhileOp::create(b, loc, TypeRange{bits}, ValueRange{asBits(op.getValue())});
    inheritLoopSite(loop, op);
    Block *before = b.createBlock(&loop.getBefore(), {}, {bits}, {loc});
    Value seenBits = before->getArgument(0);
    Value seen = arith::BitcastOp::create(b, loc, elem, seenBits);
    Value combined = exactMinMax(b, loc, seen, op.getValue(), op.getKind() == AtomicKind::fmin);
    Value now = exchange(b, asBits(combined), seenBits);
    Value again = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, now, seenBits);
    scf::ConditionOp::create(b, loc, again, ValueRange{now});
    Block *after = b.createBlock(&loop.getAfter(), {}, {bits}, {loc});
    scf::YieldOp::create(b, loc, after->getArgument(0));
    b.setInsertionPointAfter(loop);
    found = loop.getResult(0);
  }
  op.replaceAllUsesWith(arith::BitcastOp::create(b, loc, elem, found).getResult());
  op.erase();
}

struct SPIRVFloatAtomicsPass : xpu::impl::SPIRVFloatAtomicsBase<SPIRVFloatAtomicsPass> {
  void runOnOperation() override {
    SmallVector<AtomicRMWOp> ops, privates;
    getOperation().walk([&](AtomicRMWOp op) {
      if (needsIntegerForm(op))
        ops.push_back(op);
      else if (isMinMax(op) &&
               cast<BufferType>(op.getBuffer().getType()).getSpace() == Space::private_)
        privates.push_back(op);
    });
    for (AtomicRMWOp op : ops)
      expand(op);
    for (AtomicRMWOp op : privates)
      expandPrivate(op);
  }
};

} // namespace
