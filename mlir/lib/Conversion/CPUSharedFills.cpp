// Scratch memory starts as zeros (docs/profiles.md), which xpu-zero-scratch
// provides with a cooperative fill of each shared buffer and a barrier at
// the kernel's entry. A kernel that starts by storing one element per
// invocation (s[thread_id] = ..., the first step of most tree reductions
// and scans) overwrites every zero before the next barrier: when nothing
// between that barrier and the next reads the buffer, no invocation can
// see a zero, and the fill is only time (a memset per workgroup on the CPU).
#include "CPUSharedFills.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace xpu {

namespace {

/// The store in `stretch` through which each invocation writes element
/// thread_id.x of `buffer`, when it is the buffer's only use there and
/// sits directly in the kernel's body (every invocation runs it once).
StoreOp overwriteOfEveryElement(Value buffer, ArrayRef<Operation *> stretch) {
  StoreOp only;
  for (Operation *user : buffer.getUsers()) {
    Operation *top = user;
    while (top && !llvm::is_contained(stretch, top))
      top = top->getParentOp();
    if (!top)
      continue; // a use before the fill's barrier or after the next one
    auto store = dyn_cast<StoreOp>(user);
    if (only || !store || top != user || store.getBuffer() != buffer)
      return {};
    auto id = store.getIndex().getDefiningOp<ThreadIdOp>();
    if (!id || id.getDim() != Dim::x)
      return {};
    only = store;
  }
  return only;
}

} // namespace

void dropOverwrittenSharedFills(KernelOp kernel) {
  std::optional<ArrayRef<int64_t>> fixed = kernel.getWorkgroupSize();
  if (!fixed || fixed->empty())
    return;
  int64_t x = (*fixed)[0];
  for (int64_t e : fixed->drop_front())
    if (e != 1)
      return; // element thread_id.x would repeat across y and z
  Block &entry = kernel.getBody().front();
  SmallVector<scf::ForOp> fills;
  BarrierOp fence;
  for (Operation &op : entry) {
    if (auto loop = dyn_cast<scf::ForOp>(op); loop && loop->hasAttr(kCooperativeFillAttr))
      fills.push_back(loop);
    else if (!fills.empty() && (fence = dyn_cast<BarrierOp>(op)))
      break;
  }
  if (!fence)
    return;
  // The ops between the fill's barrier and the next synchronization.
  SmallVector<Operation *> stretch;
  for (Operation *op = fence->getNextNode(); op; op = op->getNextNode()) {
    bool syncs = isa<BarrierOp, ReduceOp>(op) ||
                 op->walk([](Operation *inner) {
                     return isa<BarrierOp, ReduceOp>(inner) ? WalkResult::interrupt()
                                                            : WalkResult::advance();
                   }).wasInterrupted();
    if (syncs)
      break;
    stretch.push_back(op);
  }
  for (scf::ForOp fill : fills) {
    auto store = *fill.getBody()->getOps<StoreOp>().begin();
    Value buffer = store.getBuffer();
    auto type = cast<BufferType>(buffer.getType());
    if (type.getSize() == x && overwriteOfEveryElement(buffer, stretch))
      fill.erase();
  }
}

} // namespace xpu
