// Declarations and registration of the xpu compiler passes.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Pass/Pass.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

/// SPIR-V: the specialization constants holding the workgroup size (spec ids
/// abi::kVulkanWorkgroupSizeSpecId + 0, 1, 2) and the composite of them that
/// serialization decorates BuiltIn WorkgroupSize.
inline constexpr llvm::StringLiteral kWorkgroupSizeSpecs[3] = {
    "__xpu_workgroup_size_x", "__xpu_workgroup_size_y", "__xpu_workgroup_size_z"};
inline constexpr llvm::StringLiteral kWorkgroupSizeSymbol = "__xpu_workgroup_size";

#define GEN_PASS_DECL
#include "xpu/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "xpu/Transforms/Passes.h.inc"

} // namespace xpu
