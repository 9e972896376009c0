// The tiers of tile lowering that work on every target (issue 15): the
// software tile, and the int8 dot tier built on it. Every tile value becomes
// a workgroup-shared buffer of its elements, row-major; each tile op is a
// loop over elements (or result blocks) shared among the workgroup's
// invocations, between barriers. See Passes.td (xpu-lower-tiles).
#include "xpu/Dialect/XPU/IR/Invocation.h"
#include "xpu/Dialect/XPU/IR/Tiles.h"
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

namespace xpu {
#define GEN_PASS_DEF_LOWERTILES
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

bool isTileOp(Operation *op) {
  return isa<TileFillOp, TileLoadOp, TileStoreOp, MacOp, TileScaleOp, TileAddOp,
             TileConvertOp>(op);
}

bool hasTileType(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<TileType>(t); });
}

/// Lowers the tiles of one kernel.
class KernelTiles {
public:
  KernelTiles(KernelOp kernel, bool dot4, bool wideVectors, bool mmaSync = false,
              bool coopMatrix = false)
      : kernel(kernel), b(kernel.getContext()), dot4(dot4),
        wideVectors(wideVectors), mmaSync(mmaSync), coopMatrix(coopMatrix) {}

  LogicalResult run() {
    Block &entry = kernel.getBody().front();
    b.setInsertionPointToStart(&entry);
    Location loc = kernel.getLoc();
    entryPoint = b.saveInsertionPoint();
    LinearInvocation inv = linearInvocation(b, loc);
    self = inv.index;
    count = inv.count;
    if (auto wg = kernel.getWorkgroupSize()) {
      fixedCount = 1;
      for (int64_t e : *wg)
        fixedCount *= e;
      count = idx(fixedCount);
    }
    entryPoint = b.saveInsertionPoint();
    if (failed(lowerBlock(entry)))
      return failure();
    return finish();
  }

private:
  KernelOp kernel;
  OpBuilder b;
  bool dot4, wideVectors, mmaSync, coopMatrix;
  OpBuilder::InsertPoint entryPoint;
  Value self, count;       ///< linear invocation index, invocations (index)
  int64_t fixedCount = 0;  ///< the workgroup size when the kernel fixes it
  llvm::DenseMap<Value, Value> storage; ///< tile value -> its shared buffer
  SmallVector<Operation *> lowered;      ///< tile ops, erased at the end
  SmallVector<Operation *> carriers;     ///< scf.for / scf.if carrying tiles

  Operation *lowering = nullptr;         ///< the tile op being lowered

  Value idx(int64_t v) {
    return arith::ConstantIndexOp::create(b, kernel.getLoc(), v);
  }

  /// A loop of the tile op being lowered, with its loop site: a device with
  /// a loop budget reports running out of it there (xpu-guard-loop-limit).
  scf::ForOp forLoop(Location loc, Value lb, Value ub, Value step, ValueRange inits = {}) {
    auto loop = scf::ForOp::create(b, loc, lb, ub, step, inits);
    inheritLoopSite(loop, lowering);
    return loop;
  }

  /// A new workgroup-shared buffer for a tile, allocated at kernel entry.
  Value newStorage(TileType t) {
    OpBuilder::InsertionGuard g(b);
    b.restoreInsertionPoint(entryPoint);
    auto type = BufferType::get(b.getContext(), t.getElementType(), Space::shared,
                                Access::rw, t.getNumElements());
    Value s = AllocOp::create(b, kernel.getLoc(), type);
    entryPoint = b.saveInsertionPoint();
    return s;
  }

  /// The storage of `operand` when `user` may overwrite it: its only use,
  /// in the block that defines it (so the block runs once per value).
  Value reusable(Value operand, Operation *user, TileType resultType) {
    if (operand.getType() != resultType || !operand.hasOneUse())
      return {};
    Block *defBlock = isa<BlockArgument>(operand)
                          ? cast<BlockArgument>(operand).getOwner()
                          : operand.getDefiningOp()->getBlock();
    if (defBlock != user->getBlock())
      return {};
    return storage.lookup(operand);
  }

  /// Where a mac's result lives: the sums' own storage when the mac may
  /// overwrite it, else new storage.
  Value resultStorage(MacOp mac, TileType resultType) {
    Value rs = reusable(mac.getC(), mac, resultType);
    if (!rs)
      rs = newStorage(resultType);
    storage[mac.getResult()] = rs;
    return rs;
  }

  void barrier(Location loc) { BarrierOp::create(b, loc); }

  /// Runs `body(i, j)` for every element of a rows x cols space, the
  /// elements spread over the workgroup's invocations.
  void forEachElement(Location loc, int64_t rows, int64_t cols,
                      function_ref<void(Value, Value)> body) {
    if (fixedCount) {
      // Columns across invocations first: neighbours touch neighbours.
      int64_t wc = std::gcd(fixedCount, cols), wr = fixedCount / wc;
      Value ti = arith::DivUIOp::create(b, loc, self, idx(wc));
      Value tj = arith::RemUIOp::create(b, loc, self, idx(wc));
      auto rowsLoop = forLoop(loc, ti, idx(rows), idx(wr));
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(rowsLoop.getBody());
      auto colsLoop = forLoop(loc, tj, idx(cols), idx(wc));
      b.setInsertionPointToStart(colsLoop.getBody());
      body(rowsLoop.getInductionVar(), colsLoop.getInductionVar());
      return;
    }
    auto loop = forLoop(loc, self, idx(rows * cols), count);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value e = loop.getInductionVar();
    body(arith::DivUIOp::create(b, loc, e, idx(cols)),
         arith::RemUIOp::create(b, loc, e, idx(cols)));
  }

  Value linearAt(Location loc, Value i, Value j, int64_t cols) {
    return arith::AddIOp::create(b, loc,
                                 arith::MulIOp::create(b, loc, i, idx(cols)), j);
  }

  /// The buffer index of element (i, j) of a tile at `offset` with `stride`.
  Value strided(Location loc, Value offset, Value stride, Value i, Value j,
                bool colMajor) {
    Value major = colMajor ? j : i, minor = colMajor ? i : j;
    return arith::AddIOp::create(
        b, loc, offset,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, major, stride),
                              minor));
  }

  /// Row-major rows move four elements at a time when they can.
  static int64_t rowVector(TileType t, bool colMajor) {
    return !colMajor && t.getCols() % 4 == 0 ? 4 : 1;
  }

  /// Marks an element access made for `tileOp` with its check and site.
  void inheritCheck(Operation *access, Operation *tileOp) {
    if (!tileOp->hasAttr("checked"))
      return;
    access->setAttr("checked", b.getUnitAttr());
    if (Attribute site = tileOp->getAttr("xpu.site"))
      access->setAttr("xpu.site", site);
  }

  /// A cooperative elementwise map from `src` to `dst` (same shape).
  void mapElements(Location loc, TileType type, Value dst, Value src,
                   function_ref<Value(Value)> f) {
    barrier(loc);
    forEachElement(loc, type.getRows(), type.getCols(), [&](Value i, Value j) {
      Value at = linearAt(loc, i, j, type.getCols());
      Type elem = cast<BufferType>(src.getType()).getElementType();
      Value v = LoadOp::create(b, loc, elem, src, at);
      StoreOp::create(b, loc, f(v), dst, at);
    });
    barrier(loc);
  }

  void copy(Location loc, TileType type, Value dst, Value src) {
    if (dst != src)
      mapElements(loc, type, dst, src, [](Value v) { return v; });
  }

  //===--------------------------------------------------------------------===//
  // Walking the kernel
  //===--------------------------------------------------------------------===//

  LogicalResult lowerBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (failed(lowerOp(&op)))
        return failure();
    }
    return success();
  }

  LogicalResult lowerOp(Operation *op) {
    if (isTileOp(op)) {
      b.setInsertionPoint(op);
      lowered.push_back(op);
      lowering = op;
      return lowerTileOp(op);
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      if (hasTileType(forOp.getResultTypes()))
        return lowerFor(forOp);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      if (hasTileType(ifOp.getResultTypes()))
        return lowerIf(ifOp);
    if (isa<scf::YieldOp>(op) && hasTileType(op->getOperandTypes()) &&
        isa<scf::ForOp, scf::IfOp>(op->getParentOp()))
      return success(); // its loop or if handles it
    if (hasTileType(op->getOperandTypes()) || hasTileType(op->getResultTypes()))
      return op->emitOpError("carries tiles, which only scf.for and scf.if "
                             "may do (tiles live in the kernel's registers)");
    for (Region &r : op->getRegions())
      for (Block &inner : r) {
        for (BlockArgument arg : inner.getArguments())
          if (isa<TileType>(arg.getType()))
            return op->emitOpError("carries tiles, which only scf.for and "
                                   "scf.if may do");
        if (failed(lowerBlock(inner)))
          return failure();
      }
    return success();
  }

  /// Tile iter_args live in one storage for the whole loop.
  LogicalResult lowerFor(scf::ForOp forOp) {
    Location loc = forOp.getLoc();
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    SmallVector<Value> slots(forOp.getNumRegionIterArgs());
    for (auto [i, init] : llvm::enumerate(forOp.getInitArgs())) {
      auto type = dyn_cast<TileType>(init.getType());
      if (!type)
        continue;
      b.setInsertionPoint(forOp);
      Value s = reusable(init, forOp, type);
      if (!s) {
        s = newStorage(type);
        copy(loc, type, s, storage.lookup(init));
      }
      slots[i] = s;
      storage[forOp.getRegionIterArg(i)] = s;
    }
    if (failed(lowerBlock(*forOp.getBody())))
      return failure();
    // A value yielded into another slot (tiles swapped between iter_args)
    // goes through a temporary, so no slot is read after it is written.
    b.setInsertionPoint(yield);
    SmallVector<Value> sources;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      Value src = slots[i] ? storage.lookup(v) : Value();
      if (src && src != slots[i] && llvm::is_contained(slots, src)) {
        auto type = cast<TileType>(v.getType());
        Value tmp = newStorage(type);
        copy(loc, type, tmp, src);
        src = tmp;
      }
      sources.push_back(src);
    }
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      if (slots[i])
        copy(loc, cast<TileType>(v.getType()), slots[i], sources[i]);
    for (auto [i, r] : llvm::enumerate(forOp.getResults()))
      if (slots[i])
        storage[r] = slots[i];
    carriers.push_back(forOp);
    return success();
  }

  /// Tile results are copied into one storage by whichever branch runs.
  LogicalResult lowerIf(scf::IfOp ifOp) {
    Location loc = ifOp.getLoc();
    SmallVector<Value> slots(ifOp.getNumResults());
    for (auto [i, r] : llvm::enumerate(ifOp.getResults()))
      if (auto type = dyn_cast<TileType>(r.getType())) {
        slots[i] = newStorage(type);
        storage[r] = slots[i];
      }
    for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
      if (region->empty())
        continue;
      if (failed(lowerBlock(region->front())))
        return failure();
      auto yield = cast<scf::YieldOp>(region->front().getTerminator());
      b.setInsertionPoint(yield);
      for (auto [i, v] : llvm::enumerate(yield.getOperands()))
        if (slots[i])
          copy(loc, cast<TileType>(v.getType()), slots[i], storage.lookup(v));
    }
    carriers.push_back(ifOp);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Tile ops
  //===--------------------------------------------------------------------===//

  LogicalResult lowerTileOp(Operation *op) {
    Location loc = op->getLoc();
    if (auto fill = dyn_cast<TileFillOp>(op)) {
      TileType t = fill.getResult().getType();
      Value s = newStorage(t);
      storage[fill.getResult()] = s;
      barrier(loc);
      forEachElement(loc, t.getRows(), t.getCols(), [&](Value i, Value j) {
        StoreOp::create(b, loc, fill.getValue(), s, linearAt(loc, i, j, t.getCols()));
      });
      barrier(loc);
      return success();
    }
    if (auto load = dyn_cast<TileLoadOp>(op)) {
      TileType t = load.getResult().getType();
      Value s = newStorage(t);
      storage[load.getResult()] = s;
      int64_t w = rowVector(t, load.getColMajor());
      Type type = w > 1 ? Type(VectorType::get({w}, t.getElementType())) : t.getElementType();
      barrier(loc);
      forEachElement(loc, t.getRows(), t.getCols() / w, [&](Value i, Value jw) {
        Value j = arith::MulIOp::create(b, loc, jw, idx(w));
        Value from = strided(loc, load.getOffset(), load.getStride(), i, j,
                             load.getColMajor());
        auto v = LoadOp::create(b, loc, type, load.getBuffer(), from);
        inheritCheck(v, op);
        StoreOp::create(b, loc, v.getResult(), s, linearAt(loc, i, j, t.getCols()));
      });
      barrier(loc);
      return success();
    }
    if (auto store = dyn_cast<TileStoreOp>(op))
      return lowerStore(store);
    if (auto mac = dyn_cast<MacOp>(op))
      return lowerMac(mac);
    if (auto scale = dyn_cast<TileScaleOp>(op)) {
      TileType t = scale.getType();
      Value src = storage.lookup(scale.getTile());
      Value dst = reusable(scale.getTile(), op, t);
      if (!dst)
        dst = newStorage(t);
      storage[scale.getResult()] = dst;
      Value k = scale.getScale();
      bool isFloat = isa<FloatType>(t.getElementType());
      mapElements(loc, t, dst, src, [&](Value v) -> Value {
        if (isFloat)
          return arith::MulFOp::create(b, loc, v, k);
        return arith::MulIOp::create(b, loc, v, k);
      });
      return success();
    }
    if (auto add = dyn_cast<TileAddOp>(op)) {
      TileType t = add.getType();
      Value lhs = storage.lookup(add.getLhs()), rhs = storage.lookup(add.getRhs());
      Value dst = reusable(add.getLhs(), op, t);
      if (!dst && add.getLhs() != add.getRhs())
        dst = reusable(add.getRhs(), op, t);
      if (!dst)
        dst = newStorage(t);
      storage[add.getResult()] = dst;
      bool isFloat = isa<FloatType>(t.getElementType());
      barrier(loc);
      forEachElement(loc, t.getRows(), t.getCols(), [&](Value i, Value j) {
        Value at = linearAt(loc, i, j, t.getCols());
        Value x = LoadOp::create(b, loc, t.getElementType(), lhs, at);
        Value y = LoadOp::create(b, loc, t.getElementType(), rhs, at);
        Value r = isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                          : Value(arith::AddIOp::create(b, loc, x, y));
        StoreOp::create(b, loc, r, dst, at);
      });
      barrier(loc);
      return success();
    }
    auto convert = cast<TileConvertOp>(op);
    TileType from = convert.getTile().getType(), to = convert.getResult().getType();
    Value dst = newStorage(to);
    storage[convert.getResult()] = dst;
    Type fromElem = from.getElementType(), toElem = to.getElementType();
    mapElements(loc, from, dst, storage.lookup(convert.getTile()), [&](Value v) -> Value {
      if (fromElem.isInteger(32))
        return arith::SIToFPOp::create(b, loc, toElem, v);
      if (fromElem == toElem)
        return v;
      if (fromElem.getIntOrFloatBitWidth() < toElem.getIntOrFloatBitWidth())
        return arith::ExtFOp::create(b, loc, toElem, v);
      return arith::TruncFOp::create(b, loc, toElem, v);
    });
    return success();
  }

  /// A store whose stride is below the tile's width would put two elements
  /// in one place: it stores nothing and, when checked, reports the site
  /// through an access that cannot be in bounds (index = the buffer size).
  LogicalResult lowerStore(TileStoreOp store) {
    Location loc = store.getLoc();
    TileType t = cast<TileType>(store.getValue().getType());
    Value src = storage.lookup(store.getValue());
    int64_t width = store.getColMajor() ? t.getRows() : t.getCols();
    Value wide = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                       store.getStride(), idx(width));
    barrier(loc);
    auto guard = scf::IfOp::create(b, loc, TypeRange{}, wide, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      int64_t w = rowVector(t, store.getColMajor());
      Type type = w > 1 ? Type(VectorType::get({w}, t.getElementType())) : t.getElementType();
      forEachElement(loc, t.getRows(), t.getCols() / w, [&](Value i, Value jw) {
        Value j = arith::MulIOp::create(b, loc, jw, idx(w));
        Value v = LoadOp::create(b, loc, type, src, linearAt(loc, i, j, t.getCols()));
        Value to = strided(loc, store.getOffset(), store.getStride(), i, j,
                           store.getColMajor());
        auto s = StoreOp::create(b, loc, v, store.getBuffer(), to);
        inheritCheck(s, store);
      });
      if (store->hasAttr("checked")) {
        b.setInsertionPointToStart(guard.elseBlock());
        Value size = BufferSizeOp::create(b, loc, store.getBuffer());
        Value v = LoadOp::create(b, loc, t.getElementType(), src, idx(0));
        auto s = StoreOp::create(b, loc, v, store.getBuffer(), size);
        inheritCheck(s, store);
      }
    }
    barrier(loc);
    return success();
  }

  /// c = a·b + c over blocks of mr x (nv * nr) results, each invocation
  /// taking every count-th block; the K loop keeps the block's sums in
  /// vector<nr> registers.
  LogicalResult lowerMac(MacOp mac) {
    Location loc = mac.getLoc();
    if (mmaSync)
      return lowerMacMmaSync(mac);
    if (coopMatrix)
      return lowerMacCoopMatrix(mac);
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    int64_t M = ct.getRows(), N = ct.getCols(), K = at.getCols();
    Type ta = at.getElementType(), tc = ct.getElementType();
    bool isFloat = isa<FloatType>(tc);
    bool packed = dot4 && ta.isInteger(8) && K % 4 == 0;
    Value cs = storage.lookup(mac.getC()), as = storage.lookup(mac.getA()),
          bs = storage.lookup(mac.getB());
    Value rs = resultStorage(mac, ct);

    int64_t nr = (!packed && N % 4 == 0) ? 4 : 1;
    int64_t nv = wideVectors && N % (nr * 4) == 0 ? 4 : N % (nr * 2) == 0 ? 2 : 1;
    if (packed)
      nv = N % 8 == 0 ? 8 : N % 4 == 0 ? 4 : 1;
    int64_t mr = M % 4 == 0 ? 4 : M % 2 == 0 ? 2 : 1;
    int64_t bc = nr * nv, blocksJ = N / bc, blocks = (M / mr) * blocksJ;
    Type lane = nr > 1 ? Type(VectorType::get({nr}, tc)) : tc;
    Type laneA = nr > 1 ? Type(VectorType::get({nr}, ta)) : ta;

    barrier(loc);
    auto blockLoop = forLoop(loc, self, idx(blocks), count);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(blockLoop.getBody());
      Value blk = blockLoop.getInductionVar();
      Value r0 = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, blk, idx(blocksJ)), idx(mr));
      Value c0 = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, blk, idx(blocksJ)), idx(bc));
      auto at2 = [&](Value row, int64_t r, Value col, int64_t c, int64_t cols) {
        return linearAt(loc, arith::AddIOp::create(b, loc, row, idx(r)),
                        arith::AddIOp::create(b, loc, col, idx(c)), cols);
      };
      SmallVector<Value> acc;
      for (int64_t r = 0; r < mr; ++r)
        for (int64_t v = 0; v < nv; ++v)
          acc.push_back(LoadOp::create(b, loc, lane, cs, at2(r0, r, c0, v * nr, N)));
      int64_t kstep = packed ? 4 : 1;
      auto kLoop = forLoop(loc, idx(0), idx(K), idx(kstep), acc);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kLoop.getBody());
        Value k = kLoop.getInductionVar();
        ValueRange sums = kLoop.getRegionIterArgs();
        SmallVector<Value> next;
        if (packed) {
          auto quad = VectorType::get({4}, ta);
          SmallVector<Value> bcols;
          for (int64_t c = 0; c < bc; ++c) {
            SmallVector<Value> lanes;
            for (int64_t q = 0; q < 4; ++q)
              lanes.push_back(LoadOp::create(
                  b, loc, ta, bs,
                  at2(k, q, c0, c, N)));
            bcols.push_back(vector::FromElementsOp::create(b, loc, quad, lanes));
          }
          for (int64_t r = 0; r < mr; ++r) {
            Value arow = LoadOp::create(b, loc, quad, as, at2(r0, r, k, 0, K));
            for (int64_t c = 0; c < bc; ++c)
              next.push_back(Dot4I8Op::create(b, loc, b.getI32Type(), arow, bcols[c],
                                              sums[r * bc + c]));
          }
        } else {
          SmallVector<Value> brow;
          for (int64_t v = 0; v < nv; ++v) {
            Value x = LoadOp::create(b, loc, laneA, bs, at2(k, 0, c0, v * nr, N));
            brow.push_back(widen(loc, x, lane));
          }
          for (int64_t r = 0; r < mr; ++r) {
            Value x = LoadOp::create(b, loc, ta, as, at2(r0, r, k, 0, K));
            x = widen(loc, x, tc);
            if (nr > 1)
              x = vector::BroadcastOp::create(b, loc, lane, x);
            for (int64_t v = 0; v < nv; ++v) {
              Value s = sums[r * nv + v];
              next.push_back(isFloat ? Value(math::FmaOp::create(b, loc, x, brow[v], s))
                                     : Value(arith::AddIOp::create(
                                           b, loc, arith::MulIOp::create(b, loc, x, brow[v]), s)));
            }
          }
        }
        scf::YieldOp::create(b, loc, next);
      }
      for (int64_t r = 0; r < mr; ++r)
        for (int64_t v = 0; v < nv; ++v)
          StoreOp::create(b, loc, kLoop.getResult(r * nv + v), rs,
                          at2(r0, r, c0, v * nr, N));
    }
    barrier(loc);
    return success();
  }

  /// c = a·b + c with mma.sync.m16n8k16 (f16 or bf16 operands, f32 sums),
  /// the operands read from their shared buffers. Warp w takes every
  /// (warps)-th 16 x 8nb strip of the result and keeps it in registers
  /// through the K loop. Fragments follow the PTX ISA's m16n8k16 layouts,
  /// with lane = 4 * group + quad: A's a0..a7 at rows group and group + 8,
  /// columns 2 quad (+1) and 2 quad + 8 (+1); B's b0..b3 at rows 2 quad (+1)
  /// and 2 quad + 8 (+1), column group; C's c0..c3 at rows group and
  /// group + 8, columns 2 quad (+1). Tier selection guarantees M % 16,
  /// N % 8, K % 16 and whole warps.
  LogicalResult lowerMacMmaSync(MacOp mac) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    int64_t M = ct.getRows(), N = ct.getCols(), K = at.getCols();
    Type ta = at.getElementType(), f32 = b.getF32Type(), i32 = b.getI32Type();
    if (fixedCount % 32 || M % 16 || N % 8 || K % 16 || !(ta.isF16() || ta.isBF16()))
      return mac.emitOpError("does not fit the mma.sync tier (16x8x16 steps, "
                             "bf16 or f16 operands, whole warps)");
    Value cs = storage.lookup(mac.getC()), as = storage.lookup(mac.getA()),
          bs = storage.lookup(mac.getB());
    Value rs = resultStorage(mac, ct);
    int64_t warps = fixedCount / 32;
    int64_t nb = (N / 8) % 4 == 0 ? 4 : (N / 8) % 2 == 0 ? 2 : 1;
    int64_t blocksJ = N / (8 * nb), blocks = (M / 16) * blocksJ;
    auto pair = VectorType::get({2}, ta);
    auto pairF32 = VectorType::get({2}, f32);
    MLIRContext *ctx = b.getContext();
    Type fragment = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    NVVM::MMATypes ptx = ta.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;

    auto add = [&](Value x, int64_t c) { return arith::AddIOp::create(b, loc, x, idx(c)); };
    auto at2 = [&](Value row, Value col, int64_t cols) {
      return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, row, idx(cols)), col);
    };
    // bf16 pairs travel as i32 (NVVM's bf16 mma operands), f16 ones as is.
    auto operand = [&](Value v) -> Value {
      if (!ta.isBF16())
        return v;
      Value w = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), v);
      return vector::ExtractOp::create(b, loc, w, ArrayRef<int64_t>{0});
    };

    barrier(loc);
    Value warp = arith::DivUIOp::create(b, loc, self, idx(32));
    Value lane = arith::RemUIOp::create(b, loc, self, idx(32));
    Value group = arith::DivUIOp::create(b, loc, lane, idx(4));
    Value quad2 = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, idx(4)),
                                        idx(2));
    auto stripLoop = forLoop(loc, warp, idx(blocks), idx(warps));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(stripLoop.getBody());
      Value blk = stripLoop.getInductionVar();
      Value r0 = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, blk, idx(blocksJ)), idx(16));
      Value c0 = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, blk, idx(blocksJ)), idx(8 * nb));
      Value rowLo = arith::AddIOp::create(b, loc, r0, group), rowHi = add(rowLo, 8);
      SmallVector<Value> acc;
      for (int64_t j = 0; j < nb; ++j) {
        Value col = arith::AddIOp::create(b, loc, add(c0, 8 * j), quad2);
        for (Value row : {rowLo, rowHi}) {
          Value v = LoadOp::create(b, loc, pairF32, cs, at2(row, col, N));
          for (int64_t e = 0; e < 2; ++e)
            acc.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e}));
        }
      }
      auto kLoop = forLoop(loc, idx(0), idx(K), idx(16), acc);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kLoop.getBody());
        Value k = kLoop.getInductionVar();
        ValueRange sums = kLoop.getRegionIterArgs();
        Value kq = arith::AddIOp::create(b, loc, k, quad2);
        SmallVector<Value, 4> a;
        for (int64_t dk : {0, 8})
          for (Value row : {rowLo, rowHi})
            a.push_back(operand(LoadOp::create(b, loc, pair, as, at2(row, add(kq, dk), K))));
        SmallVector<Value> next;
        for (int64_t j = 0; j < nb; ++j) {
          Value n = arith::AddIOp::create(b, loc, add(c0, 8 * j), group);
          SmallVector<Value, 2> bf;
          for (int64_t dk : {0, 8}) {
            Value lo = LoadOp::create(b, loc, ta, bs, at2(add(kq, dk), n, N));
            Value hi = LoadOp::create(b, loc, ta, bs, at2(add(kq, dk + 1), n, N));
            bf.push_back(operand(vector::FromElementsOp::create(b, loc, pair, ValueRange{lo, hi})));
          }
          SmallVector<Value, 4> c(sums.begin() + 4 * j, sums.begin() + 4 * j + 4);
          Value d = NVVM::MmaOp::create(
              b, loc, fragment, a, bf, c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt,
              std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
          for (int64_t e = 0; e < 4; ++e)
            next.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{e}));
        }
        scf::YieldOp::create(b, loc, next);
      }
      for (int64_t j = 0; j < nb; ++j) {
        Value col = arith::AddIOp::create(b, loc, add(c0, 8 * j), quad2);
        for (auto [h, row] : llvm::enumerate(SmallVector<Value, 2>{rowLo, rowHi})) {
          Value v = vector::FromElementsOp::create(
              b, loc, pairF32,
              ValueRange{kLoop.getResult(4 * j + 2 * h), kLoop.getResult(4 * j + 2 * h + 1)});
          StoreOp::create(b, loc, v, rs, at2(row, col, N));
        }
      }
    }
    barrier(loc);
    return success();
  }

  /// c = a·b + c with cooperative matrices (16x16x16, f16 operands, f32
  /// sums), the operands read from their shared buffers: subgroup s takes
  /// every (subgroups)-th 16 x 16 block of the result (SubgroupId and
  /// NumSubgroups, as Vulkan forms the subgroups) and keeps its sums in a
  /// cooperative matrix through the K loop (xpu.coop_matrix_mac). Tier
  /// selection guarantees M, N, K % 16 = 0 and whole subgroups of 32.
  LogicalResult lowerMacCoopMatrix(MacOp mac) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    int64_t M = ct.getRows(), N = ct.getCols(), K = at.getCols();
    if (fixedCount % 32 || M % 16 || N % 16 || K % 16 || !at.getElementType().isF16() ||
        !ct.getElementType().isF32())
      return mac.emitOpError("does not fit the cooperative-matrix tier (16x16x16 steps, "
                             "f16 operands with f32 sums, whole subgroups)");
    Value cs = storage.lookup(mac.getC()), as = storage.lookup(mac.getA()),
          bs = storage.lookup(mac.getB());
    Value rs = resultStorage(mac, ct);
    int64_t blocksJ = N / 16, blocks = (M / 16) * blocksJ;

    barrier(loc);
    Value subgroup = WaveIdOp::create(b, loc), subgroups = WaveCountOp::create(b, loc);
    auto blockLoop = forLoop(loc, subgroup, idx(blocks), subgroups);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(blockLoop.getBody());
      Value blk = blockLoop.getInductionVar();
      Value r0 = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, blk, idx(blocksJ)), idx(16));
      Value c0 = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, blk, idx(blocksJ)), idx(16));
      Value cOff = linearAt(loc, r0, c0, N);
      Value aOff = arith::MulIOp::create(b, loc, r0, idx(K));
      CoopMatrixMacOp::create(b, loc, cs, cOff, as, aOff, bs, c0, rs, b.getI64IntegerAttr(K),
                              b.getI64IntegerAttr(K), b.getI64IntegerAttr(N),
                              b.getI64IntegerAttr(N));
    }
    barrier(loc);
    return success();
  }

  /// Widens an operand element (or vector) to the accumulator's type.
  Value widen(Location loc, Value v, Type to) {
    if (v.getType() == to)
      return v;
    if (isa<FloatType>(getElementTypeOrSelf(to)))
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::ExtSIOp::create(b, loc, to, v);
  }

  //===--------------------------------------------------------------------===//
  // Removing the tiles
  //===--------------------------------------------------------------------===//

  /// Rebuilds the loops and ifs without their tile values, then erases the
  /// tile ops; placeholders stand in for tile values until they go.
  LogicalResult finish() {
    SmallVector<Operation *> placeholders;
    auto placeholder = [&](Type t, Location loc) {
      Value p = ub::PoisonOp::create(b, loc, t);
      placeholders.push_back(p.getDefiningOp());
      return p;
    };
    for (Operation *op : llvm::reverse(carriers)) {
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      if (auto forOp = dyn_cast<scf::ForOp>(op)) {
        SmallVector<Value> inits;
        for (Value v : forOp.getInitArgs())
          if (!isa<TileType>(v.getType()))
            inits.push_back(v);
        auto newFor = scf::ForOp::create(b, loc, forOp.getLowerBound(),
                                         forOp.getUpperBound(), forOp.getStep(), inits);
        newFor->setAttrs(forOp->getAttrs());
        Block *body = newFor.getBody();
        if (!body->empty())
          body->getTerminator()->erase();
        SmallVector<Value> args{newFor.getInductionVar()};
        unsigned next = 0;
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(body);
          for (Value arg : forOp.getRegionIterArgs())
            args.push_back(isa<TileType>(arg.getType())
                               ? placeholder(arg.getType(), loc)
                               : newFor.getRegionIterArg(next++));
        }
        body->getOperations().splice(body->end(), forOp.getBody()->getOperations());
        for (auto [from, to] : llvm::zip(forOp.getBody()->getArguments(), args))
          from.replaceAllUsesWith(to);
        dropTileOperands(cast<scf::YieldOp>(body->getTerminator()));
        replaceResults(forOp, newFor, placeholder);
      } else {
        auto ifOp = cast<scf::IfOp>(op);
        SmallVector<Type> types;
        for (Type t : ifOp.getResultTypes())
          if (!isa<TileType>(t))
            types.push_back(t);
        auto newIf = scf::IfOp::create(b, loc, types, ifOp.getCondition(),
                                       /*withElse=*/false);
        newIf.getThenRegion().takeBody(ifOp.getThenRegion());
        newIf.getElseRegion().takeBody(ifOp.getElseRegion());
        for (Region *r : {&newIf.getThenRegion(), &newIf.getElseRegion()})
          if (!r->empty())
            dropTileOperands(cast<scf::YieldOp>(r->front().getTerminator()));
        replaceResults(ifOp, newIf, placeholder);
      }
      op->erase();
    }
    for (Operation *op : llvm::reverse(lowered)) {
      op->dropAllUses();
      op->erase();
    }
    for (Operation *op : placeholders) {
      op->dropAllUses();
      op->erase();
    }
    WalkResult left = kernel.walk([](Operation *op) {
      if (hasTileType(op->getResultTypes()) || hasTileType(op->getOperandTypes()))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return kernel.emitOpError("still has tile values after xpu-lower-tiles");
    return success();
  }

  static void dropTileOperands(scf::YieldOp yield) {
    SmallVector<Value> kept;
    for (Value v : yield.getOperands())
      if (!isa<TileType>(v.getType()))
        kept.push_back(v);
    yield->setOperands(kept);
  }

  template <typename F>
  static void replaceResults(Operation *from, Operation *to, F placeholder) {
    unsigned next = 0;
    for (Value r : from->getResults()) {
      if (isa<TileType>(r.getType())) {
        r.replaceAllUsesWith(placeholder(r.getType(), r.getLoc()));
      } else {
        r.replaceAllUsesWith(to->getResult(next++));
      }
    }
  }
};

/// Removes barriers that directly follow another barrier.
void mergeBarriers(KernelOp kernel) {
  SmallVector<Operation *> extra;
  kernel.walk([&](BarrierOp op) {
    if (Operation *prev = op->getPrevNode(); prev && isa<BarrierOp>(prev))
      extra.push_back(op);
  });
  for (Operation *op : extra)
    op->erase();
}

} // namespace

uint64_t xpu::sharedBytesWithTiles(KernelOp kernel) {
  bool any = false;
  kernel.walk([&](Operation *op) { any |= isTileOp(op); });
  if (!any)
    return sharedScratchBytes(kernel);
  // Called outside a pass (kernel descriptions): the dialects the lowering
  // creates ops of are not loaded by a pass manager here.
  kernel->getContext()->loadDialect<scf::SCFDialect, arith::ArithDialect, math::MathDialect,
                                    vector::VectorDialect, ub::UBDialect>();
  auto copy = cast<KernelOp>(kernel->clone());
  uint64_t bytes = succeeded(KernelTiles(copy, false, false).run())
                       ? sharedScratchBytes(copy)
                       : sharedScratchBytes(kernel);
  copy->erase();
  return bytes;
}

namespace {

struct LowerTilesPass : xpu::impl::LowerTilesBase<LowerTilesPass> {
  using LowerTilesBase::LowerTilesBase;

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool any = false;
      kernel.walk([&](Operation *op) { any |= isTileOp(op); });
      if (!any)
        continue;
      StringRef tier = "software";
      if (auto attr = kernel->getAttrOfType<StringAttr>("xpu.mma_tier"))
        tier = attr.getValue();
      bool mma = tier == "mma.sync" && target == "nvvm";
      bool coop = tier == "cooperative-matrix" && target == "spirv";
      if (tier != "software" && tier != "dot4" && !mma && !coop) {
        kernel.emitOpError() << "has tile tier '" << tier
                             << "', which xpu-lower-tiles does not lower for target '"
                             << target
                             << "' (software, dot4; mma.sync on nvvm; cooperative-matrix "
                                "on spirv)";
        return signalPassFailure();
      }
      KernelTiles lowering(kernel, tier == "dot4", target == "cpu", mma, coop);
      if (failed(lowering.run()))
        return signalPassFailure();
      mergeBarriers(kernel);
    }
  }
};

} // namespace
