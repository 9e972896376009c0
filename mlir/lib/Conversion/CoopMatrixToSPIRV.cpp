// The cooperative-matrix sums ops (xpu.coop_sums_*) as SPV_KHR_cooperative_matrix
// instructions (issue 15; the cooperative-matrix tile tiers on Vulkan); see
// TileLowering.h. Subgroup sums are arrays of 16x16 matrices; workgroup sums
// are one matrix of the holder tile's size with Workgroup scope, which
// VK_NV_cooperative_matrix2's cooperativeMatrixWorkgroupScope and
// cooperativeMatrixFlexibleDimensions let a driver take.
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/TileLowering.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"

using namespace mlir;

namespace xpu {

namespace {

using Use = spirv::CooperativeMatrixUseKHR;

spirv::CooperativeMatrixType matrixType(Type elem, Use use) {
  return spirv::CooperativeMatrixType::get(elem, 16, 16, spirv::Scope::Subgroup, use);
}

spirv::CooperativeMatrixType sumType(MLIRContext *ctx) {
  return matrixType(Float32Type::get(ctx), Use::MatrixAcc);
}

/// Workgroup sums: one accumulator of the holder tile's size.
spirv::CooperativeMatrixType workgroupSumType(CoopSumsType t) {
  return spirv::CooperativeMatrixType::get(Float32Type::get(t.getContext()), 16 * t.getRows(),
                                           16 * t.getCols(), spirv::Scope::Workgroup,
                                           Use::MatrixAcc);
}

/// Sums are a Function variable: an array of accumulator matrices, which
/// the driver keeps in registers (every access names a constant element),
/// or the one workgroup matrix.
spirv::PointerType sumsPointerType(CoopSumsType t) {
  if (t.getWorkgroup())
    return spirv::PointerType::get(workgroupSumType(t), spirv::StorageClass::Function);
  return spirv::PointerType::get(spirv::ArrayType::get(sumType(t.getContext()), t.getCount()),
                                 spirv::StorageClass::Function);
}

spirv::ConstantOp constant(OpBuilder &b, Location loc, Type t, int64_t v) {
  return spirv::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

/// A pointer to matrix `e` of the sums.
Value sumAt(OpBuilder &b, Location loc, Value sums, int64_t e) {
  return spirv::AccessChainOp::create(b, loc, sums, ValueRange{constant(b, loc, b.getI32Type(), e)});
}

/// A pointer to element `offset + plus` of a lowered buffer (Workgroup
/// array or StorageBuffer block): the loads and stores name element
/// pointers into the buffers' arrays, as SPV_KHR_cooperative_matrix asks
/// under the Shader capability.
Value elementAt(OpBuilder &b, Location loc, Value buffer, Value offset, int64_t plus) {
  if (plus)
    offset = spirv::IAddOp::create(b, loc, offset, constant(b, loc, offset.getType(), plus));
  SmallVector<Value, 2> indices;
  auto ptr = cast<spirv::PointerType>(buffer.getType());
  if (isa<spirv::StructType>(ptr.getPointeeType()))
    indices.push_back(constant(b, loc, b.getI32Type(), 0)); // the block's runtime array
  indices.push_back(offset);
  return spirv::AccessChainOp::create(b, loc, buffer, indices);
}

constexpr auto kRowMajor = spirv::CooperativeMatrixLayoutKHR::RowMajor;

/// A stride operand as the i32 the loads and stores take.
Value stride32(OpBuilder &b, Location loc, Value stride) {
  if (stride.getType() == b.getI32Type())
    return stride;
  return spirv::SConvertOp::create(b, loc, b.getI32Type(), stride);
}

spirv::CooperativeMatrixLayoutKHRAttr layoutAttr(MLIRContext *ctx, bool colMajor) {
  return spirv::CooperativeMatrixLayoutKHRAttr::get(
      ctx, colMajor ? spirv::CooperativeMatrixLayoutKHR::ColumnMajor : kRowMajor);
}

/// An f16 MatrixA load from `ptr`, `stride` elements between rows (colMajor:
/// columns).
Value loadBlock(OpBuilder &b, Location loc, Value ptr, Value stride, bool colMajor) {
  return spirv::KHRCooperativeMatrixLoadOp::create(
      b, loc, matrixType(b.getF16Type(), Use::MatrixA), ptr, layoutAttr(b.getContext(), colMajor),
      stride32(b, loc, stride), nullptr, nullptr);
}

/// Stores block `m` row-major at `offset` of `dest`, rows `ld` apart.
void storeBlock(OpBuilder &b, Location loc, Value dest, Value offset, int64_t ld, Value m) {
  spirv::KHRCooperativeMatrixStoreOp::create(b, loc, elementAt(b, loc, dest, offset, 0), m,
                                             constant(b, loc, b.getI32Type(), ld), kRowMajor);
}

/// Sums and blocks in flight are Function variables at the kernel's entry
/// (of the type the converter gives them).
template <typename Op>
struct HeldAllocToSPIRV : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto fn = op->template getParentOfType<spirv::FuncOp>();
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (!fn || !type)
      return failure();
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&fn.getBody().front());
    rw.replaceOp(op, spirv::VariableOp::create(rw, op.getLoc(), type,
                                               spirv::StorageClass::Function, Value()));
    return success();
  }
};

struct SumsFillToSPIRV : OpConversionPattern<CoopSumsFillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopSumsFillOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    CoopSumsType t = op.getSums().getType();
    if (t.getWorkgroup()) {
      Value m = spirv::CompositeConstructOp::create(rw, loc, workgroupSumType(t),
                                                    ValueRange{adaptor.getValue()});
      spirv::StoreOp::create(rw, loc, adaptor.getSums(), m);
      rw.eraseOp(op);
      return success();
    }
    Value m = spirv::CompositeConstructOp::create(rw, loc, sumType(rw.getContext()),
                                                  ValueRange{adaptor.getValue()});
    for (int64_t e = 0; e < op.getSums().getType().getCount(); ++e)
      spirv::StoreOp::create(rw, loc, sumAt(rw, loc, adaptor.getSums(), e), m);
    rw.eraseOp(op);
    return success();
  }
};

struct SumsCopyToSPIRV : OpConversionPattern<CoopSumsCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopSumsCopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    if (op.getSrc().getType().getWorkgroup()) {
      spirv::StoreOp::create(rw, loc, adaptor.getDest(),
                             spirv::LoadOp::create(rw, loc, adaptor.getSrc()));
      rw.eraseOp(op);
      return success();
    }
    for (int64_t e = 0; e < op.getSrc().getType().getCount(); ++e)
      spirv::StoreOp::create(rw, loc, sumAt(rw, loc, adaptor.getDest(), e),
                             spirv::LoadOp::create(rw, loc, sumAt(rw, loc, adaptor.getSrc(), e)));
    rw.eraseOp(op);
    return success();
  }
};

/// Matrix (i, j) of the sums <-> the block at offset + 16 (i stride + j)
/// (col_major: 16 (j stride + i)); `only`: one matrix at offset.
template <typename Op, bool Stores>
struct SumsMoveToSPIRV : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    CoopSumsType t = op.getSums().getType();
    Value stride = adaptor.getStride(), offset = adaptor.getOffset();
    Type indexTy = offset.getType();
    Value narrow = stride32(rw, loc, stride);
    auto layout = layoutAttr(rw.getContext(), op.getColMajor());
    if (t.getWorkgroup()) {
      Value ptr = elementAt(rw, loc, adaptor.getBuffer(), offset, 0);
      if (Stores)
        spirv::KHRCooperativeMatrixStoreOp::create(
            rw, loc, ptr, spirv::LoadOp::create(rw, loc, adaptor.getSums()), layout, narrow,
            nullptr, nullptr);
      else
        spirv::StoreOp::create(rw, loc, adaptor.getSums(),
                               spirv::KHRCooperativeMatrixLoadOp::create(
                                   rw, loc, workgroupSumType(t), ptr, layout, narrow, nullptr,
                                   nullptr));
      rw.eraseOp(op);
      return success();
    }
    Value strides16 = spirv::IMulOp::create(rw, loc, stride, constant(rw, loc, indexTy, 16));
    for (int64_t e = 0; e < t.getCount(); ++e) {
      if (op.getOnly() && *op.getOnly() != e)
        continue;
      int64_t majorBlock = e / t.getCols(), minorBlock = e % t.getCols();
      if (op.getColMajor())
        std::swap(majorBlock, minorBlock);
      Value at = offset;
      if (!op.getOnly()) {
        Value majors = spirv::IMulOp::create(rw, loc, strides16,
                                             constant(rw, loc, indexTy, majorBlock));
        at = spirv::IAddOp::create(rw, loc, offset, majors);
      }
      Value ptr = elementAt(rw, loc, adaptor.getBuffer(), at, op.getOnly() ? 0 : 16 * minorBlock);
      Value sum = sumAt(rw, loc, adaptor.getSums(), e);
      if (Stores)
        spirv::KHRCooperativeMatrixStoreOp::create(rw, loc, ptr, spirv::LoadOp::create(rw, loc, sum),
                                                   layout, narrow, nullptr, nullptr);
      else
        spirv::StoreOp::create(rw, loc, sum,
                               spirv::KHRCooperativeMatrixLoadOp::create(
                                   rw, loc, sumType(rw.getContext()), ptr, layout, narrow,
                                   nullptr, nullptr));
    }
    rw.eraseOp(op);
    return success();
  }
};

/// One MatrixA load from the source and one store into the destination.
struct BlockCopyToSPIRV : OpConversionPattern<CoopBlockCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopBlockCopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value m = loadBlock(rw, loc, elementAt(rw, loc, adaptor.getSrc(), adaptor.getSrcOffset(), 0),
                        adaptor.getSrcStride(), op.getColMajor());
    storeBlock(rw, loc, adaptor.getDest(), adaptor.getDestOffset(), op.getLd(), m);
    rw.eraseOp(op);
    return success();
  }
};

/// Blocks in flight are a Function array of f16 MatrixA matrices.
spirv::PointerType blocksPointerType(CoopBlocksType t) {
  return spirv::PointerType::get(
      spirv::ArrayType::get(matrixType(Float16Type::get(t.getContext()), Use::MatrixA),
                            t.getCount()),
      spirv::StorageClass::Function);
}

struct BlocksLoadToSPIRV : OpConversionPattern<CoopBlocksLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopBlocksLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value m = loadBlock(rw, loc, elementAt(rw, loc, adaptor.getSrc(), adaptor.getOffset(), 0),
                        adaptor.getStride(), op.getColMajor());
    spirv::StoreOp::create(rw, loc, sumAt(rw, loc, adaptor.getBlocks(), op.getIndex()), m);
    rw.eraseOp(op);
    return success();
  }
};

struct BlocksStoreToSPIRV : OpConversionPattern<CoopBlocksStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopBlocksStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value m = spirv::LoadOp::create(rw, loc, sumAt(rw, loc, adaptor.getBlocks(), op.getIndex()));
    storeBlock(rw, loc, adaptor.getDest(), adaptor.getOffset(), op.getLd(), m);
    rw.eraseOp(op);
    return success();
  }
};

/// The sums are read once, carried through the K/16 steps as values (each
/// step loading its A and B blocks once for all the sums) and written once.
struct SumsMacToSPIRV : OpConversionPattern<CoopSumsMacOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopSumsMacOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    CoopSumsType t = op.getSums().getType();
    int64_t rows = t.getRows(), cols = t.getCols(), lda = op.getLda(), ldb = op.getLdb();
    Type f16 = rw.getF16Type();
    spirv::ConstantOp strideA = constant(rw, loc, rw.getI32Type(), lda),
                      strideB = constant(rw, loc, rw.getI32Type(), ldb);
    if (t.getWorkgroup()) {
      // One multiply-add of the whole tile: A (16 rows x K), B (K x 16 cols).
      auto scope = spirv::Scope::Workgroup;
      Value sa = adaptor.getAStride() ? stride32(rw, loc, adaptor.getAStride()) : strideA,
            sb = adaptor.getBStride() ? stride32(rw, loc, adaptor.getBStride()) : strideB;
      Value a = spirv::KHRCooperativeMatrixLoadOp::create(
          rw, loc, spirv::CooperativeMatrixType::get(f16, 16 * rows, op.getK(), scope, Use::MatrixA),
          elementAt(rw, loc, adaptor.getA(), adaptor.getAOffset(), 0),
          layoutAttr(rw.getContext(), false), sa, nullptr, nullptr);
      Value bm = spirv::KHRCooperativeMatrixLoadOp::create(
          rw, loc, spirv::CooperativeMatrixType::get(f16, op.getK(), 16 * cols, scope, Use::MatrixB),
          elementAt(rw, loc, adaptor.getB(), adaptor.getBOffset(), 0),
          layoutAttr(rw.getContext(), false), sb, nullptr, nullptr);
      Value c = spirv::LoadOp::create(rw, loc, adaptor.getSums());
      spirv::StoreOp::create(rw, loc, adaptor.getSums(),
                             spirv::KHRCooperativeMatrixMulAddOp::create(rw, loc, a, bm, c));
      rw.eraseOp(op);
      return success();
    }
    SmallVector<Value> sums;
    for (int64_t e = 0; e < t.getCount(); ++e)
      sums.push_back(spirv::LoadOp::create(rw, loc, sumAt(rw, loc, adaptor.getSums(), e)));
    for (int64_t k = 0; k < op.getK(); k += 16) {
      SmallVector<Value> as, bs;
      for (int64_t i = 0; i < rows; ++i)
        as.push_back(spirv::KHRCooperativeMatrixLoadOp::create(
            rw, loc, matrixType(f16, Use::MatrixA),
            elementAt(rw, loc, adaptor.getA(), adaptor.getAOffset(), 16 * i * lda + k), strideA,
            kRowMajor));
      for (int64_t j = 0; j < cols; ++j)
        bs.push_back(spirv::KHRCooperativeMatrixLoadOp::create(
            rw, loc, matrixType(f16, Use::MatrixB),
            elementAt(rw, loc, adaptor.getB(), adaptor.getBOffset(), k * ldb + 16 * j), strideB,
            kRowMajor));
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          Value &s = sums[i * cols + j];
          s = spirv::KHRCooperativeMatrixMulAddOp::create(rw, loc, as[i], bs[j], s);
        }
    }
    for (int64_t e = 0; e < t.getCount(); ++e)
      spirv::StoreOp::create(rw, loc, sumAt(rw, loc, adaptor.getSums(), e), sums[e]);
    rw.eraseOp(op);
    return success();
  }
};

/// How many elements of the sums this invocation holds
/// (OpCooperativeMatrixLengthKHR), as the converted index type.
struct SumsLengthToSPIRV : OpConversionPattern<CoopSumsLengthOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopSumsLengthOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    CoopSumsType t = op.getSums().getType();
    Type index = getTypeConverter()->convertType(op.getType());
    if (!t.getWorkgroup() || !index)
      return failure();
    Value n = spirv::KHRCooperativeMatrixLengthOp::create(rw, op.getLoc(), workgroupSumType(t));
    if (index != n.getType())
      n = spirv::UConvertOp::create(rw, op.getLoc(), index, n);
    rw.replaceOp(op, n);
    return success();
  }
};

/// Element `index` of the sums this invocation holds: an access chain into
/// the Function matrix (SPV_KHR_cooperative_matrix lets one index a matrix).
struct SumsElementToSPIRV : OpConversionPattern<CoopSumsElementOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CoopSumsElementOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    if (!op.getSums().getType().getWorkgroup())
      return failure();
    Location loc = op.getLoc();
    Value index = adaptor.getIndex(); // an i32, whatever width index has here
    if (index.getType() != rw.getI32Type())
      index = spirv::UConvertOp::create(rw, loc, rw.getI32Type(), index);
    Value ptr = spirv::AccessChainOp::create(rw, loc, adaptor.getSums(), ValueRange{index});
    rw.replaceOp(op, spirv::LoadOp::create(rw, loc, ptr));
    return success();
  }
};

} // namespace

void populateCoopMatrixToSPIRVPatterns(SPIRVTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  converter.addConversion([](CoopSumsType t) -> Type { return sumsPointerType(t); });
  converter.addConversion([](CoopBlocksType t) -> Type { return blocksPointerType(t); });
  patterns.add<HeldAllocToSPIRV<CoopSumsAllocOp>, HeldAllocToSPIRV<CoopBlocksAllocOp>, SumsFillToSPIRV, SumsCopyToSPIRV,
               SumsMoveToSPIRV<CoopSumsLoadOp, false>, SumsMoveToSPIRV<CoopSumsStoreOp, true>,
               SumsMacToSPIRV, SumsLengthToSPIRV, SumsElementToSPIRV, BlockCopyToSPIRV,
               BlocksLoadToSPIRV, BlocksStoreToSPIRV>(converter, patterns.getContext());
}

} // namespace xpu
