// Lowerings of the interop ops (XPUInteropOps.td), hooked into the target
// conversions by one call each.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
class LLVMTypeConverter;
class SPIRVTypeConverter;
} // namespace mlir

namespace xpu {

/// xpu.dynamic_shared for xpu-to-llvm: on a GPU (`cpu` false) an external
/// zero-length workgroup array whose size the launch gives; on the CPU the
/// base pointer xpu-lower-execution-model set.
void populateInteropToLLVMPatterns(mlir::LLVMTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns, bool cpu);

/// The address of that external array on CUDA and AMD (declared in
/// `module` on first use), at the builder's insertion point.
mlir::Value dynamicSharedAddress(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::ModuleOp module);

/// For xpu-to-spirv (before `module`'s kernels are converted): dynamic
/// shared memory as the largest Workgroup array the target environment
/// leaves after each kernel's static shared memory, and wave ids from the
/// SubgroupId and NumSubgroups builtins.
void populateInteropToSPIRVPatterns(mlir::ModuleOp module,
                                    mlir::SPIRVTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);

} // namespace xpu
