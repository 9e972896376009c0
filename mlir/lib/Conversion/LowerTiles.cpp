// Tile lowering (issue 15). On the software and int8 dot tiers every tile
// value becomes a workgroup-shared buffer of its elements, row-major; each
// tile op is a loop over elements (or result blocks) shared among the
// workgroup's invocations, between barriers. On the mma.sync tier the
// accumulators are fragments instead: each invocation holds its share of
// the warp's mma.sync results in private storage (registers once LLVM
// promotes it), from the first fill through the K loop to the store, and
// the operand tiles are copied into shared memory with wide loads into
// padded rows the fragments read without bank conflicts. The wgmma tier
// keeps the sums as fragments too (a warpgroup's wgmma D fragments), and
// its operand tiles are stored in the swizzled layouts wgmma reads through
// shared-memory descriptors. The AMD tiers (MFMA, WMMA) keep each wave's
// share of 16x16 result blocks and read the operands from padded shared
// rows, as mma.sync does. The cooperative-matrix tier keeps each
// subgroup's share of the sums as cooperative matrices (xpu.coop_sums)
// through the K loop and reads the operands from padded shared rows; its
// workgroup variant keeps each tile's sums as one matrix of workgroup scope
// instead (VK_NV_cooperative_matrix2), which the driver spreads over the
// workgroup. See Passes.td (xpu-lower-tiles).
#include "CheckedAccess.h"
#include "xpu/Dialect/XPU/IR/Invocation.h"
#include "xpu/Dialect/XPU/IR/Tiles.h"
#include "xpu/Pipeline.h"
#include "xpu/TileLowering.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <functional>
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

/// The invocations of a workgroup when the kernel fixes its size, else 0.
int64_t fixedInvocations(KernelOp kernel) {
  std::optional<ArrayRef<int64_t>> wg = kernel.getWorkgroupSize();
  if (!wg)
    return 0;
  int64_t n = 1;
  for (int64_t e : *wg)
    n *= e;
  return n;
}

/// Lowers the tiles of one kernel.
class KernelTiles {
public:
  /// `tier`: the kernel's xpu.mma_tier (software when absent);
  /// `stageCopies`: copy the mac operands of K loops in stages with
  /// cp.async where they qualify (NVIDIA's tiers; stagingOf), in at most
  /// `stageBudget` bytes. On the AMD tiers a kernel marked xpu.mma_emulated
  /// computes each matrix-core step from its definition (emulatedSteps).
  KernelTiles(KernelOp kernel, StringRef tier, bool wideVectors, bool stageCopies = false,
              int64_t stageBudget = 0)
      : kernel(kernel), b(kernel.getContext()), dot4(tier == "dot4"),
        wideVectors(wideVectors), mmaSync(tier == "mma.sync"), wgmma(tier == "wgmma"),
        coopWorkgroup(tier == "cooperative-matrix-workgroup"),
        coopMatrix(tier == "cooperative-matrix" || coopWorkgroup), mfma(tier == "mfma"),
        wmma(tier == "wmma"),
        amd(mfma || wmma), emulated(amd && kernel->hasAttr("xpu.mma_emulated")),
        fragments(mmaSync || wgmma || amd), waveSize(mfma ? 64 : 32),
        stageCopies(stageCopies), stageBudget(stageBudget) {}

  LogicalResult run() {
    Block &entry = kernel.getBody().front();
    b.setInsertionPointToStart(&entry);
    Location loc = kernel.getLoc();
    entryPoint = b.saveInsertionPoint();
    LinearInvocation inv = linearInvocation(b, loc);
    self = inv.index;
    count = inv.count;
    if ((fixedCount = fixedInvocations(kernel)))
      count = idx(fixedCount);
    if (fragments) {
      lane = arith::RemUIOp::create(b, loc, self, idx(waveSize));
      warp = arith::DivUIOp::create(b, loc, self, idx(waveSize));
      group = arith::DivUIOp::create(b, loc, lane, idx(4));
      quad2 = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, idx(4)),
                                    idx(2));
      kernel.walk([&](MacOp mac) {
        auto ct = cast<TileType>(mac.getC().getType());
        if (ct.getElementType().isF32() && fixedCount >= (wgmma ? 128 : waveSize))
          fragmentTypes.insert(ct);
      });
    }
    if (coopMatrix) {
      // Vulkan forms the subgroups (of 32: tier selection checks the device);
      // emulated, the subgroups are runs of 32 invocations.
      bool emulatedSubgroups = kernel->hasAttr("xpu.mma_emulated");
      warp = emulatedSubgroups ? Value(arith::DivUIOp::create(b, loc, self, idx(waveSize)))
                               : Value(WaveIdOp::create(b, loc));
      lane = emulatedSubgroups ? Value(arith::RemUIOp::create(b, loc, self, idx(waveSize)))
                               : Value(LaneIdOp::create(b, loc));
      kernel.walk([&](MacOp mac) {
        auto ct = cast<TileType>(mac.getC().getType());
        if (ct.getElementType().isF32() && fixedCount >= waveSize && fixedCount % waveSize == 0)
          sumTypes.insert(ct);
      });
    }
    entryPoint = b.saveInsertionPoint();
    if (failed(lowerBlock(entry)))
      return failure();
    return finish();
  }

private:
  KernelOp kernel;
  OpBuilder b;
  bool dot4, wideVectors, mmaSync, wgmma;
  bool coopWorkgroup; ///< the cooperative-matrix tier with workgroup-scope sums
  bool coopMatrix, mfma, wmma;
  bool amd;       ///< mfma or wmma
  bool emulated;  ///< AMD steps computed from their definitions (xpu.mma_emulated)
  bool fragments; ///< sums held as fragments (mma.sync, wgmma, mfma, wmma)
  int64_t waveSize; ///< invocations of a warp or wave (64: MFMA)
  bool stageCopies;
  int64_t stageBudget;
  OpBuilder::InsertPoint entryPoint;
  Value self, count;       ///< linear invocation index, invocations (index)
  int64_t fixedCount = 0;  ///< the workgroup size when the kernel fixes it
  /// tile value -> its storage: a shared buffer, or on the mma.sync tier
  /// a private one holding the invocation's fragment (isFragment)
  llvm::DenseMap<Value, Value> storage;
  SmallVector<Operation *> lowered;      ///< tile ops, erased at the end
  SmallVector<Operation *> carriers;     ///< scf.for / scf.if carrying tiles

  Operation *lowering = nullptr;         ///< the tile op being lowered

  /// A shared storage laid out for mac operands, in the load's orientation
  /// (colMajor: the tile's columns are the storage's rows). mma.sync: `ld`
  /// elements from one row to the next, padded so the fragment reads of a
  /// warp fall in distinct banks. wgmma (swizzle > 0): the `majors` rows
  /// are cut into atoms of swizzle / 2 elements; the atoms of one column
  /// range are stored one after another (row r of atom column a at element
  /// (a majors + r) swizzle / 2), and each 16-byte unit of a row is placed
  /// at its index xor the row's (address bits 7 up) as wgmma's swizzle
  /// modes read it. Storages not listed are row-major with ld = the tile's
  /// columns.
  struct Layout {
    int64_t ld;
    bool colMajor;
    int64_t swizzle = 0; ///< bytes per atom row (32, 64, 128); 0: padded rows
    int64_t majors = 0;  ///< rows of the storage (wgmma)
    /// Element where the stage the current K step reads starts (operands
    /// copied in stages, stageCopies); null: 0.
    Value base;
  };
  llvm::DenseMap<Value, Layout> layouts;
  /// Tensor-core tiers: the tile types held as fragments (the macs' sums),
  /// and the invocation's lane, warp (or wave), row group (lane / 4) and
  /// column pair (2 (lane % 4)).
  llvm::DenseSet<Type> fragmentTypes;
  Value lane, warp, group, quad2;
  /// Cooperative-matrix tier: the tile types held as subgroups' sums (the
  /// macs' f32 sums; `warp` is then the subgroup).
  llvm::DenseSet<Type> sumTypes;
  /// Workgroup tier: operand tiles of read-only buffers not copied at their
  /// load; their macs read them from the buffer where they can
  /// (lowerMacDirect), else copy them into this shared storage first.
  llvm::DenseMap<Value, TileLoadOp> deferred;
  /// Workgroup tier: lowerMacDirect's branches, whose condition says the
  /// mac reads its deferred tiles straight from their buffers
  /// (versionDirectLoops).
  SmallVector<scf::IfOp> directBranches;
  /// Workgroup tier: the shared storage of the slices copyDeferredBySlices
  /// copies of a deferred load (whose own storage then goes unused).
  llvm::DenseMap<Operation *, Value> slices;

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

  /// `Op` made at the kernel's entry, after the ones made there before, so
  /// what it allocates lives through the whole kernel.
  template <typename Op, typename... Args>
  Op atEntry(Args &&...args) {
    OpBuilder::InsertionGuard g(b);
    b.restoreInsertionPoint(entryPoint);
    auto op = Op::create(b, kernel.getLoc(), std::forward<Args>(args)...);
    entryPoint = b.saveInsertionPoint();
    return op;
  }

  /// A buffer of `elements` `elem` in `space`, allocated at kernel entry.
  Value allocAtEntry(Type elem, Space space, int64_t elements) {
    return atEntry<AllocOp>(BufferType::get(b.getContext(), elem, space, Access::rw, elements));
  }

  /// A new workgroup-shared buffer for a tile, allocated at kernel entry.
  Value newStorage(TileType t) {
    return allocAtEntry(t.getElementType(), Space::shared, t.getNumElements());
  }

  //===--------------------------------------------------------------------===//
  // Fragments (mma.sync tier)
  //===--------------------------------------------------------------------===//

  /// How the holders of a tile held as fragments share it: a wm x wn grid
  /// of holder tiles, each mi x ni blocks of `cols` columns and `16 warps`
  /// rows, `perBlock` entries of each block in each invocation.
  /// mma.sync: a holder is a warp and a block one m16n8 result. wgmma: a
  /// holder is a warpgroup (4 warps) and a block 64 rows of one wgmma's
  /// m64nN result, warp w of the group holding its rows 16 w to 16 w + 15.
  /// MFMA and WMMA: a holder is a wave and a block one 16x16 result (4
  /// entries of 64 lanes, 8 of 32). Cooperative matrices: a holder is a
  /// subgroup and a block one 16x16 matrix.
  struct WarpGrid {
    int64_t wm, wn, mi, ni, warps, cols = 8, perBlock = 4;
    int64_t entries() const { return mi * ni * perBlock; }
    int64_t blockRows() const { return 16 * warps; }
  };

  /// As many holders as divide the tile evenly, in the holder tiles whose
  /// instructions read the fewest operand elements per 16-deep step
  /// (mma.sync: the squarest; wgmma, where each of the mi instructions
  /// reads 64 rows of A and all of the holder's B: the widest); holders
  /// beyond wm x wn hold nothing. A wgmma holder tile is at most 256 columns wide (the
  /// widest wgmma) and a multiple of 16 (so an operand stored N-contiguous
  /// starts each holder's columns at a whole swizzle atom).
  WarpGrid warpGrid(TileType t) const {
    int64_t M = t.getRows(), N = t.getCols();
    if (coopWorkgroup) // one holder: the workgroup
      return {1, 1, M / 16, N / 16, 1, 16, 4};
    bool square = amd || coopMatrix; // 16x16 blocks
    int64_t warps = wgmma ? 4 : 1, rows = 16 * warps, unit = wgmma || square ? 16 : 8;
    int64_t cols = square ? 16 : 8, perBlock = wmma ? 8 : 4;
    for (int64_t used = fixedCount / waveSize / warps; used >= 1; --used) {
      std::optional<WarpGrid> best;
      for (int64_t wm = 1; wm <= used; ++wm) {
        int64_t wn = used / wm;
        if (used % wm || M % (rows * wm) || N % (unit * wn) || (wgmma && N / wn > 256))
          continue;
        WarpGrid g{wm, wn, M / wm / rows, N / wn / cols, warps, cols, perBlock};
        auto reads = [&](const WarpGrid &w) {
          return wgmma ? w.mi * (64 + w.ni * 8) : w.mi * 16 + w.ni * cols;
        };
        if (!best || reads(g) < reads(*best))
          best = g;
      }
      if (best)
        return *best;
    }
    return {1, 1, M / rows, N / cols, warps, cols, perBlock};
  }

  bool isFragment(Value storage) const {
    auto t = dyn_cast<BufferType>(storage.getType());
    return t && t.getSpace() == Space::private_;
  }

  static bool isSums(Value storage) { return isa<CoopSumsType>(storage.getType()); }

  /// New storage of the kind `like` is.
  Value newLike(TileType t, Value like) {
    if (isSums(like))
      return newSums(t);
    return isFragment(like) ? newFragment(t) : newStorage(t);
  }

  /// New private storage for an invocation's fragment of a tile.
  Value newFragment(TileType t) {
    return allocAtEntry(t.getElementType(), Space::private_, warpGrid(t).entries());
  }

  /// Shared storage for a cooperative-matrix operand: rows padded by 16
  /// bytes, so the 16-byte row pieces a matrix load reads fall in distinct
  /// banks.
  Value newCoopOperand(TileType t) {
    int64_t ld = t.getCols() + 8;
    Value s = allocAtEntry(t.getElementType(), Space::shared, t.getRows() * ld);
    layouts[s] = Layout{ld, /*colMajor=*/false};
    return s;
  }

  /// The load's tile copied element by element into `shared` by the
  /// workgroup (vectors of 4 along rows where they can), each element
  /// with the load's check.
  void copyElements(TileLoadOp load, Value shared) {
    copyElements(load, shared, load.getResult().getType(), Value(), Value());
  }

  /// The same for the part of shape `part` from row i0 and column j0 of the
  /// load's tile (the whole tile where they are null); `shared` holds the
  /// part alone.
  void copyElements(TileLoadOp load, Value shared, TileType part, Value i0, Value j0) {
    Location loc = load.getLoc();
    int64_t w = rowVector(part, load.getColMajor());
    Type type = w > 1 ? Type(VectorType::get({w}, part.getElementType())) : part.getElementType();
    auto from = [&](Value first, Value v) {
      return first ? arith::AddIOp::create(b, loc, first, v).getResult() : v;
    };
    forEachElement(loc, part.getRows(), part.getCols() / w, [&](Value i, Value jw) {
      Value j = arith::MulIOp::create(b, loc, jw, idx(w));
      Value at = strided(loc, load.getOffset(), load.getStride(), from(i0, i), from(j0, j),
                         load.getColMajor());
      auto v = LoadOp::create(b, loc, type, load.getBuffer(), at);
      inheritCheck(v, load);
      StoreOp::create(b, loc, v.getResult(), shared, sharedIndex(loc, shared, part, i, j));
    });
  }

  /// Whether every element of a tile of type `t` at `offset` of `buffer`,
  /// `stride` elements between its rows (colMajor: columns), lies in the
  /// buffer.
  Value tileInside(Location loc, Value buffer, Value offset, Value stride, TileType t,
                   bool colMajor) {
    int64_t majors = colMajor ? t.getCols() : t.getRows(),
            minors = colMajor ? t.getRows() : t.getCols();
    Value size = BufferSizeOp::create(b, loc, buffer);
    Value end = arith::AddIOp::create(
        b, loc, offset,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, stride, idx(majors - 1)),
                              idx(minors)));
    // The end cannot wrap around when the offset and the stride are within
    // the buffer (a buffer has far fewer than 2^48 elements and a tile far
    // fewer than 2^15 rows); one that wraps would pass unchecked.
    auto ule = [&](Value x, Value y) {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, x, y);
    };
    return arith::AndIOp::create(
        b, loc, ule(end, size), arith::AndIOp::create(b, loc, ule(offset, size), ule(stride, size)));
  }

  /// Whether the whole tile of `load`, at `offset`, lies in its buffer.
  Value tileFits(TileLoadOp load, Value offset) {
    return tileInside(load.getLoc(), load.getBuffer(), offset, load.getStride(),
                      load.getResult().getType(), load.getColMajor());
  }

  /// Whether cooperative-matrix loads may read the tile of `load` at
  /// `offset` from its buffer: rows starting 16-byte aligned, as Vulkan asks
  /// of their pointer and stride (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986;
  /// a driver may read other elements when they do not) and, when the load
  /// is checked, the whole tile in the buffer.
  Value coopReadable(TileLoadOp load, Value offset) {
    TileType t = load.getResult().getType();
    Value ok = rowsAligned(load.getLoc(), load, offset,
                           128 / t.getElementType().getIntOrFloatBitWidth());
    if (load->hasAttr("checked"))
      ok = arith::AndIOp::create(b, load.getLoc(), ok, tileFits(load, offset));
    return ok;
  }

  /// The first row and column of 16x16 block `blk` (row-major) of `t`.
  std::pair<Value, Value> blockAt(Location loc, TileType t, Value blk) {
    int64_t blocksJ = t.getCols() / 16;
    return {arith::MulIOp::create(b, loc, arith::DivUIOp::create(b, loc, blk, idx(blocksJ)),
                                  idx(16)),
            arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, blk, idx(blocksJ)),
                                  idx(16))};
  }

  /// Block q of the blocks a subgroup copies of `t`: every (subgroups)-th
  /// 16x16 block, from the subgroup's own.
  std::pair<Value, Value> copiedBlock(Location loc, TileType t, int64_t q) {
    return blockAt(loc, t, arith::AddIOp::create(b, loc, warp, idx(q * (fixedCount / waveSize))));
  }

  /// A cooperative-matrix operand loaded in a K loop it can be read ahead
  /// in (readAheadLoop), whose 16x16 blocks the subgroups share evenly: the loop's first tile is read into each subgroup's blocks in
  /// flight (xpu.coop_blocks) before the loop; each iteration stores them
  /// into shared memory and, before its mac, reads the next iteration's
  /// tile, so the global reads overlap the multiply-adds. A checked tile
  /// that does not lie wholly in its buffer is not read ahead: its
  /// iteration copies it element by element, with the checks; so does one
  /// whose rows do not start 16-byte aligned (rowsAligned).
  bool pipelineCoopOperand(TileLoadOp load, Value s) {
    scf::ForOp loop = readAheadLoop(load);
    TileType t = load.getResult().getType();
    int64_t subgroups = fixedCount / waveSize, blocks = t.getRows() / 16 * (t.getCols() / 16);
    if (!loop || blocks % subgroups)
      return false;
    Location loc = load.getLoc();
    bool colMajor = load.getColMajor();
    int64_t per = blocks / subgroups, ld = operandLd(s, t.getCols());
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(loop);
    Value offset0 = offsetAt(loop, load, loop.getLowerBound());
    if (!offset0)
      return false;
    Value regs = atEntry<CoopBlocksAllocOp>(CoopBlocksType::get(b.getContext(), per));
    // Reads the tile at `offset` into the blocks (when it may).
    auto read = [this, load, regs, per, t, colMajor, loc](Value offset) mutable {
      OpBuilder::InsertionGuard ig(b);
      auto fits = scf::IfOp::create(b, loc, TypeRange{}, coopReadable(load, offset), false);
      b.setInsertionPointToStart(fits.thenBlock());
      for (int64_t q = 0; q < per; ++q) {
        auto [r0, c0] = copiedBlock(loc, t, q);
        CoopBlocksLoadOp::create(b, loc, regs, q, load.getBuffer(),
                                 strided(loc, offset, load.getStride(), r0, c0, colMajor),
                                 load.getStride(), colMajor);
      }
    };
    auto any = scf::IfOp::create(b, loc, TypeRange{}, runsAt(loc, loop, loop.getLowerBound()),
                                 /*withElse=*/false);
    b.setInsertionPointToStart(any.thenBlock());
    read(offset0);
    // In the loop: the blocks into shared memory (or, where the tile does
    // not fit, its elements).
    b.setInsertionPoint(load);
    barrier(loc);
    {
      OpBuilder::InsertionGuard ig(b);
      auto fits = scf::IfOp::create(b, loc, TypeRange{}, coopReadable(load, load.getOffset()),
                                    /*withElse=*/true);
      b.setInsertionPointToStart(fits.elseBlock());
      copyElements(load, s);
      b.setInsertionPointToStart(fits.thenBlock());
      for (int64_t q = 0; q < per; ++q) {
        auto [r0, c0] = copiedBlock(loc, t, q);
        CoopBlocksStoreOp::create(b, loc, regs, q, s, linearAt(loc, r0, c0, ld), ld);
      }
    }
    barrier(loc);
    // Then the next iteration's tile, placed before the first mac.
    prefetches[s] = [this, loop, load, read, loc]() mutable {
      Value next = arith::AddIOp::create(b, loc, loop.getInductionVar(), loop.getStep());
      auto more = scf::IfOp::create(b, loc, TypeRange{}, runsAt(loc, loop, next),
                                    /*withElse=*/false);
      OpBuilder::InsertionGuard ig(b);
      b.setInsertionPointToStart(more.thenBlock());
      read(offsetAt(loop, load, next));
    };
    return true;
  }

  /// A cooperative-matrix operand tile copied by whole subgroups, one
  /// 16x16 block through a cooperative matrix at a time, when the
  /// matrices may read it (coopReadable: its rows 16-byte aligned and, for
  /// a checked load, all of it in its buffer). Leaves the builder in the
  /// branch where they may not: there the caller copies the elements one
  /// by one, with their checks (zeros past the end, reported).
  void copyCoopOperand(TileLoadOp load, Value shared) {
    Location loc = load.getLoc();
    TileType t = load.getResult().getType();
    bool colMajor = load.getColMajor();
    Value stride = load.getStride(), offset = load.getOffset();
    auto guard =
        scf::IfOp::create(b, loc, TypeRange{}, coopReadable(load, offset), /*withElse=*/true);
    b.setInsertionPointToStart(guard.thenBlock());
    int64_t ld = operandLd(shared, t.getCols());
    auto blocks = forLoop(loc, warp, idx(t.getRows() / 16 * (t.getCols() / 16)),
                          idx(fixedCount / waveSize));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(blocks.getBody());
      auto [r0, c0] = blockAt(loc, t, blocks.getInductionVar());
      CoopBlockCopyOp::create(b, loc, load.getBuffer(),
                              strided(loc, offset, stride, r0, c0, colMajor), stride,
                              colMajor ? b.getUnitAttr() : UnitAttr(), shared,
                              linearAt(loc, r0, c0, ld), b.getI64IntegerAttr(ld));
    }
    b.setInsertionPointToStart(guard.elseBlock());
  }

  /// New sums for a subgroup's share of a tile (cooperative matrices).
  Value newSums(TileType t) {
    WarpGrid grid = warpGrid(t);
    return atEntry<CoopSumsAllocOp>(
        CoopSumsType::get(b.getContext(), grid.mi, grid.ni, coopWorkgroup));
  }

  /// The first row and column of a subgroup's holder tile of `t`.
  std::pair<Value, Value> holderStart(Location loc, TileType t) {
    if (coopWorkgroup)
      return {idx(0), idx(0)};
    WarpGrid g = warpGrid(t);
    Value wy = arith::DivUIOp::create(b, loc, warp, idx(g.wn));
    Value wx = arith::RemUIOp::create(b, loc, warp, idx(g.wn));
    return {arith::MulIOp::create(b, loc, wy, idx(g.mi * 16)),
            arith::MulIOp::create(b, loc, wx, idx(g.ni * 16))};
  }

  /// The tile row and column of fragment entry `e`: entries run over the
  /// holder tile's blocks (row-major), four per 16 x 8 piece of a warp in
  /// the C order of mma.sync and wgmma alike (row group, columns 2 quad and
  /// 2 quad + 1; then row group + 8).
  std::pair<Value, Value> fragmentPosition(Location loc, TileType t, int64_t e) {
    WarpGrid g = warpGrid(t);
    if (amd)
      return amdFragmentPosition(loc, g, e);
    Value holder = arith::DivUIOp::create(b, loc, warp, idx(g.warps));
    Value wy = arith::DivUIOp::create(b, loc, holder, idx(g.wn));
    Value wx = arith::RemUIOp::create(b, loc, holder, idx(g.wn));
    Value warpRows = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, warp, idx(g.warps)), idx(16));
    int64_t blockRow = e / (g.ni * 4), blockCol = (e / 4) % g.ni, r = e % 4;
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, wy, idx(g.mi * g.blockRows())),
        arith::AddIOp::create(
            b, loc, warpRows,
            arith::AddIOp::create(b, loc, group,
                                  idx(blockRow * g.blockRows() + 8 * (r / 2)))));
    Value col = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, wx, idx(g.ni * 8)),
        arith::AddIOp::create(b, loc, quad2, idx(blockCol * 8 + r % 2)));
    return {row, col};
  }

  /// The tile row and column of fragment entry `e` on the AMD tiers: the
  /// wave's blocks row-major, `perBlock` entries per 16x16 block in the
  /// order of the instruction's result (lane = 16 h + c): MFMA's entry q at
  /// row 4 h + q, WMMA's (gfx11) at row 2 q + h; column c in both.
  std::pair<Value, Value> amdFragmentPosition(Location loc, const WarpGrid &g, int64_t e) {
    Value wy = arith::DivUIOp::create(b, loc, warp, idx(g.wn));
    Value wx = arith::RemUIOp::create(b, loc, warp, idx(g.wn));
    int64_t blockRow = e / (g.ni * g.perBlock), blockCol = (e / g.perBlock) % g.ni;
    auto [inRow, inCol] = amdResultAt(loc, e % g.perBlock);
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, wy, idx(g.mi * 16)),
        arith::AddIOp::create(b, loc, inRow, idx(16 * blockRow)));
    Value col = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, wx, idx(g.ni * 16)),
        arith::AddIOp::create(b, loc, inCol, idx(16 * blockCol)));
    return {row, col};
  }

  /// Where in its 16x16 block this lane's result entry q lies.
  std::pair<Value, Value> amdResultAt(Location loc, int64_t q) {
    Value h = arith::DivUIOp::create(b, loc, lane, idx(16));
    Value c = arith::RemUIOp::create(b, loc, lane, idx(16));
    Value row = mfma ? arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, h, idx(4)),
                                             idx(q))
                     : arith::AddIOp::create(b, loc, h, idx(2 * q));
    return {row, c};
  }

  /// Runs `body` in the warps that hold fragments of `t`.
  void ifHolding(Location loc, TileType t, function_ref<void()> body) {
    if (coopWorkgroup)
      return body();
    WarpGrid g = warpGrid(t);
    int64_t holding = g.wm * g.wn * g.warps;
    if (holding == fixedCount / waveSize)
      return body();
    Value holds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp,
                                        idx(holding));
    auto guard = scf::IfOp::create(b, loc, TypeRange{}, holds, /*withElse=*/false);
    OpBuilder::InsertionGuard ig(b);
    b.setInsertionPointToStart(guard.thenBlock());
    body();
  }

  /// The index of element (i, j) in a tile's shared storage.
  Value sharedIndex(Location loc, Value buffer, TileType t, Value i, Value j) {
    auto it = layouts.find(buffer);
    if (it == layouts.end())
      return linearAt(loc, i, j, t.getCols());
    Value major = it->second.colMajor ? j : i, minor = it->second.colMajor ? i : j;
    return storageIndex(loc, it->second, major, minor);
  }

  /// The index of (major, minor) in storage laid out as `l`.
  Value storageIndex(Location loc, const Layout &l, Value major, Value minor) {
    if (!l.swizzle)
      return withBase(loc, l, linearAt(loc, major, minor, l.ld));
    Value e = atomIndex(loc, l, major, minor);
    // Units of 8 elements (16 bytes) xor element bits 6 up (address bits 7 up).
    Value rowBits = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, e, idx(6)), idx(l.swizzle / 16 - 1));
    return arith::XOrIOp::create(b, loc, e,
                                 arith::ShLIOp::create(b, loc, rowBits, idx(3)));
  }

  /// The index of (major, minor) in a wgmma layout before the swizzle: the
  /// logical address a descriptor names.
  Value atomIndex(Location loc, const Layout &l, Value major, Value minor) {
    int64_t half = l.swizzle / 2;
    Value atom = arith::DivUIOp::create(b, loc, minor, idx(half));
    Value within = arith::RemUIOp::create(b, loc, minor, idx(half));
    return withBase(
        loc, l,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, atom, idx(l.majors * half)),
            arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, major, idx(half)),
                                  within)));
  }

  /// `index` moved to the layout's current stage. Stages start at
  /// multiples of 8 x swizzle bytes, so the swizzle (of address bits) reads
  /// each stage as it reads the first.
  Value withBase(Location loc, const Layout &l, Value index) {
    return l.base ? arith::AddIOp::create(b, loc, index, l.base) : index;
  }

  /// Where a copy into mac-operand storage ends: on the wgmma tier each
  /// invocation's shared stores are ordered before the tensor cores' reads
  /// (the async proxy) and then the barrier makes them the workgroup's.
  void endOperandCopy(Location loc) {
    if (wgmma)
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKindAttr::get(b.getContext(), NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
    barrier(loc);
  }

  /// Moves a tile between a fragment and shared storage (either way).
  void exchange(Location loc, TileType t, Value fragment, Value shared, bool toShared) {
    barrier(loc);
    ifHolding(loc, t, [&] {
      for (int64_t e = 0; e < warpGrid(t).entries(); ++e) {
        auto [row, col] = fragmentPosition(loc, t, e);
        Value at = sharedIndex(loc, shared, t, row, col);
        if (toShared)
          StoreOp::create(b, loc, LoadOp::create(b, loc, t.getElementType(), fragment, idx(e)),
                          shared, at);
        else
          StoreOp::create(b, loc, LoadOp::create(b, loc, t.getElementType(), shared, at),
                          fragment, idx(e));
      }
    });
    barrier(loc);
  }

  /// The tile's storage as a fragment, converted from shared storage when
  /// it lives there.
  Value fragmentOf(Location loc, Value tile) {
    Value s = storage.lookup(tile);
    if (isFragment(s))
      return s;
    auto t = cast<TileType>(tile.getType());
    Value f = newFragment(t);
    exchange(loc, t, f, s, /*toShared=*/false);
    return f;
  }

  /// The tile's storage in shared memory, gathered from the fragments when
  /// it is held as fragments.
  Value sharedOf(Location loc, Value tile) {
    Value s = storage.lookup(tile);
    if (!isFragment(s) && !isSums(s))
      return s;
    auto t = cast<TileType>(tile.getType());
    Value shared = newStorage(t);
    copy(loc, t, shared, s);
    return shared;
  }

  /// The tile's storage, in shared storage when it is held as sums (the
  /// elementwise ops and stores work there; a fresh copy may be overwritten).
  Value sharedOfSums(Location loc, Value tile) {
    Value s = storage.lookup(tile);
    return isSums(s) ? sharedOf(loc, tile) : s;
  }

  /// The tile's storage as sums, loaded from shared storage when it lives
  /// there.
  Value sumsOf(Location loc, Value tile) {
    Value s = storage.lookup(tile);
    if (isSums(s))
      return s;
    auto t = cast<TileType>(tile.getType());
    Value sums = newSums(t);
    copy(loc, t, sums, s);
    return sums;
  }

  /// Where a subgroup's holder tile of `t` starts in a buffer holding the
  /// tile at `offset` with `stride` elements between rows (colMajor:
  /// columns).
  Value holderAt(Location loc, TileType t, Value offset, Value stride, bool colMajor = false) {
    auto [row, col] = holderStart(loc, t);
    return strided(loc, offset, stride, row, col, colMajor);
  }

  /// Moves sums to sums, or between sums and row-major shared storage.
  void copySums(Location loc, TileType t, Value dst, Value src) {
    barrier(loc);
    ifHolding(loc, t, [&] {
      if (isSums(dst) && isSums(src))
        CoopSumsCopyOp::create(b, loc, src, dst);
      else if (isSums(dst))
        CoopSumsLoadOp::create(b, loc, dst, src, holderAt(loc, t, idx(0), idx(t.getCols())),
                               idx(t.getCols()), /*col_major=*/false, IntegerAttr());
      else
        CoopSumsStoreOp::create(b, loc, src, dst, holderAt(loc, t, idx(0), idx(t.getCols())),
                                idx(t.getCols()), /*col_major=*/false, IntegerAttr());
    });
    barrier(loc);
  }

  /// dst[e] = f(src[e]) over an invocation's fragment entries.
  void mapFragment(Location loc, TileType t, Value dst, Value src,
                   function_ref<Value(Value)> f) {
    Type elem = cast<BufferType>(src.getType()).getElementType();
    for (int64_t e = 0; e < warpGrid(t).entries(); ++e)
      StoreOp::create(b, loc, f(LoadOp::create(b, loc, elem, src, idx(e))), dst, idx(e));
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

  /// The fragment a tensor-core mac's sums go to, given c's fragment `cs`.
  /// The sums are all read before any is written: the result may take c's
  /// fragment when c is not used again (or was converted just now).
  Value resultFragment(MacOp mac, Value cs, TileType resultType) {
    bool fresh = cs != storage.lookup(mac.getC());
    Value rs = fresh || reusable(mac.getC(), mac, resultType) ? cs : newFragment(resultType);
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

  /// A cooperative elementwise map from `src` to `dst` (same shape; both
  /// fragments, or both shared).
  void mapElements(Location loc, TileType type, Value dst, Value src,
                   function_ref<Value(Value)> f) {
    if (isFragment(src))
      return mapFragment(loc, type, dst, src, f);
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
    if (dst == src)
      return;
    if (isSums(dst) || isSums(src))
      return copySums(loc, type, dst, src);
    if (isFragment(dst) != isFragment(src))
      return exchange(loc, type, isFragment(dst) ? dst : src, isFragment(dst) ? src : dst,
                      /*toShared=*/!isFragment(dst));
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
        s = newLike(type, storage.lookup(init));
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
        Value tmp = newLike(type, src);
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
        slots[i] = fragmentTypes.contains(type) ? newFragment(type)
                   : sumTypes.contains(type)    ? newSums(type)
                                                : newStorage(type);
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
      if (fragmentTypes.contains(t)) {
        Value f = newFragment(t);
        storage[fill.getResult()] = f;
        for (int64_t e = 0; e < warpGrid(t).entries(); ++e)
          StoreOp::create(b, loc, fill.getValue(), f, idx(e));
        return success();
      }
      if (sumTypes.contains(t)) {
        Value sums = newSums(t);
        storage[fill.getResult()] = sums;
        ifHolding(loc, t, [&] { CoopSumsFillOp::create(b, loc, sums, fill.getValue()); });
        return success();
      }
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
      if (fragments && onlyMacOperand(load.getResult()))
        return lowerOperandLoad(load);
      TileType t = load.getResult().getType();
      bool coopOperand = coopMatrix && onlyMacOperand(load.getResult());
      Value s = coopOperand ? newCoopOperand(t) : newStorage(t);
      storage[load.getResult()] = s;
      // No invocation of a launch writes a read-only buffer (as the
      // uniformity analysis assumes too), so its macs read what it would.
      if (coopWorkgroup && readAtMacs(load)) {
        deferred[s] = load;
        return success();
      }
      bool byBlocks = coopOperand && t.getElementType().isF16() && t.getRows() % 16 == 0 &&
                      t.getCols() % 16 == 0 && fixedCount % waveSize == 0;
      if (byBlocks && pipelineCoopOperand(load, s))
        return success();
      barrier(loc);
      {
        OpBuilder::InsertionGuard g(b);
        if (byBlocks)
          copyCoopOperand(load, s); // leaves the builder where the elements go one by one
        copyElements(load, s);
      }
      barrier(loc);
      return success();
    }
    if (auto store = dyn_cast<TileStoreOp>(op))
      return lowerStore(store);
    if (auto mac = dyn_cast<MacOp>(op))
      return lowerMac(mac);
    if (auto scale = dyn_cast<TileScaleOp>(op)) {
      TileType t = scale.getType();
      Value src = sharedOfSums(loc, scale.getTile());
      Value dst = src == storage.lookup(scale.getTile()) ? reusable(scale.getTile(), op, t)
                                                         : src;
      if (!dst)
        dst = isFragment(src) ? newFragment(t) : newStorage(t);
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
      Value lhs = sharedOfSums(loc, add.getLhs()), rhs = sharedOfSums(loc, add.getRhs());
      bool isFloat = isa<FloatType>(t.getElementType());
      auto sum = [&](Value x, Value y) -> Value {
        return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                       : Value(arith::AddIOp::create(b, loc, x, y));
      };
      if (isFragment(lhs) || isFragment(rhs)) {
        lhs = fragmentOf(loc, add.getLhs());
        rhs = fragmentOf(loc, add.getRhs());
        Value dst = newFragment(t);
        storage[add.getResult()] = dst;
        for (int64_t e = 0; e < warpGrid(t).entries(); ++e)
          StoreOp::create(b, loc,
                          sum(LoadOp::create(b, loc, t.getElementType(), lhs, idx(e)),
                              LoadOp::create(b, loc, t.getElementType(), rhs, idx(e))),
                          dst, idx(e));
        return success();
      }
      Value dst = lhs == storage.lookup(add.getLhs()) ? reusable(add.getLhs(), op, t) : lhs;
      if (!dst && add.getLhs() != add.getRhs())
        dst = rhs == storage.lookup(add.getRhs()) ? reusable(add.getRhs(), op, t) : rhs;
      if (!dst)
        dst = newStorage(t);
      storage[add.getResult()] = dst;
      barrier(loc);
      forEachElement(loc, t.getRows(), t.getCols(), [&](Value i, Value j) {
        Value at = linearAt(loc, i, j, t.getCols());
        Value x = LoadOp::create(b, loc, t.getElementType(), lhs, at);
        Value y = LoadOp::create(b, loc, t.getElementType(), rhs, at);
        StoreOp::create(b, loc, sum(x, y), dst, at);
      });
      barrier(loc);
      return success();
    }
    auto convert = cast<TileConvertOp>(op);
    TileType from = convert.getTile().getType(), to = convert.getResult().getType();
    Value src = sharedOfSums(loc, convert.getTile());
    Value dst = isFragment(src) ? newFragment(to) : newStorage(to);
    storage[convert.getResult()] = dst;
    Type fromElem = from.getElementType(), toElem = to.getElementType();
    mapElements(loc, from, dst, src, [&](Value v) -> Value {
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
    if (isFragment(src))
      return storeFragment(store, src, wide);
    if (isSums(src))
      return storeSums(store, src, wide);
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
    if (wgmma)
      return lowerMacWgmma(mac);
    if (coopMatrix)
      return lowerMacCoopMatrix(mac);
    if (amd)
      return lowerMacAmd(mac);
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

  /// Whether every use of a tile is as a mac's a or b operand.
  static bool onlyMacOperand(Value tile) {
    return !tile.use_empty() && llvm::all_of(tile.getUses(), [](OpOperand &use) {
      return isa<MacOp>(use.getOwner()) && use.getOperandNumber() != 0;
    });
  }

  /// `access`, marked as aligned to `bytes` (xpu.align).
  template <typename Op> Op aligned(Op access, int64_t bytes) {
    access->setAttr("xpu.align", b.getI64IntegerAttr(bytes));
    return access;
  }

  /// The wgmma layout of an operand tile stored majors x minors: the
  /// widest swizzle whose atom (swizzle / 2 elements) divides the rows and,
  /// where a mac reads the storage's rows as B's N dimension, that mac's
  /// holder columns (each warpgroup's B starts at a whole atom).
  Layout wgmmaLayout(Value tile, bool colMajor, int64_t majors, int64_t minors) {
    int64_t unit = std::gcd(minors, int64_t(64));
    for (OpOperand &use : tile.getUses()) {
      auto mac = cast<MacOp>(use.getOwner());
      bool isB = use.getOperandNumber() == 2;
      if (isB && !colMajor)
        unit = std::gcd(unit, warpGrid(cast<TileType>(mac.getC().getType())).ni * 8);
    }
    return {minors, colMajor, 2 * unit, majors};
  }

  /// The rows and columns of a mac operand's storage (its columns are the
  /// rows when it is loaded column-major).
  static std::pair<int64_t, int64_t> operandShape(TileLoadOp load) {
    TileType t = load.getResult().getType();
    return load.getColMajor() ? std::pair{t.getCols(), t.getRows()}
                              : std::pair{t.getRows(), t.getCols()};
  }

  /// The layout of a mac operand's storage: rows padded by 8 elements on
  /// mma.sync, the swizzled layout on wgmma.
  Layout operandLayout(TileLoadOp load) {
    auto [majors, minors] = operandShape(load);
    if (wgmma)
      return wgmmaLayout(load.getResult(), load.getColMajor(), majors, minors);
    return {minors + 8, load.getColMajor()};
  }

  /// New shared storage of `elements` elements for mac operands laid out as
  /// `l` (aligned for its swizzle), allocated at kernel entry; recorded
  /// with its layout.
  Value newOperandStorage(Type elem, const Layout &l, int64_t elements) {
    Value alloc = allocAtEntry(elem, Space::shared, elements);
    if (l.swizzle)
      alloc.getDefiningOp()->setAttr("xpu.alignment", b.getI64IntegerAttr(8 * l.swizzle));
    layouts[alloc] = l;
    return alloc;
  }

  /// Whether every `width` elements of rows `stride` apart from `offset` of
  /// `buffer` start aligned to their size (the offset's address and the
  /// stride; checked at run time).
  Value rowsAligned(Location loc, Value buffer, Value offset, Value stride, int64_t width) {
    Type elem = cast<BufferType>(buffer.getType()).getElementType();
    int64_t bytes = width * elem.getIntOrFloatBitWidth() / 8;
    return arith::AndIOp::create(
        b, loc, AlignedOp::create(b, loc, buffer, offset, bytes),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, loc, stride, idx(width)), idx(0)));
  }

  /// The same for the rows of `load`'s tile, were it at `offset`.
  Value rowsAligned(Location loc, TileLoadOp load, Value offset, int64_t width) {
    return rowsAligned(loc, load.getBuffer(), offset, load.getStride(), width);
  }

  /// A mac operand tile into shared storage with the load's orientation:
  /// mma.sync, rows padded by 8 elements; wgmma, the swizzled layout
  /// (wgmmaLayout). Four elements per access where the tile's first
  /// element and its stride allow aligned vector accesses (checked at run
  /// time), one at a time where they do not.
  LogicalResult lowerOperandLoad(TileLoadOp load) {
    Location loc = load.getLoc();
    TileType t = load.getResult().getType();
    int64_t majors, minors;
    std::tie(majors, minors) = operandShape(load);
    Layout layout = operandLayout(load);
    if (wgmma && layout.swizzle < 32)
      return load.emitOpError("does not fit the wgmma tier's 16-element swizzle atoms");
    if (auto loop = dyn_cast<scf::ForOp>(load->getParentOp()))
      if (const Staging &st = stagingOf(loop); llvm::is_contained(st.loads, load))
        return lowerStagedLoad(loop, load);
    OpBuilder::InsertionGuard g(b);
    Value s = newOperandStorage(t.getElementType(), layout, majors * layout.ld);
    storage[load.getResult()] = s;
    if (pipelineOperandLoad(load, s, majors, minors, layout))
      return success();
    Type elem = t.getElementType();
    int64_t bytes = 4 * elem.getIntOrFloatBitWidth() / 8;
    Value vectorAligned = rowsAligned(loc, load, load.getOffset(), 4);
    barrier(loc);
    auto paths = scf::IfOp::create(b, loc, TypeRange{}, vectorAligned, /*withElse=*/true);
    for (bool wide : {true, false}) {
      b.setInsertionPointToStart(wide ? paths.thenBlock() : paths.elseBlock());
      int64_t w = wide && minors % 4 == 0 ? 4 : 1;
      Type type = w > 1 ? Type(VectorType::get({w}, elem)) : elem;
      forEachElement(loc, majors, minors / w, [&](Value m, Value nw) {
        Value n = arith::MulIOp::create(b, loc, nw, idx(w));
        Value from = arith::AddIOp::create(
            b, loc, load.getOffset(),
            arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, m, load.getStride()), n));
        auto v = LoadOp::create(b, loc, type, load.getBuffer(), from);
        inheritCheck(v, load);
        auto st = StoreOp::create(b, loc, v.getResult(), s, storageIndex(loc, layout, m, n));
        if (w > 1) {
          // Rows of s start at multiples of 4 elements (ld; the swizzle
          // moves whole 8-element units), so each group of 4 is aligned.
          aligned(v, bytes);
          aligned(st, bytes);
        }
      });
    }
    b.setInsertionPointAfter(paths);
    endOperandCopy(loc);
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Operand loads of a K loop, one iteration ahead (mma.sync tier)
  //===--------------------------------------------------------------------===//

  /// The value `v` has in the iteration of `loop` that `map` sends the
  /// induction variable to, with the pure ops of the body it depends on
  /// cloned at b's point; null when it depends on anything else (an
  /// iter_arg, a load).
  Value atIteration(scf::ForOp loop, Value v, IRMapping &map) {
    if (Value known = map.lookupOrNull(v))
      return known;
    if (!loop.getRegion().isAncestor(v.getParentRegion()))
      return v;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumRegions() || !isMemoryEffectFree(def))
      return {};
    for (Value operand : def->getOperands())
      if (!atIteration(loop, operand, map))
        return {};
    b.clone(*def, map);
    return map.lookup(v);
  }

  /// The offset of `load` in the iteration of `loop` at `iv` (atIteration).
  Value offsetAt(scf::ForOp loop, TileLoadOp load, Value iv) {
    IRMapping at;
    at.map(loop.getInductionVar(), iv);
    return atIteration(loop, load.getOffset(), at);
  }

  /// Reads this invocation's chunks of a tile copy (chunk c of the majors x
  /// minors/4 chunks is taken by invocation c % invocations) from global
  /// memory at `offset` into `regs`: aligned vectors where the offset and
  /// stride allow, one element at a time where they do not.
  void readChunks(Location loc, TileLoadOp load, Value offset, Value regs, int64_t minors,
                  int64_t chunks) {
    Type elem = load.getResult().getType().getElementType();
    int64_t bytes = 4 * elem.getIntOrFloatBitWidth() / 8;
    auto paths = scf::IfOp::create(b, loc, TypeRange{}, rowsAligned(loc, load, offset, 4),
                                   /*withElse=*/true);
    OpBuilder::InsertionGuard g(b);
    for (bool wide : {true, false}) {
      b.setInsertionPointToStart(wide ? paths.thenBlock() : paths.elseBlock());
      for (int64_t q = 0; q < chunks; ++q) {
        auto [major, minor] = chunkAt(loc, q, minors);
        Value from = arith::AddIOp::create(
            b, loc, offset,
            arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, major, load.getStride()),
                                  minor));
        if (wide) {
          auto v = LoadOp::create(b, loc, VectorType::get({4}, elem), load.getBuffer(), from);
          inheritCheck(aligned(v, bytes), load);
          StoreOp::create(b, loc, v.getResult(), regs, idx(4 * q));
          continue;
        }
        for (int64_t e = 0; e < 4; ++e) {
          auto v = LoadOp::create(b, loc, elem, load.getBuffer(),
                                  arith::AddIOp::create(b, loc, from, idx(e)));
          inheritCheck(v, load);
          StoreOp::create(b, loc, v.getResult(), regs, idx(4 * q + e));
        }
      }
    }
  }

  /// The major and minor index of this invocation's chunk q (chunks of
  /// `width` elements along the minor dimension).
  std::pair<Value, Value> chunkAt(Location loc, int64_t q, int64_t minors, int64_t width = 4) {
    Value c = arith::AddIOp::create(b, loc, self, idx(q * fixedCount));
    return {arith::DivUIOp::create(b, loc, c, idx(minors / width)),
            arith::MulIOp::create(
                b, loc, arith::RemUIOp::create(b, loc, c, idx(minors / width)), idx(width))};
  }

  /// The K loop whose next iteration's tile `load` may be read during this
  /// one: its scf.for parent, when the buffer is read-only and the buffer
  /// and stride are loop-invariant, with every user in the load's block;
  /// else null.
  static scf::ForOp readAheadLoop(TileLoadOp load) {
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    if (!loop || cast<BufferType>(load.getBuffer().getType()).getAccess() != Access::ro ||
        loop.getRegion().isAncestor(load.getBuffer().getParentRegion()) ||
        loop.getRegion().isAncestor(load.getStride().getParentRegion()) ||
        llvm::any_of(load.getResult().getUsers(),
                     [&](Operation *u) { return u->getBlock() != load->getBlock(); }))
      return {};
    return loop;
  }

  /// Prefetches still to be placed: each before the first mac that reads
  /// its tile (xpu-lower-tiles meets the loads first).
  llvm::DenseMap<Value, std::function<void()>> prefetches;

  /// A mac operand loaded in a K loop (an scf.for whose body computes the
  /// offset from the induction variable and loop-invariant values, from a
  /// read-only buffer): the loop's first tile is read into registers before
  /// the loop, each iteration stores the registers into shared memory and
  /// then, before its macs, reads the next iteration's tile into them, so
  /// the global reads of one step overlap the mma.sync of the one before.
  /// Returns false, having changed nothing that matters, when the load does
  /// not have that form.
  bool pipelineOperandLoad(TileLoadOp load, Value s, int64_t majors, int64_t minors,
                           const Layout &layout) {
    scf::ForOp loop = readAheadLoop(load);
    int64_t total = majors * minors / 4;
    if (!loop || minors % 4 || total % fixedCount)
      return false;
    Location loc = load.getLoc();
    int64_t chunks = total / fixedCount;
    Type elem = load.getResult().getType().getElementType();
    int64_t bytes = 4 * elem.getIntOrFloatBitWidth() / 8;
    OpBuilder::InsertionGuard g(b);
    // Before the loop: the first iteration's tile, when there is one.
    b.setInsertionPoint(loop);
    Value offset0 = offsetAt(loop, load, loop.getLowerBound());
    if (!offset0)
      return false;
    Value regs = allocAtEntry(elem, Space::private_, 4 * chunks);
    auto any = scf::IfOp::create(
        b, loc, TypeRange{},
        runsAt(loc, loop, loop.getLowerBound()), /*withElse=*/false);
    b.setInsertionPointToStart(any.thenBlock());
    readChunks(loc, load, offset0, regs, minors, chunks);
    // In the loop: the registers into shared memory.
    b.setInsertionPoint(load);
    barrier(loc);
    for (int64_t q = 0; q < chunks; ++q) {
      auto [major, minor] = chunkAt(loc, q, minors);
      Value v = LoadOp::create(b, loc, VectorType::get({4}, elem), regs, idx(4 * q));
      aligned(StoreOp::create(b, loc, v, s, storageIndex(loc, layout, major, minor)), bytes);
    }
    endOperandCopy(loc);
    // Then the next iteration's tile, placed before the first mac.
    prefetches[s] = [this, loop, load, regs, minors, chunks, loc]() mutable {
      Value next = arith::AddIOp::create(b, loc, loop.getInductionVar(), loop.getStep());
      auto more = scf::IfOp::create(
          b, loc, TypeRange{},
          runsAt(loc, loop, next), /*withElse=*/false);
      OpBuilder::InsertionGuard ig(b);
      b.setInsertionPointToStart(more.thenBlock());
      readChunks(loc, load, offsetAt(loop, load, next), regs, minors, chunks);
    };
    return true;
  }

  /// Whether `loop` has an iteration at `iv` (iv below the upper bound, in
  /// the loop's signed or unsigned comparison).
  Value runsAt(Location loc, scf::ForOp loop, Value iv) {
    return arith::CmpIOp::create(
        b, loc, loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
        iv, loop.getUpperBound());
  }

  /// Places the pending prefetch of `buffer`'s tile, if any, at b's point.
  void placePrefetch(Value buffer) {
    auto it = prefetches.find(buffer);
    if (it == prefetches.end())
      return;
    std::function<void()> place = std::move(it->second);
    prefetches.erase(it);
    place();
  }

  //===--------------------------------------------------------------------===//
  // Operand loads of a K loop copied in stages (mma.sync and wgmma tiers)
  //===--------------------------------------------------------------------===//

  /// Four stages keep three K steps of copies in flight, which covers the
  /// latency of global memory; more only take shared memory.
  static constexpr int64_t kMaxStages = 4;

  /// The operand loads of a K loop that are copied in `stages` stages, in
  /// the body's order; none when stageCopies is off, no load qualifies or
  /// two stages do not fit the budget.
  struct Staging {
    int64_t stages = 0;
    SmallVector<TileLoadOp> loads;
    SmallVector<Value> buffers;
    SmallVector<Layout> layouts;
    /// How many iterations ahead the body starts copies: stages - 1, or
    /// stages - 2 on wgmma with four stages, where a step's mma may still
    /// read its stage during the next step (deferWgmmaWait). (With three,
    /// ptxas serialized the mmas: advisory C7515 on 128x128x64 blocks.)
    int64_t distance = 0;
    /// In the body: the copies started for that later iteration, and their
    /// commit (deferWgmmaWait moves them).
    SmallVector<Operation *> ahead;
  };
  llvm::DenseMap<Operation *, Staging> staging;

  /// Whether `v` is computed in `loop` by pure ops from the induction
  /// variable and values defined outside (so atIteration can recompute it
  /// for another iteration).
  static bool followsInduction(scf::ForOp loop, Value v) {
    if (v == loop.getInductionVar() || !loop.getRegion().isAncestor(v.getParentRegion()))
      return true;
    Operation *def = v.getDefiningOp();
    return def && !def->getNumRegions() && isMemoryEffectFree(def) &&
           llvm::all_of(def->getOperands(),
                        [&](Value operand) { return followsInduction(loop, operand); });
  }

  /// A mac operand load that can be copied ahead with cp.async: 16-bit
  /// elements in 16-byte chunks (spread over the workgroup), from a
  /// read-only buffer and with a stride that the loop does not change, at
  /// an offset that follows the induction variable, and read only in the
  /// loop's body.
  bool stageable(scf::ForOp loop, TileLoadOp load) {
    auto [majors, minors] = operandShape(load);
    auto bufferType = cast<BufferType>(load.getBuffer().getType());
    Layout layout = operandLayout(load);
    return fixedCount && onlyMacOperand(load.getResult()) &&
           load.getResult().getType().getElementType().getIntOrFloatBitWidth() == 16 &&
           bufferType.getAccess() == Access::ro &&
           minors % 8 == 0 &&
           (!wgmma || (layout.swizzle >= 32 && majors * layout.ld % (4 * layout.swizzle) == 0)) &&
           !loop.getRegion().isAncestor(load.getBuffer().getParentRegion()) &&
           !loop.getRegion().isAncestor(load.getStride().getParentRegion()) &&
           followsInduction(loop, load.getOffset()) &&
           llvm::all_of(load.getResult().getUsers(),
                        [&](Operation *u) { return u->getBlock() == load->getBlock(); });
  }

  const Staging &stagingOf(scf::ForOp loop) {
    auto [it, fresh] = staging.try_emplace(loop);
    Staging &st = it->second;
    if (!fresh || !stageCopies || !fragments)
      return st;
    int64_t bytes = 0;
    for (auto load : loop.getBody()->getOps<TileLoadOp>())
      if (stageable(loop, load)) {
        st.loads.push_back(load);
        bytes += operandShape(load).first * operandLayout(load).ld * 2;
      }
    st.stages = bytes ? std::min(kMaxStages, stageBudget / bytes) : 0;
    if (st.stages < 2)
      st = Staging();
    else
      st.distance = wgmma && st.stages >= 4 ? st.stages - 2 : st.stages - 1;
    return st;
  }

  /// The staged loads of `loop` when the first of them is met: each gets a
  /// buffer of `stages` copies of its storage. Before the loop, after a
  /// barrier, the copies of the first `distance` iterations start. At the
  /// first load, each iteration waits for its own copies (cp.async groups
  /// complete in order, so all but the distance - 1 newest), makes them
  /// the workgroup's (fence for the tensor cores' proxy, barrier; every
  /// invocation has also finished reading the stage of iteration + distance
  /// - stages), starts the copies of iteration + distance into that freed
  /// stage and points the operands' layouts at this iteration's stage. So
  /// `distance` K steps of copies are in flight while the macs run, and no
  /// registers hold them.
  LogicalResult lowerStagedLoad(scf::ForOp loop, TileLoadOp load) {
    Staging &st = staging.find(loop)->second;
    size_t which = llvm::find(st.loads, load) - st.loads.begin();
    if (which == 0)
      startStages(loop, st);
    storage[load.getResult()] = st.buffers[which];
    layouts[st.buffers[which]] = st.layouts[which];
    return success();
  }

  void startStages(scf::ForOp loop, Staging &st) {
    Location loc = st.loads.front().getLoc();
    OpBuilder::InsertionGuard g(b);
    SmallVector<int64_t> stageElems;
    for (TileLoadOp load : st.loads) {
      Layout layout = operandLayout(load);
      int64_t elems = operandShape(load).first * layout.ld;
      st.buffers.push_back(newOperandStorage(load.getResult().getType().getElementType(), layout,
                                             st.stages * elems));
      st.layouts.push_back(layout);
      stageElems.push_back(elems);
    }
    // The copies of the iteration at `iv` into stage `stage`, when it runs.
    auto copyIteration = [&](Value iv, Value stage) -> Operation * {
      auto runs = scf::IfOp::create(
          b, loc, TypeRange{},
          runsAt(loc, loop, iv), /*withElse=*/false);
      OpBuilder::InsertionGuard ig(b);
      b.setInsertionPointToStart(runs.thenBlock());
      IRMapping at;
      at.map(loop.getInductionVar(), iv);
      for (auto [i, load] : llvm::enumerate(st.loads)) {
        Layout layout = st.layouts[i];
        layout.base = arith::MulIOp::create(b, loc, stage, idx(stageElems[i]));
        copyChunks(loc, load, atIteration(loop, load.getOffset(), at), st.buffers[i], layout);
      }
      return runs;
    };
    auto iteration = [&](Value n) {
      return arith::AddIOp::create(b, loc, loop.getLowerBound(),
                                   arith::MulIOp::create(b, loc, n, loop.getStep()));
    };
    // Every invocation is done with the stages (reading them in a former
    // run of the loop, when it is entered again) before the first copies.
    b.setInsertionPoint(loop);
    barrier(loc);
    for (int64_t d = 0; d < st.distance; ++d) {
      copyIteration(iteration(idx(d)), idx(d));
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
    b.setInsertionPoint(st.loads.front());
    NVVM::CpAsyncWaitGroupOp::create(b, loc, st.distance - 1);
    endOperandCopy(loc);
    Value n = arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
        loop.getStep());
    Value ahead = arith::AddIOp::create(b, loc, n, idx(st.distance));
    st.ahead.push_back(
        copyIteration(iteration(ahead), arith::RemUIOp::create(b, loc, ahead, idx(st.stages))));
    st.ahead.push_back(NVVM::CpAsyncCommitGroupOp::create(b, loc));
    Value stage = arith::RemUIOp::create(b, loc, n, idx(st.stages));
    for (size_t i = 0; i < st.layouts.size(); ++i)
      st.layouts[i].base = arith::MulIOp::create(b, loc, stage, idx(stageElems[i]));
  }

  /// Starts this invocation's copies of a tile at `offset` into `s` laid
  /// out as `layout`, 16 bytes (8 elements) a chunk: cp.async where the
  /// offset and stride keep every chunk 16-byte aligned (checked at run
  /// time), element loads and stores where they do not. A checked load
  /// whose tile lies wholly in the buffer is copied unchecked; otherwise a
  /// chunk that does not lie wholly in the buffer is read element by
  /// element, checked, so the launch reports what lies outside.
  void copyChunks(Location loc, TileLoadOp load, Value offset, Value s, const Layout &layout) {
    auto [majors, minors] = operandShape(load);
    // Chunk c is this invocation's when c % invocations is its index; the
    // last round may not reach every invocation.
    int64_t total = majors * minors / 8, rounds = llvm::divideCeil(total, fixedCount);
    Type elem = load.getResult().getType().getElementType();
    bool checkedLoad = load->hasAttr("checked");
    auto paths = scf::IfOp::create(b, loc, TypeRange{}, rowsAligned(loc, load, offset, 8),
                                   /*withElse=*/true);
    OpBuilder::InsertionGuard g(b);
    // A checked tile wholly inside its buffer (one test for the whole tile)
    // is copied without the chunks' own tests: those took the issue slots
    // the K loop's tensor-core steps wait on (bf16 128x256x64 wgmma at
    // 4096: 457 -> 615 TFLOP/s on the H200).
    scf::IfOp fits;
    if (checkedLoad) {
      b.setInsertionPointToStart(paths.thenBlock());
      fits = scf::IfOp::create(b, loc, TypeRange{}, tileFits(load, offset), /*withElse=*/true);
    }
    enum Path { whole, chunked, elementwise };
    for (Path path : {whole, chunked, elementwise}) {
      if (path == whole && !fits)
        continue;
      bool async = path != elementwise, check = checkedLoad && path == chunked;
      if (path == elementwise)
        b.setInsertionPointToStart(paths.elseBlock());
      else if (fits)
        b.setInsertionPointToStart(path == whole ? fits.thenBlock() : fits.elseBlock());
      else
        b.setInsertionPointToStart(paths.thenBlock());
      for (int64_t q = 0; q < rounds; ++q) {
        OpBuilder::InsertionGuard ig(b);
        if ((q + 1) * fixedCount > total) {
          Value c = arith::AddIOp::create(b, loc, self, idx(q * fixedCount));
          auto mine = scf::IfOp::create(
              b, loc, TypeRange{},
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, idx(total)),
              /*withElse=*/false);
          b.setInsertionPointToStart(mine.thenBlock());
        }
        auto [major, minor] = chunkAt(loc, q, minors, 8);
        Value from = arith::AddIOp::create(
            b, loc, offset,
            arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, major, load.getStride()),
                                  minor));
        // A chunk is one 16-byte unit of the storage (its rows start at
        // multiples of 8 elements; the swizzle moves whole units).
        Value to = storageIndex(loc, layout, major, minor);
        auto elements = [&] {
          for (int64_t e = 0; e < 8; ++e) {
            auto v = LoadOp::create(b, loc, elem, load.getBuffer(),
                                    arith::AddIOp::create(b, loc, from, idx(e)));
            inheritCheck(v, load);
            StoreOp::create(b, loc, v.getResult(), s, arith::AddIOp::create(b, loc, to, idx(e)));
          }
        };
        if (!async) {
          elements();
          continue;
        }
        if (check) {
          // (from + 8 would wrap around for a chunk just below 2^64.)
          Value inside = inBounds(b, loc, from, BufferSizeOp::create(b, loc, load.getBuffer()), 8);
          auto whole = scf::IfOp::create(b, loc, TypeRange{}, inside, /*withElse=*/true);
          b.setInsertionPointToStart(whole.elseBlock());
          elements();
          b.setInsertionPointToStart(whole.thenBlock());
        }
        AsyncCopyElementOp::create(b, loc, load.getBuffer(), from, s, to, /*cp_async=*/true,
                                   b.getI64IntegerAttr(16));
      }
    }
  }

  /// A tile held as fragments stored by each invocation of the warps that
  /// hold it, two neighbouring elements at a time where the destination's
  /// rows allow aligned pairs (checked at run time).
  LogicalResult storeFragment(TileStoreOp store, Value src, Value wide) {
    Location loc = store.getLoc();
    TileType t = cast<TileType>(store.getValue().getType());
    Type elem = t.getElementType();
    int64_t pairBytes = 2 * elem.getIntOrFloatBitWidth() / 8;
    auto guard = scf::IfOp::create(b, loc, TypeRange{}, wide, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      ifHolding(loc, t, [&] {
        // Entries e and e + 1 are neighbouring columns on NVIDIA's tiers
        // only (on AMD's they are neighbouring rows).
        Value pairs = arith::ConstantIntOp::create(b, loc, 0, 1);
        if (!store.getColMajor() && !amd)
          pairs = arith::AndIOp::create(
              b, loc,
              AlignedOp::create(b, loc, store.getBuffer(), store.getOffset(), pairBytes),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    arith::RemUIOp::create(b, loc, store.getStride(), idx(2)),
                                    idx(0)));
        auto paths = scf::IfOp::create(b, loc, TypeRange{}, pairs, /*withElse=*/true);
        OpBuilder::InsertionGuard g2(b);
        for (bool two : {true, false}) {
          b.setInsertionPointToStart(two ? paths.thenBlock() : paths.elseBlock());
          int64_t w = two ? 2 : 1;
          for (int64_t e = 0; e < warpGrid(t).entries(); e += w) {
            auto [row, col] = fragmentPosition(loc, t, e);
            Value to = strided(loc, store.getOffset(), store.getStride(), row, col,
                               store.getColMajor());
            Value v = LoadOp::create(b, loc, elem, src, idx(e));
            if (two)
              v = vector::FromElementsOp::create(
                  b, loc, VectorType::get({2}, elem),
                  ValueRange{v, LoadOp::create(b, loc, elem, src, idx(e + 1))});
            auto st = StoreOp::create(b, loc, v, store.getBuffer(), to);
            inheritCheck(st, store);
            if (two)
              aligned(st, pairBytes);
          }
        }
      });
      if (store->hasAttr("checked")) {
        b.setInsertionPointToStart(guard.elseBlock());
        Value size = BufferSizeOp::create(b, loc, store.getBuffer());
        Value v = LoadOp::create(b, loc, elem, src, idx(0));
        auto st = StoreOp::create(b, loc, v, store.getBuffer(), size);
        inheritCheck(st, store);
      }
    }
    return success();
  }

  /// A tile held as sums: each subgroup stores its matrices straight into
  /// the buffer when the whole tile lies in it (always, when the store is
  /// unchecked) and its rows start 16-byte aligned (rowsAligned).
  /// Otherwise each element is stored with its check, as the
  /// other tiers do (storeSumsThroughScratch, storeWorkgroupSumsElements);
  /// a stride below the tile's width stores nothing and reports
  /// (lowerStore).
  LogicalResult storeSums(TileStoreOp store, Value sums, Value wide) {
    Location loc = store.getLoc();
    TileType t = cast<TileType>(store.getValue().getType());
    bool colMajor = store.getColMajor(), checked = store->hasAttr("checked");
    Value stride = store.getStride(), offset = store.getOffset();
    // 16-byte rows, as Vulkan asks of cooperative-matrix stores (coopReadable).
    Value fits = arith::AndIOp::create(
        b, loc, wide, rowsAligned(loc, store.getBuffer(), offset, stride, 4));
    if (checked)
      fits = arith::AndIOp::create(
          b, loc, fits, tileInside(loc, store.getBuffer(), offset, stride, t, colMajor));
    auto guard = scf::IfOp::create(b, loc, TypeRange{}, fits, /*withElse=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(guard.thenBlock());
    ifHolding(loc, t, [&] {
      CoopSumsStoreOp::create(b, loc, sums, store.getBuffer(),
                              holderAt(loc, t, offset, stride, colMajor), stride, colMajor,
                              IntegerAttr());
    });
    b.setInsertionPointToStart(guard.elseBlock());
    auto partial = scf::IfOp::create(b, loc, TypeRange{}, wide, /*withElse=*/checked);
    b.setInsertionPointToStart(partial.thenBlock());
    if (coopWorkgroup)
      storeWorkgroupSumsElements(store, sums);
    else
      storeSumsThroughScratch(store, sums);
    if (!checked)
      return success();
    b.setInsertionPointToStart(partial.elseBlock());
    Value size = BufferSizeOp::create(b, loc, store.getBuffer());
    auto st = StoreOp::create(b, loc, arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                                                     APFloat(0.0f)),
                              store.getBuffer(), size);
    inheritCheck(st, store);
    return success();
  }

  /// Subgroup sums stored element by element with their checks: one matrix
  /// at a time through the subgroup's 16x16 scratch.
  void storeSumsThroughScratch(TileStoreOp store, Value sums) {
    Location loc = store.getLoc();
    TileType t = cast<TileType>(store.getValue().getType());
    bool colMajor = store.getColMajor();
    Value stride = store.getStride(), offset = store.getOffset();
    WarpGrid grid = warpGrid(t);
    Value scratch = allocAtEntry(b.getF32Type(), Space::shared, fixedCount / waveSize * 256);
    Value mine = arith::MulIOp::create(b, loc, warp, idx(256));
    for (int64_t e = 0; e < grid.mi * grid.ni; ++e) {
      ifHolding(loc, t, [&] {
        CoopSumsStoreOp::create(b, loc, sums, scratch, mine, idx(16), /*colMajor=*/false,
                                b.getI64IntegerAttr(e));
      });
      barrier(loc);
      ifHolding(loc, t, [&] {
        auto [row0, col0] = holderStart(loc, t);
        for (int64_t q = 0; q < 256 / waveSize; ++q) {
          Value at = arith::AddIOp::create(b, loc, lane, idx(q * waveSize));
          Value r = arith::DivUIOp::create(b, loc, at, idx(16));
          Value c = arith::RemUIOp::create(b, loc, at, idx(16));
          Value row = arith::AddIOp::create(
              b, loc, row0, arith::AddIOp::create(b, loc, r, idx(16 * (e / grid.ni))));
          Value col = arith::AddIOp::create(
              b, loc, col0, arith::AddIOp::create(b, loc, c, idx(16 * (e % grid.ni))));
          Value v = LoadOp::create(b, loc, b.getF32Type(), scratch,
                                   arith::AddIOp::create(b, loc, mine, at));
          auto st = StoreOp::create(b, loc, v, store.getBuffer(),
                                    strided(loc, offset, stride, row, col, colMajor));
          inheritCheck(st, store);
        }
      });
      barrier(loc);
    }
  }

  /// Workgroup sums stored element by element with their checks: a whole
  /// f32 tile of scratch would not fit in shared memory beside the
  /// operands, so each invocation stores the elements it holds, finding
  /// their rows and columns in sums of the same type loaded with stride 0
  /// from 0, 1, 2, ... (column-major: each element's row; row-major: its
  /// column).
  void storeWorkgroupSumsElements(TileStoreOp store, Value sums) {
    Location loc = store.getLoc();
    TileType t = cast<TileType>(store.getValue().getType());
    int64_t span = std::max(t.getRows(), t.getCols());
    Value iota = allocAtEntry(b.getF32Type(), Space::shared, span);
    forEachElement(loc, 1, span, [&](Value, Value j) {
      Value v = arith::UIToFPOp::create(
          b, loc, b.getF32Type(), arith::IndexCastUIOp::create(b, loc, b.getI32Type(), j));
      StoreOp::create(b, loc, v, iota, j);
    });
    barrier(loc);
    // Elements are read from a copy: a matrix indexed by a value the
    // compiler cannot know leaves registers, and the sums must not.
    Value held = newSums(t), rows = newSums(t), cols = newSums(t);
    CoopSumsCopyOp::create(b, loc, sums, held);
    CoopSumsLoadOp::create(b, loc, rows, iota, idx(0), idx(0), /*col_major=*/true,
                           IntegerAttr());
    CoopSumsLoadOp::create(b, loc, cols, iota, idx(0), idx(0), /*col_major=*/false,
                           IntegerAttr());
    auto elements =
        forLoop(loc, idx(0), CoopSumsLengthOp::create(b, loc, b.getIndexType(), held), idx(1));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(elements.getBody());
    Value e = elements.getInductionVar();
    auto position = [&](Value of) {
      Value f = CoopSumsElementOp::create(b, loc, b.getF32Type(), of, e);
      return arith::IndexCastUIOp::create(
          b, loc, b.getIndexType(), arith::FPToUIOp::create(b, loc, b.getI32Type(), f));
    };
    Value at = strided(loc, store.getOffset(), store.getStride(), position(rows), position(cols),
                       store.getColMajor());
    Value v = CoopSumsElementOp::create(b, loc, b.getF32Type(), held, e);
    auto st = StoreOp::create(b, loc, v, store.getBuffer(), at);
    inheritCheck(st, store);
  }

  /// c = a·b + c with mma.sync.m16n8k16 (f16 or bf16 operands, f32 sums):
  /// the sums stay in the invocations' fragments (warpGrid), the operands
  /// are read from their shared storage. Per 16-deep step, each warp reads
  /// the A fragments of its mi row blocks and the B fragments of its ni
  /// column blocks once and issues mi x ni mmas. Fragments follow the PTX
  /// ISA's m16n8k16 layouts, with lane = 4 * group + quad: A's a0..a7 at
  /// rows group and group + 8, columns 2 quad (+1) and 2 quad + 8 (+1);
  /// B's b0..b3 at rows 2 quad (+1) and 2 quad + 8 (+1), column group; C's
  /// c0..c3 at rows group and group + 8, columns 2 quad (+1). Tier
  /// selection guarantees M % 16, N % 8, K % 16 and whole warps.
  LogicalResult lowerMacMmaSync(MacOp mac) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    auto bt = cast<TileType>(mac.getB().getType());
    int64_t M = ct.getRows(), N = ct.getCols(), K = at.getCols();
    Type ta = at.getElementType(), f32 = b.getF32Type(), i32 = b.getI32Type();
    if (fixedCount % 32 || M % 16 || N % 8 || K % 16 || !(ta.isF16() || ta.isBF16()) ||
        !fragmentTypes.contains(ct))
      return mac.emitOpError("does not fit the mma.sync tier (16x8x16 steps, "
                             "bf16 or f16 operands, f32 sums, whole warps)");
    Value cs = fragmentOf(loc, mac.getC());
    Value as = sharedOf(loc, mac.getA()), bs = sharedOf(loc, mac.getB());
    placePrefetch(as);
    placePrefetch(bs);
    Value rs = resultFragment(mac, cs, ct);
    WarpGrid g = warpGrid(ct);
    auto pair = VectorType::get({2}, ta);
    MLIRContext *ctx = b.getContext();
    Type fragment = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    NVVM::MMATypes ptx = ta.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto add = [&](Value x, int64_t c) { return arith::AddIOp::create(b, loc, x, idx(c)); };
    // The words mma.sync takes (bf16 pairs as i32, f16 ones as
    // vector<2xf16>), by ldmatrix: `count` 8x8 matrices of an operand in
    // (non-K, K) coordinates from (nonK0, k0), matrix j of them at non-K
    // offset 8 nk(j) and K offset 8 kk(j). Each lane gets elements (group,
    // 2 quad) and (group, 2 quad + 1) of each: read directly where the
    // storage's rows hold K contiguously, transposed where they hold non-K.
    Value lane = arith::RemUIOp::create(b, loc, self, idx(32));
    Value laneRow = arith::RemUIOp::create(b, loc, lane, idx(8));
    Value laneMatrix = arith::DivUIOp::create(b, loc, lane, idx(8));
    auto eighth = [&](Value x) { return arith::MulIOp::create(b, loc, x, idx(8)); };
    auto words = [&](Value buffer, TileType t, bool isA, Value nonK0, Value k0,
                     int64_t count) {
      auto it = layouts.find(buffer);
      bool colMajor = it != layouts.end() && it->second.colMajor;
      bool kContiguous = isA != colMajor;
      // A: nk = j % 2, kk = j / 2; B: nk = j / 2, kk = j % 2 (two n blocks).
      Value low = arith::RemUIOp::create(b, loc, laneMatrix, idx(2));
      Value high = count == 4 ? Value(arith::DivUIOp::create(b, loc, laneMatrix, idx(2)))
                              : idx(0);
      Value nonK = arith::AddIOp::create(b, loc, nonK0, eighth(isA ? low : high));
      Value k = arith::AddIOp::create(b, loc, k0, eighth(isA ? high : low));
      if (kContiguous)
        nonK = arith::AddIOp::create(b, loc, nonK, laneRow);
      else
        k = arith::AddIOp::create(b, loc, k, laneRow);
      Value at = isA ? sharedIndex(loc, buffer, t, nonK, k) : sharedIndex(loc, buffer, t, k, nonK);
      auto load = MatrixLoadOp::create(b, loc, VectorType::get({count}, i32), buffer, at,
                                       /*transpose=*/!kContiguous);
      SmallVector<Value, 4> out;
      for (int64_t e = 0; e < count; ++e) {
        Value w = vector::ExtractOp::create(b, loc, load, ArrayRef<int64_t>{e});
        if (!ta.isBF16())
          w = vector::BitCastOp::create(
              b, loc, pair, vector::BroadcastOp::create(b, loc, VectorType::get({1}, i32), w));
        out.push_back(w);
      }
      return out;
    };

    holderKLoop(loc, ct, cs, rs, K, [&](Value row0, Value col0, Value k, ValueRange sums) {
        SmallVector<SmallVector<Value, 4>> afrag(g.mi), bfrag(g.ni);
        for (int64_t i = 0; i < g.mi; ++i)
          afrag[i] = words(as, at, /*isA=*/true, add(row0, 16 * i), k, 4);
        for (int64_t j = 0; j < g.ni; j += 2) {
          int64_t blocks = std::min<int64_t>(2, g.ni - j);
          SmallVector<Value, 4> w = words(bs, bt, /*isA=*/false, add(col0, 8 * j), k, 2 * blocks);
          for (int64_t h = 0; h < blocks; ++h)
            bfrag[j + h].assign(w.begin() + 2 * h, w.begin() + 2 * h + 2);
        }
        SmallVector<Value> next;
        for (int64_t i = 0; i < g.mi; ++i)
          for (int64_t j = 0; j < g.ni; ++j) {
            int64_t e0 = (i * g.ni + j) * 4;
            SmallVector<Value, 4> c(sums.begin() + e0, sums.begin() + e0 + 4);
            Value d = NVVM::MmaOp::create(
                b, loc, fragment, afrag[i], bfrag[j], c, ArrayRef<int64_t>{16, 8, 16},
                std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
            for (int64_t e = 0; e < 4; ++e)
              next.push_back(LLVM::ExtractValueOp::create(b, loc, d, ArrayRef<int64_t>{e}));
          }
        return next;
    });
    return success();
  }

  /// In the holders of `ct`'s fragments: the sums from `cs` through a K
  /// loop of 16-deep steps, `step(row0, col0, k, sums)` giving each step's
  /// new sums (row0, col0: the holder tile's first row and column), and
  /// the results into `rs`.
  void holderKLoop(Location loc, TileType ct, Value cs, Value rs, int64_t K,
                   function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)> step) {
    WarpGrid g = warpGrid(ct);
    ifHolding(loc, ct, [&] {
      Value holder = arith::DivUIOp::create(b, loc, warp, idx(g.warps));
      Value wy = arith::DivUIOp::create(b, loc, holder, idx(g.wn));
      Value wx = arith::RemUIOp::create(b, loc, holder, idx(g.wn));
      Value row0 = arith::MulIOp::create(b, loc, wy, idx(g.mi * g.blockRows()));
      Value col0 = arith::MulIOp::create(b, loc, wx, idx(g.ni * g.cols));
      SmallVector<Value> acc;
      for (int64_t e = 0; e < g.entries(); ++e)
        acc.push_back(LoadOp::create(b, loc, b.getF32Type(), cs, idx(e)));
      auto kLoop = forLoop(loc, idx(0), idx(K), idx(16), acc);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(kLoop.getBody());
        scf::YieldOp::create(b, loc,
                             step(row0, col0, kLoop.getInductionVar(), kLoop.getRegionIterArgs()));
      }
      for (int64_t e = 0; e < g.entries(); ++e)
        StoreOp::create(b, loc, kLoop.getResult(e), rs, idx(e));
    });
  }

  /// c = a·b + c on AMD's matrix cores in 16x16x16 steps (f16 or bf16
  /// operands, f32 sums): MFMA (waves of 64, v_mfma_f32_16x16x16_f16 and
  /// _bf16) or WMMA (gfx11, waves of 32, v_wmma_f32_16x16x16_f16 and _bf16).
  /// The sums stay in the waves' fragments (warpGrid; amdFragmentPosition),
  /// the operands are read from their shared storage, and per 16-deep step
  /// each wave reads the A fragments of its mi row blocks and the B
  /// fragments of its ni column blocks once and issues mi x ni steps. With
  /// lane = 16 h + c, lane's fragments hold (the ISA's layouts):
  ///  - MFMA: A's row c at k = 4 h .. 4 h + 3, B's column c at the same k;
  ///  - WMMA: A's row c and B's column c at k = 0 .. 15 (lanes 16-31 hold
  ///    what lanes 0-15 do).
  /// Tier selection guarantees M, N, K multiples of 16 and whole waves.
  LogicalResult lowerMacAmd(MacOp mac) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    auto bt = cast<TileType>(mac.getB().getType());
    int64_t M = ct.getRows(), N = ct.getCols(), K = at.getCols();
    Type ta = at.getElementType();
    if (fixedCount % waveSize || M % 16 || N % 16 || K % 16 || !(ta.isF16() || ta.isBF16()) ||
        !fragmentTypes.contains(ct))
      return mac.emitOpError("does not fit the ")
             << (mfma ? "mfma" : "wmma")
             << " tier (16x16x16 steps, bf16 or f16 operands, f32 sums, whole waves)";
    Value cs = fragmentOf(loc, mac.getC());
    Value as = sharedOf(loc, mac.getA()), bs = sharedOf(loc, mac.getB());
    placePrefetch(as);
    placePrefetch(bs);
    Value rs = resultFragment(mac, cs, ct);
    WarpGrid g = warpGrid(ct);
    if (emulated && g.wm * g.wn != fixedCount / waveSize)
      return mac.emitOpError("the emulated ")
             << (mfma ? "mfma" : "wmma") << " tier needs every wave to hold sums";
    int64_t per = mfma ? 4 : 16; // operand elements a lane holds per step
    auto add = [&](Value x, int64_t c) { return arith::AddIOp::create(b, loc, x, idx(c)); };
    Value h = arith::DivUIOp::create(b, loc, lane, idx(16));
    Value c16 = arith::RemUIOp::create(b, loc, lane, idx(16));
    Value kLane = mfma ? Value(arith::MulIOp::create(b, loc, h, idx(4))) : idx(0);
    // This lane's `per` elements of an operand block from non-K index
    // block0 (its row or column c16 of the block), from K index k0 + kLane: aligned vectors of 4 where the storage holds K
    // contiguously (rows start at multiples of 8 elements, and each first k
    // is a multiple of 4), element by element where it does not.
    auto operand = [&](Value buffer, TileType t, bool isA, Value block0, Value k0) -> Value {
      Value nonK = arith::AddIOp::create(b, loc, block0, c16);
      auto it = layouts.find(buffer);
      bool colMajor = it != layouts.end() && it->second.colMajor;
      bool kContiguous = isA != colMajor;
      Value k = arith::AddIOp::create(b, loc, k0, kLane);
      auto index = [&](Value kk) {
        return isA ? sharedIndex(loc, buffer, t, nonK, kk) : sharedIndex(loc, buffer, t, kk, nonK);
      };
      SmallVector<Value, 16> elems;
      for (int64_t e = 0; e < per; e += kContiguous ? 4 : 1) {
        if (!kContiguous) {
          elems.push_back(LoadOp::create(b, loc, ta, buffer, index(add(k, e))));
          continue;
        }
        Value four = aligned(LoadOp::create(b, loc, VectorType::get({4}, ta), buffer,
                                            index(add(k, e))),
                             8);
        for (int64_t x = 0; x < 4; ++x)
          elems.push_back(vector::ExtractOp::create(b, loc, four, ArrayRef<int64_t>{x}));
      }
      return vector::FromElementsOp::create(b, loc, VectorType::get({per}, ta), elems);
    };

    holderKLoop(loc, ct, cs, rs, K, [&](Value row0, Value col0, Value k, ValueRange sums) {
        SmallVector<Value> afrag, bfrag;
        for (int64_t i = 0; i < g.mi; ++i)
          afrag.push_back(operand(as, at, /*isA=*/true, add(row0, 16 * i), k));
        for (int64_t j = 0; j < g.ni; ++j)
          bfrag.push_back(operand(bs, bt, /*isA=*/false, add(col0, 16 * j), k));
        return emulated ? emulatedSteps(loc, g, afrag, bfrag, sums)
                        : matrixCoreSteps(loc, g, afrag, bfrag, sums);
    });
    return success();
  }

  /// The mi x ni matrix-core steps of one K step: block (i, j)'s sums are
  /// entries (i ni + j) perBlock onwards.
  SmallVector<Value> matrixCoreSteps(Location loc, const WarpGrid &g, ArrayRef<Value> afrag,
                                     ArrayRef<Value> bfrag, ValueRange sums) {
    Type f32 = b.getF32Type();
    auto sumsType = VectorType::get({g.perBlock}, f32);
    // bf16 operands go as i16 vectors.
    auto bits = [&](Value v) -> Value {
      auto vt = cast<VectorType>(v.getType());
      if (!vt.getElementType().isBF16())
        return v;
      return vector::BitCastOp::create(b, loc, VectorType::get(vt.getShape(), b.getI16Type()), v);
    };
    bool bf16 = cast<VectorType>(afrag[0].getType()).getElementType().isBF16();
    Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
    SmallVector<Value> next;
    for (int64_t i = 0; i < g.mi; ++i)
      for (int64_t j = 0; j < g.ni; ++j) {
        int64_t e0 = (i * g.ni + j) * g.perBlock;
        Value c = vector::FromElementsOp::create(b, loc, sumsType,
                                                 sums.slice(e0, g.perBlock));
        Value x = bits(afrag[i]), y = bits(bfrag[j]), d;
        if (mfma && bf16)
          d = ROCDL::mfma_f32_16x16x16bf16_1k::create(b, loc, sumsType,
                                                      ValueRange{x, y, c, zero, zero, zero});
        else if (mfma)
          d = ROCDL::mfma_f32_16x16x16f16::create(b, loc, sumsType,
                                                  ValueRange{x, y, c, zero, zero, zero});
        else if (bf16)
          d = ROCDL::wmma_f32_16x16x16_bf16::create(b, loc, sumsType, x, y, c);
        else
          d = ROCDL::wmma_f32_16x16x16_f16::create(b, loc, sumsType, x, y, c);
        for (int64_t e = 0; e < g.perBlock; ++e)
          next.push_back(vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{e}));
      }
    return next;
  }

  /// The same steps computed from the instructions' definitions, for
  /// testing the tier without the hardware (xpu.mma_emulated): each wave's
  /// lanes put their operand fragments in shared memory, and each lane
  /// then adds to its result entries the 16 products of the A row and B
  /// column they stand for, reading each element from the lane and
  /// position the ISA's layout (lowerMacAmd) gives it. Every wave holds
  /// sums (tier selection), so the barriers are reached by all.
  SmallVector<Value> emulatedSteps(Location loc, const WarpGrid &g, ArrayRef<Value> afrag,
                                   ArrayRef<Value> bfrag, ValueRange sums) {
    Type f32 = b.getF32Type();
    Type elem = cast<VectorType>(afrag[0].getType()).getElementType();
    int64_t per = mfma ? 4 : 16, waves = fixedCount / waveSize;
    auto scratch = [&](int64_t blocks) {
      return allocAtEntry(elem, Space::shared, blocks * waves * waveSize * per);
    };
    Value sa = scratch(g.mi), sb = scratch(g.ni);
    // Element e of lane l's fragment of block `blk` of this wave.
    auto slot = [&](int64_t blk, Value l, Value e) {
      Value at = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, warp, idx(waveSize)), l);
      at = arith::AddIOp::create(b, loc, at, idx(blk * waves * waveSize));
      return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, at, idx(per)), e);
    };
    barrier(loc);
    for (auto [frags, s] : {std::pair{afrag, sa}, std::pair{bfrag, sb}})
      for (auto [blk, f] : llvm::enumerate(frags))
        for (int64_t e = 0; e < per; ++e)
          StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, f, ArrayRef<int64_t>{e}), s,
                          slot(blk, lane, idx(e)));
    barrier(loc);
    // Who holds A's (r, k) and B's (k, c): MFMA lane r (c) + 16 (k / 4) at
    // k % 4; WMMA lanes r (c) and r (c) + 16 at k, read here from the one
    // or the other as k is even or odd, so both halves must hold them.
    auto holder = [&](Value nonK, Value k) -> std::pair<Value, Value> {
      Value half = mfma ? arith::DivUIOp::create(b, loc, k, idx(4)).getResult()
                        : arith::RemUIOp::create(b, loc, k, idx(2)).getResult();
      Value l = arith::AddIOp::create(b, loc, nonK, arith::MulIOp::create(b, loc, half, idx(16)));
      return {l, mfma ? arith::RemUIOp::create(b, loc, k, idx(4)).getResult() : k};
    };
    SmallVector<Value> next;
    for (int64_t i = 0; i < g.mi; ++i)
      for (int64_t j = 0; j < g.ni; ++j)
        for (int64_t q = 0; q < g.perBlock; ++q) {
          auto [r, c] = amdResultAt(loc, q);
          Value sum = sums[(i * g.ni + j) * g.perBlock + q];
          auto kLoop = forLoop(loc, idx(0), idx(16), idx(1), ValueRange{sum});
          OpBuilder::InsertionGuard ig(b);
          b.setInsertionPointToStart(kLoop.getBody());
          Value k = kLoop.getInductionVar();
          auto [la, ea] = holder(r, k);
          auto [lb, eb] = holder(c, k);
          Value x = widen(loc, LoadOp::create(b, loc, elem, sa, slot(i, la, ea)), f32);
          Value y = widen(loc, LoadOp::create(b, loc, elem, sb, slot(j, lb, eb)), f32);
          scf::YieldOp::create(
              b, loc, ValueRange{math::FmaOp::create(b, loc, x, y, kLoop.getRegionIterArg(0))});
          next.push_back(kLoop.getResult(0));
        }
    return next;
  }

  /// The storage of a wgmma operand in a wgmma layout: its own when it was
  /// loaded for macs only, else a row-major copy made now.
  Value wgmmaOperand(Location loc, Value tile) {
    Value s = storage.lookup(tile);
    auto it = layouts.find(s);
    if (it != layouts.end() && it->second.swizzle)
      return s;
    auto t = cast<TileType>(tile.getType());
    Layout layout = wgmmaLayout(tile, /*colMajor=*/false, t.getRows(), t.getCols());
    Value copy = newOperandStorage(t.getElementType(), layout, t.getNumElements());
    barrier(loc);
    forEachElement(loc, t.getRows(), t.getCols(), [&](Value i, Value j) {
      Value v = LoadOp::create(b, loc, t.getElementType(), s, sharedIndex(loc, s, t, i, j));
      StoreOp::create(b, loc, v, copy, sharedIndex(loc, copy, t, i, j));
    });
    endOperandCopy(loc);
    return copy;
  }

  /// c = a·b + c with wgmma.mma_async m64nNk16 (f16 or bf16 operands, f32
  /// sums): the sums stay in the invocations' fragments (warpGrid: one
  /// holder tile of mi x 64 rows and N = 8 ni columns per warpgroup), the
  /// operands are read by the tensor cores from their swizzled shared
  /// storage through descriptors, and each warpgroup issues its mi x K/16
  /// steps as one xpu.warpgroup_mma. A is K-major when stored row-major, B
  /// when stored column-major; the other orientation is read transposed.
  /// Tier selection guarantees M % 64, N % 16, K % 16, whole warpgroups
  /// and N <= 256 per warpgroup.
  LogicalResult lowerMacWgmma(MacOp mac) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    int64_t M = ct.getRows(), N = ct.getCols(), K = at.getCols();
    Type ta = at.getElementType(), f32 = b.getF32Type();
    WarpGrid g = warpGrid(ct);
    if (fixedCount % 128 || M % 64 || N % 16 || K % 16 || !(ta.isF16() || ta.isBF16()) ||
        !fragmentTypes.contains(ct) || g.ni * 8 > 256 || M != g.wm * g.mi * 64)
      return mac.emitOpError("does not fit the wgmma tier (64x16x16 steps, bf16 or f16 "
                             "operands, f32 sums, whole warpgroups, at most 256 columns "
                             "per warpgroup)");
    Value cs = fragmentOf(loc, mac.getC());
    Value as = wgmmaOperand(loc, mac.getA()), bs = wgmmaOperand(loc, mac.getB());
    placePrefetch(as);
    placePrefetch(bs);
    Value rs = resultFragment(mac, cs, ct);
    const Layout &la = layouts.find(as)->second, &lb = layouts.find(bs)->second;
    // A operand is K-major when its storage rows run along K: A row-major,
    // B column-major.
    bool aKMajor = !la.colMajor, bKMajor = lb.colMajor;
    // The logical element where a step's operand starts, and the
    // descriptor's byte offsets: K-major, 8-row groups SBO apart (LBO
    // unused); non-K-major, atoms along the non-K dimension LBO apart and
    // 8-row groups along K SBO apart.
    auto start = [&](const Layout &l, bool kMajor, Value nonK, int64_t k) {
      return kMajor ? atomIndex(loc, l, nonK, idx(k)) : atomIndex(loc, l, idx(k), nonK);
    };
    auto lbo = [](const Layout &l, bool kMajor) { return kMajor ? 16 : l.majors * l.swizzle; };
    int64_t steps = K / 16;
    ifHolding(loc, ct, [&] {
      Value holder = arith::DivUIOp::create(b, loc, warp, idx(4));
      Value row0 = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, holder, idx(g.wn)), idx(g.mi * 64));
      Value col0 = arith::MulIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, holder, idx(g.wn)), idx(g.ni * 8));
      SmallVector<Value> acc, aIndex, bIndex;
      for (int64_t e = 0; e < g.entries(); ++e)
        acc.push_back(LoadOp::create(b, loc, f32, cs, idx(e)));
      for (int64_t i = 0; i < g.mi; ++i)
        for (int64_t st = 0; st < steps; ++st)
          aIndex.push_back(start(la, aKMajor,
                                 arith::AddIOp::create(b, loc, row0, idx(64 * i)), 16 * st));
      for (int64_t st = 0; st < steps; ++st)
        bIndex.push_back(start(lb, bKMajor, col0, 16 * st));
      auto mma = WarpgroupMmaOp::create(
          b, loc, SmallVector<Type>(acc.size(), f32), acc, as, aIndex, bs, bIndex,
          b.getI64IntegerAttr(g.ni * 8), b.getI64IntegerAttr(g.mi),
          b.getI64IntegerAttr(steps), b.getI64IntegerAttr(lbo(la, aKMajor)),
          b.getI64IntegerAttr(8 * la.swizzle), b.getI64IntegerAttr(la.swizzle),
          aKMajor ? UnitAttr() : b.getUnitAttr(), b.getI64IntegerAttr(lbo(lb, bKMajor)),
          b.getI64IntegerAttr(8 * lb.swizzle), b.getI64IntegerAttr(lb.swizzle),
          bKMajor ? UnitAttr() : b.getUnitAttr(), /*no_wait=*/UnitAttr());
      for (int64_t e = 0; e < g.entries(); ++e)
        StoreOp::create(b, loc, mma.getResult()[e], rs, idx(e));
    });
    return success();
  }

  /// c = a·b + c with cooperative matrices (16x16x16, f16 operands, f32
  /// sums): each subgroup holds its share of c as sums (its holder tile,
  /// warpGrid) and adds its rows of A times its columns of B from their
  /// shared storage (xpu.coop_sums_mac). Tier selection guarantees M, N, K
  /// % 16 = 0 and whole subgroups of 32.
  LogicalResult lowerMacCoopMatrix(MacOp mac) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    auto at = cast<TileType>(mac.getA().getType());
    int64_t K = at.getCols();
    if (!sumTypes.contains(ct) || ct.getRows() % 16 || ct.getCols() % 16 || K % 16 ||
        !at.getElementType().isF16())
      return mac.emitOpError("does not fit the cooperative-matrix tier (16x16x16 steps, "
                             "f16 operands with f32 sums, whole subgroups)");
    Value cs = sumsOf(loc, mac.getC());
    bool fresh = cs != storage.lookup(mac.getC());
    Value rs = fresh || reusable(mac.getC(), mac, ct) ? cs : newSums(ct);
    copy(loc, ct, rs, cs);
    storage[mac.getResult()] = rs;
    Value as = storage.lookup(mac.getA()), bs = storage.lookup(mac.getB());
    int64_t lda = operandLd(as, K), ldb = operandLd(bs, ct.getCols());
    if (deferred.count(as) || deferred.count(bs))
      return lowerMacDirect(mac, rs, as, bs, lda, ldb);
    barrier(loc);
    placePrefetch(as);
    placePrefetch(bs);
    ifHolding(loc, ct, [&] {
      auto [row, col] = holderStart(loc, ct);
      Value aOff = arith::MulIOp::create(b, loc, row, idx(lda));
      CoopSumsMacOp::create(b, loc, rs, as, aOff, bs, col, b.getI64IntegerAttr(K),
                            b.getI64IntegerAttr(lda), b.getI64IntegerAttr(ldb), Value(),
                            Value());
    });
    barrier(loc);
    return success();
  }

  /// Workgroup sums += a·b where an operand's load was deferred: when each
  /// deferred tile lies in its buffer (checked loads) with rows starting
  /// 16-byte aligned, as Vulkan asks of cooperative-matrix loads, the one
  /// multiply-add reads it straight from the buffer (the driver stages it);
  /// otherwise the tile is first copied into its shared storage element by
  /// element, with its checks (both operands deferred: by slices of K,
  /// copyDeferredBySlices). versionDirectLoops then splits a K loop of such
  /// macs in two.
  LogicalResult lowerMacDirect(MacOp mac, Value rs, Value as, Value bs, int64_t lda,
                               int64_t ldb) {
    Location loc = mac.getLoc();
    auto ct = cast<TileType>(mac.getC().getType());
    int64_t K = cast<TileType>(mac.getA().getType()).getCols();
    TileLoadOp la = deferred.lookup(as), lb = deferred.lookup(bs);
    Value direct = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (TileLoadOp l : {la, lb})
      if (l)
        direct = arith::AndIOp::create(b, loc, direct, coopReadable(l, l.getOffset()));
    auto [row, col] = holderStart(loc, ct);
    Value aOff = arith::MulIOp::create(b, loc, row, idx(lda));
    // An operand copied at its load is read from shared memory as usual
    // (after its copy, and its read-ahead placed).
    bool staged = !la || !lb;
    if (staged) {
      barrier(loc);
      placePrefetch(la ? bs : as);
    }
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, direct, /*withElse=*/true);
    directBranches.push_back(branch);
    if (staged) {
      OpBuilder::InsertionGuard after(b);
      b.setInsertionPointAfter(branch);
      barrier(loc);
    }
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    CoopSumsMacOp::create(b, loc, rs, la ? la.getBuffer() : as, la ? la.getOffset() : aOff,
                          lb ? lb.getBuffer() : bs, lb ? lb.getOffset() : col,
                          b.getI64IntegerAttr(K), b.getI64IntegerAttr(lda),
                          b.getI64IntegerAttr(ldb), la ? la.getStride() : Value(),
                          lb ? lb.getStride() : Value());
    b.setInsertionPointToStart(branch.elseBlock());
    if (la && lb) {
      copyDeferredBySlices(loc, rs, la, lb, col);
      return success();
    }
    barrier(loc);
    for (auto [l, s] : {std::pair(la, as), std::pair(lb, bs)})
      if (l)
        copyElements(l, s);
    barrier(loc);
    CoopSumsMacOp::create(b, loc, rs, as, aOff, bs, col, b.getI64IntegerAttr(K),
                          b.getI64IntegerAttr(lda), b.getI64IntegerAttr(ldb), Value(), Value());
    barrier(loc);
    return success();
  }

  /// The other path of a mac both of whose operands are read at the mac:
  /// slices of workgroupCopyDepth(K) of A's columns and B's rows copied into
  /// shared memory element by element, with their checks, and multiplied
  /// in turn, so that their storage fits beside the workgroup-scope
  /// matrices for blocks up to 128x256x64 (tile_tiering.cpp counts the
  /// same).
  void copyDeferredBySlices(Location loc, Value rs, TileLoadOp la, TileLoadOp lb, Value col) {
    TileType at = la.getResult().getType(), bt = lb.getResult().getType();
    int64_t K = at.getCols(), depth = workgroupCopyDepth(K);
    auto part = [&](int64_t rows, int64_t cols) {
      return TileType::get(b.getContext(), rows, cols, at.getElementType());
    };
    TileType ap = part(at.getRows(), depth), bp = part(depth, bt.getCols());
    auto sliceStorage = [&](TileLoadOp l, TileType p) {
      Value &s = slices[l.getOperation()];
      if (!s)
        s = newCoopOperand(p);
      return s;
    };
    Value as = sliceStorage(la, ap), bs = sliceStorage(lb, bp);
    auto steps = forLoop(loc, idx(0), idx(K), idx(depth));
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k = steps.getInductionVar();
      barrier(loc);
      copyElements(la, as, ap, Value(), k);
      copyElements(lb, bs, bp, k, Value());
      barrier(loc);
      CoopSumsMacOp::create(b, loc, rs, as, idx(0), bs, col, b.getI64IntegerAttr(depth),
                            b.getI64IntegerAttr(operandLd(as, depth)),
                            b.getI64IntegerAttr(operandLd(bs, bt.getCols())), Value(), Value());
    }
    barrier(loc);
  }

  /// Elements from one row of an operand's shared storage to the next.
  int64_t operandLd(Value shared, int64_t cols) const {
    auto it = layouts.find(shared);
    return it == layouts.end() ? cols : it->second.ld;
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
  /// On the wgmma tier, a staged K loop whose body issues one
  /// xpu.warpgroup_mma (every warp holding sums) starts its copies for the
  /// later iteration after that mma, and only then waits: for the mma
  /// itself with three stages or fewer, else for the previous iteration's only
  /// (`wgmma.wait_group 1`; the loop's last mma is waited for after it;
  /// ptxas keeps any other access to the sums in order, serializing),
  /// so the tensor cores run across the next iteration's barrier too. The
  /// copies write the stage of iteration + distance - stages, whose mma
  /// every warpgroup waited for before this iteration's barrier; the
  /// chained mmas add to the same sums in order.
  void deferWgmmaWait(const Staging &st) {
    if (!wgmma || st.ahead.empty())
      return;
    Block *body = st.ahead.front()->getBlock();
    SmallVector<WarpgroupMmaOp> mmas;
    body->walk([&](WarpgroupMmaOp op) { mmas.push_back(op); });
    if (mmas.size() != 1 || mmas[0]->getBlock() != body ||
        !st.ahead.back()->isBeforeInBlock(mmas[0]))
      return;
    WarpgroupMmaOp mma = mmas[0];
    SmallVector<StoreOp> stores;
    for (Operation *user : mma->getUsers()) {
      auto store = dyn_cast<StoreOp>(user);
      if (!store || store->getBlock() != body)
        return;
      stores.push_back(store);
    }
    Operation *at = mma;
    for (StoreOp store : stores)
      if (at->isBeforeInBlock(store))
        at = store;
    for (Operation *op : st.ahead) {
      op->moveAfter(at);
      at = op;
    }
    // With another iteration's mma pending at the wait, the loop's sums
    // must be one fragment, kept outside the loop at fixed entries, so
    // that after the loop they can be waited for again.
    Operation *loop = body->getParentOp();
    Value sums = stores.front().getBuffer();
    SmallVector<int64_t> entries;
    for (StoreOp store : stores)
      if (std::optional<int64_t> e = getConstantIntValue(store.getIndex()))
        entries.push_back(*e);
    bool pending = st.distance == st.stages - 2 && entries.size() == stores.size() &&
                   llvm::all_of(stores, [&](StoreOp s) { return s.getBuffer() == sums; }) &&
                   !loop->getRegion(0).isAncestor(sums.getParentRegion());
    mma.setNoWait(true);
    b.setInsertionPointAfter(at);
    auto wait = WarpgroupWaitOp::create(b, mma.getLoc(), mma.getResultTypes(), mma.getResults(),
                                        b.getI64IntegerAttr(pending ? 1 : 0));
    for (StoreOp store : stores) {
      store->moveAfter(wait);
      store.getValueMutable().assign(
          wait.getResult()[cast<OpResult>(store.getValue()).getResultNumber()]);
    }
    if (!pending)
      return;
    b.setInsertionPointAfter(loop);
    Location loc = mma.getLoc();
    SmallVector<Value> values;
    for (auto [store, e] : llvm::zip(stores, entries))
      values.push_back(LoadOp::create(b, loc, store.getValue().getType(), sums, idx(e)));
    auto drain = WarpgroupWaitOp::create(b, loc, ValueRange(values).getTypes(), values,
                                         b.getI64IntegerAttr(0));
    for (auto [v, e] : llvm::zip(drain.getResult(), entries))
      StoreOp::create(b, loc, v, sums, idx(e));
  }

  //===--------------------------------------------------------------------===//
  // The cooperative-matrix tier emulated (XPU_TILE_EMULATE)
  //===--------------------------------------------------------------------===//

  /// Each invocation holds its subgroup's sums whole (private, matrix e's
  /// element (r, c) at 256 e + 16 r + c) and computes every op from its
  /// definition, so the tier's lowering runs and is checked on the CPU.
  void emulateSums() {
    SmallVector<Operation *> ops;
    kernel.walk([&](Operation *op) {
      if (isa<CoopSumsAllocOp, CoopSumsFillOp, CoopSumsCopyOp, CoopSumsLoadOp, CoopSumsStoreOp,
              CoopSumsMacOp, CoopSumsLengthOp, CoopSumsElementOp, CoopBlockCopyOp,
              CoopBlocksAllocOp, CoopBlocksLoadOp, CoopBlocksStoreOp>(op))
        ops.push_back(op);
    });
    llvm::DenseMap<Value, Value> held;
    Type f32 = b.getF32Type();
    for (Operation *op : ops) {
      lowering = op;
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      auto elements = [&](int64_t n, function_ref<void(Value)> body) {
        auto loop = forLoop(loc, idx(0), idx(n), idx(1));
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(loop.getBody());
        body(loop.getInductionVar());
      };
      if (auto alloc = dyn_cast<CoopSumsAllocOp>(op)) {
        auto type = BufferType::get(b.getContext(), f32, Space::private_, Access::rw,
                                    alloc.getType().getCount() * 256);
        held[alloc.getSums()] = AllocOp::create(b, loc, type);
      } else if (auto length = dyn_cast<CoopSumsLengthOp>(op)) {
        length.replaceAllUsesWith(idx(length.getSums().getType().getCount() * 256));
      } else if (auto element = dyn_cast<CoopSumsElementOp>(op)) {
        element.replaceAllUsesWith(
            LoadOp::create(b, loc, f32, held.lookup(element.getSums()), element.getIndex())
                .getResult());
      } else if (auto fill = dyn_cast<CoopSumsFillOp>(op)) {
        Value sums = held.lookup(fill.getSums());
        elements(fill.getSums().getType().getCount() * 256,
                 [&](Value x) { StoreOp::create(b, loc, fill.getValue(), sums, x); });
      } else if (auto copy = dyn_cast<CoopSumsCopyOp>(op)) {
        Value from = held.lookup(copy.getSrc()), to = held.lookup(copy.getDest());
        elements(copy.getSrc().getType().getCount() * 256, [&](Value x) {
          StoreOp::create(b, loc, LoadOp::create(b, loc, f32, from, x), to, x);
        });
      } else if (isa<CoopSumsLoadOp, CoopSumsStoreOp>(op)) {
        bool stores = isa<CoopSumsStoreOp>(op);
        auto load = dyn_cast<CoopSumsLoadOp>(op);
        auto store = dyn_cast<CoopSumsStoreOp>(op);
        Value sumsValue = stores ? store.getSums() : load.getSums();
        Value buffer = stores ? store.getBuffer() : load.getBuffer();
        Value offset = stores ? store.getOffset() : load.getOffset();
        Value stride = stores ? store.getStride() : load.getStride();
        bool colMajor = stores ? store.getColMajor() : load.getColMajor();
        std::optional<int64_t> only = stores ? store.getOnly() : load.getOnly();
        auto t = cast<CoopSumsType>(sumsValue.getType());
        Value sums = held.lookup(sumsValue);
        for (int64_t e = 0; e < t.getCount(); ++e) {
          if (only && *only != e)
            continue;
          int64_t i = only ? 0 : e / t.getCols(), j = only ? 0 : e % t.getCols();
          elements(256, [&](Value x) {
            Value r = arith::AddIOp::create(b, loc, arith::DivUIOp::create(b, loc, x, idx(16)),
                                            idx(16 * i));
            Value c = arith::AddIOp::create(b, loc, arith::RemUIOp::create(b, loc, x, idx(16)),
                                            idx(16 * j));
            Value at = strided(loc, offset, stride, r, c, colMajor);
            Value mine = arith::AddIOp::create(b, loc, x, idx(256 * e));
            if (stores)
              StoreOp::create(b, loc, LoadOp::create(b, loc, f32, sums, mine), buffer, at);
            else
              StoreOp::create(b, loc, LoadOp::create(b, loc, f32, buffer, at), sums, mine);
          });
        }
      } else if (auto alloc = dyn_cast<CoopBlocksAllocOp>(op)) {
        auto type = BufferType::get(b.getContext(), b.getF16Type(), Space::private_, Access::rw,
                                    alloc.getType().getCount() * 256);
        held[alloc.getBlocks()] = AllocOp::create(b, loc, type);
      } else if (auto load = dyn_cast<CoopBlocksLoadOp>(op)) {
        Value regs = held.lookup(load.getBlocks());
        elements(256, [&](Value x) {
          Value r = arith::DivUIOp::create(b, loc, x, idx(16));
          Value c = arith::RemUIOp::create(b, loc, x, idx(16));
          Value from = strided(loc, load.getOffset(), load.getStride(), r, c, load.getColMajor());
          StoreOp::create(b, loc, LoadOp::create(b, loc, b.getF16Type(), load.getSrc(), from),
                          regs, arith::AddIOp::create(b, loc, x, idx(256 * load.getIndex())));
        });
      } else if (auto store = dyn_cast<CoopBlocksStoreOp>(op)) {
        Value regs = held.lookup(store.getBlocks());
        elements(256, [&](Value x) {
          Value r = arith::DivUIOp::create(b, loc, x, idx(16));
          Value c = arith::RemUIOp::create(b, loc, x, idx(16));
          Value mine = arith::AddIOp::create(b, loc, x, idx(256 * store.getIndex()));
          Value to = arith::AddIOp::create(b, loc, store.getOffset(),
                                           linearAt(loc, r, c, store.getLd()));
          StoreOp::create(b, loc, LoadOp::create(b, loc, b.getF16Type(), regs, mine),
                          store.getDest(), to);
        });
      } else if (auto copy = dyn_cast<CoopBlockCopyOp>(op)) {
        elements(256, [&](Value x) {
          Value r = arith::DivUIOp::create(b, loc, x, idx(16));
          Value c = arith::RemUIOp::create(b, loc, x, idx(16));
          Value from = strided(loc, copy.getSrcOffset(), copy.getSrcStride(), r, c,
                               copy.getColMajor());
          Value to = arith::AddIOp::create(b, loc, copy.getDestOffset(),
                                           linearAt(loc, r, c, copy.getLd()));
          StoreOp::create(b, loc, LoadOp::create(b, loc, b.getF16Type(), copy.getSrc(), from),
                          copy.getDest(), to);
        });
      } else {
        auto mac = cast<CoopSumsMacOp>(op);
        CoopSumsType t = mac.getSums().getType();
        Value sums = held.lookup(mac.getSums());
        Type f16 = b.getF16Type();
        for (int64_t e = 0; e < t.getCount(); ++e) {
          int64_t i = e / t.getCols(), j = e % t.getCols();
          elements(256, [&](Value x) {
            Value r = arith::AddIOp::create(b, loc, arith::DivUIOp::create(b, loc, x, idx(16)),
                                            idx(16 * i));
            Value c = arith::AddIOp::create(b, loc, arith::RemUIOp::create(b, loc, x, idx(16)),
                                            idx(16 * j));
            Value mine = arith::AddIOp::create(b, loc, x, idx(256 * e));
            Value acc = LoadOp::create(b, loc, f32, sums, mine);
            auto ks = forLoop(loc, idx(0), idx(mac.getK()), idx(1), ValueRange{acc});
            {
              OpBuilder::InsertionGuard g(b);
              b.setInsertionPointToStart(ks.getBody());
              Value k = ks.getInductionVar();
              Value lda = mac.getAStride() ? mac.getAStride() : idx(mac.getLda());
              Value ldb = mac.getBStride() ? mac.getBStride() : idx(mac.getLdb());
              Value av = LoadOp::create(
                  b, loc, f16, mac.getA(),
                  arith::AddIOp::create(b, loc, mac.getAOffset(),
                                        strided(loc, idx(0), lda, r, k, false)));
              Value bv = LoadOp::create(
                  b, loc, f16, mac.getB(),
                  arith::AddIOp::create(b, loc, mac.getBOffset(),
                                        strided(loc, idx(0), ldb, k, c, false)));
              Value p = arith::MulFOp::create(b, loc, arith::ExtFOp::create(b, loc, f32, av),
                                              arith::ExtFOp::create(b, loc, f32, bv));
              scf::YieldOp::create(b, loc,
                                   ValueRange{arith::AddFOp::create(b, loc, ks.getRegionIterArg(0), p)});
            }
            StoreOp::create(b, loc, ks.getResult(0), sums, mine);
          });
        }
      }
    }
    for (Operation *op : llvm::reverse(ops))
      op->erase();
  }

  LogicalResult finish() {
    for (auto &entry : staging)
      deferWgmmaWait(entry.second);
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
    // Deferred tiles that every mac read straight or by slices need no
    // storage of their own.
    for (auto &entry : deferred)
      if (entry.first.use_empty()) {
        layouts.erase(entry.first);
        entry.first.getDefiningOp()->erase();
      }
    versionDirectLoops();
    if (coopMatrix && kernel->hasAttr("xpu.mma_emulated"))
      emulateSums();
    return success();
  }

  /// Workgroup tier: a K loop whose macs choose, each iteration, between
  /// reading their tiles straight from the buffers and copying them into
  /// shared memory first (lowerMacDirect) runs in one of two versions. A
  /// scalar pass over the loop's iterations before it evaluates every
  /// choice; when all are direct, a copy of the loop without the copies
  /// runs, else the loop as it was. With both paths in its body the driver
  /// keeps a loop's loads from running ahead of its multiply-adds (75
  /// TFLOP/s on the H200 where the same loop written with the direct path
  /// alone reached 300; bench/results/h200-2026-12-04.md).
  void versionDirectLoops() {
    llvm::MapVector<Operation *, SmallVector<scf::IfOp>> byLoop;
    for (scf::IfOp branch : directBranches) {
      if (isa<scf::ForOp>(branch->getParentOp()))
        byLoop[branch->getParentOp()].push_back(branch);
      else if (isa<KernelOp>(branch->getParentOp())) // a mac outside loops: its own versions
        branch->setAttr(kCopyVersionsAttr, b.getUnitAttr());
    }
    for (auto &[loop, branches] : byLoop)
      versionLoop(cast<scf::ForOp>(loop), branches);
  }

  /// The ops of `loop`'s body that `values` are computed by, in order, when
  /// they are all free of memory effects and read no value carried by the
  /// loop (so the values depend on the induction variable alone).
  static std::optional<SmallVector<Operation *>> sliceOfIteration(scf::ForOp loop,
                                                                  SmallVector<Value> values) {
    Block *body = loop.getBody();
    llvm::SetVector<Operation *> slice;
    while (!values.empty()) {
      Value v = values.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == body && arg != loop.getInductionVar())
          return std::nullopt;
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (!loop->isProperAncestor(def))
        continue;
      if (def->getBlock() != body || def->getNumRegions() || !isMemoryEffectFree(def))
        return std::nullopt;
      if (slice.insert(def))
        llvm::append_range(values, def->getOperands());
    }
    SmallVector<Operation *> ops(slice.begin(), slice.end());
    llvm::sort(ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
    return ops;
  }

  /// `loop`, whose body holds lowerMacDirect's `branches`, in its two
  /// versions behind the scan (versionDirectLoops); left as it is when the
  /// branches' conditions are not functions of the induction variable.
  void versionLoop(scf::ForOp loop, ArrayRef<scf::IfOp> branches) {
    SmallVector<Value> conditions;
    for (scf::IfOp branch : branches)
      conditions.push_back(branch.getCondition());
    std::optional<SmallVector<Operation *>> slice = sliceOfIteration(loop, conditions);
    if (!slice)
      return;
    Location loc = loop.getLoc();
    b.setInsertionPoint(loop);
    Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
    auto scan = scf::ForOp::create(
        b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), ValueRange{yes},
        [&](OpBuilder &nb, Location l, Value iv, ValueRange all) {
          IRMapping map;
          map.map(loop.getInductionVar(), iv);
          for (Operation *op : *slice)
            nb.clone(*op, map);
          Value every = all.front();
          for (Value c : conditions)
            every = arith::AndIOp::create(nb, l, every, map.lookupOrDefault(c));
          scf::YieldOp::create(nb, l, every);
        });
    scan->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    auto versions = scf::IfOp::create(b, loc, loop.getResultTypes(), scan.getResult(0),
                                      /*withElse=*/true);
    versions->setAttr(kCopyVersionsAttr, b.getUnitAttr());
    loop->replaceAllUsesWith(versions.getResults());
    for (Block *block : {versions.thenBlock(), versions.elseBlock()})
      if (block->mightHaveTerminator())
        block->getTerminator()->erase();
    b.setInsertionPointToEnd(versions.thenBlock());
    auto direct = cast<scf::ForOp>(b.clone(*loop));
    scf::YieldOp::create(b, loc, direct.getResults());
    loop->moveBefore(versions.elseBlock(), versions.elseBlock()->end());
    b.setInsertionPointToEnd(versions.elseBlock());
    scf::YieldOp::create(b, loc, loop.getResults());
    // In the copy every choice is direct: keep that path alone.
    SmallVector<scf::IfOp> copies;
    for (auto [op, copy] : llvm::zip(*loop.getBody(), *direct.getBody()))
      if (llvm::any_of(branches, [&](scf::IfOp br) { return br.getOperation() == &op; }))
        copies.push_back(cast<scf::IfOp>(copy));
    for (scf::IfOp copy : copies) {
      Block *then = copy.thenBlock();
      then->getTerminator()->erase();
      copy->getBlock()->getOperations().splice(Block::iterator(copy), then->getOperations());
      copy->erase();
    }
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

/// The memory a stretch of ops reads and writes, as far as a barrier
/// orders it: each shared allocation by name; global memory as one (its
/// buffers may alias); anything else (a shared buffer that is not an
/// allocation of the kernel) as everything.
struct Accesses {
  llvm::SmallDenseMap<Value, bool, 8> shared; ///< allocation -> written
  bool globalRead = false, globalWrite = false, unknown = false;

  void add(Operation *op) {
    op->walk([&](Operation *inner) {
      // Cooperative-matrix sums are the subgroup's registers.
      if (inner->getNumRegions() || isMemoryEffectFree(inner) ||
          isa<CoopSumsAllocOp, CoopSumsFillOp, CoopSumsCopyOp, CoopBlocksAllocOp>(inner))
        return;
      bool readsAll = isa<LoadOp, AlignedOp, BufferSizeOp, MatrixLoadOp, CoopSumsLoadOp,
                          CoopSumsMacOp, CoopBlocksLoadOp>(inner);
      auto copy = dyn_cast<CoopBlockCopyOp>(inner);
      bool buffers = false;
      for (Value v : inner->getOperands()) {
        auto type = dyn_cast<BufferType>(v.getType());
        if (!type)
          continue;
        buffers = true;
        bool reads = readsAll || (copy && v == copy.getSrc());
        if (type.getSpace() == Space::private_)
          continue;
        if (type.getSpace() == Space::global)
          (reads ? globalRead : globalWrite) = true;
        else if (v.getDefiningOp<AllocOp>())
          shared[v] |= !reads;
        else
          unknown = true;
      }
      // Memory reached otherwise (memrefs of imported kernels, pointers,
      // calls, reductions): anything.
      if (!buffers)
        unknown = true;
    });
  }

  /// Whether some access here and one in `o` must stay ordered (at least
  /// one of them a write to the same memory).
  bool conflicts(const Accesses &o) const {
    if (unknown || o.unknown || (globalWrite && (o.globalRead || o.globalWrite)) ||
        (o.globalWrite && globalRead))
      return true;
    for (auto [buffer, written] : shared)
      if (auto it = o.shared.find(buffer); it != o.shared.end() && (written || it->second))
        return true;
    return false;
  }
};

bool containsBarrier(Operation *op) {
  return op->walk([](BarrierOp) { return WalkResult::interrupt(); }).wasInterrupted();
}

/// Removes the barriers that order nothing: a barrier whose block has
/// another barrier before it, with no access between the two that must
/// stay ordered with an access between it and the next barrier. (The tile
/// ops each end and begin with one; consecutive copies into different
/// tiles need only the first and the last.) A stretch that leaves the
/// block, or holds a nested barrier, keeps the barrier.
void removeRedundantBarriers(KernelOp kernel) {
  SmallVector<BarrierOp> barriers;
  kernel.walk([&](BarrierOp op) { barriers.push_back(op); });
  for (BarrierOp barrier : barriers) {
    Accesses before, after;
    bool seen = false;
    for (Operation *op = barrier->getPrevNode(); op; op = op->getPrevNode()) {
      if (isa<BarrierOp>(op)) {
        seen = true;
        break;
      }
      if (containsBarrier(op))
        break;
      before.add(op);
    }
    if (!seen)
      continue;
    seen = false;
    for (Operation *op = barrier->getNextNode(); op; op = op->getNextNode()) {
      if (isa<BarrierOp>(op)) {
        seen = true;
        break;
      }
      if (containsBarrier(op))
        break;
      after.add(op);
    }
    if (seen && !before.conflicts(after))
      barrier->erase();
  }
}

} // namespace

namespace {

/// Shared memory the operand stages of `kernel` may take when a block may
/// have `limit` bytes (the device's opt-in limit, which tile tiering gives
/// as xpu.shared_limit): as many blocks as its registers let an SM hold should
/// fit there side by side, since the macs of one block wait for their
/// results while another's run. An SM has the block limit and 1 KiB
/// reserved per block (sm_80 to sm_90); its 64K registers hold blocks of
/// roughly their f32 sums plus 64 registers per invocation. 8 KiB of each
/// block's share is left to the kernel's other buffers.
int64_t stageBudget(KernelOp kernel, int64_t limit) {
  int64_t threads = std::max<int64_t>(1, fixedInvocations(kernel)), sums = 0;
  kernel.walk([&](MacOp mac) {
    auto c = cast<TileType>(mac.getC().getType());
    sums = std::max(sums, c.getRows() * c.getCols() / threads);
  });
  int64_t perThread = llvm::alignTo(sums + 64, 8);
  int64_t blocks = std::max<int64_t>(1, 65536 / (threads * perThread));
  int64_t share = (limit + 1024) / blocks - 1024;
  return std::min(limit, share) - 8 * 1024;
}

/// Lowers the tiles of `kernel` for `tier`. On NVIDIA's tiers the mac
/// operands of K loops are copied in stages (within stageBudget) when the
/// kernel then still fits the shared memory a block may have
/// (xpu.shared_limit; without it the 48 KiB every CUDA block has, 40 for
/// the stages): tried on a copy first, else one step of register prefetch.
LogicalResult lowerKernelTiles(KernelOp kernel, StringRef tier, bool wideVectors) {
  bool stage = tier == "mma.sync" || tier == "wgmma";
  int64_t limit = 48 * 1024, budget = limit - 8 * 1024;
  if (auto a = kernel->getAttrOfType<IntegerAttr>("xpu.shared_limit"); a && stage) {
    limit = a.getInt();
    budget = stageBudget(kernel, limit);
  }
  if (stage) {
    auto trial = cast<KernelOp>(kernel->clone());
    stage = succeeded(KernelTiles(trial, tier, wideVectors, /*stageCopies=*/true, budget).run()) &&
            sharedScratchBytes(trial) <= uint64_t(limit);
    trial->erase();
  }
  return KernelTiles(kernel, tier, wideVectors, stage, budget).run();
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
                                    vector::VectorDialect, ub::UBDialect, LLVM::LLVMDialect,
                                    NVVM::NVVMDialect, ROCDL::ROCDLDialect>();
  // The mma.sync tier lays its tiles out differently (padded operand rows,
  // sums in registers): count what that tier allocates.
  auto tier = kernel->getAttrOfType<StringAttr>("xpu.mma_tier");
  auto copy = cast<KernelOp>(kernel->clone());
  uint64_t bytes = succeeded(lowerKernelTiles(copy, tier ? tier.getValue() : "software", false))
                       ? sharedScratchBytes(copy)
                       : sharedScratchBytes(kernel);
  copy->erase();
  return bytes;
}

namespace {

struct LowerTilesPass : xpu::impl::LowerTilesBase<LowerTilesPass> {
  using LowerTilesBase::LowerTilesBase;

  void runOnOperation() override {
    SmallVector<KernelOp> split;
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      bool any = false;
      kernel.walk([&](Operation *op) { any |= isTileOp(op); });
      if (!any)
        continue;
      StringRef tier = "software";
      if (auto attr = kernel->getAttrOfType<StringAttr>("xpu.mma_tier"))
        tier = attr.getValue();
      bool nvidia = (tier == "mma.sync" || tier == "wgmma") && target == "nvvm";
      bool coop = (tier == "cooperative-matrix" || tier == "cooperative-matrix-workgroup") &&
                  (target == "spirv" || kernel->hasAttr("xpu.mma_emulated"));
      bool amd = (tier == "mfma" || tier == "wmma") &&
                 (target == "rocdl" || kernel->hasAttr("xpu.mma_emulated"));
      if (tier != "software" && tier != "dot4" && !nvidia && !coop && !amd) {
        kernel.emitOpError() << "has tile tier '" << tier
                             << "', which xpu-lower-tiles does not lower for target '"
                             << target
                             << "' (software, dot4; mma.sync and wgmma on nvvm; "
                                "cooperative-matrix(-workgroup) on spirv; mfma and wmma on "
                                "rocdl; cooperative-matrix(-workgroup), mfma and wmma anywhere when "
                                "xpu.mma_emulated)";
        return signalPassFailure();
      }
      // NVIDIA's driver needs the workgroup-scope loads' strides constant.
      if (target == "spirv" && (specialize == "all" || (specialize == "workgroup" &&
                                                        tier == "cooperative-matrix-workgroup")))
        markSpecializedStrides(kernel);
      if (failed(lowerKernelTiles(kernel, tier, target == "cpu")))
        return signalPassFailure();
      removeRedundantBarriers(kernel);
      if (coop && tier == "cooperative-matrix-workgroup")
        split.push_back(kernel);
    }
    for (KernelOp kernel : split)
      splitCopyingVersions(kernel, splitCopying);
  }
};

} // namespace
