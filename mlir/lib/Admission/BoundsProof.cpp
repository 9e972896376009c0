// Proves buffer accesses in bounds; see BoundsProof.h.
//
// Two kinds of evidence, both sound:
//  - integer range analysis (coordinates are bounded by the launch shape the
//    kernel fixes, or by the largest shape any backend runs) puts the index
//    inside a buffer whose length the type fixes;
//  - a guard that dominates the access: `index < bound` (from scf.if
//    conditions, conjunctions, cf.cond_br edges and scf.for bounds) where
//    the bound is the buffer's own `xpu.buffer_size`, or a value whose range
//    stays within the buffer's static length.
#include "xpu/Admission/BoundsProof.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace xpu {

BoundsProver::BoundsProver(FunctionOpInterface fn) : dominance(fn), fn(fn) {
  dataflow::loadBaselineAnalyses(solver);
  solver.load<dataflow::IntegerRangeAnalysis>();
  (void)solver.initializeAndRun(fn);
}

std::optional<BoundsProver::Range> BoundsProver::range(Value v) {
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  const ConstantIntRanges &r = lattice->getValue().getValue();
  return Range{r.smin(), r.smax()};
}

static std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

void BoundsProver::addCondition(Value cond, bool holds,
                                SmallVectorImpl<Fact> &facts) {
  Operation *def = cond.getDefiningOp();
  if (!def)
    return;
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    if (holds) {
      addCondition(andOp.getLhs(), true, facts);
      addCondition(andOp.getRhs(), true, facts);
    }
    return;
  }
  if (auto orOp = dyn_cast<arith::OrIOp>(def)) {
    if (!holds) {
      addCondition(orOp.getLhs(), false, facts);
      addCondition(orOp.getRhs(), false, facts);
    }
    return;
  }
  if (auto xorOp = dyn_cast<arith::XOrIOp>(def)) {
    // `xor c, true` is `not c`.
    if (auto k = constantOf(xorOp.getRhs()); k && *k != 0)
      addCondition(xorOp.getLhs(), !holds, facts);
    return;
  }
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp)
    return;
  arith::CmpIPredicate p = cmp.getPredicate();
  if (!holds)
    p = arith::invertPredicate(p);
  Value l = cmp.getLhs(), r = cmp.getRhs();
  using P = arith::CmpIPredicate;
  // Normalize to `a < b` or `a <= b`, unsigned or signed.
  switch (p) {
  case P::ult: facts.push_back({l, r, false, true}); break;
  case P::ule: facts.push_back({l, r, false, false}); break;
  case P::ugt: facts.push_back({r, l, false, true}); break;
  case P::uge: facts.push_back({r, l, false, false}); break;
  case P::slt: facts.push_back({l, r, true, true}); break;
  case P::sle: facts.push_back({l, r, true, false}); break;
  case P::sgt: facts.push_back({r, l, true, true}); break;
  case P::sge: facts.push_back({r, l, true, false}); break;
  default: break;
  }
}

void BoundsProver::collectFacts(Operation *op, SmallVectorImpl<Fact> &facts) {
  // Structured guards around the access.
  for (Operation *child = op, *parent = op->getParentOp();
       parent && parent != fn.getOperation();
       child = parent, parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool inThen = ifOp.getThenRegion().isAncestor(child->getParentRegion());
      addCondition(ifOp.getCondition(), inThen, facts);
    } else if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
      // iv < ub on every iteration (signed, like the loop itself).
      facts.push_back({forOp.getInductionVar(), forOp.getUpperBound(), true, true});
    }
  }
  // Unstructured guards: a cond_br edge that dominates the access.
  Block *block = op->getBlock();
  fn.walk([&](cf::CondBranchOp br) {
    // The edge's condition holds in `dest` (and all it dominates) when
    // `dest` is reached only through this edge.
    auto edge = [&](Block *dest, bool holds) {
      if (dest->getSinglePredecessor() && dominance.dominates(dest, block))
        addCondition(br.getCondition(), holds, facts);
    };
    if (br.getTrueDest() != br.getFalseDest()) {
      edge(br.getTrueDest(), true);
      edge(br.getFalseDest(), false);
    }
  });
}

bool BoundsProver::atMostLength(Value bound, Value buffer) {
  if (auto size = bound.getDefiningOp<BufferSizeOp>())
    if (size.getBuffer() == buffer)
      return true;
  if (auto minOp = bound.getDefiningOp<arith::MinUIOp>())
    return atMostLength(minOp.getLhs(), buffer) ||
           atMostLength(minOp.getRhs(), buffer);
  if (auto minOp = bound.getDefiningOp<arith::MinSIOp>())
    return atMostLength(minOp.getLhs(), buffer) ||
           atMostLength(minOp.getRhs(), buffer);
  auto type = cast<BufferType>(buffer.getType());
  if (!type.hasStaticSize())
    return false;
  auto r = range(bound);
  return r && r->hi.getBitWidth() <= 64 && r->hi.getSExtValue() <= type.getSize();
}

bool BoundsProver::provesInBounds(Operation *access) {
  Value buffer, index;
  int64_t width = 1;
  if (auto load = dyn_cast<LoadOp>(access)) {
    buffer = load.getBuffer();
    index = load.getIndex();
    width = load.getWidth();
  } else if (auto store = dyn_cast<StoreOp>(access)) {
    buffer = store.getBuffer();
    index = store.getIndex();
    width = store.getWidth();
  } else if (auto atomic = dyn_cast<AtomicRMWOp>(access)) {
    buffer = atomic.getBuffer();
    index = atomic.getIndex();
  } else {
    return false;
  }
  auto type = cast<BufferType>(buffer.getType());
  std::optional<Range> r = range(index);
  bool nonNegative = r && !r->lo.isNegative();

  // 1. The index's whole range fits a statically sized buffer.
  if (r && nonNegative && type.hasStaticSize() &&
      r->hi.getSExtValue() <= type.getSize() - width)
    return true;

  // 2. A dominating guard bounds it by the buffer's length.
  SmallVector<Fact> facts;
  collectFacts(access, facts);
  for (const Fact &f : facts) {
    // The guarded value is the index itself, or index + k covering the
    // access's last element (k >= width - 1, with index >= 0 known).
    int64_t extra = -1;
    if (f.lhs == index) {
      extra = 0;
    } else if (auto add = f.lhs.getDefiningOp<arith::AddIOp>()) {
      Value other = add.getLhs() == index   ? add.getRhs()
                    : add.getRhs() == index ? add.getLhs()
                                            : Value();
      if (other)
        if (auto k = constantOf(other); k && *k >= 0)
          extra = *k;
    }
    if (extra < width - 1)
      continue;
    // An unsigned `index < bound <= length` also rules out a negative index.
    if (!((extra == 0 && !f.signedCmp) || nonNegative))
      continue;
    if (f.strict) {
      if (atMostLength(f.rhs, buffer))
        return true;
    } else if (auto rr = range(f.rhs); rr && type.hasStaticSize() &&
                                       rr->hi.getSExtValue() < type.getSize()) {
      return true; // index <= bound < length
    }
  }
  return false;
}

} // namespace xpu
