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

class KernelOp;

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

/// A module with cooperative-matrix instructions is switched to the Vulkan
/// memory model, which Vulkan requires with them: its shared and global
/// accesses become NonPrivatePointer, releases make writes available and
/// acquires make them visible (VulkanMemoryModel.cpp). Returns whether it
/// was; the caller declares VulkanMemoryModel and
/// VulkanMemoryModelDeviceScope.
bool useVulkanMemoryModelForCoopMatrices(mlir::spirv::ModuleOp module);

/// Marks the integer arguments of `kernel` the strides of its tile loads
/// and stores are computed from with abi::kSpecializeAttr, so that the
/// SPIR-V lowering reads them from specialization constants
/// (SpecializeStrides.cpp; xpu-lower-tiles does it for the workgroup-scope
/// cooperative-matrix tier).
void markSpecializedStrides(KernelOp kernel);

/// The attribute xpu-lower-tiles marks the scf.if choosing between a K
/// loop's two versions with (the scan's result its condition), and that
/// of a mac outside loops choosing between its direct and copying paths.
constexpr const char *kCopyVersionsAttr = "xpu.copy_versions";

/// A kernel whose one such choice lies in its body, after nothing that
/// writes outside the workgroup, computed from its arguments alone,
/// becomes itself with the direct version and a companion kernel (named
/// with abi::kCopyingCompanionSuffix) with the copying one
/// (SplitCopyingVersions.cpp), where `split`; other kernels keep both
/// versions. Clears the marks either way.
void splitCopyingVersions(KernelOp kernel, bool split = true);

} // namespace xpu
