// Scratch memory starts as zeros on every backend (docs/profiles.md,
// "Integer semantics"). See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_ZEROSCRATCH
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
}

/// Scratch memory starts as zeros. Shared allocations move to the kernel's
/// entry, where the workgroup fills them cooperatively before one barrier;
/// private ones are filled where they are made.
void zeroScratch(KernelOp kernel) {
  SmallVector<AllocOp> shared, priv;
  kernel.walk([&](AllocOp op) {
    (op.getResult().getType().getSpace() == Space::shared ? shared : priv).push_back(op);
  });
  auto fill = [](OpBuilder &b, Location loc, AllocOp alloc, Value from, Value step) {
    BufferType t = alloc.getResult().getType();
    Value end = arith::ConstantIndexOp::create(b, loc, t.getSize());
    auto loop = scf::ForOp::create(b, loc, from, end, step);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    StoreOp::create(b, loc, zeroOf(b, loc, t.getElementType()), alloc.getResult(),
                    loop.getInductionVar());
  };
  for (AllocOp op : priv) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Location loc = op.getLoc();
    fill(b, loc, op, arith::ConstantIndexOp::create(b, loc, 0),
         arith::ConstantIndexOp::create(b, loc, 1));
  }
  if (shared.empty())
    return;
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = kernel.getLoc();
  Operation *last = nullptr;
  for (AllocOp op : shared) {
    if (last)
      op->moveAfter(last);
    else
      op->moveBefore(&entry, entry.begin());
    last = op;
  }
  b.setInsertionPointAfter(last);
  // Linear invocation index and workgroup size, as xpu-expand-reductions.
  Value tx = ThreadIdOp::create(b, loc, Dim::x);
  Value ty = ThreadIdOp::create(b, loc, Dim::y);
  Value tz = ThreadIdOp::create(b, loc, Dim::z);
  Value sx = WorkgroupSizeOp::create(b, loc, Dim::x);
  Value sy = WorkgroupSizeOp::create(b, loc, Dim::y);
  Value sz = WorkgroupSizeOp::create(b, loc, Dim::z);
  Value sxy = arith::MulIOp::create(b, loc, sx, sy);
  Value n = arith::MulIOp::create(b, loc, sxy, sz);
  Value lin = arith::AddIOp::create(
      b, loc, tx,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ty, sx),
                            arith::MulIOp::create(b, loc, tz, sxy)));
  for (AllocOp op : shared) {
    fill(b, loc, op, lin, n);
    // Marks the loop as the workgroup's cooperative fill of the whole
    // buffer (the CPU runs it once per workgroup, see CPUWorkItemLoops.cpp).
    std::prev(b.getInsertionPoint())->setAttr(kCooperativeFillAttr, b.getUnitAttr());
  }
  BarrierOp::create(b, loc);
}

struct ZeroScratchPass : xpu::impl::ZeroScratchBase<ZeroScratchPass> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      zeroScratch(kernel);
  }
};

} // namespace
