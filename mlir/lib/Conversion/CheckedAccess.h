// What the lowerings of checked accesses share (PrepareLowering.cpp for
// every target, CPUChecks.cpp and CPUWorkItemLoops.cpp for the CPU's
// work-item loops).
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace xpu {

/// The buffer, index and element count (1, or a vector's lanes) of an
/// xpu.load, xpu.store or xpu.atomic_rmw.
struct AccessParts {
  mlir::Value buffer, index;
  int64_t width = 1;
};
AccessParts accessParts(mlir::Operation *op);

/// i1: elements [index, index + width) lie in a buffer of `size` elements.
/// Read unsigned, a negative index is a huge one. index + width - 1 could
/// wrap past zero (index = -3..-1 for width 4), so a vector access tests
/// index < size and then size - index >= width, which cannot wrap once
/// index < size.
mlir::Value inBounds(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index,
                     mlir::Value size, int64_t width);

/// The predicate that holds for (rhs, lhs) when `p` holds for (lhs, rhs).
mlir::arith::CmpIPredicate swapSides(mlir::arith::CmpIPredicate p);

} // namespace xpu
