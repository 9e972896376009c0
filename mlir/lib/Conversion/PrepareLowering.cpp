// Makes what a target lowering must not have to discover explicit: the
// status-word parameter, the run-time checks admission asked for, and
// fast-math contraction. See Passes.td.
#include "CheckedAccess.h"
#include "xpu/KernelABI.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_PREPARELOWERING
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// Every kernel and device function gains a trailing status-word parameter
/// of type `statusTy` (marked `xpu.status`); calls pass the caller's on.
void addStatusParam(ModuleOp module, Type statusTy) {
  MLIRContext *ctx = module.getContext();
  SmallVector<FunctionOpInterface> fns;
  module.walk([&](FunctionOpInterface fn) {
    if (isa<KernelOp, FuncOp>(fn))
      fns.push_back(fn);
  });
  auto marker = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, kStatusArgAttr), UnitAttr::get(ctx))});
  for (FunctionOpInterface fn : fns)
    (void)fn.insertArgument(fn.getNumArguments(), statusTy, marker, fn.getLoc());
  module.walk([&](CallOp call) {
    auto caller = call->getParentOfType<FunctionOpInterface>();
    Block &entry = caller.getFunctionBody().front();
    SmallVector<Value> operands(call.getOperands());
    operands.push_back(entry.getArgument(entry.getNumArguments() - 1));
    call->setOperands(operands);
  });
}

Value statusOf(Operation *op) {
  Block &entry =
      op->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
  return entry.getArgument(entry.getNumArguments() - 1);
}

/// Wraps each access admission marked `checked` in `if (in bounds)`; the
/// else branch reports the site and, for reads, yields zero.
void materializeChecks(ModuleOp module, bool skipWorkItemLoops) {
  SmallVector<Operation *> checked;
  auto inWorkItemLoop = [](Operation *op) {
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (p->hasAttr("xpu.work_item_dim"))
        return true;
    return false;
  };
  module.walk([&](Operation *op) {
    if (op->hasAttr("checked") && isa<LoadOp, StoreOp, AtomicRMWOp>(op) &&
        !(skipWorkItemLoops && inWorkItemLoop(op)))
      checked.push_back(op);
  });
  for (Operation *op : checked) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    op->removeAttr("checked");
    int64_t site = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("xpu.site"))
      site = attr.getInt();
    AccessParts access = accessParts(op);
    Value size = BufferSizeOp::create(b, loc, access.buffer);
    Value ok = inBounds(b, loc, access.index, size, access.width);
    Value status = statusOf(op);
    TypeRange results = op->getResultTypes();
    auto ifOp = scf::IfOp::create(b, loc, results, ok, /*withElse=*/true);
    Operation *moved = op;
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Operation *clone = b.clone(*op);
      moved = clone;
      if (!results.empty())
        scf::YieldOp::create(b, loc, clone->getResults());
      else if (ifOp.thenBlock()->empty() ||
               !ifOp.thenBlock()->back().hasTrait<OpTrait::IsTerminator>())
        scf::YieldOp::create(b, loc);
      b.setInsertionPointToStart(ifOp.elseBlock());
      ReportOutOfBoundsOp::create(b, loc, status, site);
      if (!results.empty()) {
        Value zero = arith::ConstantOp::create(
            b, loc, cast<TypedAttr>(b.getZeroAttr(results.front())));
        scf::YieldOp::create(b, loc, zero);
      } else if (ifOp.elseBlock()->empty() ||
                 !ifOp.elseBlock()->back().hasTrait<OpTrait::IsTerminator>()) {
        scf::YieldOp::create(b, loc);
      }
    }
    (void)moved;
    op->replaceAllUsesWith(ifOp.getResults());
    op->erase();
  }
}

/// A kernel marked `fastmath` permits contraction of its float arithmetic;
/// everywhere else no fused multiply-add is formed.
void applyFastMath(ModuleOp module) {
  module.walk([&](KernelOp kernel) {
    if (!kernel.getFastmath())
      return;
    kernel.walk([&](arith::ArithFastMathInterface op) {
      auto flags = arith::FastMathFlagsAttr::get(
          op->getContext(), arith::FastMathFlags::contract);
      op->setAttr(op.getFastMathAttrName(), flags);
    });
  });
}

struct PrepareLoweringPass : xpu::impl::PrepareLoweringBase<PrepareLoweringPass> {
  using PrepareLoweringBase::PrepareLoweringBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Type statusTy;
    if (statusType == "ptr")
      statusTy = LLVM::LLVMPointerType::get(ctx);
    else if (statusType == "buffer")
      statusTy = BufferType::get(ctx, IntegerType::get(ctx, 32), Space::global,
                                 Access::rw, abi::kStatusWords);
    else {
      module.emitError() << "unknown status-type '" << statusType
                         << "' (accepted: ptr, buffer)";
      return signalPassFailure();
    }
    addStatusParam(module, statusTy);
    materializeChecks(module, skipWorkItemLoops);
    applyFastMath(module);
  }
};

} // namespace
