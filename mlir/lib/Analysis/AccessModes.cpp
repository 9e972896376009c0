// Access modes and cost parameters of kernel parameters; see AccessModes.h.
#include "xpu/Analysis/AccessModes.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace xpu {

namespace {

class Analyzer {
public:
  ParamUses of(FunctionOpInterface fn) {
    Operation *key = fn.getOperation();
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    unsigned n = fn.getNumArguments();
    ParamUses result{std::vector<uint8_t>(n, 0), std::vector<uint8_t>(n, 0)};
    if (fn.isExternal() || !active.insert(key).second) {
      // Recursion or no body: nothing can be followed.
      for (unsigned i = 0; i < n; ++i)
        if (isa<BufferType>(fn.getArgument(i).getType()))
          result.uses[i] = abi::useUnknown;
      return result;
    }
    Function f{fn, result};
    for (unsigned i = 0; i < n; ++i)
      if (isa<BufferType>(fn.getArgument(i).getType()))
        result.uses[i] = bufferUses(fn.getArgument(i));
    costs(f);
    active.erase(key);
    memo[key] = result;
    return result;
  }

private:
  struct Function {
    FunctionOpInterface fn;
    ParamUses &out;
    llvm::DenseSet<Value> visited;
  };

  FunctionOpInterface callee(CallOp call) {
    return SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(
        call, call.getCalleeAttr());
  }

  uint8_t bufferUses(Value buffer) {
    uint8_t bits = 0;
    for (OpOperand &use : buffer.getUses()) {
      Operation *op = use.getOwner();
      if (isa<LoadOp>(op)) {
        bits |= abi::useRead;
      } else if (auto store = dyn_cast<StoreOp>(op)) {
        bits |= store.getBuffer() == buffer ? abi::useWrite : abi::useUnknown;
      } else if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
        bits |= atomic.getKind() == AtomicKind::xchg ? abi::useWrite : abi::useAccumulate;
        if (!atomic.getResult().use_empty())
          bits |= abi::useRead;
      } else if (isa<BufferSizeOp>(op)) {
        // The length only: no element is read.
      } else if (isa<TileLoadOp>(op)) {
        bits |= abi::useRead;
      } else if (auto store = dyn_cast<TileStoreOp>(op)) {
        bits |= store.getBuffer() == buffer ? abi::useWrite : abi::useUnknown;
      } else if (isa<AsyncCopyOp, AsyncCopyElementOp>(op)) {
        // Copies from `src` into `dst` (a workgroup's shared tile).
        bits |= use.getOperandNumber() == 0 ? abi::useRead : abi::useWrite;
      } else if (auto bits_ = dyn_cast<BitsViewOp>(op)) {
        bits |= bufferUses(bits_.getResult()); // the same elements, as integers
      } else if (auto call = dyn_cast<CallOp>(op)) {
        FunctionOpInterface fn = callee(call);
        bits |= fn ? of(fn).uses[use.getOperandNumber()] : abi::useUnknown;
      } else {
        bits |= effectsOn(op, buffer);
      }
    }
    return bits;
  }

  /// An op the analysis has no rule for: what its declared memory effects
  /// say it does to `buffer`, or unknown.
  static uint8_t effectsOn(Operation *op, Value buffer) {
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return abi::useUnknown;
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffectsOnValue(buffer, effects);
    if (effects.empty())
      return abi::useUnknown; // it takes the buffer for something else
    uint8_t bits = 0;
    for (const MemoryEffects::EffectInstance &e : effects) {
      if (isa<MemoryEffects::Read>(e.getEffect()))
        bits |= abi::useRead;
      else if (isa<MemoryEffects::Write>(e.getEffect()))
        bits |= abi::useWrite;
      else
        bits |= abi::useUnknown;
    }
    return bits;
  }

  /// Marks the parameter behind `buffer` (when it is one) with `bits`.
  static void markBuffer(Function &f, Value buffer, uint8_t bits) {
    if (auto arg = dyn_cast<BlockArgument>(buffer))
      if (arg.getOwner()->isEntryBlock() &&
          arg.getOwner()->getParentOp() == f.fn.getOperation())
        f.out.cost[arg.getArgNumber()] |= bits;
  }

  /// Walks back from a value that decides control flow to the parameters
  /// it is computed from.
  void reach(Function &f, Value v) {
    if (!f.visited.insert(v).second)
      return;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (parent == f.fn.getOperation()) {
        if (arg.getOwner()->isEntryBlock() && !isa<BufferType>(v.getType()))
          f.out.cost[arg.getArgNumber()] |= abi::costValue;
        return;
      }
      // A loop's induction variable or carried value: what the loop op
      // starts from and what its regions yield.
      reachOperandsAndYields(f, parent);
      return;
    }
    Operation *def = v.getDefiningOp();
    if (auto size = dyn_cast<BufferSizeOp>(def)) {
      markBuffer(f, size.getBuffer(), abi::costLength);
      return;
    }
    if (def->getNumRegions())
      return reachOperandsAndYields(f, def);
    for (Value operand : def->getOperands()) {
      if (isa<BufferType>(operand.getType()))
        markBuffer(f, operand, abi::costContents); // a loaded value
      else
        reach(f, operand);
    }
  }

  void reachOperandsAndYields(Function &f, Operation *op) {
    for (Value operand : op->getOperands())
      if (!isa<BufferType>(operand.getType()))
        reach(f, operand);
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        if (!block.mightHaveTerminator())
          continue;
        Operation *term = block.getTerminator();
        if (term->hasTrait<OpTrait::ReturnLike>() || isa<scf::ConditionOp>(term))
          for (Value operand : term->getOperands())
            if (!isa<BufferType>(operand.getType()))
              reach(f, operand);
      }
  }

  /// The parameters loop bounds and branch conditions depend on.
  void costs(Function &f) {
    f.fn->walk([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        reach(f, loop.getLowerBound());
        reach(f, loop.getUpperBound());
        reach(f, loop.getStep());
      } else if (auto cond = dyn_cast<scf::ConditionOp>(op)) {
        reach(f, cond.getCondition());
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        reach(f, branch.getCondition());
      } else if (auto sw = dyn_cast<scf::IndexSwitchOp>(op)) {
        reach(f, sw.getArg());
      } else if (auto call = dyn_cast<CallOp>(op)) {
        FunctionOpInterface fn = callee(call);
        if (!fn)
          return;
        ParamUses inner = of(fn);
        for (auto [i, operand] : llvm::enumerate(call.getOperands())) {
          uint8_t c = inner.cost[i];
          if (!c)
            continue;
          if (isa<BufferType>(operand.getType()))
            markBuffer(f, operand, c);
          else
            reach(f, operand);
        }
      }
    });
  }

  llvm::DenseMap<Operation *, ParamUses> memo;
  llvm::DenseSet<Operation *> active;
};

} // namespace

ParamUses analyzeParamUses(FunctionOpInterface kernel) {
  return Analyzer().of(kernel);
}

} // namespace xpu
