// What the wave-operation lowerings share (LowerWaveOps.cpp for the GPUs
// and SPIR-V, WaveOpsCPU.cpp for the CPU's one-lane waves).
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace xpu {

/// xpu.wave_shuffle, _broadcast, _ballot, _vote, _reduce, _scan.
bool isWaveOp(mlir::Operation *op);

/// The lane a shuffle in `mode` reads, from the lane's own id and the
/// offset (i32, unsigned arithmetic): lane ^ k, lane - k, lane + k, or k.
mlir::Value sourceLane(mlir::OpBuilder &b, mlir::Location loc, WaveShuffleMode mode,
                       mlir::Value lane, mlir::Value offset);

/// Applies `f` to `value` as 32-bit words (one, or the low and high halves
/// of a 64-bit value) and reassembles the results into `value`'s type.
mlir::Value mapWords(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                     llvm::function_ref<mlir::Value(mlir::Value)> f);

/// Replaces every wave op in `module` by its result in a wave of one lane
/// (the CPU backend runs one invocation per wave).
void lowerWaveOpsForOneLane(mlir::ModuleOp module);

} // namespace xpu
