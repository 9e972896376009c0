// Helpers for the internal unit tests, which link the library's internals.
#pragma once

#include "xpu/Pipeline.h"

#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>

namespace unit {

/// An MLIR context with xpujit's dialects, collecting diagnostics.
struct Compiler {
  Compiler();
  ~Compiler();
  /// Parses (and imports/verifies) `text`; null on error, see `diags`.
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &text);
  /// Parses and verifies `text` as IR the lowering holds, whose ops kernel
  /// source may not use (xpu::LoweringOnly); null on error.
  mlir::OwningOpRef<mlir::ModuleOp> parseLowered(const std::string &text);

  std::unique_ptr<mlir::MLIRContext> ctx;
  xpu::DiagnosticList diags;
  std::unique_ptr<xpu::DiagnosticCollector> collector;
};

} // namespace unit
