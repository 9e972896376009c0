// A kernel that reads only global ids and sizes, and shares nothing within
// a workgroup, cannot tell how its launch cut the grid into workgroups:
// every invocation computes the same whatever the workgroup it is in. The
// CPU backend uses that to run such kernels in long work-item loops
// (workgroups of up to 1,024 invocations along x) instead of the launch's
// small GPU-style tiles, which would leave each loop a vector or two long.
#include "CPUWorkgroupShape.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace xpu {

namespace {

/// Ops of other dialects that never see the workgroup: pure arithmetic and
/// structured control flow.
bool isShapeBlindDialect(StringRef ns) {
  return llvm::StringSwitch<bool>(ns)
      .Cases({"arith", "math", "scf", "vector", "ub", "index"}, true)
      .Default(false);
}

/// The xpu ops whose meaning does not depend on the workgroup shape: a
/// global id and size are the same in every shape that covers the grid, a
/// global buffer's accesses (atomics too) do not depend on who makes them.
bool isShapeBlindXpuOp(Operation *op) {
  return isa<GlobalIdOp, GlobalSizeOp, LoadOp, StoreOp, BufferSizeOp, AtomicRMWOp,
             ViewOp, StructGetOp, BitsViewOp, ReportOutOfBoundsOp, ReturnOp>(op);
}

} // namespace

bool anyWorkgroupShapeComputesTheSame(KernelOp kernel) {
  // A fixed size is part of the kernel (the launch checks it, the loops
  // are compiled for it).
  if (kernel.getWorkgroupSize())
    return false;
  WalkResult r = kernel.getBody().walk([](Operation *op) {
    StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
    bool blind = ns == XPUDialect::getDialectNamespace() ? isShapeBlindXpuOp(op)
                                                          : isShapeBlindDialect(ns);
    return blind ? WalkResult::advance() : WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

} // namespace xpu
