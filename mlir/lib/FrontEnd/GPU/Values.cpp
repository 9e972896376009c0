// The gpu dialect front end, values: vector reads and writes of memrefs
// (vector.load/store, transfer_read/write, masked loads and stores) as xpu
// loads and stores. A run of up to four contiguous elements is one vector
// xpu.load/xpu.store; strided runs go element by element; elements that may
// be masked off or out of bounds are guarded one by one.
#include "Importer.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace xpu;
using namespace xpu::gpuimport;

namespace {

constexpr int64_t kMaxLanes = 4; // the widest xpu.load/xpu.store

/// Where lane j of a 1-D transfer lies: along dimension `dim` of `m` from
/// `indices` (a broadcast reads one element for every lane).
struct Run {
  const Memref *m;
  SmallVector<Value, 4> indices;
  std::optional<unsigned> dim; ///< none: broadcast
  int64_t lanes;
  Type elem;
};

bool contiguous(const Run &r) {
  return r.dim && getConstantIntValue(r.m->strides[*r.dim]) == 1;
}

SmallVector<Value, 4> laneIndices(Importer &im, Location loc, const Run &r, int64_t j) {
  SmallVector<Value, 4> at = r.indices;
  if (r.dim && j)
    at[*r.dim] = im.add(loc, at[*r.dim], im.index(loc, j));
  return at;
}

/// Whether lane j is in bounds along the transfer dimension.
Value laneInBounds(Importer &im, Location loc, const Run &r, int64_t j) {
  SmallVector<Value, 4> at = laneIndices(im, loc, r, j);
  unsigned d = r.dim.value_or(0);
  if (r.indices.empty())
    return arith::ConstantIntOp::create(im.b, loc, im.b.getI1Type(), 1);
  return arith::CmpIOp::create(im.b, loc, arith::CmpIPredicate::ult, at[d],
                               r.m->sizes[d]);
}

Value lane(OpBuilder &b, Location loc, Value vec, int64_t j) {
  return vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{j});
}

/// Reads the run. `guard(j)` (may return null: no guard) decides whether
/// lane j is read; an unread lane is lane j of `fill`.
Value readRun(Importer &im, Location loc, const Run &r, VectorType type,
              function_ref<Value(int64_t)> guard, Value fill) {
  OpBuilder &b = im.b;
  SmallVector<Value> lanes;
  bool guarded = false;
  for (int64_t j = 0; j < r.lanes; ++j)
    guarded |= bool(guard(j));
  if (!guarded && contiguous(r)) {
    for (int64_t j = 0; j < r.lanes; j += kMaxLanes) {
      int64_t n = std::min(kMaxLanes, r.lanes - j);
      Value at = im.element(loc, *r.m, laneIndices(im, loc, r, j));
      if (n == r.lanes && n > 1)
        return LoadOp::create(b, loc, type, r.m->buffer, at);
      if (n == 1) {
        lanes.push_back(LoadOp::create(b, loc, r.elem, r.m->buffer, at));
        continue;
      }
      Value chunk = LoadOp::create(b, loc, VectorType::get({n}, r.elem), r.m->buffer, at);
      for (int64_t k = 0; k < n; ++k)
        lanes.push_back(lane(b, loc, chunk, k));
    }
    return vector::FromElementsOp::create(b, loc, type, lanes);
  }
  if (!r.dim) {
    // A broadcast reads one element (broadcast dimensions are in bounds);
    // masked-off lanes take the fill.
    Value v = LoadOp::create(b, loc, r.elem, r.m->buffer, im.element(loc, *r.m, r.indices));
    for (int64_t j = 0; j < r.lanes; ++j) {
      Value ok = guard(j);
      lanes.push_back(ok ? arith::SelectOp::create(b, loc, ok, v, lane(b, loc, fill, j))
                               .getResult()
                         : v);
    }
    return vector::FromElementsOp::create(b, loc, type, lanes);
  }
  for (int64_t j = 0; j < r.lanes; ++j) {
    Value at = im.element(loc, *r.m, laneIndices(im, loc, r, j));
    Value ok = guard(j);
    if (!ok) {
      lanes.push_back(LoadOp::create(b, loc, r.elem, r.m->buffer, at));
      continue;
    }
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{r.elem}, ok, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, ValueRange{LoadOp::create(b, loc, r.elem, r.m->buffer, at)});
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, ValueRange{lane(b, loc, fill, j)});
    }
    lanes.push_back(ifOp.getResult(0));
  }
  return vector::FromElementsOp::create(b, loc, type, lanes);
}

/// Writes `value` over the run, lane j only where `guard(j)` holds.
void writeRun(Importer &im, Location loc, const Run &r, Value value,
              function_ref<Value(int64_t)> guard) {
  OpBuilder &b = im.b;
  bool guarded = false;
  for (int64_t j = 0; j < r.lanes; ++j)
    guarded |= bool(guard(j));
  if (!guarded && contiguous(r)) {
    for (int64_t j = 0; j < r.lanes; j += kMaxLanes) {
      int64_t n = std::min(kMaxLanes, r.lanes - j);
      Value at = im.element(loc, *r.m, laneIndices(im, loc, r, j));
      Value chunk;
      if (n == r.lanes && n > 1) {
        chunk = value;
      } else if (n == 1) {
        chunk = lane(b, loc, value, j);
      } else {
        SmallVector<Value> parts;
        for (int64_t k = 0; k < n; ++k)
          parts.push_back(lane(b, loc, value, j + k));
        chunk = vector::FromElementsOp::create(b, loc, VectorType::get({n}, r.elem), parts);
      }
      StoreOp::create(b, loc, chunk, r.m->buffer, at);
    }
    return;
  }
  for (int64_t j = 0; j < r.lanes; ++j) {
    Value at = im.element(loc, *r.m, laneIndices(im, loc, r, j));
    Value v = lane(b, loc, value, j);
    Value ok = guard(j);
    if (!ok) {
      StoreOp::create(b, loc, v, r.m->buffer, at);
      continue;
    }
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, ok, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    StoreOp::create(b, loc, v, r.m->buffer, at);
  }
}

/// The run of a 1-D vector access; reports why not and returns none.
std::optional<Run> runOf(Importer &im, Operation *op, Value memref, ValueRange indices,
                         VectorType type, std::optional<AffineMap> map) {
  if (type.getRank() != 1 || type.isScalable()) {
    unsupported(op, "moves a vector of rank " + std::to_string(type.getRank()),
                "vector reads and writes of memrefs are imported for fixed 1-D vectors");
    return std::nullopt;
  }
  const Memref *m = im.lookup(memref, op);
  if (!m)
    return std::nullopt;
  if (type.getElementType() != m->type.getElementType()) {
    unsupported(op, "moves vectors of another element type than the memref's",
                "read and write vectors of the memref's element type");
    return std::nullopt;
  }
  Run r{m, SmallVector<Value, 4>(indices.begin(), indices.end()), std::nullopt,
        type.getNumElements(), type.getElementType()};
  if (!map) {
    if (!indices.empty())
      r.dim = indices.size() - 1;
    return r;
  }
  AffineExpr e = map->getResult(0);
  if (auto d = dyn_cast<AffineDimExpr>(e))
    r.dim = d.getPosition();
  else if (auto c = dyn_cast<AffineConstantExpr>(e); !c || c.getValue() != 0) {
    unsupported(op, "has a permutation map that is neither a dimension nor a broadcast",
                "use a minor identity or broadcast map");
    return std::nullopt;
  }
  return r;
}

/// For each lane, whether it is read or written: inside the transfer
/// dimension's size unless the op says it is in bounds, and where `mask`
/// (may be null) is set; null where nothing is to check.
SmallVector<Value> laneGuards(Importer &im, Location loc, const Run &r, bool inBounds,
                              Value mask) {
  SmallVector<Value> guards;
  for (int64_t j = 0; j < r.lanes; ++j) {
    Value ok = inBounds || !r.dim ? Value() : laneInBounds(im, loc, r, j);
    if (mask) {
      Value bit = lane(im.b, loc, mask, j);
      ok = ok ? arith::AndIOp::create(im.b, loc, ok, bit).getResult() : bit;
    }
    guards.push_back(ok);
  }
  return guards;
}

Handled transferRead(Importer &im, vector::TransferReadOp op) {
  Location loc = op.getLoc();
  auto r = runOf(im, op, op.getBase(), op.getIndices(), op.getVectorType(),
                 op.getPermutationMap());
  if (!r)
    return Handled::failed;
  Value fill = vector::BroadcastOp::create(im.b, loc, op.getVectorType(), op.getPadding());
  SmallVector<Value> guards = laneGuards(im, loc, *r, op.isDimInBounds(0), op.getMask());
  Value v = readRun(im, loc, *r, op.getVectorType(),
                    [&](int64_t j) { return guards[j]; }, fill);
  op.getResult().replaceAllUsesWith(v);
  return Handled::yes;
}

Handled transferWrite(Importer &im, vector::TransferWriteOp op) {
  Location loc = op.getLoc();
  if (!isa<MemRefType>(op.getBase().getType())) {
    unsupported(op, "writes a tensor", "kernels write memrefs");
    return Handled::failed;
  }
  auto r = runOf(im, op, op.getBase(), op.getIndices(), op.getVectorType(),
                 op.getPermutationMap());
  if (!r)
    return Handled::failed;
  if (!r->dim) {
    unsupported(op, "writes every lane to one element",
                "write with a minor identity map");
    return Handled::failed;
  }
  SmallVector<Value> guards = laneGuards(im, loc, *r, op.isDimInBounds(0), op.getMask());
  writeRun(im, loc, *r, op.getVector(), [&](int64_t j) { return guards[j]; });
  return Handled::yes;
}

} // namespace

namespace xpu::gpuimport {

Handled importValueOp(Importer &im, Operation *op) {
  Location loc = op->getLoc();
  auto none = [](int64_t) { return Value(); };
  if (auto o = dyn_cast<vector::LoadOp>(op)) {
    auto r = runOf(im, op, o.getBase(), o.getIndices(), o.getVectorType(), std::nullopt);
    if (!r)
      return Handled::failed;
    o.getResult().replaceAllUsesWith(readRun(im, loc, *r, o.getVectorType(), none, {}));
    return Handled::yes;
  }
  if (auto o = dyn_cast<vector::StoreOp>(op)) {
    auto r = runOf(im, op, o.getBase(), o.getIndices(), o.getVectorType(), std::nullopt);
    if (!r)
      return Handled::failed;
    writeRun(im, loc, *r, o.getValueToStore(), none);
    return Handled::yes;
  }
  if (auto o = dyn_cast<vector::MaskedLoadOp>(op)) {
    auto r = runOf(im, op, o.getBase(), o.getIndices(), o.getVectorType(), std::nullopt);
    if (!r)
      return Handled::failed;
    SmallVector<Value> bits = laneGuards(im, loc, *r, true, o.getMask());
    o.getResult().replaceAllUsesWith(readRun(
        im, loc, *r, o.getVectorType(), [&](int64_t j) { return bits[j]; },
        o.getPassThru()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<vector::MaskedStoreOp>(op)) {
    auto r = runOf(im, op, o.getBase(), o.getIndices(), o.getVectorType(), std::nullopt);
    if (!r)
      return Handled::failed;
    SmallVector<Value> bits = laneGuards(im, loc, *r, true, o.getMask());
    writeRun(im, loc, *r, o.getValueToStore(), [&](int64_t j) { return bits[j]; });
    return Handled::yes;
  }
  if (auto o = dyn_cast<vector::TransferReadOp>(op)) {
    if (!isa<MemRefType>(o.getBase().getType())) {
      unsupported(op, "reads a tensor", "kernels read memrefs");
      return Handled::failed;
    }
    return transferRead(im, o);
  }
  if (auto o = dyn_cast<vector::TransferWriteOp>(op))
    return transferWrite(im, o);
  return Handled::no;
}

} // namespace xpu::gpuimport
