// Inlines device helper functions into the kernels that call them, for
// targets without calls that take buffers. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace xpu {
#define GEN_PASS_DEF_INLINEHELPERS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// Replaces `call` with a copy of its callee's body.
LogicalResult inlineCall(CallOp call, FuncOp callee) {
  Region &body = callee.getBody();
  if (!body.hasOneBlock())
    return call.emitOpError() << "cannot inline '" << callee.getSymName()
                              << "': its body has more than one block";
  OpBuilder b(call);
  IRMapping map;
  map.map(body.getArguments(), call.getOperands());
  for (Operation &op : body.front().without_terminator())
    b.clone(op, map);
  auto ret = cast<ReturnOp>(body.front().getTerminator());
  for (auto [result, value] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(map.lookupOrDefault(value));
  call.erase();
  return success();
}

struct InlineHelpersPass : xpu::impl::InlineHelpersBase<InlineHelpersPass> {
  using InlineHelpersBase::InlineHelpersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::DenseSet<Operation *> synchronizing;
    if (onlyBarriers)
      synchronizing = functionsWithBarriers(module);
    auto wanted = [&](CallOp call) {
      return !onlyBarriers ||
             synchronizing.contains(symbols.lookup(call.getCallee()));
    };
    // Each round inlines one level of calls; a chain deeper than the number
    // of helpers can only come from recursion.
    unsigned helpers = llvm::range_size(module.getOps<FuncOp>());
    for (unsigned round = 0;; ++round) {
      SmallVector<CallOp> calls;
      module.walk([&](CallOp call) {
        if (call->getParentOfType<KernelOp>() && wanted(call))
          calls.push_back(call);
      });
      if (calls.empty())
        break;
      if (round > helpers) {
        calls.front().emitOpError()
            << "reaches '" << calls.front().getCallee()
            << "' recursively; this target cannot inline recursive device "
               "functions";
        return signalPassFailure();
      }
      for (CallOp call : calls) {
        auto callee = symbols.lookup<FuncOp>(call.getCallee());
        if (!callee) {
          call.emitOpError() << "calls unknown function '" << call.getCallee() << "'";
          return signalPassFailure();
        }
        if (failed(inlineCall(call, callee)))
          return signalPassFailure();
      }
    }
    for (FuncOp fn : llvm::make_early_inc_range(module.getOps<FuncOp>()))
      if (!onlyBarriers || synchronizing.contains(fn))
        fn.erase();
  }
};

} // namespace
