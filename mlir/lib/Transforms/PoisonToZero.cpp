// ub.poison is zero (docs/profiles.md, "Integer semantics"), from the
// moment the kernel is parsed. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_POISONTOZERO
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

struct PoisonToZeroPass : xpu::impl::PoisonToZeroBase<PoisonToZeroPass> {
  void runOnOperation() override {
    SmallVector<ub::PoisonOp> poisons;
    getOperation().walk([&](ub::PoisonOp op) { poisons.push_back(op); });
    for (ub::PoisonOp op : poisons) {
      Type t = op.getType();
      if (!isa<IntegerType, IndexType, FloatType, VectorType>(t))
        continue;
      OpBuilder b(op);
      op.replaceAllUsesWith(
          arith::ConstantOp::create(b, op.getLoc(), t, b.getZeroAttr(t)).getResult());
      op.erase();
    }
  }
};

} // namespace
