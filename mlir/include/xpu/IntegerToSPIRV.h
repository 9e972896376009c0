// Integer lowerings to SPIR-V that MLIR 22 lacks or gets wrong (see
// mlir/lib/Conversion/IntegerToSPIRV.cpp).
#pragma once

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace xpu {

/// Conversion patterns, preferred over MLIR's own: arith.remsi, math.absi,
/// math.ctpop/ctlz/cttz of every width, integer vector.reduction of every
/// kind (i1 included).
void populateIntegerToSPIRVPatterns(const mlir::TypeConverter &tc,
                                    mlir::RewritePatternSet &patterns);

/// Before conversion: i1 arithmetic SPIR-V has no instruction for (add, mul,
/// signed compares, division, shifts, min/max, bit counts...) is done in
/// 32 bits and truncated, or as logic.
void widenBoolArithmetic(mlir::Operation *root);

} // namespace xpu
