// The gpu dialect front end, collectives: coordinates and wave ids,
// barriers, atomics on memrefs, workgroup reductions and wave operations
// (shuffles, rotations, subgroup reductions), each mapped onto the xpu op
// that every backend already lowers (one lowering per construct).
#include "Importer.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace xpu;
using namespace xpu::gpuimport;

namespace {

Dim toDim(gpu::Dimension d) {
  switch (d) {
  case gpu::Dimension::x:
    return Dim::x;
  case gpu::Dimension::y:
    return Dim::y;
  case gpu::Dimension::z:
    return Dim::z;
  }
  return Dim::x;
}

/// memref.atomic_rmw kinds that are one xpu atomic; the others need a
/// compare-exchange loop.
std::optional<AtomicKind> atomicKind(arith::AtomicRMWKind k) {
  using K = arith::AtomicRMWKind;
  switch (k) {
  case K::addf:
    return AtomicKind::fadd;
  case K::addi:
    return AtomicKind::add;
  case K::andi:
    return AtomicKind::and_;
  case K::ori:
    return AtomicKind::or_;
  case K::xori:
    return AtomicKind::xor_;
  case K::assign:
    return AtomicKind::xchg;
  case K::maxs:
    return AtomicKind::smax;
  case K::maxu:
    return AtomicKind::umax;
  case K::mins:
    return AtomicKind::smin;
  case K::minu:
    return AtomicKind::umin;
  default:
    return std::nullopt;
  }
}

Handled atomic(Importer &im, memref::AtomicRMWOp op) {
  Type elem = op.getMemRefType().getElementType();
  if (!elem.isInteger(32) && !elem.isInteger(64) && !elem.isF32() && !elem.isF64()) {
    unsupported(op, "updates " + typeText(elem) + " elements",
                "atomics work on i32, i64, f32 and f64 memrefs");
    return Handled::failed;
  }
  std::optional<AtomicKind> kind = atomicKind(op.getKind());
  if (!kind) {
    unsupported(op, "of kind '" + arith::stringifyAtomicRMWKind(op.getKind()) +
                        "' needs a compare-exchange loop, which this build does "
                        "not import yet",
                "use addf, addi, andi, ori, xori, assign, maxs, maxu, mins or minu");
    return Handled::failed;
  }
  const Memref *m = im.lookup(op.getMemref(), op);
  if (!m)
    return Handled::failed;
  // memref.atomic_rmw orders like MLIR's own lowering (acq_rel), over the
  // invocations that can see the memory.
  Space space = cast<BufferType>(m->buffer.getType()).getSpace();
  Scope scope = space == Space::shared    ? Scope::workgroup
                : space == Space::private_ ? Scope::invocation
                                           : Scope::device;
  Location loc = op.getLoc();
  Value old = AtomicRMWOp::create(im.b, loc, elem, *kind, op.getValue(), m->buffer,
                                  im.element(loc, *m, op.getIndices()),
                                  MemoryOrder::acq_rel, scope);
  op.getResult().replaceAllUsesWith(old);
  return Handled::yes;
}

/// The all_reduce operation a combiner region computes, when it is one
/// arith op on the two block arguments.
std::optional<gpu::AllReduceOperation> regionOperation(Region &body) {
  using R = gpu::AllReduceOperation;
  if (!body.hasOneBlock() || body.getNumArguments() != 2)
    return std::nullopt;
  Block &block = body.front();
  if (block.getOperations().size() != 2)
    return std::nullopt;
  Operation &op = block.front();
  auto yield = dyn_cast<gpu::YieldOp>(block.back());
  if (!yield || yield.getNumOperands() != 1 || yield.getOperand(0) != op.getResult(0) ||
      op.getNumOperands() != 2)
    return std::nullopt;
  Value a = block.getArgument(0), c = block.getArgument(1);
  bool args = (op.getOperand(0) == a && op.getOperand(1) == c) ||
              (op.getOperand(0) == c && op.getOperand(1) == a);
  if (!args)
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<R>>(&op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return R::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return R::MUL; })
      .Case<arith::MinUIOp>([](auto) { return R::MINUI; })
      .Case<arith::MinSIOp>([](auto) { return R::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return R::MAXUI; })
      .Case<arith::MaxSIOp>([](auto) { return R::MAXSI; })
      .Case<arith::AndIOp>([](auto) { return R::AND; })
      .Case<arith::OrIOp>([](auto) { return R::OR; })
      .Case<arith::XOrIOp>([](auto) { return R::XOR; })
      .Case<arith::MinimumFOp>([](auto) { return R::MINIMUMF; })
      .Case<arith::MaximumFOp>([](auto) { return R::MAXIMUMF; })
      .Case<arith::MinNumFOp>([](auto) { return R::MINNUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return R::MAXNUMF; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The xpu combiner of a gpu reduction; minnumf and maxnumf have none
/// (they ignore NaN operands: reduceBy composes them).
std::optional<ReduceKind> reduceKind(gpu::AllReduceOperation which) {
  using R = gpu::AllReduceOperation;
  switch (which) {
  case R::ADD: return ReduceKind::add;
  case R::MUL: return ReduceKind::mul;
  case R::MINUI: return ReduceKind::umin;
  case R::MINSI: return ReduceKind::smin;
  case R::MAXUI: return ReduceKind::umax;
  case R::MAXSI: return ReduceKind::smax;
  case R::AND: return ReduceKind::and_;
  case R::OR: return ReduceKind::or_;
  case R::XOR: return ReduceKind::xor_;
  case R::MINIMUMF: return ReduceKind::fmin;
  case R::MAXIMUMF: return ReduceKind::fmax;
  case R::MINNUMF:
  case R::MAXNUMF: return std::nullopt;
  }
  return std::nullopt;
}

using Reducer = function_ref<Value(ReduceKind, Value)>;

/// `which` over a group of invocations, by `reduce` (one xpu reduction of a
/// kind over the group). IEEE minNum/maxNum ignore NaN operands: NaNs take
/// the identity of minimum/maximum (+inf/-inf), and the result is NaN only
/// when every operand is (a second reduction counts the numbers).
Value reduceBy(OpBuilder &b, Location loc, gpu::AllReduceOperation which, Value v,
               Reducer reduce) {
  if (auto kind = reduceKind(which))
    return reduce(*kind, v);
  bool min = which == gpu::AllReduceOperation::MINNUMF;
  auto ft = cast<FloatType>(v.getType());
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value identity =
      arith::ConstantFloatOp::create(b, loc, ft, llvm::APFloat::getInf(sem, !min));
  Value filled = arith::SelectOp::create(b, loc, nan, identity, v);
  Value best = reduce(min ? ReduceKind::fmin : ReduceKind::fmax, filled);
  Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value numbers = reduce(ReduceKind::or_, arith::SelectOp::create(b, loc, nan, zero, one));
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numbers, zero);
  Value qnan = arith::ConstantFloatOp::create(b, loc, ft, llvm::APFloat::getQNaN(sem));
  return arith::SelectOp::create(b, loc, any, best, qnan);
}

/// gpu.all_reduce: xpu.reduce in tree order (the same expansion, hence the
/// same bits, on every backend).
Handled allReduce(Importer &im, gpu::AllReduceOp op) {
  std::optional<gpu::AllReduceOperation> which;
  if (op.getOp())
    which = *op.getOp();
  else
    which = regionOperation(op.getBody());
  if (!which) {
    unsupported(op, "combines with a region that is not one arith op on its "
                    "two arguments",
                "name the operation (gpu.all_reduce add ...), or reduce "
                "through workgroup memory");
    return Handled::failed;
  }
  Location loc = op.getLoc();
  OpBuilder &b = im.b;
  Value r = reduceBy(b, loc, *which, op.getValue(), [&](ReduceKind k, Value x) -> Value {
    return ReduceOp::create(b, loc, x.getType(), k, x, ReduceOrder::tree);
  });
  op.getResult().replaceAllUsesWith(r);
  return Handled::yes;
}

//===----------------------------------------------------------------------===//
// Waves (gpu.shuffle, gpu.rotate, gpu.subgroup_reduce)
//===----------------------------------------------------------------------===//

/// Wave operations exchange i32, i64, f32 and f64: narrower scalars travel
/// widened (integers sign- or zero-extended as `signedExt` says), and come
/// back.
struct Widened {
  Type original, wide;
  bool isSigned;
  Value widen(OpBuilder &b, Location loc, Value v) const {
    if (original == wide)
      return v;
    if (isa<FloatType>(original))
      return arith::ExtFOp::create(b, loc, wide, v);
    if (isSigned)
      return arith::ExtSIOp::create(b, loc, wide, v);
    return arith::ExtUIOp::create(b, loc, wide, v);
  }
  Value narrow(OpBuilder &b, Location loc, Value v) const {
    if (original == wide)
      return v;
    if (isa<FloatType>(original))
      return arith::TruncFOp::create(b, loc, original, v);
    return arith::TruncIOp::create(b, loc, original, v);
  }
};

std::optional<Widened> widenedFor(Operation *op, Type t, bool isSigned) {
  MLIRContext *ctx = t.getContext();
  if (t.isInteger(32) || t.isInteger(64) || t.isF32() || t.isF64())
    return Widened{t, t, isSigned};
  if (auto i = dyn_cast<IntegerType>(t); i && i.getWidth() < 32)
    return Widened{t, IntegerType::get(ctx, 32), isSigned};
  if (t.isF16() || t.isBF16())
    return Widened{t, Float32Type::get(ctx), isSigned};
  unsupported(op, "exchanges values of type " + typeText(t),
              "wave operations exchange integers and floats of up to 64 bits");
  return std::nullopt;
}

/// Applies `f` to `v`, lane by lane when it is a vector.
Value perLane(OpBuilder &b, Location loc, Value v, function_ref<Value(Value)> f) {
  auto vec = dyn_cast<VectorType>(v.getType());
  if (!vec)
    return f(v);
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < vec.getNumElements(); ++i)
    lanes.push_back(f(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i})));
  return vector::FromElementsOp::create(b, loc, vec, lanes);
}

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

/// The lanes of this wave that exist (a partial last wave has fewer than
/// the width): lanes 0 .. live-1, from a ballot of every lane.
Value liveLanes(OpBuilder &b, Location loc) {
  Value all = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  Value mask = WaveBallotOp::create(b, loc, VectorType::get({4}, b.getI32Type()), all);
  Value bits = math::CtPopOp::create(b, loc, mask);
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, bits);
}

Value laneI32(OpBuilder &b, Location loc) {
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), LaneIdOp::create(b, loc));
}

/// gpu.shuffle: xpu.wave_shuffle of the same mode; `valid` holds where the
/// source lane is below `width` (and at or above 0 for `up`) and exists.
Handled shuffle(Importer &im, gpu::ShuffleOp op) {
  OpBuilder &b = im.b;
  Location loc = op.getLoc();
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  auto w = widenedFor(op, elem, /*isSigned=*/false);
  if (!w)
    return Handled::failed;
  WaveShuffleMode mode;
  switch (op.getMode()) {
  case gpu::ShuffleMode::XOR: mode = WaveShuffleMode::xor_; break;
  case gpu::ShuffleMode::UP: mode = WaveShuffleMode::up; break;
  case gpu::ShuffleMode::DOWN: mode = WaveShuffleMode::down; break;
  case gpu::ShuffleMode::IDX: mode = WaveShuffleMode::index; break;
  }
  Value offset = op.getOffset();
  Value r = perLane(b, loc, op.getValue(), [&](Value x) -> Value {
    Value wide = w->widen(b, loc, x);
    Value got = WaveShuffleOp::create(b, loc, wide.getType(), mode, wide, offset);
    return w->narrow(b, loc, got);
  });
  op.getShuffleResult().replaceAllUsesWith(r);
  if (!op.getValid().use_empty()) {
    Value lane = laneI32(b, loc);
    Value src;
    switch (op.getMode()) {
    case gpu::ShuffleMode::XOR: src = arith::XOrIOp::create(b, loc, lane, offset); break;
    case gpu::ShuffleMode::UP: src = arith::SubIOp::create(b, loc, lane, offset); break;
    case gpu::ShuffleMode::DOWN: src = arith::AddIOp::create(b, loc, lane, offset); break;
    case gpu::ShuffleMode::IDX: src = offset; break;
    }
    using P = arith::CmpIPredicate;
    Value width = op.getWidth();
    Value limit = arith::MinUIOp::create(b, loc, width, liveLanes(b, loc));
    // Unsigned: a source "below" lane 0 (up) is a huge one.
    Value ok = arith::CmpIOp::create(b, loc, P::ult, src, limit);
    ok = arith::AndIOp::create(b, loc, ok, arith::CmpIOp::create(b, loc, P::ult, lane, width));
    op.getValid().replaceAllUsesWith(ok);
  }
  return Handled::yes;
}

/// gpu.rotate: lane L reads lane ((L + offset) mod width) of its group of
/// `width` lanes, as an indexed shuffle.
Handled rotate(Importer &im, gpu::RotateOp op) {
  OpBuilder &b = im.b;
  Location loc = op.getLoc();
  auto w = widenedFor(op, getElementTypeOrSelf(op.getValue().getType()), false);
  if (!w)
    return Handled::failed;
  int64_t width = op.getWidth(), offset = op.getOffset();
  Value lane = laneI32(b, loc);
  Value inGroup = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lane, i32Const(b, loc, offset)),
      i32Const(b, loc, width - 1));
  Value group = arith::AndIOp::create(b, loc, lane, i32Const(b, loc, ~(width - 1)));
  Value src = arith::AddIOp::create(b, loc, inGroup, group);
  Value r = perLane(b, loc, op.getValue(), [&](Value x) -> Value {
    Value wide = w->widen(b, loc, x);
    return w->narrow(b, loc, WaveShuffleOp::create(b, loc, wide.getType(),
                                                   WaveShuffleMode::index, wide, src));
  });
  op.getRotateResult().replaceAllUsesWith(r);
  if (!op.getValid().use_empty()) {
    Value limit = arith::MinUIOp::create(b, loc, i32Const(b, loc, width), liveLanes(b, loc));
    op.getValid().replaceAllUsesWith(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, limit));
  }
  return Handled::yes;
}

/// One step of a gpu reduction: `which` applied to two values.
Value combineGpu(OpBuilder &b, Location loc, gpu::AllReduceOperation which, Value l,
                 Value r) {
  using R = gpu::AllReduceOperation;
  bool fl = isa<FloatType>(l.getType());
  switch (which) {
  case R::ADD: return fl ? Value(arith::AddFOp::create(b, loc, l, r))
                         : Value(arith::AddIOp::create(b, loc, l, r));
  case R::MUL: return fl ? Value(arith::MulFOp::create(b, loc, l, r))
                         : Value(arith::MulIOp::create(b, loc, l, r));
  case R::MINUI: return arith::MinUIOp::create(b, loc, l, r);
  case R::MINSI: return arith::MinSIOp::create(b, loc, l, r);
  case R::MAXUI: return arith::MaxUIOp::create(b, loc, l, r);
  case R::MAXSI: return arith::MaxSIOp::create(b, loc, l, r);
  case R::AND: return arith::AndIOp::create(b, loc, l, r);
  case R::OR: return arith::OrIOp::create(b, loc, l, r);
  case R::XOR: return arith::XOrIOp::create(b, loc, l, r);
  case R::MINIMUMF: return arith::MinimumFOp::create(b, loc, l, r);
  case R::MAXIMUMF: return arith::MaximumFOp::create(b, loc, l, r);
  case R::MINNUMF: return arith::MinNumFOp::create(b, loc, l, r);
  case R::MAXNUMF: return arith::MaxNumFOp::create(b, loc, l, r);
  }
  return l;
}

/// gpu.subgroup_reduce: xpu.wave_reduce over the wave; with clusters, a
/// butterfly of xor shuffles inside each cluster, where a partner lane
/// that does not exist (a partial wave) adds nothing.
Handled subgroupReduce(Importer &im, gpu::SubgroupReduceOp op) {
  OpBuilder &b = im.b;
  Location loc = op.getLoc();
  using R = gpu::AllReduceOperation;
  R which = op.getOp();
  bool isSigned = which == R::MINSI || which == R::MAXSI;
  auto w = widenedFor(op, getElementTypeOrSelf(op.getValue().getType()), isSigned);
  if (!w)
    return Handled::failed;
  std::optional<uint32_t> cluster = op.getClusterSize();
  uint32_t stride = op.getClusterStride();
  Value live = cluster ? liveLanes(b, loc) : Value();
  Value lane = cluster ? laneI32(b, loc) : Value();
  Value r = perLane(b, loc, op.getValue(), [&](Value x) -> Value {
    Value v = w->widen(b, loc, x);
    if (!cluster) {
      v = reduceBy(b, loc, which, v, [&](ReduceKind k, Value y) -> Value {
        return WaveReduceOp::create(b, loc, y.getType(), k, y);
      });
      return w->narrow(b, loc, v);
    }
    for (uint32_t step = stride; step < stride * *cluster; step *= 2) {
      Value k = i32Const(b, loc, step);
      Value other = WaveShuffleOp::create(b, loc, v.getType(), WaveShuffleMode::xor_, v, k);
      Value partner = arith::XOrIOp::create(b, loc, lane, k);
      Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, partner, live);
      v = arith::SelectOp::create(b, loc, exists, combineGpu(b, loc, which, v, other), v);
    }
    return w->narrow(b, loc, v);
  });
  op.getResult().replaceAllUsesWith(r);
  return Handled::yes;
}

} // namespace

namespace xpu::gpuimport {

bool consumesRegions(Operation *op) { return isa<gpu::AllReduceOp>(op); }

Handled importCollectiveOp(Importer &im, Operation *op) {
  OpBuilder &b = im.b;
  Location loc = op->getLoc();
  Value r;
  if (auto o = dyn_cast<gpu::ThreadIdOp>(op))
    r = ThreadIdOp::create(b, loc, toDim(o.getDimension()));
  else if (auto o = dyn_cast<gpu::BlockIdOp>(op))
    r = WorkgroupIdOp::create(b, loc, toDim(o.getDimension()));
  else if (auto o = dyn_cast<gpu::BlockDimOp>(op))
    r = WorkgroupSizeOp::create(b, loc, toDim(o.getDimension()));
  else if (auto o = dyn_cast<gpu::GridDimOp>(op))
    r = GridSizeOp::create(b, loc, toDim(o.getDimension()));
  else if (auto o = dyn_cast<gpu::GlobalIdOp>(op))
    r = GlobalIdOp::create(b, loc, toDim(o.getDimension()));
  else if (isa<gpu::LaneIdOp>(op))
    r = LaneIdOp::create(b, loc);
  else if (isa<gpu::SubgroupSizeOp>(op))
    r = WaveWidthOp::create(b, loc);
  else if (isa<gpu::SubgroupIdOp>(op))
    r = WaveIdOp::create(b, loc);
  else if (isa<gpu::NumSubgroupsOp>(op))
    r = WaveCountOp::create(b, loc);
  else if (isa<gpu::BarrierOp>(op)) {
    BarrierOp::create(b, loc);
    return Handled::yes;
  } else if (auto o = dyn_cast<memref::AtomicRMWOp>(op))
    return atomic(im, o);
  else if (auto o = dyn_cast<gpu::AllReduceOp>(op))
    return allReduce(im, o);
  else if (auto o = dyn_cast<gpu::SubgroupReduceOp>(op))
    return subgroupReduce(im, o);
  else if (auto o = dyn_cast<gpu::ShuffleOp>(op))
    return shuffle(im, o);
  else if (auto o = dyn_cast<gpu::RotateOp>(op))
    return rotate(im, o);
  else
    return Handled::no;
  op->getResult(0).replaceAllUsesWith(r);
  return Handled::yes;
}

} // namespace xpu::gpuimport
