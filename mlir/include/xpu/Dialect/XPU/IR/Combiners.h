// The combiners of reductions and scans (xpu.reduce, xpu.wave_reduce,
// xpu.wave_scan): which types each applies to, the arith op that applies it,
// and its identity.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/IR/Builders.h"

namespace xpu {

/// Fails (reporting on `op`) unless `kind` applies to `type`: add and mul to
/// integers and floats, fmin and fmax to floats, the rest to integers.
mlir::LogicalResult verifyCombiner(mlir::Operation *op, ReduceKind kind,
                                   mlir::Type type);

/// `kind` applied to `lhs` and `rhs` (one arith op).
mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc, ReduceKind kind,
                    mlir::Value lhs, mlir::Value rhs);

/// The value that `kind` leaves any operand unchanged with: 0 for add, or,
/// xor and umax (+0.0 for floats), 1 for mul, all ones for and and umin,
/// the largest / smallest integer for smin / smax, +inf / -inf for fmin /
/// fmax.
mlir::TypedAttr combinerIdentity(mlir::Builder &b, ReduceKind kind,
                                 mlir::Type type);

} // namespace xpu
