// Loops on a device that stops them after a budget of passes: their check
// sites (assignLoopSites) and the check itself (GuardLoopLimit). See
// Passes.td; the budget is measured by src/calibration/loop_probe.cpp.
//
// Reduced reproducer (/work/shared/repros/lavapipe/vk_loop_count.mlir): on
// lavapipe (Mesa 22.3.6) a loop counting to 100,000 returns 65,535 and the
// launch succeeds. Exact because it checks what happened, not a model of
// the budget: invocations run together share one budget, a loop in a branch
// none of them takes still spends a pass, each loop spends one pass more
// than its iterations (measured, and read in Mesa's gallivm, lp_exec_endloop).
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace xpu {
#define GEN_PASS_DEF_GUARDLOOPLIMIT
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

constexpr llvm::StringLiteral kSite = "xpu.site";
constexpr llvm::StringLiteral kLoopSite = "xpu.loop_site";

/// Whether a lowering may make loops of `op`: the tile ops (xpu-lower-tiles:
/// loops over elements, blocks and K), xpu.reduce (xpu-expand-reductions),
/// math.ipowi (xpu-expand-math), float min/max atomics (compare-exchange
/// loops of xpu-spirv-float-atomics).
bool lowersToLoops(Operation *op) {
  if (isa<ReduceOp, math::IPowIOp>(op))
    return true;
  if (auto atomic = dyn_cast<AtomicRMWOp>(op))
    return atomic.getKind() == AtomicKind::fmin || atomic.getKind() == AtomicKind::fmax;
  auto isTile = [](Type t) { return isa<TileType>(t); };
  return isa<XPUDialect>(op->getDialect()) &&
         (llvm::any_of(op->getResultTypes(), isTile) ||
          llvm::any_of(op->getOperandTypes(), isTile));
}

} // namespace

void xpu::assignLoopSites(ModuleOp module) {
  int64_t next = 0;
  module.walk([&](Operation *op) {
    if (auto site = op->getAttrOfType<IntegerAttr>(kSite))
      next = std::max(next, site.getInt() + 1);
  });
  Builder b(module.getContext());
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op))
      op->setAttr(kSite, b.getI64IntegerAttr(next++));
    else if (lowersToLoops(op))
      op->setAttr(kLoopSite, b.getI64IntegerAttr(next++));
  });
}

void xpu::inheritLoopSite(Operation *loop, Operation *from) {
  if (Attribute site = from->getAttr(kLoopSite))
    loop->setAttr(kSite, site);
}

namespace {

/// scf.for as the scf.while the SPIR-V lowering would make of it (as
/// upstream's scf-for-to-while does), keeping the site.
scf::WhileOp toWhile(IRRewriter &rw, scf::ForOp loop) {
  Location loc = loop.getLoc();
  rw.setInsertionPoint(loop);
  SmallVector<Value> inits{loop.getLowerBound()};
  llvm::append_range(inits, loop.getInitArgs());
  SmallVector<Type> types;
  SmallVector<Location> locs(inits.size(), loc);
  for (Value v : inits)
    types.push_back(v.getType());
  auto w = scf::WhileOp::create(rw, loc, types, inits);
  w->setAttr(kSite, loop->getAttr(kSite));

  Block *before = rw.createBlock(&w.getBefore(), {}, types, locs);
  Value iv = before->getArgument(0);
  Value more = arith::CmpIOp::create(
      rw, loc, loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      iv, loop.getUpperBound());
  scf::ConditionOp::create(rw, loc, more, before->getArguments());

  Block *after = rw.createBlock(&w.getAfter(), {}, types, locs);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  rw.mergeBlocks(loop.getBody(), after, after->getArguments());
  rw.setInsertionPoint(yield);
  SmallVector<Value> next{
      arith::AddIOp::create(rw, loc, after->getArgument(0), loop.getStep())};
  llvm::append_range(next, yield.getOperands());
  rw.replaceOpWithNewOp<scf::YieldOp>(yield, next);
  rw.replaceOp(loop, w.getResults().drop_front());
  return w;
}

/// The function's status word (the parameter xpu-prepare-lowering added).
Value statusOf(Operation *op) {
  Block &entry = op->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
  return entry.getArgument(entry.getNumArguments() - 1);
}

/// A value that is false when the kernel runs but that the driver's
/// compiler cannot know: a grid has at least one workgroup.
Value neverTrue(IRRewriter &rw, Operation *op,
                llvm::DenseMap<Operation *, Value> &perFunction) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  Value &v = perFunction[fn];
  if (!v) {
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&fn.getFunctionBody().front());
    Location loc = fn.getLoc();
    Value groups = GridSizeOp::create(rw, loc, Dim::x);
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    v = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, groups, zero);
  }
  return v;
}

/// The loop also yields (its condition xor `never`), true after the device
/// stopped it; the failing branch reports its site.
void guard(IRRewriter &rw, scf::WhileOp w, Value never) {
  Location loc = w.getLoc();
  int64_t site = w->getAttrOfType<IntegerAttr>(kSite).getInt();
  auto cond = w.getConditionOp();
  rw.setInsertionPoint(cond);
  Value stopped = arith::XOrIOp::create(rw, loc, cond.getCondition(), never);
  SmallVector<Value> forwarded(cond.getArgs());
  forwarded.push_back(stopped);
  rw.replaceOpWithNewOp<scf::ConditionOp>(cond, cond.getCondition(), forwarded);

  SmallVector<Type> types(w.getResultTypes());
  types.push_back(rw.getI1Type());
  rw.setInsertionPoint(w);
  auto guarded = scf::WhileOp::create(rw, loc, types, w.getInits());
  guarded.getBefore().takeBody(w.getBefore());
  guarded.getAfter().takeBody(w.getAfter());
  guarded.getAfter().front().addArgument(rw.getI1Type(), loc);
  rw.replaceOp(w, guarded.getResults().drop_back());

  rw.setInsertionPointAfter(guarded);
  auto report = scf::IfOp::create(rw, loc, TypeRange{}, guarded.getResults().back(),
                                  /*withElse=*/false);
  rw.setInsertionPointToStart(report.thenBlock());
  ReportOutOfBoundsOp::create(rw, loc, statusOf(guarded), site);
}

struct GuardLoopLimitPass : xpu::impl::GuardLoopLimitBase<GuardLoopLimitPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rw(module.getContext());
    SmallVector<scf::ForOp> fors;
    module.walk([&](scf::ForOp f) {
      if (f->hasAttr(kSite))
        fors.push_back(f);
    });
    for (scf::ForOp f : fors)
      toWhile(rw, f);
    SmallVector<scf::WhileOp> whiles;
    module.walk([&](scf::WhileOp w) {
      if (w->hasAttr(kSite))
        whiles.push_back(w);
    });
    llvm::DenseMap<Operation *, Value> never;
    for (scf::WhileOp w : whiles)
      guard(rw, w, neverTrue(rw, w, never));
  }
};

} // namespace
