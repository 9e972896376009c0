// Bounded function values as direct calls: a value is its function's
// position in the set, a call through it a chain of comparisons, each
// calling one member (spec 17.1). See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_LOWERFUNCTIONVALUES
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// Calls member `k` of the set if `index` is k, else the members after it;
/// past the last one, yields zeros (the defined no-op).
SmallVector<Value> callMember(OpBuilder &b, FnCallOp op, size_t k) {
  Location loc = op.getLoc();
  if (k == op.getSet().size()) {
    SmallVector<Value> zeros;
    for (Type t : op.getResultTypes())
      zeros.push_back(arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(t))));
    return zeros;
  }
  Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, op.getFunction(),
                                     arith::ConstantIntOp::create(b, loc, b.getI32Type(), k));
  auto ifOp = scf::IfOp::create(b, loc, op.getResultTypes(), here, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    auto callee = cast<FlatSymbolRefAttr>(op.getSet()[k]);
    auto call = CallOp::create(b, loc, op.getResultTypes(), callee, op.getInputs());
    scf::YieldOp::create(b, loc, call.getResults());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, callMember(b, op, k + 1));
  }
  return SmallVector<Value>(ifOp.getResults());
}

struct LowerFunctionValuesPass
    : xpu::impl::LowerFunctionValuesBase<LowerFunctionValuesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<FnValueOp, FnCallOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      if (auto v = dyn_cast<FnValueOp>(op)) {
        auto set = v.getSet().getValue();
        int64_t at = llvm::find(set, v.getCalleeAttr()) - set.begin();
        op->replaceAllUsesWith(
            arith::ConstantIntOp::create(b, op->getLoc(), b.getI32Type(), at)->getResults());
      } else {
        op->replaceAllUsesWith(callMember(b, cast<FnCallOp>(op), 0));
      }
      op->erase();
    }
  }
};

} // namespace
