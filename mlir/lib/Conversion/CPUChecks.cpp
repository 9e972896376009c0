// Run-time bounds checks for CPU work-item loops, in a form that keeps the
// loops vectorizable. See Passes.td.
//
// 1. Versioning: for each loop nest over a workgroup's invocations, the
//    checked accesses whose index is affine in the thread ids (and in the
//    variables of inner loops with workgroup-level bounds) are checked once
//    for the whole index range, before the nest; so are the nest's guards
//    of the same form (`if (gid < n)`). When every one holds, a copy of the
//    nest without those checks and with the guards folded to true runs.
// 2. What remains checked never branches to a report: a checked load reads
//    only when in bounds (else zero), a store writes only when in bounds,
//    and each site's failures are counted in the workgroup's own counters,
//    which are added to the status word once, when the workgroup ends.
//
// The range check is exact: coefficients and bounds are taken as the i64
// values the kernel computes with, and the extremes over the box are
// computed in i128, so no overflow can make a bad index look good. An
// index the kernel computes with wrapping i64 arithmetic is congruent to
// the affine form mod 2^64, so when the form's exact range is within
// [0, size) every index the kernel forms equals it.
#include "CheckedAccess.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace xpu {
#define GEN_PASS_DEF_CPUCHECKS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

constexpr StringLiteral kDimAttr = "xpu.work_item_dim";
/// Bounds of inner loops must be below this (in magnitude) for the range
/// check, so that its i128 sums cannot overflow.
constexpr int64_t kMaxInnerBound = int64_t(1) << 40;

/// Where a loop variable ranges: [lo, hi] (both workgroup-level values),
/// and the bound checks that range needs.
struct Dim {
  Value iv, lo, hi;
};

/// An index as base + sum(coef[d] * dim d); every Value workgroup-level.
struct Affine {
  Value base;
  SmallVector<std::pair<unsigned, Value>> terms; ///< (dim, coefficient)
  bool dependsOnDims() const { return !terms.empty(); }
};

class NestChecker {
public:
  NestChecker(Operation *nest, Value counters, KernelOp kernel)
      : nest(nest), counters(counters), kernel(kernel), b(nest) {}

  /// Versions the nest when it has anything to check once; then makes the
  /// remaining checks branch-free.
  void run(llvm::MapVector<int64_t, unsigned> &siteSlots) {
    collectDims();
    SmallVector<Operation *> checked, guards;
    nest->walk([&](Operation *op) {
      if (op->hasAttr("checked"))
        checked.push_back(op);
      else if (auto ifOp = dyn_cast<scf::IfOp>(op))
        guards.push_back(ifOp);
    });
    SmallVector<Value> conditions;
    SmallVector<Operation *> versionedAccesses, versionedGuards;
    for (Operation *op : checked)
      if (Value ok = accessInRange(op)) {
        conditions.push_back(ok);
        versionedAccesses.push_back(op);
      }
    for (Operation *op : guards)
      if (Value ok = guardAlwaysTrue(cast<scf::IfOp>(op))) {
        conditions.push_back(ok);
        versionedGuards.push_back(op);
      }
    if (!conditions.empty()) {
      Location l = nest->getLoc();
      for (Value bound : boundChecks)
        conditions.push_back(bound);
      Value all = conditions.front();
      for (Value c : ArrayRef(conditions).drop_front())
        all = arith::AndIOp::create(b, l, all, c);
      auto ifOp = scf::IfOp::create(b, l, TypeRange{}, all, /*withElse=*/true);
      OpBuilder fast = OpBuilder::atBlockBegin(ifOp.thenBlock());
      IRMapping map;
      Operation *copy = fast.clone(*nest, map);
      nest->moveBefore(ifOp.elseBlock()->getTerminator());
      for (Operation *op : versionedAccesses)
        map.lookup(op)->removeAttr("checked");
      for (Operation *op : versionedGuards) {
        auto guard = cast<scf::IfOp>(map.lookup(op));
        OpBuilder gb(guard);
        guard.getConditionMutable().assign(
            arith::ConstantIntOp::create(gb, guard.getLoc(), gb.getI1Type(), 1));
      }
      (void)copy;
      // The checked copy runs only where the range check fails (the edges of
      // the grid, or a real violation): not worth vectorizing, nor the
      // compile time that would take.
      auto scalar = LLVM::LoopAnnotationAttr::get(
          b.getContext(), {},
          LLVM::LoopVectorizeAttr::get(b.getContext(), b.getBoolAttr(true), {}, {}, {},
                                       {}, {}, {}),
          {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
      nest->walk([&](scf::ForOp loop) {
        if (loop->hasAttr(kDimAttr))
          loop->setAttr("llvm.loop_annotation", scalar);
      });
      // Both copies now hold the accesses still checked.
      checked.clear();
      ifOp->walk([&](Operation *op) {
        if (op->hasAttr("checked"))
          checked.push_back(op);
      });
    }
    for (Operation *op : checked)
      makeBranchFree(op, siteSlots);
  }

private:
  Operation *nest;
  Value counters;
  KernelOp kernel;
  OpBuilder b; ///< before the nest: workgroup-level code
  SmallVector<Dim> dims;
  SmallVector<Value> boundChecks;
  llvm::DenseMap<Value, std::optional<Affine>> affineCache;
  llvm::DenseMap<Value, Value> outerCache;

  Type i128() { return b.getIntegerType(128); }
  /// An i128 constant, sign-extended from `v`.
  Value c128(int64_t v) {
    return arith::ConstantOp::create(
        b, nest->getLoc(), IntegerAttr::get(i128(), APInt(128, uint64_t(v), /*isSigned=*/true)));
  }
  Value wide(Value index) {
    Location l = nest->getLoc();
    Value i64 = arith::IndexCastOp::create(b, l, b.getI64Type(), index);
    return arith::ExtSIOp::create(b, l, i128(), i64);
  }
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, nest->getLoc(), v); }

  bool isOuter(Value v) {
    Operation *owner = v.getDefiningOp();
    if (!owner)
      owner = v.getParentBlock()->getParentOp();
    return !nest->isAncestor(owner);
  }

  /// The loop variables of the nest: the thread ids, and the variables of
  /// inner scf.for loops whose bounds are workgroup-level and whose step is
  /// a positive constant.
  void collectDims() {
    Location l = nest->getLoc();
    nest->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kDimAttr)) {
        // Within 0 .. size - 1: the launch gives at most 1024 per workgroup.
        Value lb = outer(loop.getLowerBound()), ub = outer(loop.getUpperBound());
        if (lb && ub)
          dims.push_back({loop.getInductionVar(), lb, arith::SubIOp::create(b, l, ub, cst(1))});
        return;
      }
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      Value lo = outer(loop.getLowerBound()), ub = outer(loop.getUpperBound());
      if (!step || *step <= 0 || !lo || !ub)
        return;
      dims.push_back({loop.getInductionVar(), lo, arith::SubIOp::create(b, l, ub, cst(1))});
      for (Value bound : {lo, ub}) {
        Value w = wide(bound);
        Value limit = c128(kMaxInnerBound);
        Value neg = c128(-kMaxInnerBound);
        boundChecks.push_back(arith::AndIOp::create(
            b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, w, limit),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, w, neg)));
      }
    });
  }

  /// `v` as a workgroup-level value, made before the nest by copying the
  /// pure code that computes it from workgroup-level values; null if it
  /// depends on anything else.
  Value outer(Value v) {
    if (isOuter(v))
      return v;
    if (auto it = outerCache.find(v); it != outerCache.end())
      return it->second;
    Value result;
    Operation *def = v.getDefiningOp();
    if (def && def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
        !isa<ThreadIdOp, GlobalIdOp, LaneIdOp>(def)) {
      IRMapping map;
      bool ok = true;
      for (Value operand : def->getOperands()) {
        Value o = outer(operand);
        if (!o) {
          ok = false;
          break;
        }
        map.map(operand, o);
      }
      if (ok)
        result = b.clone(*def, map)->getResult(cast<OpResult>(v).getResultNumber());
    }
    outerCache[v] = result;
    return result;
  }

  std::optional<Affine> affine(Value v) {
    if (!v.getType().isIndex())
      return std::nullopt;
    if (auto it = affineCache.find(v); it != affineCache.end())
      return it->second;
    std::optional<Affine> r = computeAffine(v);
    affineCache[v] = r;
    return r;
  }

  Affine scaled(const Affine &a, Value k) {
    Location l = nest->getLoc();
    Affine r;
    r.base = arith::MulIOp::create(b, l, a.base, k);
    for (auto [d, c] : a.terms)
      r.terms.push_back({d, arith::MulIOp::create(b, l, c, k)});
    return r;
  }

  std::optional<Affine> computeAffine(Value v) {
    Location l = nest->getLoc();
    for (auto [i, d] : llvm::enumerate(dims))
      if (d.iv == v) {
        Affine a;
        a.base = cst(0);
        a.terms.push_back({unsigned(i), cst(1)});
        return a;
      }
    Operation *def = v.getDefiningOp();
    if (def && !isOuter(v)) {
      auto combine = [&](bool subtract) -> std::optional<Affine> {
        auto x = affine(def->getOperand(0)), y = affine(def->getOperand(1));
        if (!x || !y)
          return std::nullopt;
        if (subtract)
          *y = scaled(*y, cst(-1));
        Affine r;
        r.base = arith::AddIOp::create(b, l, x->base, y->base);
        r.terms = x->terms;
        llvm::append_range(r.terms, y->terms);
        return r;
      };
      if (isa<arith::AddIOp>(def))
        return combine(false);
      if (isa<arith::SubIOp>(def))
        return combine(true);
      if (isa<arith::MulIOp>(def)) {
        auto x = affine(def->getOperand(0)), y = affine(def->getOperand(1));
        if (!x || !y || (x->dependsOnDims() && y->dependsOnDims()))
          return std::nullopt;
        return x->dependsOnDims() ? scaled(*x, y->base) : scaled(*y, x->base);
      }
      if (isa<arith::ShLIOp>(def)) {
        auto x = affine(def->getOperand(0));
        std::optional<int64_t> k = getConstantIntValue(def->getOperand(1));
        if (!x || !k || *k < 0 || *k > 40)
          return std::nullopt;
        return scaled(*x, cst(int64_t(1) << *k));
      }
    }
    Value o = outer(v);
    if (!o)
      return std::nullopt;
    Affine a;
    a.base = o;
    return a;
  }

  /// [lo, hi] of `a` over the box, in i128.
  std::pair<Value, Value> range(const Affine &a) {
    Location l = nest->getLoc();
    Value lo = wide(a.base), hi = lo;
    for (auto [d, c] : a.terms) {
      Value wc = wide(c);
      Value p = arith::MulIOp::create(b, l, wc, wide(dims[d].lo));
      Value q = arith::MulIOp::create(b, l, wc, wide(dims[d].hi));
      lo = arith::AddIOp::create(b, l, lo, arith::MinSIOp::create(b, l, p, q));
      hi = arith::AddIOp::create(b, l, hi, arith::MaxSIOp::create(b, l, p, q));
    }
    return {lo, hi};
  }

  /// The check, once for the box, that `op` is always in bounds; null if
  /// its index is not of the form.
  Value accessInRange(Operation *op) {
    AccessParts access = accessParts(op);
    std::optional<Affine> a = affine(access.index);
    Value buf = outer(access.buffer);
    if (!a || !buf)
      return {};
    Location l = nest->getLoc();
    auto [lo, hi] = range(*a);
    Value size = wide(BufferSizeOp::create(b, l, buf));
    Value last = arith::AddIOp::create(b, l, hi, c128(access.width - 1));
    Value zero = c128(0);
    return arith::AndIOp::create(
        b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, lo, zero),
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, last, size));
  }

  /// The check, once for the box, that `if`'s condition always holds: a
  /// comparison of an affine index with a workgroup-level one (possibly
  /// several joined by `and`); null otherwise.
  Value guardAlwaysTrue(scf::IfOp ifOp) {
    if (!ifOp.getElseRegion().empty() || ifOp.getNumResults())
      return {};
    return alwaysTrue(ifOp.getCondition());
  }

  Value alwaysTrue(Value cond) {
    Location l = nest->getLoc();
    Operation *def = cond.getDefiningOp();
    if (!def || isOuter(cond))
      return {};
    if (isa<arith::AndIOp>(def)) {
      Value x = alwaysTrue(def->getOperand(0)), y = alwaysTrue(def->getOperand(1));
      if (!x || !y)
        return {};
      return arith::AndIOp::create(b, l, x, y);
    }
    auto cmp = dyn_cast<arith::CmpIOp>(def);
    if (!cmp || !cmp.getLhs().getType().isIndex())
      return {};
    std::optional<Affine> x = affine(cmp.getLhs()), y = affine(cmp.getRhs());
    if (!x || !y || x->dependsOnDims() == y->dependsOnDims())
      return {};
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    if (y->dependsOnDims()) {
      std::swap(x, y);
      pred = swapSides(pred);
    }
    // x (depends on the thread ids) pred y (workgroup-level).
    auto [lo, hi] = range(*x);
    Value bound = wide(y->base);
    Value zero = c128(0);
    Value big = c128(int64_t(1) << 62);
    // Unsigned comparisons hold as signed ones when both sides are small
    // non-negative numbers.
    auto inRange = [&](Value v) {
      return arith::AndIOp::create(b, l, arith::CmpIOp::create(b, l, P::sge, v, zero),
                                   arith::CmpIOp::create(b, l, P::slt, v, big));
    };
    Value unsignedOk = arith::AndIOp::create(
        b, l, arith::AndIOp::create(b, l, inRange(lo), inRange(hi)), inRange(bound));
    switch (pred) {
    case P::ult:
      return arith::AndIOp::create(b, l, unsignedOk,
                                   arith::CmpIOp::create(b, l, P::slt, hi, bound));
    case P::ule:
      return arith::AndIOp::create(b, l, unsignedOk,
                                   arith::CmpIOp::create(b, l, P::sle, hi, bound));
    case P::ugt:
      return arith::AndIOp::create(b, l, unsignedOk,
                                   arith::CmpIOp::create(b, l, P::sgt, lo, bound));
    case P::uge:
      return arith::AndIOp::create(b, l, unsignedOk,
                                   arith::CmpIOp::create(b, l, P::sge, lo, bound));
    case P::slt:
      return signedHolds(P::slt, hi, bound);
    case P::sle:
      return signedHolds(P::sle, hi, bound);
    case P::sgt:
      return signedHolds(P::sgt, lo, bound);
    case P::sge:
      return signedHolds(P::sge, lo, bound);
    default:
      return {};
    }
  }

  /// For signed comparisons the kernel's i64 values must be the exact ones:
  /// the extreme has to fit in i64.
  Value signedHolds(arith::CmpIPredicate p, Value extreme, Value bound) {
    Location l = nest->getLoc();
    using P = arith::CmpIPredicate;
    Value minI64 = c128(INT64_MIN);
    Value maxI64 = c128(INT64_MAX);
    Value fits = arith::AndIOp::create(b, l, arith::CmpIOp::create(b, l, P::sge, extreme, minI64),
                                       arith::CmpIOp::create(b, l, P::sle, extreme, maxI64));
    return arith::AndIOp::create(b, l, fits, arith::CmpIOp::create(b, l, p, extreme, bound));
  }

  /// The access happens only in bounds (a read yields zero otherwise) and a
  /// failure adds one to its site's counter.
  void makeBranchFree(Operation *op, llvm::MapVector<int64_t, unsigned> &siteSlots) {
    OpBuilder ob(op);
    Location l = op->getLoc();
    op->removeAttr("checked");
    int64_t site = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("xpu.site"))
      site = attr.getInt();
    unsigned slot = siteSlots.insert({site, unsigned(siteSlots.size())}).first->second;
    AccessParts access = accessParts(op);
    Value size = BufferSizeOp::create(ob, l, access.buffer);
    Value ok = inBounds(ob, l, access.index, size, access.width);
    TypeRange results = op->getResultTypes();
    auto ifOp = scf::IfOp::create(ob, l, results, ok, /*withElse=*/!results.empty());
    {
      OpBuilder in = OpBuilder::atBlockBegin(ifOp.thenBlock());
      if (!results.empty()) {
        Operation *clone = in.clone(*op);
        scf::YieldOp::create(in, l, clone->getResults());
        in.setInsertionPointToStart(ifOp.elseBlock());
        Value zero = arith::ConstantOp::create(
            in, l, cast<TypedAttr>(in.getZeroAttr(results.front())));
        scf::YieldOp::create(in, l, zero);
      } else {
        in.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        in.clone(*op);
      }
    }
    Value one = arith::ConstantIntOp::create(ob, l, ob.getI1Type(), 1);
    Value bad = arith::XOrIOp::create(ob, l, ok, one);
    Value inc = arith::ExtUIOp::create(ob, l, ob.getI32Type(), bad);
    Value at = arith::ConstantIndexOp::create(ob, l, slot);
    Value count = LoadOp::create(ob, l, ob.getI32Type(), counters, at);
    StoreOp::create(ob, l, arith::AddIOp::create(ob, l, count, inc), counters, at);
    op->replaceAllUsesWith(ifOp.getResults());
    op->erase();
  }
};

/// Counters for every checked site of the kernel's work-item loops, set to
/// zero when the workgroup starts and added to the status word at its end.
void checkKernel(KernelOp kernel) {
  SmallVector<Operation *> nests;
  kernel.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kDimAttr) && !loop->getParentOp()->hasAttr(kDimAttr) &&
        loop->walk([](Operation *op) {
              return op->hasAttr("checked") ? WalkResult::interrupt()
                                            : WalkResult::advance();
            }).wasInterrupted())
      nests.push_back(loop);
  });
  if (nests.empty())
    return;
  MLIRContext *ctx = kernel.getContext();
  Block &entry = kernel.getBody().front();
  Value status = entry.getArgument(entry.getNumArguments() - 1);
  Location l = kernel.getLoc();
  // Sized after the nests are done; a placeholder until then.
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  auto placeholderTy = BufferType::get(ctx, b.getI32Type(), Space::private_, Access::rw, 1);
  auto placeholder = AllocOp::create(b, l, placeholderTy);
  llvm::MapVector<int64_t, unsigned> siteSlots;
  for (Operation *nest : nests)
    NestChecker(nest, placeholder, kernel).run(siteSlots);

  auto type = BufferType::get(ctx, b.getI32Type(), Space::private_, Access::rw,
                              std::max<int64_t>(1, siteSlots.size()));
  b.setInsertionPoint(placeholder);
  auto counters = AllocOp::create(b, l, type);
  Value zero = arith::ConstantIntOp::create(b, l, b.getI32Type(), 0);
  for (unsigned i = 0; i < siteSlots.size(); ++i)
    StoreOp::create(b, l, zero, counters, arith::ConstantIndexOp::create(b, l, i));
  placeholder.getResult().replaceAllUsesWith(counters.getResult());
  placeholder.erase();

  // At the end: word 0 counts the failures, word 1 names the first site
  // (see abi::kStatusWords).
  b.setInsertionPoint(entry.getTerminator());
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i32 = b.getI32Type();
  for (auto [site, slot] : siteSlots) {
    Value count = LoadOp::create(b, l, i32, counters.getResult(),
                                 arith::ConstantIndexOp::create(b, l, slot));
    Value any = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, count, zero);
    auto report = scf::IfOp::create(b, l, TypeRange{}, any, /*withElse=*/false);
    OpBuilder in(report.thenBlock()->getTerminator());
    LLVM::AtomicRMWOp::create(in, l, LLVM::AtomicBinOp::add, status, count,
                              LLVM::AtomicOrdering::monotonic);
    Value first = LLVM::GEPOp::create(in, l, ptrTy, i32, status, ArrayRef<LLVM::GEPArg>{1});
    Value none = LLVM::ConstantOp::create(in, l, i32, 0);
    Value id = LLVM::ConstantOp::create(in, l, i32, int32_t(site + 1));
    LLVM::AtomicCmpXchgOp::create(in, l, first, none, id, LLVM::AtomicOrdering::monotonic,
                                  LLVM::AtomicOrdering::monotonic);
  }
}

/// The innermost loop over x of a workgroup usually runs the workgroup's
/// width (16, 64, 256 times): one vector of each iteration's values at a
/// time, without interleaving, so that short rows still run as vectors.
void hintInnermost(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  auto once = LLVM::LoopAnnotationAttr::get(
      ctx, {}, {}, LLVM::LoopInterleaveAttr::get(ctx, b.getI32IntegerAttr(1)), {}, {}, {}, {},
      {}, {}, {}, {}, {}, {}, {}, {});
  kernel.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kDimAttr) && !loop->hasAttr("llvm.loop_annotation") &&
        !loop.getBody()->walk([](scf::ForOp inner) {
                           return inner->hasAttr(kDimAttr) ? WalkResult::interrupt()
                                                           : WalkResult::advance();
                         }).wasInterrupted())
      loop->setAttr("llvm.loop_annotation", once);
  });
}

struct CPUChecksPass : xpu::impl::CPUChecksBase<CPUChecksPass> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      if (kernel->hasAttr("xpu.work_item_loops")) {
        checkKernel(kernel);
        hintInnermost(kernel);
      }
  }
};

} // namespace
