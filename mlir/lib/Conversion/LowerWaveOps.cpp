// Lowers wave operations to NVIDIA (shfl.sync, vote.sync, redux.sync), AMD
// (ds_bpermute, ds_swizzle, ballot) and SPIR-V (GroupNonUniform*)
// instructions; the CPU's one-lane waves are WaveOpsCPU.cpp. See Passes.td.
#include "WaveOps.h"

#include "xpu/Dialect/XPU/IR/Combiners.h"
#include "xpu/Dialect/XPU/IR/Invocation.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace xpu {
#define GEN_PASS_DEF_LOWERWAVEOPS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value l, Value r) {
  return arith::CmpIOp::create(b, loc, p, l, r);
}

/// The invocation's lane and what the target needs to know about its
/// wave's live lanes (i32 values).
struct Lanes {
  Value lane;
  Value count; ///< GPUs: live lanes, which are lanes 0 .. count-1
  Value live;  ///< NVIDIA: the live-lane mask (shfl.sync's member mask)
};

/// What a target provides for exchanging 32-bit words inside a wave.
class WaveTarget {
public:
  virtual ~WaveTarget() = default;
  virtual Lanes lanes(OpBuilder &b, Location loc) = 0;
  /// Whether lane `src` (any i32) is a live lane of the wave.
  virtual Value isLive(OpBuilder &b, Location loc, const Lanes &l, Value src) = 0;
  /// Lane `src`'s `word`; `src` must be a live lane.
  virtual Value readLane(OpBuilder &b, Location loc, const Lanes &l, Value word,
                         Value src) = 0;
  /// Lane `src`'s `value` (any wave value type): 64-bit ones as two words.
  virtual Value readValue(OpBuilder &b, Location loc, const Lanes &l, Value value,
                          Value src) {
    return mapWords(b, loc, value, [&](Value w) { return readLane(b, loc, l, w, src); });
  }
  /// Lane (lane ^ k)'s `word`, for a constant k below the wave width.
  virtual Value readXor(OpBuilder &b, Location loc, const Lanes &l, Value word,
                        unsigned k) {
    Value src = arith::XOrIOp::create(b, loc, l.lane, i32Const(b, loc, k));
    return readLane(b, loc, l, word, src);
  }
  /// The ballot of `pred` over the live lanes, as xpu.wave_ballot's
  /// vector<4xi32>.
  virtual Value ballot(OpBuilder &b, Location loc, const Lanes &l, Value pred) = 0;
  virtual Value vote(OpBuilder &b, Location loc, const Lanes &l, WaveVoteKind kind,
                     Value pred) = 0;
  /// A native reduction (no scan: `scan` unset) or scan of `value` over the
  /// live lanes, or null.
  virtual Value native(OpBuilder &, Location, const Lanes &, ReduceKind, Value,
                       std::optional<WaveScanKind>) {
    return {};
  }
};

/// A ballot mask from its low 32-bit words; the missing words are 0.
Value maskOfWords(OpBuilder &b, Location loc, SmallVector<Value, 4> words) {
  while (words.size() < 4)
    words.push_back(i32Const(b, loc, 0));
  return vector::FromElementsOp::create(b, loc, VectorType::get({4}, b.getI32Type()),
                                        words);
}

/// NVIDIA and AMD: waves are consecutive linear invocation indices, so the
/// wave of linear index i starts at i & ~(width - 1) and has min(width,
/// invocations - start) live lanes.
Lanes linearLanes(OpBuilder &b, Location loc, unsigned width) {
  Type i32 = b.getI32Type();
  auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  LinearInvocation inv = linearInvocation(b, loc);
  Value linear = inv.index, total = inv.count;
  Value start = arith::AndIOp::create(b, loc, linear, idx(~int64_t(width - 1)));
  Value count = arith::MinUIOp::create(b, loc, idx(width),
                                       arith::SubIOp::create(b, loc, total, start));
  Lanes l;
  l.lane = arith::IndexCastUIOp::create(b, loc, i32,
                                        arith::SubIOp::create(b, loc, linear, start));
  l.count = arith::IndexCastUIOp::create(b, loc, i32, count);
  return l;
}

class NVVMWave : public WaveTarget {
public:
  explicit NVVMWave(bool hasRedux) : hasRedux(hasRedux) {}

  /// Plus the member mask (1 << count) - 1, all ones for a full warp (a
  /// shift by 32 is poison).
  Lanes lanes(OpBuilder &b, Location loc) override {
    Lanes l = linearLanes(b, loc, 32);
    Value full = cmp(b, loc, arith::CmpIPredicate::uge, l.count, i32Const(b, loc, 32));
    Value bit = arith::ShLIOp::create(
        b, loc, i32Const(b, loc, 1),
        arith::MinUIOp::create(b, loc, l.count, i32Const(b, loc, 31)));
    l.live = arith::SelectOp::create(
        b, loc, full, i32Const(b, loc, -1),
        arith::SubIOp::create(b, loc, bit, i32Const(b, loc, 1)));
    return l;
  }
  Value isLive(OpBuilder &b, Location loc, const Lanes &l, Value src) override {
    return cmp(b, loc, arith::CmpIPredicate::ult, src, l.count);
  }
  /// c = 0x1f: the whole warp is one segment, lanes clamp at 31.
  Value readLane(OpBuilder &b, Location loc, const Lanes &l, Value word,
                 Value src) override {
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), l.live, word, src,
                                i32Const(b, loc, 0x1f), NVVM::ShflKind::idx,
                                UnitAttr());
  }
  Value readXor(OpBuilder &b, Location loc, const Lanes &l, Value word,
                unsigned k) override {
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), l.live, word,
                                i32Const(b, loc, k), i32Const(b, loc, 0x1f),
                                NVVM::ShflKind::bfly, UnitAttr());
  }
  Value ballot(OpBuilder &b, Location loc, const Lanes &l, Value pred) override {
    return maskOfWords(b, loc, {NVVM::VoteSyncOp::create(b, loc, b.getI32Type(), l.live,
                                                         pred, NVVM::VoteSyncKind::ballot)});
  }
  Value vote(OpBuilder &b, Location loc, const Lanes &l, WaveVoteKind kind,
             Value pred) override {
    return NVVM::VoteSyncOp::create(
        b, loc, b.getI1Type(), l.live, pred,
        kind == WaveVoteKind::any ? NVVM::VoteSyncKind::any : NVVM::VoteSyncKind::all);
  }
  /// redux.sync (sm_80 and later): 32-bit integer add, min, max, and, or, xor.
  Value native(OpBuilder &b, Location loc, const Lanes &l, ReduceKind kind,
               Value value, std::optional<WaveScanKind> scan) override {
    if (!hasRedux || scan || !value.getType().isInteger(32))
      return {};
    std::optional<NVVM::ReduxKind> k;
    switch (kind) {
    case ReduceKind::add: k = NVVM::ReduxKind::ADD; break;
    case ReduceKind::smin: k = NVVM::ReduxKind::MIN; break;
    case ReduceKind::smax: k = NVVM::ReduxKind::MAX; break;
    case ReduceKind::umin: k = NVVM::ReduxKind::UMIN; break;
    case ReduceKind::umax: k = NVVM::ReduxKind::UMAX; break;
    case ReduceKind::and_: k = NVVM::ReduxKind::AND; break;
    case ReduceKind::or_: k = NVVM::ReduxKind::OR; break;
    case ReduceKind::xor_: k = NVVM::ReduxKind::XOR; break;
    default: return {};
    }
    return NVVM::ReduxOp::create(b, loc, value.getType(), value, *k, l.live);
  }

private:
  bool hasRedux;
};

class ROCDLWave : public WaveTarget {
public:
  explicit ROCDLWave(unsigned width) : width(width) {}

  Lanes lanes(OpBuilder &b, Location loc) override { return linearLanes(b, loc, width); }
  Value isLive(OpBuilder &b, Location loc, const Lanes &l, Value src) override {
    return cmp(b, loc, arith::CmpIPredicate::ult, src, l.count);
  }
  /// ds_bpermute addresses lanes in bytes.
  Value readLane(OpBuilder &b, Location loc, const Lanes &, Value word,
                 Value src) override {
    Value addr = arith::ShLIOp::create(b, loc, src, i32Const(b, loc, 2));
    return ROCDL::DsBpermuteOp::create(b, loc, b.getI32Type(), addr, word);
  }
  /// Inside 32 lanes, ds_swizzle's bit mode: lane = ((lane & and) | or) ^ xor
  /// with and = 0x1f, or = 0, xor = k (offset bits 4:0, 9:5, 14:10).
  Value readXor(OpBuilder &b, Location loc, const Lanes &l, Value word,
                unsigned k) override {
    if (k >= 32)
      return WaveTarget::readXor(b, loc, l, word, k);
    return ROCDL::DsSwizzleOp::create(b, loc, b.getI32Type(), word,
                                      i32Const(b, loc, (k << 10) | 0x1f));
  }
  Value ballot(OpBuilder &b, Location loc, const Lanes &, Value pred) override {
    if (width == 32)
      return maskOfWords(b, loc, {ROCDL::BallotOp::create(b, loc, b.getI32Type(), pred)});
    Type i64 = b.getI64Type();
    Value bits = ROCDL::BallotOp::create(b, loc, i64, pred);
    Value hi = arith::ShRUIOp::create(b, loc, bits,
                                      arith::ConstantIntOp::create(b, loc, i64, 32));
    return maskOfWords(b, loc,
                       {arith::TruncIOp::create(b, loc, b.getI32Type(), bits),
                        arith::TruncIOp::create(b, loc, b.getI32Type(), hi)});
  }
  /// The predicate's ballot against the ballot of every live lane (EXEC).
  Value vote(OpBuilder &b, Location loc, const Lanes &, WaveVoteKind kind,
             Value pred) override {
    Type t = b.getIntegerType(width);
    Value bits = ROCDL::BallotOp::create(b, loc, t, pred);
    if (kind == WaveVoteKind::any)
      return cmp(b, loc, arith::CmpIPredicate::ne, bits,
                 arith::ConstantIntOp::create(b, loc, t, 0));
    Value all = ROCDL::BallotOp::create(
        b, loc, t, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    return cmp(b, loc, arith::CmpIPredicate::eq, bits, all);
  }

private:
  unsigned width;
};

/// SPIR-V: the subgroup's own lane id, and its active lanes (which Vulkan
/// does not promise to be consecutive) from a ballot.
class SPIRVWave : public WaveTarget {
public:
  Lanes lanes(OpBuilder &b, Location loc) override {
    Lanes l;
    l.lane = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), LaneIdOp::create(b, loc));
    return l;
  }
  /// src < 128 and bit src of the ballot of every active lane (made here,
  /// so that operations that never test a lane need no ballot capability).
  Value isLive(OpBuilder &b, Location loc, const Lanes &, Value src) override {
    Value mask = spirv::GroupNonUniformBallotOp::create(
        b, loc, VectorType::get({4}, b.getI32Type()), spirv::Scope::Subgroup,
        arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    Value inMask = cmp(b, loc, arith::CmpIPredicate::ult, src, i32Const(b, loc, 128));
    Value wordAt = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, src, i32Const(b, loc, 5)),
        i32Const(b, loc, 3));
    Value word = vector::ExtractOp::create(
        b, loc, mask,
        ArrayRef<OpFoldResult>{arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                                            wordAt).getResult()});
    Value bit = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, word,
                               arith::AndIOp::create(b, loc, src, i32Const(b, loc, 31))),
        i32Const(b, loc, 1));
    Value set = cmp(b, loc, arith::CmpIPredicate::ne, bit, i32Const(b, loc, 0));
    return arith::AndIOp::create(b, loc, inMask, set);
  }
  Value readLane(OpBuilder &b, Location loc, const Lanes &, Value word,
                 Value src) override {
    return spirv::GroupNonUniformShuffleOp::create(b, loc, spirv::Scope::Subgroup,
                                                   word, src);
  }
  /// Subgroup operations on 64-bit integers need shaderSubgroupExtendedTypes;
  /// as two halves they do not. f64 needs nothing more than Float64.
  Value readValue(OpBuilder &b, Location loc, const Lanes &l, Value value,
                  Value src) override {
    if (value.getType().isInteger(64))
      return WaveTarget::readValue(b, loc, l, value, src);
    return readLane(b, loc, l, value, src);
  }
  /// OpGroupNonUniformBallot is xpu.wave_ballot exactly.
  Value ballot(OpBuilder &b, Location loc, const Lanes &, Value pred) override {
    return spirv::GroupNonUniformBallotOp::create(
        b, loc, VectorType::get({4}, b.getI32Type()), spirv::Scope::Subgroup, pred);
  }
  Value vote(OpBuilder &b, Location loc, const Lanes &, WaveVoteKind kind,
             Value pred) override {
    if (kind == WaveVoteKind::any)
      return spirv::GroupNonUniformAnyOp::create(b, loc, spirv::Scope::Subgroup, pred);
    return spirv::GroupNonUniformAllOp::create(b, loc, spirv::Scope::Subgroup, pred);
  }
  Value native(OpBuilder &b, Location loc, const Lanes &, ReduceKind kind, Value value,
               std::optional<WaveScanKind> scan) override {
    spirv::GroupOperation op = !scan ? spirv::GroupOperation::Reduce
                               : *scan == WaveScanKind::inclusive
                                   ? spirv::GroupOperation::InclusiveScan
                                   : spirv::GroupOperation::ExclusiveScan;
    if (kind == ReduceKind::fmin || kind == ReduceKind::fmax)
      return orderedFloat(b, loc, kind, value, op);
    return group(b, loc, kind, value, op);
  }

private:
  template <typename Op>
  static Value make(OpBuilder &b, Location loc, Value v, spirv::GroupOperation op) {
    return Op::create(b, loc, v.getType(), spirv::Scope::Subgroup, op, v, Value());
  }

  static Value group(OpBuilder &b, Location loc, ReduceKind kind, Value v,
                     spirv::GroupOperation op) {
    bool isFloat = isa<FloatType>(v.getType());
    switch (kind) {
    case ReduceKind::add:
      return isFloat ? make<spirv::GroupNonUniformFAddOp>(b, loc, v, op)
                     : make<spirv::GroupNonUniformIAddOp>(b, loc, v, op);
    case ReduceKind::mul:
      return isFloat ? make<spirv::GroupNonUniformFMulOp>(b, loc, v, op)
                     : make<spirv::GroupNonUniformIMulOp>(b, loc, v, op);
    case ReduceKind::smin: return make<spirv::GroupNonUniformSMinOp>(b, loc, v, op);
    case ReduceKind::smax: return make<spirv::GroupNonUniformSMaxOp>(b, loc, v, op);
    case ReduceKind::umin: return make<spirv::GroupNonUniformUMinOp>(b, loc, v, op);
    case ReduceKind::umax: return make<spirv::GroupNonUniformUMaxOp>(b, loc, v, op);
    case ReduceKind::and_: return make<spirv::GroupNonUniformBitwiseAndOp>(b, loc, v, op);
    case ReduceKind::or_: return make<spirv::GroupNonUniformBitwiseOrOp>(b, loc, v, op);
    case ReduceKind::xor_: return make<spirv::GroupNonUniformBitwiseXorOp>(b, loc, v, op);
    case ReduceKind::fmin:
    case ReduceKind::fmax: break;
    }
    llvm_unreachable("float min/max go through orderedFloat");
  }

  /// SPIR-V's FMin/FMax leave NaNs and the order of -0 and +0 undefined.
  /// Instead: floats as integers that order like them (negative values have
  /// their magnitude bits flipped, so -0 < +0), reduced with SMin/SMax, and
  /// a NaN anywhere in range (UMax of an is-NaN flag) gives NaN. An
  /// exclusive scan's identity key (INT_MAX / INT_MIN, NaN bit patterns)
  /// becomes +inf / -inf.
  static Value orderedFloat(OpBuilder &b, Location loc, ReduceKind kind, Value v,
                            spirv::GroupOperation op) {
    auto ft = cast<FloatType>(v.getType());
    unsigned bits = ft.getWidth();
    Type it = b.getIntegerType(bits);
    auto ic = [&](llvm::APInt x) { return arith::ConstantIntOp::create(b, loc, it, x); };
    llvm::APInt magnitude = llvm::APInt::getSignedMaxValue(bits);
    auto flip = [&](Value x) {
      Value sign = arith::ShRSIOp::create(b, loc, x, ic(llvm::APInt(bits, bits - 1)));
      return arith::XOrIOp::create(b, loc, x, arith::AndIOp::create(b, loc, sign, ic(magnitude)));
    };
    Value key = flip(arith::BitcastOp::create(b, loc, it, v));
    bool isMin = kind == ReduceKind::fmin;
    Value folded = group(b, loc, isMin ? ReduceKind::smin : ReduceKind::smax, key, op);
    Value result = arith::BitcastOp::create(b, loc, ft, flip(folded));
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    Value nanFlag = arith::ExtUIOp::create(b, loc, b.getI32Type(), nan);
    Value anyNaN = cmp(b, loc, arith::CmpIPredicate::ne,
                       group(b, loc, ReduceKind::umax, nanFlag, op), i32Const(b, loc, 0));
    if (op == spirv::GroupOperation::ExclusiveScan) {
      llvm::APInt identityKey = isMin ? magnitude : llvm::APInt::getSignedMinValue(bits);
      Value none = cmp(b, loc, arith::CmpIPredicate::eq, folded, ic(identityKey));
      Value inf = arith::ConstantOp::create(
          b, loc, b.getFloatAttr(ft, llvm::APFloat::getInf(ft.getFloatSemantics(), !isMin)));
      result = arith::SelectOp::create(b, loc, none, inf, result);
    }
    Value qnan = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, llvm::APFloat::getQNaN(ft.getFloatSemantics())));
    return arith::SelectOp::create(b, loc, anyNaN, qnan, result);
  }
};

/// Rewrites the wave ops of one function for a target.
class Lowering {
public:
  Lowering(WaveTarget &target, unsigned width) : target(target), width(width) {}

  void run(FunctionOpInterface fn) {
    SmallVector<Operation *> ops;
    fn.walk([&](Operation *op) {
      if (isWaveOp(op))
        ops.push_back(op);
    });
    IRRewriter rw(fn.getContext());
    for (Operation *op : ops) {
      rw.setInsertionPoint(op);
      rw.replaceOp(op, lower(rw, op));
    }
  }

private:
  WaveTarget &target;
  unsigned width; ///< 0: only known on the device (SPIR-V), native ops only

  Value lower(OpBuilder &b, Operation *op) {
    Location loc = op->getLoc();
    Lanes l = target.lanes(b, loc);
    if (auto o = dyn_cast<WaveShuffleOp>(op))
      return shuffle(b, loc, l, o.getValue(),
                     sourceLane(b, loc, o.getMode(), l.lane, o.getOffset()));
    if (auto o = dyn_cast<WaveBroadcastOp>(op))
      return shuffle(b, loc, l, o.getValue(), o.getLane());
    if (auto o = dyn_cast<WaveBallotOp>(op))
      return target.ballot(b, loc, l, o.getPredicate());
    if (auto o = dyn_cast<WaveVoteOp>(op))
      return target.vote(b, loc, l, o.getKind(), o.getPredicate());
    if (auto o = dyn_cast<WaveReduceOp>(op)) {
      if (Value r = target.native(b, loc, l, o.getKind(), o.getValue(), std::nullopt))
        return r;
      return reduce(b, loc, l, o.getKind(), o.getValue());
    }
    auto o = cast<WaveScanOp>(op);
    if (Value r = target.native(b, loc, l, o.getKind(), o.getValue(), o.getScan()))
      return r;
    return scan(b, loc, l, o.getKind(), o.getValue(), o.getScan());
  }

  /// `value` of lane `src` when it is live, else the lane's own.
  Value shuffle(OpBuilder &b, Location loc, const Lanes &l, Value value, Value src) {
    Value from = arith::SelectOp::create(b, loc, target.isLive(b, loc, l, src), src, l.lane);
    return readLane(b, loc, l, value, from);
  }

  Value readLane(OpBuilder &b, Location loc, const Lanes &l, Value value, Value src) {
    return target.readValue(b, loc, l, value, src);
  }

  /// A butterfly toward lane 0: at step k lane L takes lane L ^ k's partial
  /// when that lane is live. The partials lane 0 depends on each cover an
  /// aligned block of lanes starting at their own index, so a lane at or
  /// past the live count stands for lanes that are all missing: skipping it
  /// is exact. Lane 0's result then goes to every lane.
  Value reduce(OpBuilder &b, Location loc, const Lanes &l, ReduceKind kind,
               Value value) {
    Value v = value;
    for (unsigned k = 1; k < width; k <<= 1) {
      Value other = mapWords(b, loc, v, [&](Value w) {
        return target.readXor(b, loc, l, w, k);
      });
      Value src = arith::XOrIOp::create(b, loc, l.lane, i32Const(b, loc, k));
      v = arith::SelectOp::create(b, loc, target.isLive(b, loc, l, src),
                                  combine(b, loc, kind, v, other), v);
    }
    return readLane(b, loc, l, v, i32Const(b, loc, 0));
  }

  /// Hillis-Steele: at step k lane L combines lane L - k's partial (lower
  /// lanes are always live). The exclusive scan shifts the inclusive one up
  /// by a lane.
  Value scan(OpBuilder &b, Location loc, const Lanes &l, ReduceKind kind,
             Value value, WaveScanKind scanKind) {
    Value v = value;
    for (unsigned k = 1; k < width; k <<= 1)
      v = fromLower(b, loc, l, v, k, [&](Value lower, Value mine) {
        return combine(b, loc, kind, lower, mine);
      });
    if (scanKind == WaveScanKind::inclusive)
      return v;
    Value identity = arith::ConstantOp::create(
        b, loc, combinerIdentity(b, kind, value.getType()));
    return fromLower(b, loc, l, v, 1, [](Value lower, Value) { return lower; },
                     identity);
  }

  /// For lanes L >= k, `f(lane L - k's v, v)`; for the others `otherwise`
  /// (their own v when null).
  Value fromLower(OpBuilder &b, Location loc, const Lanes &l, Value v, unsigned k,
                  function_ref<Value(Value, Value)> f, Value otherwise = {}) {
    Value has = cmp(b, loc, arith::CmpIPredicate::uge, l.lane, i32Const(b, loc, k));
    Value src = arith::SelectOp::create(
        b, loc, has, arith::SubIOp::create(b, loc, l.lane, i32Const(b, loc, k)), l.lane);
    Value lower = readLane(b, loc, l, v, src);
    return arith::SelectOp::create(b, loc, has, f(lower, v), otherwise ? otherwise : v);
  }
};

/// redux.sync needs sm_80 or later.
bool nvvmHasRedux(StringRef chip) {
  unsigned sm = 0;
  return chip.consume_front("sm_") &&
         !chip.take_while(llvm::isDigit).getAsInteger(10, sm) && sm >= 80;
}

struct LowerWaveOpsPass : xpu::impl::LowerWaveOpsBase<LowerWaveOpsPass> {
  using LowerWaveOpsBase::LowerWaveOpsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target == "cpu") {
      lowerWaveOpsForOneLane(module);
      return;
    }
    NVVMWave nvvm(nvvmHasRedux(chip));
    ROCDLWave rocdl(waveWidth);
    SPIRVWave spirv;
    WaveTarget *t = nullptr;
    unsigned width = waveWidth;
    if (target == "nvvm" && waveWidth == 32)
      t = &nvvm;
    else if (target == "rocdl" && (waveWidth == 32 || waveWidth == 64))
      t = &rocdl;
    else if (target == "spirv")
      t = &spirv, width = 0;
    if (!t) {
      module.emitError() << "target '" << target << "' with wave-width " << unsigned(waveWidth)
                         << " is not one of cpu, nvvm (32), rocdl (32, 64), spirv";
      return signalPassFailure();
    }
    module.walk([&](FunctionOpInterface fn) {
      if (isa<KernelOp, FuncOp>(fn))
        Lowering(*t, width).run(fn);
    });
  }
};

} // namespace

namespace xpu {

bool isWaveOp(Operation *op) {
  return isa<WaveShuffleOp, WaveBroadcastOp, WaveBallotOp, WaveVoteOp, WaveReduceOp,
             WaveScanOp>(op);
}

Value sourceLane(OpBuilder &b, Location loc, WaveShuffleMode mode, Value lane,
                 Value offset) {
  switch (mode) {
  case WaveShuffleMode::xor_:
    return arith::XOrIOp::create(b, loc, lane, offset);
  case WaveShuffleMode::up:
    return arith::SubIOp::create(b, loc, lane, offset);
  case WaveShuffleMode::down:
    return arith::AddIOp::create(b, loc, lane, offset);
  case WaveShuffleMode::index:
    return offset;
  }
  llvm_unreachable("shuffle mode");
}

Value mapWords(OpBuilder &b, Location loc, Value value,
               function_ref<Value(Value)> f) {
  Type t = value.getType();
  Type i32 = b.getI32Type();
  unsigned bits = t.getIntOrFloatBitWidth();
  Type asInt = b.getIntegerType(bits);
  Value v = isa<FloatType>(t) ? Value(arith::BitcastOp::create(b, loc, asInt, value))
                              : value;
  Value r;
  if (bits == 32) {
    r = f(v);
  } else {
    Value c32 = arith::ConstantIntOp::create(b, loc, asInt, 32);
    Value lo = f(arith::TruncIOp::create(b, loc, i32, v));
    Value hi = f(arith::TruncIOp::create(b, loc, i32,
                                         arith::ShRUIOp::create(b, loc, v, c32)));
    r = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, asInt, lo),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, asInt, hi), c32));
  }
  return isa<FloatType>(t) ? Value(arith::BitcastOp::create(b, loc, t, r)) : r;
}

} // namespace xpu
