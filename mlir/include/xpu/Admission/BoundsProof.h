// Proves buffer accesses in bounds, for admission: an access is proven when
// integer range analysis bounds its index inside the buffer (using the
// launch shape the kernel fixes, if any), or when a guard that dominates it
// compares the index against the buffer's size.
#pragma once

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace xpu {

class BoundsProver {
public:
  /// Analyzes `fn` (a kernel or device function) once.
  explicit BoundsProver(mlir::FunctionOpInterface fn);

  /// True when every element `access` touches lies inside its buffer:
  /// 0 <= index and index + width - 1 < length.
  bool provesInBounds(mlir::Operation *access);

private:
  struct Range {
    llvm::APInt lo, hi; ///< signed bounds
  };
  std::optional<Range> range(mlir::Value v);
  /// A fact `lhs < rhs` (or `lhs <= rhs` when not strict) that holds where
  /// an op executes. Signed facts say nothing about buffer indices unless
  /// lhs is also known to be non-negative.
  struct Fact {
    mlir::Value lhs, rhs;
    bool signedCmp = false, strict = true;
  };
  void collectFacts(mlir::Operation *op, llvm::SmallVectorImpl<Fact> &facts);
  void addCondition(mlir::Value cond, bool holds,
                    llvm::SmallVectorImpl<Fact> &facts);
  /// True if `bound` is at most the length of `buffer`.
  bool atMostLength(mlir::Value bound, mlir::Value buffer);

  mlir::DataFlowSolver solver;
  mlir::DominanceInfo dominance;
  mlir::FunctionOpInterface fn;
};

} // namespace xpu
