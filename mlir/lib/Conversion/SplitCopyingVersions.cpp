// A workgroup-scope tile kernel whose K loop runs in two versions
// (LowerTiles.cpp, versionLoop), or whose lone mac chooses between reading
// its tiles straight and copying them, becomes two kernels, one per
// version (abi::kCopyingCompanionSuffix): NVIDIA's driver stages
// workgroup-scope cooperative-matrix loads through the shared memory the
// shader leaves free, so the copying version's arrays, declared beside the
// direct loop though no workgroup of an aligned GEMM touches them, slowed
// the direct loop 2.6x (bench/results/h100-2026-12-07-e.md). Each kernel
// evaluates the choice and runs the rest only on its side of it.
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/KernelABI.h"
#include "xpu/TileLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace xpu {
namespace {

/// Whether `root` may change memory outside its workgroup, or do
/// something else a workgroup skipping the rest of the kernel must not
/// leave undone. Its allocations, sums, barriers and writes to its own
/// private and shared buffers are not that; a checked access is (both
/// kernels would report its violation).
bool writesOutside(Operation *root) {
  return root
      ->walk([](Operation *op) {
        if (op->hasAttr("checked"))
          return WalkResult::interrupt();
        if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isMemoryEffectFree(op) ||
            isa<BarrierOp, CoopSumsAllocOp, CoopSumsFillOp, CoopBlocksAllocOp>(op))
          return WalkResult::advance(); // a region's ops are walked themselves
        auto effects = dyn_cast<MemoryEffectOpInterface>(op);
        if (effects && !effects.hasEffect<MemoryEffects::Write>() &&
            !effects.hasEffect<MemoryEffects::Free>())
          return WalkResult::advance();
        bool buffers = false, local = true;
        for (Value v : op->getOperands())
          if (auto type = dyn_cast<BufferType>(v.getType())) {
            buffers = true;
            local = local && type.getSpace() != Space::global;
          }
        return buffers && local ? WalkResult::advance() : WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// Whether `choice` (the scan's result, or a lone mac's test) is computed
/// from the kernel's arguments, coordinates and buffer sizes alone, by ops
/// free of memory effects, so that the two kernels, run one after the
/// other, compute it alike (a value read from memory could have been
/// changed by the first).
bool readsNoMemory(Value choice) {
  SmallVector<Value> work{choice};
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (!isMemoryEffectFree(def))
      return false;
    def->walk([&](Operation *inner) { llvm::append_range(work, inner->getOperands()); });
  }
  return true;
}

/// The marked scf.if of `kernel` (kCopyVersionsAttr), if it has exactly one.
scf::IfOp onlyVersions(KernelOp kernel) {
  scf::IfOp found;
  int count = 0;
  kernel.walk([&](scf::IfOp op) {
    if (op->hasAttr(kCopyVersionsAttr)) {
      found = op;
      ++count;
    }
  });
  return count == 1 ? found : scf::IfOp();
}

/// Keeps one version of `kernel`'s choice (`versions`): the direct one, run
/// by the workgroups that found every tile readable straight, or the
/// copying one, run by the others. What follows moves under the same condition; shared
/// arrays left unused go.
void keepVersion(KernelOp kernel, scf::IfOp versions, bool direct) {
  Location loc = versions.getLoc();
  OpBuilder b(versions);
  Value cond = versions.getCondition();
  if (!direct)
    cond = arith::XOrIOp::create(b, loc, cond, arith::ConstantIntOp::create(b, loc, 1, 1));
  auto guard = scf::IfOp::create(b, loc, TypeRange{}, cond, /*withElse=*/false);
  Block *outer = versions->getBlock(), *inner = guard.thenBlock();
  inner->getOperations().splice(inner->getTerminator()->getIterator(), outer->getOperations(),
                                versions->getIterator(), outer->getTerminator()->getIterator());
  Block *kept = direct ? versions.thenBlock() : versions.elseBlock();
  auto yield = cast<scf::YieldOp>(kept->getTerminator());
  versions->replaceAllUsesWith(yield.getOperands());
  inner->getOperations().splice(versions->getIterator(), kept->getOperations(), kept->begin(),
                                yield->getIterator());
  versions->erase();
  kernel.walk([](AllocOp alloc) {
    if (alloc.use_empty())
      alloc->erase();
  });
}

} // namespace

void splitCopyingVersions(KernelOp kernel, bool allowed) {
  scf::IfOp versions = allowed ? onlyVersions(kernel) : scf::IfOp();
  auto module = kernel->getParentOfType<ModuleOp>();
  std::string name = (kernel.getSymName() + abi::kCopyingCompanionSuffix).str();
  bool split = versions && versions->getParentOp() == kernel &&
               readsNoMemory(versions.getCondition()) && !module.lookupSymbol(name);
  if (split)
    for (Operation &op : *versions->getBlock()) {
      if (&op == versions.getOperation())
        break;
      split = split && !writesOutside(&op);
    }
  if (split) {
    IRMapping map;
    auto companion = cast<KernelOp>(kernel->clone(map));
    companion.setSymName(name);
    module.getBody()->getOperations().insertAfter(kernel->getIterator(), companion);
    keepVersion(companion, cast<scf::IfOp>(map.lookup(versions.getOperation())),
                /*direct=*/false);
    keepVersion(kernel, versions, /*direct=*/true);
  }
  kernel.walk([](scf::IfOp op) { op->removeAttr(kCopyVersionsAttr); });
}

} // namespace xpu
