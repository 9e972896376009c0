// The internal unit-test binary's main and shared helpers.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "unit.h"

#include "mlir/Parser/Parser.h"

namespace unit {

Compiler::Compiler() {
  mlir::DialectRegistry registry;
  xpu::registerDialects(registry);
  ctx = std::make_unique<mlir::MLIRContext>(registry,
                                            mlir::MLIRContext::Threading::DISABLED);
  collector = std::make_unique<xpu::DiagnosticCollector>(*ctx, diags);
}

Compiler::~Compiler() { collector.reset(); }

mlir::OwningOpRef<mlir::ModuleOp> Compiler::parse(const std::string &text) {
  return xpu::parseKernelSource(*ctx, text, "test.mlir");
}

mlir::OwningOpRef<mlir::ModuleOp> Compiler::parseLowered(const std::string &text) {
  return mlir::parseSourceString<mlir::ModuleOp>(text, ctx.get());
}

} // namespace unit
