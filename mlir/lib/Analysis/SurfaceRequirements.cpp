// What the kernel-surface ops need from a target; see SurfaceRequirements.h.
#include "xpu/Analysis/SurfaceRequirements.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

using namespace mlir;

namespace xpu {

llvm::SmallVector<Capability, 2> surfaceNeeds(Operation *op) {
  using C = Capability;
  if (isa<WaveShuffleOp, WaveBroadcastOp>(op))
    return {C::waveOps, C::waveShuffle};
  if (isa<WaveBallotOp>(op))
    return {C::waveOps, C::waveBallot};
  if (isa<WaveVoteOp>(op))
    return {C::waveOps, C::waveVote};
  auto needsFor = [](ReduceKind kind, Type t) -> llvm::SmallVector<C, 2> {
    // 64-bit integers, and f64 min/max (compared as 64-bit integers on SPIR-V).
    bool wide = t.isInteger(64) ||
                (t.isF64() && (kind == ReduceKind::fmin || kind == ReduceKind::fmax));
    if (wide)
      return {C::waveOps, C::waveReduce, C::waveReduce64};
    return {C::waveOps, C::waveReduce};
  };
  if (auto r = dyn_cast<WaveReduceOp>(op))
    return needsFor(r.getKind(), r.getValue().getType());
  if (auto s = dyn_cast<WaveScanOp>(op))
    return needsFor(s.getKind(), s.getValue().getType());
  return {};
}

} // namespace xpu
