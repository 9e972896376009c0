// Splits vectors wider than SPIR-V's four lanes into vectors it has. See
// Passes.td (xpu-unroll-vectors-for-spirv).
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace xpu {
#define GEN_PASS_DEF_UNROLLVECTORSFORSPIRV
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;

namespace {

/// A slice of lanes of a vector built from scalars is built from fewer.
struct SliceOfElements : OpRewritePattern<vector::ExtractStridedSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ExtractStridedSliceOp op,
                                PatternRewriter &rw) const override {
    auto from = op.getSource().getDefiningOp<vector::FromElementsOp>();
    if (!from || op.getType().getRank() != 1)
      return failure();
    int64_t offset = cast<IntegerAttr>(op.getOffsets()[0]).getInt();
    int64_t size = cast<IntegerAttr>(op.getSizes()[0]).getInt();
    int64_t stride = cast<IntegerAttr>(op.getStrides()[0]).getInt();
    SmallVector<Value> lanes;
    for (int64_t i = 0; i < size; ++i)
      lanes.push_back(from.getElements()[offset + i * stride]);
    rw.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(), lanes);
    return success();
  }
};

struct UnrollVectorsForSPIRVPass
    : xpu::impl::UnrollVectorsForSPIRVBase<UnrollVectorsForSPIRVPass> {
  void runOnOperation() override {
    if (failed(spirv::unrollVectorsInFuncBodies(getOperation())))
      return signalPassFailure();
    // What the split left of the wide vectors: slices of slices, of
    // broadcasts, of constants and of vectors built from scalars.
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<SliceOfElements>(ctx);
    vector::ExtractStridedSliceOp::getCanonicalizationPatterns(patterns, ctx);
    vector::InsertStridedSliceOp::getCanonicalizationPatterns(patterns, ctx);
    vector::BroadcastOp::getCanonicalizationPatterns(patterns, ctx);
    vector::ExtractOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
