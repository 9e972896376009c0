// Bounds private scratch per invocation; see PrivateScratch.h.
#include "xpu/Admission/PrivateScratch.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;

namespace xpu {

LogicalResult verifyPrivateScratch(KernelOp kernel) {
  auto module = kernel->getParentOfType<ModuleOp>();
  uint64_t total = 0;
  AllocOp over;
  llvm::SmallPtrSet<Operation *, 4> seen;
  // Each function once: a bound on any chain of calls (recursion aside).
  std::function<void(Operation *)> visit = [&](Operation *fn) {
    if (!seen.insert(fn).second)
      return;
    fn->walk([&](Operation *op) {
      if (over)
        return WalkResult::interrupt();
      if (auto alloc = dyn_cast<AllocOp>(op)) {
        BufferType t = alloc.getResult().getType();
        if (t.getSpace() != Space::private_)
          return WalkResult::advance();
        uint64_t elementBytes = std::max(1u, t.getElementType().getIntOrFloatBitWidth() / 8);
        // Saturating: a static size near 2^63 must not wrap to a small total.
        total = llvm::SaturatingMultiplyAdd(uint64_t(t.getSize()), elementBytes, total);
        if (total > kMaxPrivateScratchBytes)
          over = alloc;
      } else if (auto call = dyn_cast<CallOp>(op)) {
        if (auto callee = module.lookupSymbol<FuncOp>(call.getCallee()))
          visit(callee);
      }
      return WalkResult::advance();
    });
  };
  visit(kernel);
  if (!over)
    return success();
  std::string need = total == std::numeric_limits<uint64_t>::max()
                         ? "more than 2^64 bytes"
                         : std::to_string(total) + " bytes";
  emitError(over.getLoc()) << "XPU-PT005: kernel '" << kernel.getSymName()
                           << "': with this private xpu.alloc, one invocation needs " << need
                           << " of private scratch, more than the "
                           << kMaxPrivateScratchBytes
                           << " every backend gives it; use shared scratch or a buffer";
  return failure();
}

} // namespace xpu
