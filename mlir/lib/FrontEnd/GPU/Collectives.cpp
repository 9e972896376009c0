// The gpu dialect front end, collectives: coordinates and wave ids,
// barriers, atomics on memrefs and workgroup reductions, each mapped onto
// the xpu op that every backend already lowers (one lowering per
// construct).
#include "Importer.h"

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

/// gpu.all_reduce: xpu.reduce in tree order (the same expansion, hence the
/// same bits, on every backend).
Handled allReduce(Importer &im, gpu::AllReduceOp op) {
  using R = gpu::AllReduceOperation;
  std::optional<R> which;
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
  Value v = op.getValue();
  auto reduce = [&](ReduceKind k, Value x) -> Value {
    return ReduceOp::create(b, loc, x.getType(), k, x, ReduceOrder::tree);
  };
  Value r;
  switch (*which) {
  case R::ADD: r = reduce(ReduceKind::add, v); break;
  case R::MUL: r = reduce(ReduceKind::mul, v); break;
  case R::MINUI: r = reduce(ReduceKind::umin, v); break;
  case R::MINSI: r = reduce(ReduceKind::smin, v); break;
  case R::MAXUI: r = reduce(ReduceKind::umax, v); break;
  case R::MAXSI: r = reduce(ReduceKind::smax, v); break;
  case R::AND: r = reduce(ReduceKind::and_, v); break;
  case R::OR: r = reduce(ReduceKind::or_, v); break;
  case R::XOR: r = reduce(ReduceKind::xor_, v); break;
  case R::MINIMUMF: r = reduce(ReduceKind::fmin, v); break;
  case R::MAXIMUMF: r = reduce(ReduceKind::fmax, v); break;
  case R::MINNUMF:
  case R::MAXNUMF: {
    // IEEE minNum/maxNum ignore NaN operands: NaNs take the identity of
    // minimum/maximum (+inf/-inf), and the result is NaN only when every
    // operand is (a second reduction counts the numbers).
    bool min = *which == R::MINNUMF;
    auto ft = cast<FloatType>(v.getType());
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
    Value identity = arith::ConstantFloatOp::create(
        b, loc, ft, llvm::APFloat::getInf(sem, /*Negative=*/!min));
    Value filled = arith::SelectOp::create(b, loc, nan, identity, v);
    Value best = reduce(min ? ReduceKind::fmin : ReduceKind::fmax, filled);
    Value i32one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
    Value i32zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    Value isNumber = arith::SelectOp::create(b, loc, nan, i32zero, i32one);
    Value numbers = reduce(ReduceKind::or_, isNumber);
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numbers, i32zero);
    Value qnan = arith::ConstantFloatOp::create(b, loc, ft, llvm::APFloat::getQNaN(sem));
    r = arith::SelectOp::create(b, loc, any, best, qnan);
    break;
  }
  }
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
  else
    return Handled::no;
  op->getResult(0).replaceAllUsesWith(r);
  return Handled::yes;
}

} // namespace xpu::gpuimport
