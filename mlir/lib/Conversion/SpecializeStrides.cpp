// The kernel arguments a workgroup-scope tile kernel is specialized on
// (abi::kSpecializeAttr; see KernelABI.h): those the strides of its tile
// loads and stores are computed from. With a run-time stride NVIDIA's
// driver compiles the workgroup-scope cooperative-matrix loads into code
// that spills kilobytes per invocation and runs 6-8x slower than the same
// loads with the stride a constant (bench/results/h100-2026-12-07-c.md).
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/KernelABI.h"
#include "xpu/TileLowering.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

void xpu::markSpecializedStrides(KernelOp kernel) {
  SmallVector<Value> work;
  kernel.walk([&](Operation *op) {
    if (auto load = dyn_cast<TileLoadOp>(op))
      work.push_back(load.getStride());
    else if (auto store = dyn_cast<TileStoreOp>(op))
      work.push_back(store.getStride());
  });
  // Back through the pure ops the strides are computed by, to the
  // kernel's integer arguments (a value read from memory, or computed in
  // a region, is followed no further: such a stride stays a run-time one).
  Block &entry = kernel.getBody().front();
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto type = dyn_cast<IntegerType>(arg.getType());
      if (arg.getOwner() == &entry && type &&
          (type.getWidth() == 32 || type.getWidth() == 64))
        kernel.setArgAttr(arg.getArgNumber(), abi::kSpecializeAttr,
                          UnitAttr::get(kernel.getContext()));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
}
