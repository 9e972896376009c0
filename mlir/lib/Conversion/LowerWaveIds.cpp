// Expresses xpu.wave_id and xpu.wave_count through the linear invocation
// index and the wave width, for the LLVM-based targets. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace xpu {
#define GEN_PASS_DEF_LOWERWAVEIDS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

struct LowerWaveIdsPass : xpu::impl::LowerWaveIdsBase<LowerWaveIdsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<WaveIdOp, WaveCountOp>(op))
        ops.push_back(op);
    });
    IRRewriter b(&getContext());
    for (Operation *op : ops) {
      b.setInsertionPoint(op);
      Location loc = op->getLoc();
      Value sx = WorkgroupSizeOp::create(b, loc, Dim::x);
      Value sy = WorkgroupSizeOp::create(b, loc, Dim::y);
      Value width = WaveWidthOp::create(b, loc);
      Value sxy = arith::MulIOp::create(b, loc, sx, sy);
      Value v;
      if (isa<WaveIdOp>(op)) {
        Value lin = arith::AddIOp::create(
            b, loc, ThreadIdOp::create(b, loc, Dim::x),
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, ThreadIdOp::create(b, loc, Dim::y), sx),
                arith::MulIOp::create(b, loc, ThreadIdOp::create(b, loc, Dim::z), sxy)));
        v = arith::DivUIOp::create(b, loc, lin, width);
      } else {
        Value n = arith::MulIOp::create(b, loc, sxy, WorkgroupSizeOp::create(b, loc, Dim::z));
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value up = arith::AddIOp::create(b, loc, n, arith::SubIOp::create(b, loc, width, one));
        v = arith::DivUIOp::create(b, loc, up, width);
      }
      b.replaceOp(op, v);
    }
  }
};

} // namespace
