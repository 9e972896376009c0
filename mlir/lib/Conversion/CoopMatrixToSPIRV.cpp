// xpu.coop_matrix_mac as SPV_KHR_cooperative_matrix instructions (issue 15;
// the cooperative-matrix tile tier on Vulkan); see TileLowering.h.
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/TileLowering.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"

using namespace mlir;

namespace xpu {

namespace {

/// One 16 x 16 block: the accumulator is loaded once, K/16 multiply-adds
/// keep the sums in a cooperative matrix, the result is stored once. Every
/// buffer is row-major with the op's strides; the loads and stores name
/// element pointers into the buffers' arrays (Workgroup or StorageBuffer),
/// as SPV_KHR_cooperative_matrix asks under the Shader capability.
struct CoopMatrixMacToSPIRV : OpConversionPattern<CoopMatrixMacOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CoopMatrixMacOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Type i32 = rw.getI32Type();
    Type indexTy = adaptor.getAccOffset().getType();
    auto matrix = [&](Type elem, spirv::CooperativeMatrixUseKHR use) {
      return spirv::CooperativeMatrixType::get(elem, 16, 16, spirv::Scope::Subgroup, use);
    };
    auto aType = matrix(rw.getF16Type(), spirv::CooperativeMatrixUseKHR::MatrixA);
    auto bType = matrix(rw.getF16Type(), spirv::CooperativeMatrixUseKHR::MatrixB);
    auto cType = matrix(rw.getF32Type(), spirv::CooperativeMatrixUseKHR::MatrixAcc);
    auto constant = [&](Type t, int64_t v) {
      return spirv::ConstantOp::create(rw, loc, t, rw.getIntegerAttr(t, v));
    };
    auto at = [&](Value buffer, Value offset, int64_t plus) -> Value {
      if (plus)
        offset = spirv::IAddOp::create(rw, loc, offset, constant(indexTy, plus));
      SmallVector<Value, 2> indices;
      auto ptr = cast<spirv::PointerType>(buffer.getType());
      if (isa<spirv::StructType>(ptr.getPointeeType()))
        indices.push_back(constant(i32, 0)); // the storage buffer's runtime array
      indices.push_back(offset);
      return spirv::AccessChainOp::create(rw, loc, buffer, indices);
    };
    auto rowMajor = spirv::CooperativeMatrixLayoutKHR::RowMajor;
    spirv::ConstantOp lda = constant(i32, op.getLda()), ldb = constant(i32, op.getLdb()),
                      ldc = constant(i32, op.getLdc());
    Value acc = spirv::KHRCooperativeMatrixLoadOp::create(
        rw, loc, cType, at(adaptor.getAcc(), adaptor.getAccOffset(), 0), ldc, rowMajor);
    for (int64_t k = 0; k < op.getK(); k += 16) {
      Value a = spirv::KHRCooperativeMatrixLoadOp::create(
          rw, loc, aType, at(adaptor.getA(), adaptor.getAOffset(), k), lda, rowMajor);
      Value b = spirv::KHRCooperativeMatrixLoadOp::create(
          rw, loc, bType, at(adaptor.getB(), adaptor.getBOffset(), k * op.getLdb()), ldb,
          rowMajor);
      acc = spirv::KHRCooperativeMatrixMulAddOp::create(rw, loc, a, b, acc);
    }
    spirv::KHRCooperativeMatrixStoreOp::create(
        rw, loc, at(adaptor.getDest(), adaptor.getAccOffset(), 0), acc, ldc, rowMajor);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void populateCoopMatrixToSPIRVPatterns(SPIRVTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<CoopMatrixMacToSPIRV>(converter, patterns.getContext());
}

} // namespace xpu
