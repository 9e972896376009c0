// The xpu dialect: C++ declarations generated from the .td files.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "xpu/Dialect/XPU/IR/XPUTraits.h"

#include "xpu/Dialect/XPU/IR/XPUEnums.h.inc"
#include "xpu/Dialect/XPU/IR/XPUDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "xpu/Dialect/XPU/IR/XPUTypes.h.inc"
#define GET_OP_CLASSES
#include "xpu/Dialect/XPU/IR/XPUOps.h.inc"

namespace xpu {

/// Profile names accepted in a kernel's `profile` attribute.
inline constexpr llvm::StringLiteral kProfilePortable = "portable";
inline constexpr llvm::StringLiteral kProfileDeterministic = "deterministic-v1";

/// Argument attribute marking the status-word parameter that
/// xpu-prepare-lowering adds.
inline constexpr llvm::StringLiteral kStatusArgAttr = "xpu.status";

/// Largest workgroup extent any backend accepts per axis; coordinate range
/// inference falls back to it when a kernel fixes no launch shape.
inline constexpr int64_t kMaxWorkgroupExtent = 1024;

/// On an scf.for that the workgroup's invocations share (from the linear
/// invocation index, step the workgroup's size) to store the same value to
/// every element of a shared buffer: xpu-zero-scratch's fills.
inline constexpr llvm::StringLiteral kCooperativeFillAttr = "xpu.cooperative_fill";

/// Alignment of each shared allocation in a workgroup's shared block.
inline constexpr uint64_t kSharedAlign = 16;

/// Bytes of workgroup-shared memory a kernel allocates, each allocation
/// aligned to kSharedAlign, in walk order; with the scratch that
/// xpu-expand-reductions gives each reduction on the GPU backends.
uint64_t sharedScratchBytes(KernelOp kernel);

/// The shared scratch xpu-expand-reductions allocates for `op`: one slot per
/// invocation of the largest workgroup the kernel allows, and the result.
BufferType reductionScratchType(ReduceOp op);

/// Kernels and device functions that reach a workgroup barrier: an op that
/// needs workgroup-uniform control (xpu.barrier, xpu.reduce), directly or
/// through calls.
llvm::DenseSet<mlir::Operation *> functionsWithBarriers(mlir::ModuleOp module);

} // namespace xpu
