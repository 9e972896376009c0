// Wave operations on the CPU, whose waves have one lane (xpu.wave_width is
// 1 there): every lane is lane 0 and the only live one, so a shuffle or
// broadcast reads the lane's own value, a reduction or inclusive scan is the
// value, an exclusive scan the identity, a vote the predicate and a ballot
// the predicate in bit 0. If the CPU backend ever runs wider waves, this is
// the file to replace.
#include "WaveOps.h"

#include "xpu/Dialect/XPU/IR/Combiners.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace xpu {

void lowerWaveOpsForOneLane(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isWaveOp(op))
      ops.push_back(op);
  });
  IRRewriter rw(module.getContext());
  for (Operation *op : ops) {
    rw.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value r;
    if (auto o = dyn_cast<WaveShuffleOp>(op)) {
      r = o.getValue();
    } else if (auto o = dyn_cast<WaveBroadcastOp>(op)) {
      r = o.getValue();
    } else if (auto o = dyn_cast<WaveVoteOp>(op)) {
      r = o.getPredicate();
    } else if (auto o = dyn_cast<WaveReduceOp>(op)) {
      r = o.getValue();
    } else if (auto o = dyn_cast<WaveScanOp>(op)) {
      r = o.getScan() == WaveScanKind::inclusive
              ? o.getValue()
              : Value(arith::ConstantOp::create(
                    rw, loc, combinerIdentity(rw, o.getKind(), o.getValue().getType())));
    } else {
      auto ballot = cast<WaveBallotOp>(op);
      Type i32 = rw.getI32Type();
      Value zero = arith::ConstantIntOp::create(rw, loc, i32, 0);
      Value bit = arith::ExtUIOp::create(rw, loc, i32, ballot.getPredicate());
      r = vector::FromElementsOp::create(rw, loc, ballot.getType(),
                                         ValueRange{bit, zero, zero, zero});
    }
    rw.replaceOp(op, r);
  }
}

} // namespace xpu
