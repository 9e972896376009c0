// Runs each CPU kernel once per workgroup: its body is split at barriers and
// reductions into regions, each a loop nest over the workgroup's
// invocations ("work-item loops"). See Passes.td.
//
// The kernel is structured (scf) when it gets here, so regions are formed on
// the structure itself: a barrier at block level ends one region and starts
// the next; an scf.if / scf.for / scf.while that contains one stays outside
// the loops (it runs once per workgroup, its condition uniform) and its
// blocks are split the same way. A value used on the far side of a barrier
// is recomputed there when it is cheap and reads no memory, or kept per
// invocation in a context array (one slot per invocation, per vector lane).
#include "CPUSharedFills.h"
#include "CPUWorkgroupShape.h"
#include "CheckedAccess.h"
#include "xpu/Analysis/Uniformity.h"
#include "xpu/CpuAnyShape.h"
#include "xpu/Dialect/XPU/IR/Combiners.h"
#include "xpu/Dialect/XPU/IR/Invocation.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
#include <tuple>

namespace xpu {
#define GEN_PASS_DEF_CPUWORKITEMLOOPS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// Each loop of a work-item nest carries the axis it walks (0 = x).
constexpr StringLiteral kDimAttr = "xpu.work_item_dim";
/// Ops that must run once per workgroup (reduction folds), while forming.
constexpr StringLiteral kOnceAttr = "xpu.once_per_workgroup";
/// Context arrays above this size are refused: they live on the stack of
/// the thread that runs the workgroup (see backends/cpu/thread_pool.cpp).
constexpr uint64_t kMaxContextBytes = 16ull << 20;
/// Most ops recomputed for one value on the far side of a barrier.
constexpr unsigned kMaxRematOps = 32;

bool isInvocationCoordinate(Operation *op) {
  return isa<ThreadIdOp, GlobalIdOp, LaneIdOp>(op);
}

/// True when `op` is a barrier or a construct with a barrier, a reduction
/// or a reduction's fold inside: region formation splits it.
bool containsSynchronization(Operation *op) {
  if (isa<BarrierOp, ReduceOp>(op))
    return true;
  if (op->getNumRegions() == 0 || op->hasAttr(kOnceAttr))
    return false;
  return op->walk([&](Operation *inner) {
               return inner != op && (isa<BarrierOp, ReduceOp>(inner) ||
                                      inner->hasAttr(kOnceAttr))
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             })
      .wasInterrupted();
}

/// True when `op` cannot go into a work-item loop: it synchronizes, or it
/// is a reduction's fold (which runs once per workgroup).
bool synchronizes(Operation *op) {
  return op->hasAttr(kOnceAttr) || containsSynchronization(op);
}

/// Refuses a barrier or reduction that some invocations might not reach,
/// or that sits in a construct region formation does not split. Admission
/// refuses the first kind already (XPU-UC001); this keeps the pass sound
/// on its own.
LogicalResult checkSynchronization(KernelOp kernel) {
  UniformityAnalysis uniformity(kernel);
  WalkResult r = kernel.walk([&](Operation *sync) {
    std::optional<Uniformity> scope = requiredControlUniformity(sync);
    if (!scope || *scope != Uniformity::workgroup)
      return WalkResult::advance();
    if (!isa<BarrierOp, ReduceOp>(sync)) {
      sync->emitOpError("XPU-CPU001: the CPU backend cannot run this workgroup "
                        "operation");
      return WalkResult::interrupt();
    }
    const char *what = isa<BarrierOp>(sync) ? "barrier" : "reduction";
    if (Operation *decision = uniformity.divergentDecision(sync, Uniformity::workgroup)) {
      InFlightDiagnostic d = sync->emitError()
                             << "XPU-CPU001: this " << what << " is under '"
                             << decision->getName().getStringRef()
                             << "', whose decision may differ between invocations; the "
                                "CPU backend runs a barrier only where every invocation "
                                "of the workgroup reaches it";
      d.attachNote(decision->getLoc()) << "the construct around it";
      return WalkResult::interrupt();
    }
    for (Operation *p = sync->getParentOp(); p != kernel; p = p->getParentOp())
      if (!isa<scf::IfOp, scf::ForOp, scf::WhileOp>(p)) {
        InFlightDiagnostic d = sync->emitError()
                               << "XPU-CPU001: this " << what << " is inside '"
                               << p->getName().getStringRef()
                               << "', which the CPU backend cannot split at barriers";
        d.attachNote(p->getLoc()) << "the construct around it";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Per-invocation storage
//===----------------------------------------------------------------------===//

/// A context array: one slot per invocation (and per vector lane) for a
/// value of `type`, lane l of invocation i at l * capacity + i.
struct ContextArray {
  Value buffer;
  Type type;     ///< the value's type
  Type stored;   ///< what one lane is stored as (index as i64)
  unsigned lanes = 1;
};

/// The scalar a lane of `t` is stored as, or null when `t` cannot be stored.
Type storedLane(Type t) {
  Type elem = t;
  if (auto vec = dyn_cast<VectorType>(t)) {
    if (vec.getRank() != 1 || vec.isScalable())
      return {};
    elem = vec.getElementType();
  }
  if (elem.isIndex())
    return IntegerType::get(t.getContext(), 64);
  if (isa<IntegerType, FloatType>(elem))
    return elem;
  return {};
}

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

//===----------------------------------------------------------------------===//
// Guards as loop bounds
//===----------------------------------------------------------------------===//

/// The loop range [lo, hi) of invocations for which `x pred bound` holds,
/// where x = base + t over t in [0, size), base + size <= 2^42 (a group's
/// first global id: grid extents < 2^31, workgroups <= 1024), so x is
/// exact and non-negative; `bound` is any i64.
std::pair<Value, Value> rangeWhere(OpBuilder &b, Location l, arith::CmpIPredicate pred,
                                   Value base, Value size, Value bound) {
  using P = arith::CmpIPredicate;
  Value zero = cIndex(b, l, 0), one = cIndex(b, l, 1);
  auto cmp = [&](P p, Value x, Value y) { return arith::CmpIOp::create(b, l, p, x, y); };
  auto sel = [&](Value c, Value x, Value y) { return arith::SelectOp::create(b, l, c, x, y); };
  // d = bound - base when bound >= base (unsigned); these are offsets from
  // the group's first invocation, clamped to [0, size].
  Value d = arith::SubIOp::create(b, l, bound, base);
  Value below = cmp(P::ult, bound, base); // every x is >= bound
  Value dClamped = sel(below, zero, arith::MinUIOp::create(b, l, d, size));
  Value dPlus1 = sel(below, zero, sel(cmp(P::uge, d, size), size,
                                      arith::AddIOp::create(b, l, d, one)));
  // x ugt/uge are satisfied from these offsets on; ult/ule up to them.
  Value ltEnd = dClamped;                        // x < bound
  Value leEnd = dPlus1;                          // x <= bound
  Value gtBegin = sel(below, zero, dPlus1);      // x > bound
  Value geBegin = sel(below, zero, dClamped);    // x >= bound
  // Signed: x is a small non-negative number.
  Value nonPositive = cmp(P::sle, bound, zero), negative = cmp(P::slt, bound, zero);
  switch (pred) {
  case P::ult: return {zero, ltEnd};
  case P::ule: return {zero, leEnd};
  case P::ugt: return {gtBegin, size};
  case P::uge: return {geBegin, size};
  case P::slt: return {zero, sel(nonPositive, zero, ltEnd)};
  case P::sle: return {zero, sel(negative, zero, leEnd)};
  case P::sgt: return {sel(negative, zero, gtBegin), size};
  case P::sge: return {sel(nonPositive, zero, geBegin), size};
  default: return {};
  }
}

/// One loop nest over a workgroup's invocations.
struct WorkItemNest {
  Operation *outer = nullptr; ///< outermost loop
  Block *body = nullptr;      ///< innermost body
  Value tid[3];               ///< thread id per axis (index)
  scf::ForOp loop[3];         ///< the loop per axis (none for fixed extent 1)
  Value lin;                  ///< linear invocation index
  Operation *firstOp = nullptr; ///< first op of the region's own code
};

class KernelFormer {
public:
  explicit KernelFormer(KernelOp kernel) : kernel(kernel), b(kernel.getContext()) {}

  LogicalResult run() {
    Block &entry = kernel.getBody().front();
    if (!kernel.getBody().hasOneBlock())
      return kernel.emitError("XPU-CPU002: the CPU backend needs a kernel body of "
                              "one block (structured control flow)");
    if (failed(checkSynchronization(kernel)))
      return failure();
    // Only kernels without loops take long rows: an invocation that loops
    // (a naive matrix multiply's dot product) rereads memory that the
    // launch's 2-D tile keeps in cache, which a 1,024-wide row does not.
    bool loops = kernel.walk([](Operation *op) {
                         return isa<scf::ForOp, scf::WhileOp>(op) ? WalkResult::interrupt()
                                                                  : WalkResult::advance();
                       }).wasInterrupted();
    if (!loops && anyWorkgroupShapeComputesTheSame(kernel))
      kernel->setAttr(abi::kCpuAnyShapeAttr, b.getUnitAttr());
    dropOverwrittenSharedFills(kernel);
    setUpShape(entry);
    hoistSharedScratch(entry);
    fillsOncePerWorkgroup();
    if (failed(expandReductions()) || failed(demoteCarriedValues()))
      return failure();
    formBlock(&entry);
    if (failed(connectRegions()) || failed(lowerCoordinates()))
      return failure();
    for (auto &nest : nests) {
      boundsFromGuard(*nest);
      splitAtCondition(*nest);
    }
    kernel.walk([](Operation *op) { op->removeAttr(kOnceAttr); });
    fixWorkgroupSizes();
    if (contextBytes > kMaxContextBytes)
      return kernel.emitError()
             << "XPU-CPU003: the CPU backend keeps " << contextBytes
             << " bytes per workgroup for values live across barriers, more than "
                "its limit of "
             << kMaxContextBytes << "; keep fewer values live across barriers";
    return success();
  }

private:
  KernelOp kernel;
  OpBuilder b;
  /// Outer values, defined at the start of the kernel.
  Value size[3], groupBase[3], invocations;
  std::optional<int64_t> fixedSize[3];
  int64_t capacity = kMaxWorkgroupExtent; ///< invocations a workgroup can have
  Operation *prelude = nullptr;           ///< the last op of the set-up
  std::vector<std::unique_ptr<WorkItemNest>> nests;
  llvm::DenseMap<Operation *, WorkItemNest *> nestOfInnermost;
  llvm::DenseMap<Value, ContextArray> arrays;
  /// Context arrays whose slots each invocation writes before it reads them
  /// and never rewrites while a value loaded from them is live.
  llvm::DenseSet<Value> reloadable;
  uint64_t contextBytes = 0;

  Location loc() { return kernel.getLoc(); }

  //--- Set-up ----------------------------------------------------------------

  void setUpShape(Block &entry) {
    b.setInsertionPointToStart(&entry);
    Location l = loc();
    if (auto fixed = kernel.getWorkgroupSize()) {
      capacity = 1;
      for (unsigned d = 0; d < 3; ++d) {
        int64_t e = d < fixed->size() ? (*fixed)[d] : 1;
        fixedSize[d] = e;
        capacity *= e;
      }
    }
    for (unsigned d = 0; d < 3; ++d) {
      size[d] = fixedSize[d] ? cIndex(b, l, *fixedSize[d])
                             : Value(WorkgroupSizeOp::create(b, l, Dim(d)));
      Value wg = WorkgroupIdOp::create(b, l, Dim(d));
      groupBase[d] = arith::MulIOp::create(b, l, wg, size[d]);
    }
    invocations = arith::MulIOp::create(
        b, l, arith::MulIOp::create(b, l, size[0], size[1]), size[2]);
    prelude = invocations.getDefiningOp();
  }

  /// A fixed workgroup size is a constant (the launch checks it), so that
  /// LLVM knows the work-item loops' trip counts.
  void fixWorkgroupSizes() {
    SmallVector<WorkgroupSizeOp> ops;
    kernel.walk([&](WorkgroupSizeOp op) { ops.push_back(op); });
    for (WorkgroupSizeOp op : ops)
      if (std::optional<int64_t> e = fixedSize[unsigned(op.getDim())]) {
        OpBuilder bb(op);
        op.getResult().replaceAllUsesWith(cIndex(bb, op.getLoc(), *e));
        op.erase();
      }
  }

  /// Insert outer set-up code (arrays, allocations) after what is there.
  void atPrelude() { b.setInsertionPointAfter(prelude); }
  void advancePrelude(Operation *op) { prelude = op; }

  /// Shared scratch belongs to the workgroup: allocate it once, up front.
  void hoistSharedScratch(Block &entry) {
    SmallVector<AllocOp> shared;
    kernel.walk([&](AllocOp op) {
      if (op.getResult().getType().getSpace() == Space::shared)
        shared.push_back(op);
    });
    for (AllocOp op : shared) {
      op->moveAfter(prelude);
      advancePrelude(op);
    }
  }

  /// A cooperative fill (each invocation stores from its linear index on,
  /// stepping by the workgroup's size) stores to every element once: one
  /// loop over all of them, once per workgroup, does the same.
  void fillsOncePerWorkgroup() {
    kernel.walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kCooperativeFillAttr))
        return;
      OpBuilder bb(loop);
      loop.getLowerBoundMutable().assign(cIndex(bb, loop.getLoc(), 0));
      loop.getStepMutable().assign(cIndex(bb, loop.getLoc(), 1));
      loop->setAttr(kOnceAttr, bb.getUnitAttr());
    });
  }

  /// The linear invocation index from coordinate ops, for code written
  /// before the loops exist (region formation replaces the coordinates).
  static Value linearFromCoordinates(OpBuilder &bb, Location l) {
    return linearInvocation(bb, l).index;
  }

  FailureOr<ContextArray> arrayFor(Value v) {
    auto it = arrays.find(v);
    if (it != arrays.end())
      return it->second;
    FailureOr<ContextArray> a = newArray(v.getType(), v.getLoc());
    if (failed(a)) {
      emitError(v.getLoc()) << "XPU-CPU004: the CPU backend cannot keep a value of "
                               "type "
                            << v.getType()
                            << " across a barrier (only integers, floats and 1-D "
                               "vectors of them)";
      return failure();
    }
    arrays[v] = *a;
    return *a;
  }

  FailureOr<ContextArray> newArray(Type t, Location l) {
    ContextArray a;
    a.type = t;
    a.stored = storedLane(t);
    if (!a.stored)
      return failure();
    if (auto vec = dyn_cast<VectorType>(t))
      a.lanes = vec.getNumElements();
    atPrelude();
    auto type = BufferType::get(b.getContext(), a.stored, Space::private_,
                                Access::rw, capacity * a.lanes);
    auto alloc = AllocOp::create(b, l, type);
    advancePrelude(alloc);
    a.buffer = alloc;
    reloadable.insert(alloc);
    contextBytes += uint64_t(capacity) * a.lanes *
                    std::max(1u, a.stored.getIntOrFloatBitWidth() / 8);
    return a;
  }

  void store(OpBuilder &bb, Location l, const ContextArray &a, Value v, Value lin) {
    Type scalar = getElementTypeOrSelf(a.type);
    if (scalar.isIndex()) {
      Type to = a.lanes > 1 ? Type(VectorType::get({a.lanes}, a.stored)) : a.stored;
      v = arith::IndexCastOp::create(bb, l, to, v);
    }
    if (a.lanes == 1) {
      StoreOp::create(bb, l, v, a.buffer, lin);
      return;
    }
    for (unsigned lane = 0; lane < a.lanes; ++lane) {
      Value x = vector::ExtractOp::create(bb, l, v, int64_t(lane));
      Value at = arith::AddIOp::create(bb, l, lin, cIndex(bb, l, lane * capacity));
      StoreOp::create(bb, l, x, a.buffer, at);
    }
  }

  Value load(OpBuilder &bb, Location l, const ContextArray &a, Value lin) {
    Value v;
    if (a.lanes == 1) {
      v = LoadOp::create(bb, l, a.stored, a.buffer, lin);
    } else {
      SmallVector<Value> lanes;
      for (unsigned lane = 0; lane < a.lanes; ++lane) {
        Value at = arith::AddIOp::create(bb, l, lin, cIndex(bb, l, lane * capacity));
        lanes.push_back(LoadOp::create(bb, l, a.stored, a.buffer, at));
      }
      v = vector::FromElementsOp::create(
          bb, l, VectorType::get({a.lanes}, a.stored), lanes);
    }
    if (getElementTypeOrSelf(a.type).isIndex())
      v = arith::IndexCastOp::create(bb, l, a.type, v);
    return v;
  }

  //--- Reductions --------------------------------------------------------------

  /// Every invocation stores its operand; the fold runs once, where the
  /// reduction was, and its result is a workgroup-level value. Integer
  /// kinds and float min/max give the same bits in any order, so they fold
  /// left to right (LLVM vectorizes that); float sums and products fold in
  /// the named order: left to right for `sequential`, and for `tree` and
  /// `unspecified` the pairwise halving of xpu-expand-reductions, so the
  /// CPU gives the same bits as the GPU backends.
  LogicalResult expandReductions() {
    SmallVector<ReduceOp> ops;
    kernel.walk([&](ReduceOp op) { ops.push_back(op); });
    for (ReduceOp op : ops) {
      Location l = op.getLoc();
      Type t = op.getValue().getType();
      FailureOr<ContextArray> slots = newArray(t, l);
      if (failed(slots))
        return op.emitOpError("cannot reduce a value of type ") << t;
      reloadable.erase(slots->buffer); // the fold rewrites it in place
      OpBuilder bb(op);
      store(bb, l, *slots, op.getValue(), linearFromCoordinates(bb, l));
      Value zero = cIndex(bb, l, 0), one = cIndex(bb, l, 1);
      bool exact = !isa<FloatType>(t) || op.getKind() == ReduceKind::fmin ||
                   op.getKind() == ReduceKind::fmax;
      Value result;
      if (exact || op.getOrder() == ReduceOrder::sequential) {
        // An integer fold starts from the combiner's identity and reads
        // every slot: the loop's trip count is the workgroup's size, so
        // LLVM vectorizes it without a misaligned tail.
        ReduceKind kind = op.getKind();
        Value init, from = one;
        if (isa<IntegerType>(t)) {
          init = arith::ConstantOp::create(bb, l, combinerIdentity(bb, kind, t));
          from = zero;
        } else {
          init = LoadOp::create(bb, l, t, slots->buffer, zero);
          init.getDefiningOp()->setAttr(kOnceAttr, bb.getUnitAttr());
        }
        Value buffer = slots->buffer;
        auto loop = scf::ForOp::create(
            bb, l, from, invocations, one, ValueRange{init},
            [&](OpBuilder &in, Location il, Value i, ValueRange acc) {
              Value next = LoadOp::create(in, il, t, buffer, i);
              scf::YieldOp::create(in, il, combine(in, il, kind, acc[0], next));
            });
        loop->setAttr(kOnceAttr, bb.getUnitAttr());
        result = loop.getResult(0);
      } else {
        result = foldPairwise(bb, l, op.getKind(), *slots);
      }
      op.replaceAllUsesWith(result);
      op.erase();
    }
    return success();
  }

  /// for (s = pow2ceil(n) / 2; s > 0; s /= 2)
  ///   for (i = 0; i < min(s, n - s); ++i) slot[i] = slot[i] op slot[i + s];
  Value foldPairwise(OpBuilder &bb, Location l, ReduceKind kind, const ContextArray &slots) {
    Type t = slots.type;
    Type idx = bb.getIndexType();
    Value zero = cIndex(bb, l, 0), one = cIndex(bb, l, 1);
    auto pow2 = scf::WhileOp::create(bb, l, TypeRange{idx}, ValueRange{one});
    pow2->setAttr(kOnceAttr, bb.getUnitAttr());
    {
      OpBuilder::InsertionGuard g(bb);
      Block *before = bb.createBlock(&pow2.getBefore(), {}, {idx}, {l});
      Value p = before->getArgument(0);
      Value small = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::ult, p, invocations);
      scf::ConditionOp::create(bb, l, small, ValueRange{p});
      Block *after = bb.createBlock(&pow2.getAfter(), {}, {idx}, {l});
      scf::YieldOp::create(bb, l,
                           ValueRange{arith::ShLIOp::create(bb, l, after->getArgument(0), one)});
    }
    Value stride0 = arith::ShRUIOp::create(bb, l, pow2.getResult(0), one);
    stride0.getDefiningOp()->setAttr(kOnceAttr, bb.getUnitAttr());
    auto rounds = scf::WhileOp::create(bb, l, TypeRange{idx}, ValueRange{stride0});
    rounds->setAttr(kOnceAttr, bb.getUnitAttr());
    {
      OpBuilder::InsertionGuard g(bb);
      Block *before = bb.createBlock(&rounds.getBefore(), {}, {idx}, {l});
      Value s = before->getArgument(0);
      Value more = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::ugt, s, zero);
      scf::ConditionOp::create(bb, l, more, ValueRange{s});
      Block *after = bb.createBlock(&rounds.getAfter(), {}, {idx}, {l});
      Value s2 = after->getArgument(0);
      Value rest = arith::SubIOp::create(bb, l, invocations, s2);
      Value count = arith::MinUIOp::create(bb, l, s2, rest);
      auto pairs = scf::ForOp::create(bb, l, zero, count, one);
      {
        OpBuilder::InsertionGuard g2(bb);
        bb.setInsertionPoint(pairs.getBody()->getTerminator());
        Value i = pairs.getInductionVar();
        Value j = arith::AddIOp::create(bb, l, i, s2);
        Value mine = LoadOp::create(bb, l, t, slots.buffer, i);
        Value theirs = LoadOp::create(bb, l, t, slots.buffer, j);
        StoreOp::create(bb, l, combine(bb, l, kind, mine, theirs), slots.buffer, i);
      }
      scf::YieldOp::create(bb, l, ValueRange{arith::ShRUIOp::create(bb, l, s2, one)});
    }
    auto result = LoadOp::create(bb, l, t, slots.buffer, zero);
    result->setAttr(kOnceAttr, bb.getUnitAttr());
    return result;
  }

  //--- Carried values of constructs that synchronize ---------------------------

  /// scf.for / scf.while / scf.if around a barrier keep no SSA value across
  /// it: what they carry or yield moves to context arrays, each invocation
  /// storing and loading its own slot.
  LogicalResult demoteCarriedValues() {
    SmallVector<Operation *> constructs;
    kernel.walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op) && containsSynchronization(op))
        constructs.push_back(op);
    });
    for (Operation *op : constructs) {
      LogicalResult r = success();
      if (auto f = dyn_cast<scf::ForOp>(op))
        r = demote(f);
      else if (auto w = dyn_cast<scf::WhileOp>(op))
        r = demote(w);
      else
        r = demote(cast<scf::IfOp>(op));
      if (failed(r))
        return failure();
    }
    return success();
  }

  FailureOr<SmallVector<ContextArray>> arraysOf(TypeRange types, Location l) {
    SmallVector<ContextArray> out;
    for (Type t : types) {
      FailureOr<ContextArray> a = newArray(t, l);
      if (failed(a)) {
        emitError(l) << "XPU-CPU004: the CPU backend cannot carry a value of type "
                     << t << " across a barrier";
        return failure();
      }
      out.push_back(*a);
    }
    return out;
  }

  void storeAll(OpBuilder &bb, Location l, ArrayRef<ContextArray> as, ValueRange vs) {
    if (as.empty())
      return;
    Value lin = linearFromCoordinates(bb, l);
    for (auto [a, v] : llvm::zip(as, vs))
      store(bb, l, a, v, lin);
  }
  SmallVector<Value> loadAll(OpBuilder &bb, Location l, ArrayRef<ContextArray> as) {
    SmallVector<Value> out;
    if (as.empty())
      return out;
    Value lin = linearFromCoordinates(bb, l);
    for (const ContextArray &a : as)
      out.push_back(load(bb, l, a, lin));
    return out;
  }

  /// Moves the ops of `from` to the end of `to` (before its terminator, if
  /// it has one), replacing `from`'s arguments by `args`.
  static void moveBlock(Block *from, Block *to, ValueRange args) {
    for (auto [old, now] : llvm::zip(from->getArguments(), args))
      old.replaceAllUsesWith(now);
    Block::iterator at = to->empty() || !to->back().hasTrait<OpTrait::IsTerminator>()
                             ? to->end()
                             : Block::iterator(&to->back());
    to->getOperations().splice(at, from->getOperations());
  }

  LogicalResult demote(scf::ForOp op) {
    if (op.getNumResults() == 0)
      return success();
    Location l = op.getLoc();
    auto carried = arraysOf(op.getResultTypes(), l);
    if (failed(carried))
      return failure();
    OpBuilder bb(op);
    storeAll(bb, l, *carried, op.getInitArgs());
    auto now = scf::ForOp::create(bb, l, op.getLowerBound(), op.getUpperBound(),
                                  op.getStep(), {}, nullptr, op.getUnsignedCmp());
    Block *body = now.getBody();
    OpBuilder in = OpBuilder::atBlockBegin(body);
    SmallVector<Value> args{now.getInductionVar()};
    llvm::append_range(args, loadAll(in, l, *carried));
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    moveBlock(op.getBody(), body, args);
    in.setInsertionPoint(yield);
    storeAll(in, l, *carried, yield.getOperands());
    yield.erase();
    bb.setInsertionPointAfter(now);
    op.replaceAllUsesWith(loadAll(bb, l, *carried));
    op.erase();
    return success();
  }

  LogicalResult demote(scf::WhileOp op) {
    Location l = op.getLoc();
    auto beforeArrays = arraysOf(ValueRange(op.getBeforeArguments()).getTypes(), l);
    auto afterArrays = arraysOf(ValueRange(op.getAfterArguments()).getTypes(), l);
    if (failed(beforeArrays) || failed(afterArrays))
      return failure();
    if (beforeArrays->empty() && afterArrays->empty())
      return success();
    OpBuilder bb(op);
    storeAll(bb, l, *beforeArrays, op.getInits());
    auto now = scf::WhileOp::create(bb, l, TypeRange{}, ValueRange{});
    Block *before = bb.createBlock(&now.getBefore());
    Block *after = bb.createBlock(&now.getAfter());

    OpBuilder in = OpBuilder::atBlockBegin(before);
    SmallVector<Value> bargs = loadAll(in, l, *beforeArrays);
    scf::ConditionOp cond = op.getConditionOp();
    moveBlock(op.getBeforeBody(), before, bargs);
    in.setInsertionPoint(cond);
    storeAll(in, l, *afterArrays, cond.getArgs());
    scf::ConditionOp::create(in, l, cond.getCondition(), ValueRange{});
    cond.erase();

    in.setInsertionPointToStart(after);
    SmallVector<Value> aargs = loadAll(in, l, *afterArrays);
    scf::YieldOp yield = op.getYieldOp();
    moveBlock(op.getAfterBody(), after, aargs);
    in.setInsertionPoint(yield);
    storeAll(in, l, *beforeArrays, yield.getOperands());
    scf::YieldOp::create(in, l);
    yield.erase();

    bb.setInsertionPointAfter(now);
    op.replaceAllUsesWith(loadAll(bb, l, *afterArrays));
    op.erase();
    return success();
  }

  LogicalResult demote(scf::IfOp op) {
    if (op.getNumResults() == 0)
      return success();
    Location l = op.getLoc();
    auto results = arraysOf(op.getResultTypes(), l);
    if (failed(results))
      return failure();
    OpBuilder bb(op);
    bool hasElse = !op.getElseRegion().empty();
    auto now = scf::IfOp::create(bb, l, TypeRange{}, op.getCondition(), hasElse);
    auto moveBranch = [&](Region &from, Region &to) {
      if (from.empty())
        return;
      auto yield = cast<scf::YieldOp>(from.front().getTerminator());
      moveBlock(&from.front(), &to.front(), {});
      OpBuilder in(yield);
      storeAll(in, l, *results, yield.getOperands());
      yield.erase();
    };
    moveBranch(op.getThenRegion(), now.getThenRegion());
    moveBranch(op.getElseRegion(), now.getElseRegion());
    bb.setInsertionPointAfter(now);
    op.replaceAllUsesWith(loadAll(bb, l, *results));
    op.erase();
    return success();
  }

  //--- Region formation ----------------------------------------------------------

  bool insideNest(Operation *op) {
    for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp())
      if (p->hasAttr(kDimAttr))
        return true;
    return false;
  }
  WorkItemNest *nestOf(Operation *op) {
    for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp())
      if (auto it = nestOfInnermost.find(p); it != nestOfInnermost.end())
        return it->second;
    return nullptr;
  }

  /// Pure code whose operands are all workgroup-level stays outside the
  /// loops: it computes the same value for every invocation.
  bool staysOutside(Operation *op, const llvm::SmallPtrSetImpl<Operation *> &run) {
    if (op->getNumRegions() || isInvocationCoordinate(op) || !isMemoryEffectFree(op))
      return false;
    for (Value v : op->getOperands()) {
      if (Operation *def = v.getDefiningOp()) {
        if (run.contains(def) || insideNest(def))
          return false;
      } else if (insideNest(v.getParentBlock()->getParentOp()) ||
                 v.getParentBlock()->getParentOp()->hasAttr(kDimAttr)) {
        return false;
      }
    }
    return true;
  }

  void formBlock(Block *block) {
    SmallVector<Operation *> ops;
    Block::iterator from = block->begin();
    if (prelude->getBlock() == block) // the set-up is workgroup-level already
      from = std::next(Block::iterator(prelude));
    for (Operation &op : llvm::make_range(from, Block::iterator(block->getTerminator())))
      ops.push_back(&op);
    SmallVector<Operation *> run;
    llvm::SmallPtrSet<Operation *, 16> inRun;
    auto flush = [&] {
      if (!run.empty())
        makeNest(run);
      run.clear();
      inRun.clear();
    };
    for (Operation *op : ops) {
      if (synchronizes(op)) {
        flush();
        if (isa<BarrierOp>(op)) {
          op->erase();
        } else if (!op->hasAttr(kOnceAttr)) {
          for (Region &r : op->getRegions())
            for (Block &inner : r)
              formBlock(&inner);
        }
        continue;
      }
      if (staysOutside(op, inRun)) {
        if (!run.empty())
          op->moveBefore(run.front());
        continue;
      }
      run.push_back(op);
      inRun.insert(op);
    }
    flush();
  }

  /// Wraps `run` (consecutive ops of one block) in loops over z, y, x; an
  /// axis of fixed extent 1 gets no loop.
  void makeNest(ArrayRef<Operation *> run) {
    auto nest = std::make_unique<WorkItemNest>();
    Location l = run.front()->getLoc();
    OpBuilder bb(run.front());
    Value zero = cIndex(bb, l, 0), one = cIndex(bb, l, 1);
    Operation *innermost = nullptr;
    for (int d = 2; d >= 0; --d) {
      if (fixedSize[d] && *fixedSize[d] == 1) {
        nest->tid[d] = zero;
        continue;
      }
      auto loop = scf::ForOp::create(bb, l, zero, size[d], one);
      loop->setAttr(kDimAttr, bb.getI64IntegerAttr(d));
      if (!nest->outer)
        nest->outer = loop;
      nest->tid[d] = loop.getInductionVar();
      nest->loop[d] = loop;
      innermost = loop;
      bb.setInsertionPoint(loop.getBody()->getTerminator());
    }
    if (!innermost) {
      // A workgroup of one invocation: a loop of one trip keeps the shape.
      auto loop = scf::ForOp::create(bb, l, zero, one, one);
      loop->setAttr(kDimAttr, bb.getI64IntegerAttr(0));
      nest->outer = innermost = loop;
      nest->tid[0] = loop.getInductionVar();
      nest->loop[0] = loop;
      bb.setInsertionPoint(loop.getBody()->getTerminator());
    }
    nest->body = cast<scf::ForOp>(innermost).getBody();
    Value yz = arith::AddIOp::create(bb, l, nest->tid[1],
                                     arith::MulIOp::create(bb, l, nest->tid[2], size[1]));
    nest->lin = arith::AddIOp::create(bb, l, nest->tid[0],
                                      arith::MulIOp::create(bb, l, yz, size[0]));
    Operation *terminator = nest->body->getTerminator();
    for (Operation *op : run)
      op->moveBefore(terminator);
    nest->firstOp = run.front();
    nestOfInnermost[innermost] = nest.get();
    nests.push_back(std::move(nest));
  }

  //--- Values used across regions --------------------------------------------

  /// Ops of `from` that recompute `v` at another nest, operands first; empty
  /// when `v` reads memory or costs too much to recompute.
  bool rematerializable(Value v, WorkItemNest *from, SetVector<Operation *> &chain) {
    Operation *def = v.getDefiningOp();
    if (!def) {
      // An outer block argument can be used anywhere after it.
      Operation *owner = v.getParentBlock()->getParentOp();
      return !owner->hasAttr(kDimAttr) && !insideNest(owner);
    }
    if (nestOf(def) != from)
      return true; // outer
    if (chain.contains(def))
      return true;
    // A context array slot is written only where its value is made, so
    // reading it again later gives the same value.
    auto load = dyn_cast<LoadOp>(def);
    bool slot = load && reloadable.contains(load.getBuffer());
    if (!slot && (def->getNumRegions() || !isMemoryEffectFree(def)))
      return false;
    for (Value operand : def->getOperands())
      if (!rematerializable(operand, from, chain))
        return false;
    chain.insert(def);
    return chain.size() <= kMaxRematOps;
  }

  LogicalResult connectRegions() {
    // Replicated allocations go once no nest's first op can be one of them.
    SmallVector<Operation *> replaced;
    llvm::scope_exit eraseReplaced([&] {
      for (Operation *op : replaced)
        op->erase();
    });
    for (auto &nestPtr : nests) {
      WorkItemNest *from = nestPtr.get();
      SmallVector<Operation *> ops;
      for (Operation &op : *from->body)
        ops.push_back(&op);
      // Loads and recomputations made per destination nest.
      llvm::DenseMap<std::pair<Value, WorkItemNest *>, Value> carried;
      for (Operation *def : ops) {
        for (Value v : def->getResults()) {
          SmallVector<OpOperand *> outside;
          for (OpOperand &use : v.getUses())
            if (nestOf(use.getOwner()) != from)
              outside.push_back(&use);
          if (outside.empty())
            continue;
          if (auto alloc = dyn_cast<AllocOp>(def)) {
            if (failed(replicatePrivate(alloc)))
              return failure();
            replaced.push_back(alloc);
            continue;
          }
          SetVector<Operation *> chain;
          bool remat = rematerializable(v, from, chain);
          // A buffer has no context-array slot; one the nest computes
          // without reading memory (xpu.dynamic_shared) is computed again.
          if (isa<BufferType>(v.getType()) &&
              (!remat || llvm::any_of(outside, [&](OpOperand *use) {
                 return !nestOf(use->getOwner());
               })))
            return def->emitOpError("XPU-CPU004: the CPU backend cannot use a "
                                    "buffer chosen per invocation across a "
                                    "barrier");
          std::optional<ContextArray> array;
          for (OpOperand *use : outside) {
            WorkItemNest *to = nestOf(use->getOwner());
            Value now;
            if (to && carried.count({v, to})) {
              now = carried[{v, to}];
            } else if (to && remat) {
              OpBuilder bb(to->firstOp);
              IRMapping map;
              for (Operation *op : chain)
                bb.clone(*op, map);
              now = map.lookup(v);
              carried[{v, to}] = now;
            } else {
              if (!array) {
                FailureOr<ContextArray> a = arrayFor(v);
                if (failed(a))
                  return failure();
                array = *a;
                OpBuilder bb(def);
                bb.setInsertionPointAfter(def);
                store(bb, def->getLoc(), *array, v, from->lin);
              }
              if (to) {
                OpBuilder bb(to->firstOp);
                now = load(bb, v.getLoc(), *array, to->lin);
                carried[{v, to}] = now;
              } else {
                // Read once per workgroup: the value is uniform (checked by
                // checkSynchronization), so invocation 0's copy serves.
                OpBuilder bb(use->getOwner());
                now = load(bb, v.getLoc(), *array, cIndex(bb, v.getLoc(), 0));
              }
            }
            use->set(now);
          }
        }
      }
    }
    return success();
  }

  /// A private buffer used in several regions becomes one slice per
  /// invocation of a larger allocation.
  LogicalResult replicatePrivate(AllocOp alloc) {
    BufferType type = alloc.getResult().getType();
    Location l = alloc.getLoc();
    MLIRContext *ctx = b.getContext();
    Type mem = type.getElementType().isInteger(1) ? IntegerType::get(ctx, 8)
                                                  : type.getElementType();
    int64_t perInvocation = type.getSize();
    atPrelude();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    Value one = LLVM::ConstantOp::create(b, l, b.getI64Type(), 1);
    auto arrayTy = LLVM::LLVMArrayType::get(mem, uint64_t(perInvocation * capacity));
    auto base = LLVM::AllocaOp::create(b, l, ptrTy, arrayTy, one, 16);
    advancePrelude(base);
    contextBytes += uint64_t(perInvocation) * capacity *
                    std::max(1u, mem.getIntOrFloatBitWidth() / 8);
    llvm::DenseMap<WorkItemNest *, Value> views;
    auto viewIn = [&](WorkItemNest *n) -> Value {
      Value &v = views[n];
      if (v)
        return v;
      OpBuilder bb(n->firstOp);
      Value off = arith::MulIOp::create(bb, l, n->lin, cIndex(bb, l, perInvocation));
      Value off64 = arith::IndexCastOp::create(bb, l, bb.getI64Type(), off);
      Value at = LLVM::GEPOp::create(bb, l, ptrTy, mem, base, ValueRange{off64});
      v = ViewOp::create(bb, l, type, at);
      return v;
    };
    for (OpOperand &use : llvm::make_early_inc_range(alloc.getResult().getUses())) {
      WorkItemNest *n = nestOf(use.getOwner());
      if (!n)
        return use.getOwner()->emitOpError(
            "uses a private buffer outside the invocations' code");
      use.set(viewIn(n));
    }
    return success();
  }

  //--- Guards as loop bounds ---------------------------------------------------

  /// When all a nest does is under one `if` whose condition includes
  /// comparisons of a thread id or global id with workgroup-level values
  /// (`if (gid < n)`, `if (t < stride)`, `if (x >= 1 && x < w - 1)`), those
  /// comparisons become the bounds of the nest's loops instead: the same
  /// invocations run, with no test per invocation and no masks.
  void boundsFromGuard(WorkItemNest &n) {
    scf::IfOp guard;
    for (Operation &op : n.body->without_terminator()) {
      if (isMemoryEffectFree(&op))
        continue;
      auto ifOp = dyn_cast<scf::IfOp>(op);
      if (guard || !ifOp || ifOp.getNumResults() || !ifOp.getElseRegion().empty())
        return;
      guard = ifOp;
    }
    if (!guard)
      return;
    SmallVector<Value> conjuncts, rest;
    std::function<void(Value)> split = [&](Value c) {
      if (auto a = c.getDefiningOp<arith::AndIOp>()) {
        split(a.getLhs());
        split(a.getRhs());
      } else {
        conjuncts.push_back(c);
      }
    };
    split(guard.getCondition());
    OpBuilder b(n.outer);
    Location l = guard.getLoc();
    Value lo[3], hi[3];
    bool changed = false;
    for (Value c : conjuncts) {
      auto cmp = c.getDefiningOp<arith::CmpIOp>();
      std::optional<unsigned> dim;
      Value bound;
      arith::CmpIPredicate pred;
      if (cmp && cmp.getLhs().getType().isIndex()) {
        for (auto [x, y, p] : {std::tuple{cmp.getLhs(), cmp.getRhs(), cmp.getPredicate()},
                               std::tuple{cmp.getRhs(), cmp.getLhs(),
                                          swapSides(cmp.getPredicate())}}) {
          if (dim || insideNest(y.getDefiningOp() ? y.getDefiningOp()
                                                  : y.getParentBlock()->getParentOp()) ||
              y.getParentBlock()->getParentOp()->hasAttr(kDimAttr))
            continue;
          if (std::optional<unsigned> d = axisOf(n, x)) {
            dim = d;
            bound = y;
            pred = p;
          }
        }
      }
      if (!dim || pred == arith::CmpIPredicate::eq || pred == arith::CmpIPredicate::ne) {
        rest.push_back(c);
        continue;
      }
      unsigned d = *dim;
      bool global = n.tid[d] != c.getDefiningOp<arith::CmpIOp>().getLhs() &&
                    n.tid[d] != c.getDefiningOp<arith::CmpIOp>().getRhs();
      Value base = global ? groupBase[d] : cIndex(b, l, 0);
      scf::ForOp loop = n.loop[d];
      auto [from, to] = rangeWhere(b, l, pred, base, size[d], bound);
      lo[d] = lo[d] ? Value(arith::MaxUIOp::create(b, l, lo[d], from)) : from;
      hi[d] = hi[d] ? Value(arith::MinUIOp::create(b, l, hi[d], to)) : to;
      (void)loop;
      changed = true;
    }
    if (!changed)
      return;
    for (unsigned d = 0; d < 3; ++d) {
      if (!lo[d])
        continue;
      n.loop[d].getLowerBoundMutable().assign(lo[d]);
      n.loop[d].getUpperBoundMutable().assign(hi[d]);
    }
    OpBuilder gb(guard);
    Value cond = rest.empty() ? Value(arith::ConstantIntOp::create(gb, l, gb.getI1Type(), 1))
                              : rest.front();
    for (size_t i = 1; i < rest.size(); ++i)
      cond = arith::AndIOp::create(gb, l, cond, rest[i]);
    guard.getConditionMutable().assign(cond);
  }

  /// A comparison of a thread or global id with a workgroup-level value:
  /// its axis, its predicate with the id on the left, and the value.
  std::optional<std::tuple<unsigned, arith::CmpIPredicate, Value, bool>>
  idComparison(WorkItemNest &n, Value c) {
    auto cmp = c.getDefiningOp<arith::CmpIOp>();
    if (!cmp || !cmp.getLhs().getType().isIndex())
      return std::nullopt;
    for (auto [x, y, p] : {std::tuple{cmp.getLhs(), cmp.getRhs(), cmp.getPredicate()},
                           std::tuple{cmp.getRhs(), cmp.getLhs(), swapSides(cmp.getPredicate())}}) {
      Operation *owner = y.getDefiningOp() ? y.getDefiningOp() : y.getParentBlock()->getParentOp();
      if (insideNest(owner) || (!y.getDefiningOp() && owner->hasAttr(kDimAttr)))
        continue;
      if (p == arith::CmpIPredicate::eq || p == arith::CmpIPredicate::ne)
        continue;
      if (std::optional<unsigned> d = axisOf(n, x))
        return std::tuple{*d, p, y, x != n.tid[*d]};
    }
    return std::nullopt;
  }

  /// Index-set splitting: an `if` in the nest's body whose condition is one
  /// comparison of a thread or global id splits that axis' loop in two,
  /// the invocations where it holds and those where it does not, each
  /// running only its branch (iterations keep their order).
  void splitAtCondition(WorkItemNest &n) {
    scf::IfOp ifOp;
    std::optional<std::tuple<unsigned, arith::CmpIPredicate, Value, bool>> cmp;
    for (Operation &op : n.body->without_terminator())
      if (auto candidate = dyn_cast<scf::IfOp>(op))
        if ((cmp = idComparison(n, candidate.getCondition()))) {
          ifOp = candidate;
          break;
        }
    if (!ifOp)
      return;
    auto [d, pred, bound, global] = *cmp;
    scf::ForOp loop = n.loop[d];
    OpBuilder b(n.outer);
    Location l = ifOp.getLoc();
    Value base = global ? groupBase[d] : cIndex(b, l, 0);
    auto [from, to] = rangeWhere(b, l, pred, base, size[d], bound);
    using P = arith::CmpIPredicate;
    bool prefix = pred == P::ult || pred == P::ule || pred == P::slt || pred == P::sle;
    Value edge = prefix ? to : from;
    OpBuilder lb(loop);
    Value at = arith::MinUIOp::create(
        lb, l, arith::MaxUIOp::create(lb, l, edge, loop.getLowerBound()), loop.getUpperBound());
    lb.setInsertionPointAfter(loop);
    IRMapping map;
    auto second = cast<scf::ForOp>(lb.clone(*loop, map));
    loop.getUpperBoundMutable().assign(at);
    second.getLowerBoundMutable().assign(at);
    auto secondIf = cast<scf::IfOp>(map.lookup(ifOp.getOperation()));
    inlineBranch(ifOp, prefix ? ifOp.getThenRegion() : ifOp.getElseRegion());
    inlineBranch(secondIf, prefix ? secondIf.getElseRegion() : secondIf.getThenRegion());
  }

  /// Replaces `ifOp` by the ops of one of its branches (nothing for an
  /// absent else).
  static void inlineBranch(scf::IfOp ifOp, Region &branch) {
    if (!branch.empty()) {
      Block &block = branch.front();
      auto yield = cast<scf::YieldOp>(block.getTerminator());
      ifOp->replaceAllUsesWith(yield.getOperands());
      yield.erase();
      ifOp->getBlock()->getOperations().splice(Block::iterator(ifOp), block.getOperations());
    }
    ifOp.erase();
  }

  /// The axis whose invocations `x` numbers: the thread id itself, or the
  /// global id (the group's first global id + the thread id); the axis must
  /// have a loop.
  std::optional<unsigned> axisOf(WorkItemNest &n, Value x) {
    for (unsigned d = 0; d < 3; ++d) {
      if (!n.loop[d])
        continue;
      if (x == n.tid[d])
        return d;
      if (auto add = x.getDefiningOp<arith::AddIOp>())
        if ((add.getLhs() == groupBase[d] && add.getRhs() == n.tid[d]) ||
            (add.getRhs() == groupBase[d] && add.getLhs() == n.tid[d]))
          return d;
    }
    return std::nullopt;
  }

  //--- Coordinates -------------------------------------------------------------

  LogicalResult lowerCoordinates() {
    SmallVector<Operation *> coords;
    kernel.walk([&](Operation *op) {
      if (isa<ThreadIdOp, GlobalIdOp>(op))
        coords.push_back(op);
    });
    for (Operation *op : coords) {
      WorkItemNest *n = nestOf(op);
      if (!n)
        return op->emitOpError("is outside every work-item loop (internal error)");
      OpBuilder bb(op);
      Value v;
      if (auto t = dyn_cast<ThreadIdOp>(op)) {
        v = n->tid[unsigned(t.getDim())];
      } else {
        unsigned d = unsigned(cast<GlobalIdOp>(op).getDim());
        v = arith::AddIOp::create(bb, op->getLoc(), groupBase[d], n->tid[d]);
      }
      op->getResult(0).replaceAllUsesWith(v);
      op->erase();
    }
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Helpers: the invocation's thread id becomes explicit parameters
//===----------------------------------------------------------------------===//

/// Device functions that read the thread or global id (directly or through
/// calls) take the thread id as three trailing index parameters; callers
/// pass theirs (kernels: the coordinates, which region formation replaces).
void threadIdsIntoHelpers(ModuleOp module) {
  llvm::DenseSet<Operation *> needs;
  llvm::DenseMap<StringRef, FuncOp> byName;
  for (FuncOp fn : module.getOps<FuncOp>())
    byName[fn.getSymName()] = fn;
  for (bool changed = true; changed;) {
    changed = false;
    for (FuncOp fn : module.getOps<FuncOp>()) {
      if (needs.contains(fn))
        continue;
      bool uses = fn.walk([&](Operation *op) {
                      if (isa<ThreadIdOp, GlobalIdOp>(op))
                        return WalkResult::interrupt();
                      if (auto call = dyn_cast<CallOp>(op))
                        if (needs.contains(byName.lookup(call.getCallee())))
                          return WalkResult::interrupt();
                      return WalkResult::advance();
                    })
                      .wasInterrupted();
      if (uses) {
        needs.insert(fn);
        changed = true;
      }
    }
  }
  if (needs.empty())
    return;
  MLIRContext *ctx = module.getContext();
  Type idx = IndexType::get(ctx);
  llvm::DenseMap<Operation *, unsigned> firstTid; // where each one's ids start
  for (Operation *op : needs) {
    auto fn = cast<FuncOp>(op);
    unsigned n = fn.getNumArguments();
    firstTid[fn] = n;
    for (unsigned d = 0; d < 3; ++d)
      (void)fn.insertArgument(n + d, idx, DictionaryAttr::get(ctx), fn.getLoc());
  }
  module.walk([&](CallOp call) {
    if (!needs.contains(byName.lookup(call.getCallee())))
      return;
    OpBuilder b(call);
    SmallVector<Value> operands(call.getOperands());
    auto caller = call->getParentOfType<FunctionOpInterface>();
    for (unsigned d = 0; d < 3; ++d) {
      // A helper that calls one that needs them needs them itself.
      Value id = isa<KernelOp>(caller)
                     ? Value(ThreadIdOp::create(b, call.getLoc(), Dim(d)))
                     : caller.getArgument(firstTid.lookup(caller) + d);
      operands.push_back(id);
    }
    call->setOperands(operands);
  });
  for (Operation *op : needs) {
    auto fn = cast<FuncOp>(op);
    unsigned n = firstTid[fn];
    SmallVector<Operation *> coords;
    fn.walk([&](Operation *c) {
      if (isa<ThreadIdOp, GlobalIdOp>(c))
        coords.push_back(c);
    });
    for (Operation *c : coords) {
      OpBuilder b(c);
      Value v;
      if (auto t = dyn_cast<ThreadIdOp>(c)) {
        v = fn.getArgument(n + unsigned(t.getDim()));
      } else {
        Dim d = cast<GlobalIdOp>(c).getDim();
        Value wg = WorkgroupIdOp::create(b, c->getLoc(), d);
        Value sz = WorkgroupSizeOp::create(b, c->getLoc(), d);
        v = arith::AddIOp::create(b, c->getLoc(),
                                  arith::MulIOp::create(b, c->getLoc(), wg, sz),
                                  fn.getArgument(n + unsigned(d)));
      }
      c->getResult(0).replaceAllUsesWith(v);
      c->erase();
    }
  }
}

struct CPUWorkItemLoopsPass
    : xpu::impl::CPUWorkItemLoopsBase<CPUWorkItemLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (FuncOp fn : module.getOps<FuncOp>()) {
      if (fn.walk([](Operation *op) {
              return isa<BarrierOp, ReduceOp>(op) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
            }).wasInterrupted()) {
        fn.emitError("XPU-CPU005: device function '")
            << fn.getSymName()
            << "' synchronizes the workgroup and could not be inlined into its "
               "kernels (inline helpers with barriers first)";
        return signalPassFailure();
      }
    }
    threadIdsIntoHelpers(module);
    for (KernelOp kernel : llvm::make_early_inc_range(module.getOps<KernelOp>())) {
      KernelFormer former(kernel);
      if (failed(former.run()))
        return signalPassFailure();
      kernel->setAttr("xpu.work_item_loops", UnitAttr::get(&getContext()));
    }
  }
};

} // namespace
