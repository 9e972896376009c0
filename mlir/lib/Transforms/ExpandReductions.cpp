// Expands xpu.reduce into shared scratch, barriers and loops, the same way
// for every backend. See Passes.td.
#include "xpu/Dialect/XPU/IR/Combiners.h"
#include "xpu/Dialect/XPU/IR/Invocation.h"
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_EXPANDREDUCTIONS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

void expand(ReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type t = op.getValue().getType();

  // Linear invocation index and workgroup size.
  LinearInvocation inv = linearInvocation(b, loc);
  Value lin = inv.index, n = inv.count;

  // One slot per invocation plus one for the result.
  BufferType scratchTy = reductionScratchType(op);
  Value scratch = AllocOp::create(b, loc, scratchTy);
  Value resultSlot = cst(b, loc, scratchTy.getSize() - 1);
  StoreOp::create(b, loc, op.getValue(), scratch, lin);
  BarrierOp::create(b, loc);

  Value zero = cst(b, loc, 0), one = cst(b, loc, 1);
  if (op.getOrder() == ReduceOrder::sequential) {
    // Invocation 0 folds slots 0..n-1 left to right.
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lin, zero);
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value init = LoadOp::create(b, loc, t, scratch, zero);
    auto loop = scf::ForOp::create(b, loc, one, n, one, ValueRange{init});
    inheritLoopSite(loop, op);
    b.setInsertionPointToStart(loop.getBody());
    Value next = LoadOp::create(b, loc, t, scratch, loop.getInductionVar());
    Value acc = combine(b, loc, op.getKind(), loop.getRegionIterArgs()[0], next);
    scf::YieldOp::create(b, loc, acc);
    b.setInsertionPointAfter(loop);
    StoreOp::create(b, loc, loop.getResult(0), scratch, resultSlot);
  } else {
    // Pairwise halving: stride = next power of two >= n, halved each round;
    // slot i takes slot i + stride when that one exists.
    auto pow2 = scf::WhileOp::create(b, loc, TypeRange{b.getIndexType()}, ValueRange{one});
    inheritLoopSite(pow2, op);
    {
      OpBuilder::InsertionGuard g(b);
      Block *before = b.createBlock(&pow2.getBefore(), {}, {b.getIndexType()}, {loc});
      Value p = before->getArgument(0);
      Value small = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p, n);
      scf::ConditionOp::create(b, loc, small, ValueRange{p});
      Block *after = b.createBlock(&pow2.getAfter(), {}, {b.getIndexType()}, {loc});
      Value doubled = arith::ShLIOp::create(b, loc, after->getArgument(0), one);
      scf::YieldOp::create(b, loc, doubled);
    }
    Value stride0 = arith::ShRUIOp::create(b, loc, pow2.getResult(0), one);
    auto rounds = scf::WhileOp::create(b, loc, TypeRange{b.getIndexType()},
                                       ValueRange{stride0});
    inheritLoopSite(rounds, op);
    {
      OpBuilder::InsertionGuard g(b);
      Block *before = b.createBlock(&rounds.getBefore(), {}, {b.getIndexType()}, {loc});
      Value s = before->getArgument(0);
      Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, s, zero);
      scf::ConditionOp::create(b, loc, more, ValueRange{s});
      Block *after = b.createBlock(&rounds.getAfter(), {}, {b.getIndexType()}, {loc});
      Value s2 = after->getArgument(0);
      Value partner = arith::AddIOp::create(b, loc, lin, s2);
      Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lin, s2);
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, partner, n);
      Value active = arith::AndIOp::create(b, loc, low, exists);
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value mine = LoadOp::create(b, loc, t, scratch, lin);
        Value theirs = LoadOp::create(b, loc, t, scratch, partner);
        StoreOp::create(b, loc, combine(b, loc, op.getKind(), mine, theirs), scratch, lin);
      }
      BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, ValueRange{arith::ShRUIOp::create(b, loc, s2, one)});
    }
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lin, zero);
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    StoreOp::create(b, loc, LoadOp::create(b, loc, t, scratch, zero), scratch, resultSlot);
  }
  BarrierOp::create(b, loc);
  Value result = LoadOp::create(b, loc, t, scratch, resultSlot);
  // A second barrier keeps a later reduction from overwriting the result
  // slot before every invocation has read it.
  BarrierOp::create(b, loc);
  op.replaceAllUsesWith(result);
  op.erase();
}

struct ExpandReductionsPass
    : xpu::impl::ExpandReductionsBase<ExpandReductionsPass> {
  void runOnOperation() override {
    SmallVector<ReduceOp> ops;
    getOperation().walk([&](ReduceOp op) { ops.push_back(op); });
    for (ReduceOp op : ops)
      expand(op);
  }
};

} // namespace
