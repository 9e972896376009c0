// XPU-UC001: barriers, reductions and wave operations only under uniform
// control flow (see UniformControl.h and docs/profiles.md).
#include "xpu/Admission/UniformControl.h"
#include "xpu/Pipeline.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace xpu {

namespace {

/// Where `loc` is, said from `from`: "line 5" in the same file, else
/// "file:5:3". The notes carry the exact locations.
std::string where(Location loc, Location from) {
  std::string file, fromFile;
  unsigned line = 0, col = 0, fromLine = 0, fromCol = 0;
  resolveLocation(loc, file, line, col);
  resolveLocation(from, fromFile, fromLine, fromCol);
  if (!line)
    return "at an unknown location";
  if (file == fromFile)
    return "on line " + std::to_string(line);
  return "at " + file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string opName(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

/// What a decision op decides by, in words.
const char *decisionPart(Operation *decision) {
  if (isa<scf::ForOp>(decision))
    return "bounds";
  if (isa<scf::IndexSwitchOp>(decision))
    return "selector";
  return "condition";
}

/// The scope's invocations, in words.
const char *scopeWords(Uniformity scope) {
  return scope == Uniformity::wave ? "every invocation of its wave"
                                   : "every invocation of its workgroup";
}

/// The strictest scope any op in `fn`, or in what it calls, needs.
std::optional<Uniformity> requiredIn(Operation *fn, SymbolTableCollection &symbols,
                                     llvm::SmallPtrSetImpl<Operation *> &visiting) {
  if (!visiting.insert(fn).second)
    return std::nullopt;
  std::optional<Uniformity> need;
  auto tighten = [&](std::optional<Uniformity> s) {
    if (s && (!need || *s < *need))
      need = s;
  };
  fn->walk([&](Operation *op) {
    tighten(requiredControlUniformity(op));
    if (auto call = dyn_cast<CallOp>(op))
      if (auto callee = symbols.lookupNearestSymbolFrom<FuncOp>(call, call.getCalleeAttr()))
        tighten(requiredIn(callee, symbols, visiting));
  });
  visiting.erase(fn);
  return need;
}

class Checker {
public:
  Checker(KernelOp kernel, const UniformityAnalysis &u) : kernel(kernel), u(u) {}

  LogicalResult check(Operation *fn) {
    if (!active.insert(fn).second)
      return success(); // recursion: refused by other rules
    WalkResult r = fn->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == fn)
        return WalkResult::advance();
      std::optional<Uniformity> scope = requiredControlUniformity(op);
      auto call = dyn_cast<CallOp>(op);
      FuncOp callee;
      if (call) {
        callee = symbols.lookupNearestSymbolFrom<FuncOp>(call, call.getCalleeAttr());
        llvm::SmallPtrSet<Operation *, 4> visiting;
        if (callee)
          scope = requiredIn(callee, symbols, visiting);
      }
      if (scope && !u.isUnderUniformControl(op, *scope)) {
        refuse(op, *scope);
        return WalkResult::interrupt();
      }
      if (callee) {
        calls.push_back(call);
        bool ok = succeeded(check(callee));
        calls.pop_back();
        if (!ok)
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    active.erase(fn);
    return failure(r.wasInterrupted());
  }

private:
  void refuse(Operation *op, Uniformity scope) {
    Operation *decision = u.divergentDecision(op, scope);
    // Through the calls that brought the divergence in, to the decision.
    while (auto call = dyn_cast_or_null<CallOp>(decision))
      decision = u.divergentDecision(call, scope);
    std::string what = isa<CallOp>(op) ? opName(op) + " (whose callee waits for " +
                                             scopeWords(scope) + ")"
                                       : opName(op);
    InFlightDiagnostic diag = emitError(op->getLoc())
                              << "XPU-UC001: kernel '" << kernel.getSymName()
                              << "': " << what << " must be reached by "
                              << scopeWords(scope) << ", but ";
    Value operand = decision ? u.divergentOperand(decision, scope) : Value();
    Operation *source = operand ? u.divergenceSource(operand) : nullptr;
    if (!decision) {
      diag << "the control flow that reaches it is not uniform";
    } else if (!operand) {
      diag << "it is inside the " << opName(decision) << " "
           << where(decision->getLoc(), op->getLoc())
           << ", whose control flow the uniformity analysis does not know";
    } else {
      diag << "it is under the " << opName(decision) << " "
           << where(decision->getLoc(), op->getLoc()) << ", whose "
           << decisionPart(decision)
           << " differs between invocations";
      if (source)
        diag << " (it depends on " << opName(source) << " "
             << where(source->getLoc(), op->getLoc()) << ")";
    }
    if (scope == Uniformity::wave && decision)
      diag << "; a wave's own index is the same across it once taken from one "
              "lane (xpu.wave_broadcast from lane 0)";
    if (decision)
      diag.attachNote(decision->getLoc()) << "the decision that is not uniform";
    if (source)
      diag.attachNote(source->getLoc()) << "where the value starts to differ";
    for (CallOp call : llvm::reverse(calls))
      diag.attachNote(call.getLoc()) << "called from here";
  }

  KernelOp kernel;
  const UniformityAnalysis &u;
  SymbolTableCollection symbols;
  llvm::SmallPtrSet<Operation *, 4> active;
  SmallVector<CallOp> calls;
};

} // namespace

LogicalResult checkUniformControl(KernelOp kernel, const UniformityAnalysis &u) {
  return Checker(kernel, u).check(kernel);
}

} // namespace xpu
