// Inputs that crash MLIR's own text parser, refused before it runs.
#pragma once

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LLVM.h"

namespace xpu {

/// Scans `text` for constructs that MLIR 22's parser crashes on instead of
/// diagnosing, and reports each as a located error (through `ctx`'s
/// diagnostic handlers, file `sourceName`). Fails when it found one.
mlir::LogicalResult refuseParserCrashers(mlir::MLIRContext &ctx,
                                         llvm::StringRef text,
                                         llvm::StringRef sourceName);

} // namespace xpu
