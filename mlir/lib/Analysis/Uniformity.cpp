// Uniformity analysis (see Uniformity.h): a monotone fixed point over a
// three-level lattice (workgroup < wave < none), values and control
// together, with device functions analyzed under the join of their call
// sites.
#include "xpu/Analysis/Uniformity.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace xpu {

namespace {

/// What is known of a value (or of the control reaching an op) inside its
/// function: a level from what the function itself computes, and the
/// parameters it also depends on. The level in a given context is the join
/// of the two (resolve): the transfer functions are joins, so one analysis
/// of a function serves every call site exactly.
struct Info {
  Uniformity level = Uniformity::workgroup;
  /// Where the divergence comes from (a coordinate, load, atomic, ...);
  /// null while the level is workgroup.
  Operation *source = nullptr;
  /// Bit i: depends on parameter i (bit 63: on parameter 63 or a later one).
  uint64_t params = 0;
};

Info join(Info a, Info b) {
  Info r = b.level > a.level ? b : a;
  r.params = a.params | b.params;
  return r;
}

uint64_t paramBit(unsigned i) { return uint64_t(1) << std::min(i, 63u); }

/// A block that runs under a branch whose decision may not be uniform.
struct Mark {
  Info decision;
  Operation *branch = nullptr;
  bool active() const { return branch != nullptr; }
};

/// How a function is entered: the join of its call sites, each argument at
/// its level in the caller's context.
struct Context {
  Uniformity entry = Uniformity::workgroup;
  Operation *entryCause = nullptr; ///< a call under the least uniform control
  SmallVector<Info> params;        ///< levels and sources only
  SmallVector<Info> results;       ///< what it returns, in its own terms
  llvm::SmallPtrSet<Operation *, 4> callers;
};

Operation *enclosingFunction(Region *region) {
  if (!region)
    return nullptr;
  Operation *op = region->getParentOp();
  if (!op || isa<FunctionOpInterface>(op))
    return op;
  return op->getParentOfType<FunctionOpInterface>();
}

/// The values a decision op reads: its condition, loop bounds or selector.
SmallVector<Value> decisionOperands(Operation *op) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return {ifOp.getCondition()};
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()};
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return {whileOp.getConditionOp().getCondition()};
  if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(op))
    return {switchOp.getArg()};
  // A branch with several successors decides by the operands it does not
  // forward (cf.cond_br's condition, cf.switch's flag).
  SmallVector<Value> result;
  auto branch = dyn_cast<BranchOpInterface>(op);
  if (!branch || op->getNumSuccessors() < 2)
    return result;
  llvm::SmallPtrSet<OpOperand *, 8> forwarded;
  for (unsigned i = 0; i < op->getNumSuccessors(); ++i)
    for (OpOperand &o : branch.getSuccessorOperands(i).getMutableForwardedOperands())
      forwarded.insert(&o);
  for (OpOperand &o : op->getOpOperands())
    if (!forwarded.contains(&o))
      result.push_back(o.get());
  return result;
}

/// Region ops whose control the analysis understands.
bool isKnownRegionOp(Operation *op) {
  return isa<scf::IfOp, scf::ForOp, scf::WhileOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp>(op);
}

} // namespace

struct UniformityAnalysis::State {
  DenseMap<Value, Info> values;
  DenseMap<Operation *, Info> control; ///< the control reaching an op
  DenseMap<Block *, Mark> marks;
  llvm::MapVector<Operation *, Context> functions;
  DenseMap<Operation *, std::unique_ptr<PostDominanceInfo>> postDominance;
  llvm::SetVector<Operation *> worklist;
  SymbolTableCollection symbols;
  Operation *current = nullptr; ///< the function being analyzed
  bool changed = false;

  Info info(Value v) const {
    auto it = values.find(v);
    return it == values.end() ? Info() : it->second;
  }

  /// `in` in the context `fn` is entered with: its level joined with the
  /// levels of the parameters it depends on.
  Info resolve(Info in, Operation *fn) const {
    Info r{in.level, in.source, 0};
    auto it = functions.find(fn);
    if (it == functions.end())
      return r;
    const SmallVector<Info> &params = it->second.params;
    for (unsigned i = 0; i < params.size(); ++i)
      if ((in.params & paramBit(i)) && params[i].level > r.level)
        r = {params[i].level, params[i].source, 0};
    return r;
  }

  void raise(Value v, Info in) {
    Info &cur = values[v];
    Info next = join(cur, in);
    if (next.level != cur.level || next.params != cur.params) {
      cur = next;
      changed = true;
    }
  }

  void raiseAll(ValueRange vs, Info in) {
    for (Value v : vs)
      raise(v, in);
  }

  Info decisionInfo(Operation *op) const {
    Info d;
    for (Value v : decisionOperands(op))
      d = join(d, info(v));
    return d;
  }

  /// Enters `fn` from a call site (or as a kernel); `args` and `control`
  /// are resolved in the caller's context.
  void enter(Operation *fn, ArrayRef<Info> args, Uniformity control,
             Operation *cause) {
    auto fnOp = cast<FunctionOpInterface>(fn);
    auto [it, inserted] = functions.try_emplace(fn);
    Context &ctx = it->second;
    bool grew = inserted;
    if (inserted) {
      ctx.params.resize(fnOp.getNumArguments());
      ctx.results.resize(fnOp.getNumResults());
    }
    for (auto [param, arg] : llvm::zip(ctx.params, args))
      if (arg.level > param.level) {
        param = {arg.level, arg.source, 0};
        grew = true;
      }
    if (control > ctx.entry) {
      ctx.entry = control;
      ctx.entryCause = cause;
      grew = true;
    }
    // A wider context changes nothing in the function's own terms, but its
    // callees must see it.
    if (grew)
      worklist.insert(fn);
  }

  void analyzeFunction(Operation *fn) {
    current = fn;
    auto fnOp = cast<FunctionOpInterface>(fn);
    if (fnOp.getFunctionBody().empty())
      return;
    do {
      changed = false;
      for (BlockArgument arg : fnOp.getFunctionBody().front().getArguments())
        raise(arg, {Uniformity::workgroup, nullptr, paramBit(arg.getArgNumber())});
      visitRegion(fnOp.getFunctionBody(), Info());
    } while (changed);

    // What the function returns: each return's operands, and the control
    // that reaches it (returns in different blocks under a divergent branch
    // hand back different values).
    SmallVector<Info> results(fnOp.getNumResults());
    for (Block &block : fnOp.getFunctionBody())
      if (auto ret = dyn_cast<ReturnOp>(block.getTerminator()))
        for (auto [i, v] : llvm::enumerate(ret.getOperands()))
          results[i] = join(results[i], join(info(v), control.lookup(ret)));
    Context &ctx = functions[fn];
    bool grew = false;
    for (auto [old, now] : llvm::zip(ctx.results, results)) {
      Info next = join(old, now);
      if (next.level != old.level || next.params != old.params) {
        old = next;
        grew = true;
      }
    }
    if (grew)
      for (Operation *caller : ctx.callers)
        worklist.insert(caller);
  }

  void visitRegion(Region &region, Info control) {
    for (Block &block : region) {
      Mark mark = marks.lookup(&block);
      Info blockControl = mark.active() ? join(control, mark.decision) : control;
      // Everything a block under a divergent branch defines is divergent:
      // its values leave the branch with the invocations that took it.
      if (mark.active())
        raiseAll(block.getArguments(), mark.decision);
      for (Operation &op : block) {
        visitOp(&op, blockControl);
        if (mark.active())
          raiseAll(op.getResults(), mark.decision);
      }
      visitTerminator(block);
    }
  }

  void visitTerminator(Block &block) {
    if (block.empty())
      return;
    Operation *term = &block.back();
    auto branch = dyn_cast<BranchOpInterface>(term);
    if (!branch)
      return;
    for (unsigned s = 0; s < term->getNumSuccessors(); ++s) {
      Block *succ = term->getSuccessor(s);
      SuccessorOperands operands = branch.getSuccessorOperands(s);
      for (unsigned j = 0; j < operands.size() && j < succ->getNumArguments(); ++j)
        if (Value v = operands[j])
          raise(succ->getArgument(j), info(v));
        else
          raise(succ->getArgument(j), {Uniformity::none, term});
    }
    if (term->getNumSuccessors() < 2)
      return;
    Info d = decisionInfo(term);
    if (d.level > Uniformity::workgroup || d.params)
      markDivergentRegion(&block, d, term);
  }

  /// The blocks between a branch and its post-dominator run for only some
  /// invocations when the decision differs; the post-dominator's arguments
  /// merge values from different paths.
  void markDivergentRegion(Block *from, Info d, Operation *branch) {
    auto &pdom = postDominance[current];
    if (!pdom)
      pdom = std::make_unique<PostDominanceInfo>(current);
    SmallVector<Block *> work(from->getSuccessors());
    llvm::SmallPtrSet<Block *, 16> seen;
    while (!work.empty()) {
      Block *b = work.pop_back_val();
      if (!seen.insert(b).second)
        continue;
      if (pdom->properlyPostDominates(b, from)) {
        raiseAll(b->getArguments(), d);
        continue;
      }
      Mark &m = marks[b];
      Info next = m.active() ? join(m.decision, d) : d;
      if (!m.active() || next.level != m.decision.level ||
          next.params != m.decision.params) {
        // The branch named is the one with the least uniform decision.
        Operation *named = !m.active() || d.level > m.decision.level ? branch : m.branch;
        m = {next, named};
        changed = true;
      }
      llvm::append_range(work, b->getSuccessors());
    }
  }

  void visitOp(Operation *op, Info ctl) {
    Info &recorded = control[op];
    Info next = join(recorded, ctl);
    if (next.level != recorded.level || next.params != recorded.params) {
      recorded = next;
      changed = true;
    }
    TypeSwitch<Operation *>(op)
        .Case<scf::IfOp>([&](scf::IfOp ifOp) {
          Info d = decisionInfo(op);
          Info inner = join(ctl, d);
          for (Region &r : op->getRegions())
            visitRegion(r, inner);
          for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
            Info in = d;
            for (Region &r : op->getRegions())
              if (!r.empty())
                in = join(in, yielded(r, i));
            raise(result, in);
          }
        })
        .Case<scf::ForOp>([&](scf::ForOp forOp) {
          Info d = decisionInfo(op);
          raise(forOp.getInductionVar(),
                join(info(forOp.getLowerBound()), info(forOp.getStep())));
          auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
          for (auto [i, arg] : llvm::enumerate(forOp.getRegionIterArgs()))
            raise(arg, join(info(forOp.getInitArgs()[i]), info(yield.getOperand(i))));
          visitRegion(forOp.getRegion(), join(ctl, d));
          for (auto [arg, result] :
               llvm::zip(forOp.getRegionIterArgs(), forOp.getResults()))
            raise(result, join(d, info(arg)));
        })
        .Case<scf::WhileOp>([&](scf::WhileOp whileOp) {
          scf::ConditionOp cond = whileOp.getConditionOp();
          auto yield = whileOp.getYieldOp();
          for (auto [i, arg] : llvm::enumerate(whileOp.getBeforeArguments()))
            raise(arg, join(info(whileOp.getInits()[i]), info(yield.getOperand(i))));
          // After the first test, only the invocations that stayed run
          // either region again.
          Info d = decisionInfo(op);
          Info inner = join(ctl, d);
          visitRegion(whileOp.getBefore(), inner);
          for (auto [arg, v] : llvm::zip(whileOp.getAfterArguments(), cond.getArgs()))
            raise(arg, info(v));
          visitRegion(whileOp.getAfter(), inner);
          for (auto [result, v] : llvm::zip(whileOp.getResults(), cond.getArgs()))
            raise(result, join(d, info(v)));
        })
        .Case<scf::IndexSwitchOp>([&](scf::IndexSwitchOp switchOp) {
          Info d = decisionInfo(op);
          Info inner = join(ctl, d);
          for (Region &r : op->getRegions())
            visitRegion(r, inner);
          for (auto [i, result] : llvm::enumerate(switchOp.getResults())) {
            Info in = d;
            for (Region &r : op->getRegions())
              in = join(in, yielded(r, i));
            raise(result, in);
          }
        })
        .Case<scf::ExecuteRegionOp>([&](scf::ExecuteRegionOp exec) {
          visitRegion(exec.getRegion(), ctl);
          for (auto [i, result] : llvm::enumerate(exec.getResults()))
            raise(result, yielded(exec.getRegion(), i));
        })
        .Case<CallOp>([&](CallOp call) { visitCall(call, ctl); })
        .Case<ThreadIdOp, GlobalIdOp, LaneIdOp, AtomicRMWOp, ub::PoisonOp>(
            [&](Operation *) { raiseAll(op->getResults(), {Uniformity::none, op}); })
        .Case<WorkgroupIdOp, WorkgroupSizeOp, GridSizeOp, GlobalSizeOp,
              WaveWidthOp>([&](Operation *) {})
        .Case<BufferSizeOp>([&](BufferSizeOp size) {
          if (!cast<BufferType>(size.getBuffer().getType()).hasStaticSize())
            raise(size.getResult(), info(size.getBuffer()));
        })
        .Case<AlignedOp>([&](AlignedOp aligned) {
          // Where buffer[index] lies depends on the buffer and the index.
          raise(aligned.getResult(),
                join(info(aligned.getBuffer()), info(aligned.getIndex())));
        })
        .Case<LoadOp>([&](LoadOp load) {
          // Only a buffer nobody writes during the launch reads the same
          // at the same index for every invocation.
          if (load.getBufferType().getAccess() == Access::ro)
            raise(load.getResult(),
                  join(info(load.getBuffer()), info(load.getIndex())));
          else
            raise(load.getResult(), {Uniformity::none, op});
        })
        .Case<WaveBroadcastOp>([&](WaveBroadcastOp broadcast) {
          // Lane 0 is live in every wave, so its value reaches the whole
          // wave; a lane that is not live leaves each lane its own value.
          bool laneZero = matchPattern(broadcast.getLane(), m_Zero());
          raise(broadcast.getResult(), {laneZero ? Uniformity::wave : Uniformity::none, op, 0});
        })
        .Case<AllocOp>([&](AllocOp alloc) {
          // One shared allocation per workgroup; private is per invocation.
          if (alloc.getResult().getType().getSpace() != Space::shared)
            raise(alloc.getResult(), {Uniformity::none, op});
        })
        .Default([&](Operation *) { visitOther(op, ctl); });
  }

  /// The join of what every terminator of `region` yields at position `i`,
  /// each with the branches it is under.
  Info yielded(Region &region, unsigned i) {
    Info in;
    for (Block &block : region) {
      if (block.empty())
        continue;
      Operation *term = &block.back();
      if (!isa<scf::YieldOp>(term) || i >= term->getNumOperands())
        continue;
      in = join(in, info(term->getOperand(i)));
      Mark m = marks.lookup(&block);
      if (m.active())
        in = join(in, m.decision);
    }
    return in;
  }

  void visitCall(CallOp call, Info ctl) {
    auto callee = symbols.lookupNearestSymbolFrom<FuncOp>(call, call.getCalleeAttr());
    if (!callee || callee.getBody().empty()) {
      raiseAll(call.getResults(), {Uniformity::none, call});
      return;
    }
    Operation *self = current;
    SmallVector<Info> args;
    for (Value v : call.getOperands())
      args.push_back(resolve(info(v), self));
    Info entry = resolve(ctl, self);
    const Context &callerCtx = functions[self];
    Uniformity entryLevel = std::max(entry.level, callerCtx.entry);
    enter(callee, args, entryLevel, call);
    functions[callee].callers.insert(self);
    // The callee's results in the caller's terms: its own level, joined
    // with what this call passes for the parameters they depend on.
    const Context &ctx = functions[callee];
    for (auto [result, summary] : llvm::zip(call.getResults(), ctx.results)) {
      Info in{summary.level, summary.source, 0};
      for (auto [i, v] : llvm::enumerate(call.getOperands()))
        if (summary.params & paramBit(i))
          in = join(in, info(v));
      raise(result, in);
    }
  }

  void visitOther(Operation *op, Info ctl) {
    if (auto scope = declaredResultUniformity(op)) {
      raiseAll(op->getResults(),
               {*scope, *scope > Uniformity::workgroup ? op : nullptr, 0});
      for (Region &r : op->getRegions())
        visitRegion(r, ctl);
      return;
    }
    if (op->getNumRegions()) {
      // Control the analysis does not understand: whatever runs inside may
      // run for some invocations only.
      for (Region &r : op->getRegions())
        visitRegion(r, join(ctl, {Uniformity::none, op}));
      raiseAll(op->getResults(), {Uniformity::none, op});
      return;
    }
    // An xpu op not named above, or an op of no operands that is not a
    // constant, may be a coordinate or a wave operation: divergent unless
    // it declares UniformResults.
    if (!isMemoryEffectFree(op) || isa<XPUDialect>(op->getDialect()) ||
        (op->getNumOperands() == 0 && !op->hasTrait<OpTrait::ConstantLike>())) {
      raiseAll(op->getResults(), {Uniformity::none, op});
      return;
    }
    Info in;
    for (Value v : op->getOperands())
      in = join(in, info(v));
    raiseAll(op->getResults(), in);
  }

  void run(Operation *root) {
    if (auto module = dyn_cast<ModuleOp>(root)) {
      for (KernelOp kernel : module.getOps<KernelOp>())
        enter(kernel, SmallVector<Info>(kernel.getNumArguments()),
              Uniformity::workgroup, nullptr);
    } else if (auto fn = dyn_cast<FunctionOpInterface>(root)) {
      Info param = isa<KernelOp>(root) ? Info() : Info{Uniformity::none, root};
      enter(root, SmallVector<Info>(fn.getNumArguments(), param),
            Uniformity::workgroup, nullptr);
    }
    while (!worklist.empty())
      analyzeFunction(worklist.pop_back_val());
  }

  bool analyzed(Operation *fn) const { return fn && functions.contains(fn); }

  /// `in`, a fact about `op`'s function, in that function's context.
  Info at(Operation *op, Info in) const {
    return resolve(in, enclosingFunction(op->getParentRegion()));
  }
  Info valueAt(Value v) const {
    return resolve(info(v), enclosingFunction(v.getParentRegion()));
  }
};

UniformityAnalysis::UniformityAnalysis(Operation *root)
    : state(std::make_unique<State>()) {
  state->run(root);
}
UniformityAnalysis::~UniformityAnalysis() = default;
UniformityAnalysis::UniformityAnalysis(UniformityAnalysis &&) = default;

Uniformity UniformityAnalysis::uniformity(Value v) const {
  if (!state->analyzed(enclosingFunction(v.getParentRegion())))
    return Uniformity::none;
  return state->valueAt(v).level;
}

Uniformity UniformityAnalysis::controlUniformity(Operation *op) const {
  auto it = state->control.find(op);
  Operation *fn = enclosingFunction(op->getParentRegion());
  if (it == state->control.end() || !state->analyzed(fn))
    return Uniformity::none;
  return std::max(state->at(op, it->second).level,
                  state->functions.find(fn)->second.entry);
}

Operation *UniformityAnalysis::divergentDecision(Operation *op,
                                                 Uniformity scope) const {
  if (!state->control.contains(op))
    return enclosingFunction(op->getParentRegion()); // never analyzed
  for (Operation *cur = op; cur;) {
    Mark m = state->marks.lookup(cur->getBlock());
    if (m.active() && state->at(cur, m.decision).level > scope)
      return m.branch;
    Operation *parent = cur->getParentOp();
    if (!parent)
      return nullptr;
    if (isa<FunctionOpInterface>(parent)) {
      auto it = state->functions.find(parent);
      if (it == state->functions.end())
        return nullptr;
      return it->second.entry > scope ? it->second.entryCause : nullptr;
    }
    if (isKnownRegionOp(parent)) {
      if (state->at(parent, state->decisionInfo(parent)).level > scope)
        return parent;
    } else if (parent->getNumRegions() && !declaredResultUniformity(parent)) {
      return parent;
    }
    cur = parent;
  }
  return nullptr;
}

Value UniformityAnalysis::divergentOperand(Operation *decision,
                                           Uniformity scope) const {
  for (Value v : decisionOperands(decision))
    if (state->valueAt(v).level > scope)
      return v;
  return nullptr;
}

Operation *UniformityAnalysis::divergenceSource(Value v) const {
  if (!state->analyzed(enclosingFunction(v.getParentRegion())))
    return nullptr;
  return state->valueAt(v).source;
}

} // namespace xpu
