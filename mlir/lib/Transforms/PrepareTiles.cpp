// Front-end checks of tile operations (issue 15): the offsets, strides and
// scalars of tile ops must be the same in every invocation of the workgroup
// (XPU-TILE001), and tile loads and stores get run-time bounds checks under
// the portable profile. See Passes.td.
#include "xpu/Analysis/Uniformity.h"
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

namespace xpu {
#define GEN_PASS_DEF_PREPARETILES
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// The non-tile operands of a tile op, with what each one is.
SmallVector<std::pair<Value, const char *>> scalarOperands(Operation *op) {
  if (auto load = dyn_cast<TileLoadOp>(op))
    return {{load.getOffset(), "offset"}, {load.getStride(), "stride"}};
  if (auto store = dyn_cast<TileStoreOp>(op))
    return {{store.getOffset(), "offset"}, {store.getStride(), "stride"}};
  if (auto fill = dyn_cast<TileFillOp>(op))
    return {{fill.getValue(), "fill value"}};
  if (auto scale = dyn_cast<TileScaleOp>(op))
    return {{scale.getScale(), "scale"}};
  return {};
}

bool isTileOp(Operation *op) {
  return isa<TileFillOp, TileLoadOp, TileStoreOp, MacOp, TileScaleOp, TileAddOp,
             TileConvertOp>(op);
}

struct PrepareTilesPass : xpu::impl::PrepareTilesBase<PrepareTilesPass> {
  using PrepareTilesBase::PrepareTilesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](Operation *op) { any |= isTileOp(op); });
    if (!any)
      return;
    UniformityAnalysis uniformity(module);
    bool failed = false;
    module.walk([&](Operation *op) {
      // Loops and ifs that carry tiles copy them cooperatively: they must
      // decide the same way for the whole workgroup.
      if (isa<scf::ForOp, scf::IfOp>(op) &&
          llvm::any_of(op->getResultTypes(), [](Type t) { return isa<TileType>(t); })) {
        SmallVector<Value> decisions;
        if (auto f = dyn_cast<scf::ForOp>(op))
          decisions = {f.getLowerBound(), f.getUpperBound(), f.getStep()};
        else
          decisions = {cast<scf::IfOp>(op).getCondition()};
        bool uniform = uniformity.isUnderUniformControl(op, Uniformity::workgroup);
        for (Value d : decisions)
          uniform &= uniformity.isUniform(d, Uniformity::workgroup);
        if (!uniform) {
          op->emitError() << "XPU-TILE001: '" << op->getName()
                          << "' carries tiles but does not decide the same way in "
                             "every invocation of the workgroup";
          failed = true;
        }
        return;
      }
      if (!isTileOp(op))
        return;
      for (auto [value, what] : scalarOperands(op)) {
        if (uniformity.isUniform(value, Uniformity::workgroup))
          continue;
        InFlightDiagnostic diag = op->emitError()
            << "XPU-TILE001: the " << what << " of '" << op->getName()
            << "' differs between invocations of the workgroup; a tile is held "
               "by the whole workgroup, so every invocation must pass the same "
               "value";
        if (Operation *source = uniformity.divergenceSource(value))
          diag.attachNote(source->getLoc())
              << "it depends on '" << source->getName() << "' here";
        failed = true;
      }
      if (runtimeChecks && isa<TileLoadOp, TileStoreOp>(op))
        op->setAttr("checked", UnitAttr::get(op->getContext()));
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
