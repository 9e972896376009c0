// Target patterns for the ops xpu-lower-tiles leaves behind (issue 15):
// each target lowering adds them with one call.
#pragma once

#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
class LLVMTypeConverter;
class SPIRVTypeConverter;
namespace spirv {
class ModuleOp;
} // namespace spirv
} // namespace mlir

namespace xpu {

/// xpu.dot4_i8 on the LLVM targets: dp4a on "nvvm", v_dot4_i32_i8 on
/// "rocdl", widened multiplies and adds on "cpu".
void populateTileToLLVMPatterns(mlir::LLVMTypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                llvm::StringRef target);

/// xpu.dot4_i8 as OpSDot (DotProductInput4x8Bit) plus OpIAdd, and the
/// cooperative-matrix sums ops (populateCoopMatrixToSPIRVPatterns).
void populateTileToSPIRVPatterns(mlir::SPIRVTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

/// The xpu.coop_sums_* ops as OpCooperativeMatrixLoadKHR, MulAddKHR and
/// StoreKHR on sums held in a Function array of accumulator matrices, or
/// in one Function matrix of workgroup scope (CoopMatrixToSPIRV.cpp); adds
/// the sums type to `converter`.
void populateCoopMatrixToSPIRVPatterns(mlir::SPIRVTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

/// The stubs that stand for VK_NV_cooperative_matrix2 tensor-layout stores
/// in the SPIR-V dialect, which has no such instructions in MLIR 22: a call
/// of `<kTensorStoreStub>_{rm|cm}_<rows>x<cols>(matrix, pointer, dim0,
/// dim1, stride, start0, span0, start1, span1)` stores `matrix` through a
/// layout of dim0 x dim1 elements from `pointer`, `stride` elements from
/// one index of dimension 0 to the next, sliced at start0 (span0) and
/// start1 (span1); dimension 0 runs over the matrix's rows (rm) or columns
/// (cm, through a transposing view). Elements outside the dimensions are
/// not written.
inline constexpr llvm::StringLiteral kTensorStoreStub = "__xpu_tensor_store";

/// Replaces, in a serialized module, the calls of the tensor-store stubs by
/// the instructions they stand for, drops the stubs and declares what the
/// instructions need (TensorStoreWords.cpp). A module without them is left
/// as it is.
void rewriteTensorStoreStubs(llvm::SmallVectorImpl<uint32_t> &words);

/// A module with cooperative-matrix instructions is switched to the Vulkan
/// memory model, which Vulkan requires with them: its shared and global
/// accesses become NonPrivatePointer, releases make writes available and
/// acquires make them visible (VulkanMemoryModel.cpp). Returns whether it
/// was; the caller declares VulkanMemoryModel and
/// VulkanMemoryModelDeviceScope.
bool useVulkanMemoryModelForCoopMatrices(mlir::spirv::ModuleOp module);

} // namespace xpu
