// Declarations and registration of the xpu compiler passes.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

#define GEN_PASS_DECL
#include "xpu/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "xpu/Transforms/Passes.h.inc"

} // namespace xpu
