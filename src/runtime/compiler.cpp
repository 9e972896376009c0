// The path of a kernel; see compiler.h.
#include "runtime/compiler.h"
#include "runtime/dump.h"
#include "xpu/Pipeline.h"

#include "xpu/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <sstream>

namespace xpu::rt {

static const mlir::DialectRegistry &dialects() {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    registerDialects(*r);
    return r;
  }();
  return *registry;
}

std::string formatDiagnostic(const Diagnostic &d) {
  static const char *severities[] = {"error", "warning", "note", "remark"};
  std::ostringstream os;
  if (!d.file.empty()) {
    os << d.file;
    if (d.line)
      os << ":" << d.line << ":" << d.column;
    os << ": ";
  }
  os << severities[int(d.severity)] << ": ";
  if (!d.code.empty())
    os << d.code << ": ";
  os << d.message;
  return os.str();
}

/// The status for a failed stage: its code and the first error diagnostic.
static Status stageFailure(xpu_status code, const DiagnosticList &diags,
                           const char *fallback) {
  for (const Diagnostic &d : diags)
    if (d.severity == Diagnostic::Severity::error)
      return {code, formatDiagnostic(d)};
  return {code, fallback};
}

Status compileModule(Device &device, const CompileRequest &request,
                     CompiledModule &out, DiagnosticList &diags) {
  mlir::MLIRContext ctx(dialects(), mlir::MLIRContext::Threading::DISABLED);
  DiagnosticCollector collector(ctx, diags);
  std::ostringstream id;
  id << std::hex << std::hash<std::string_view>()(request.text);
  DumpScope dumpScope(id.str());
  dumpStage("input.mlir", std::string(request.text));

  // Parse and verify.
  collector.setDefaultCode("XPU-PARSE");
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseKernelSource(ctx, request.text, request.sourceName);
  if (!module)
    return stageFailure(XPU_ERROR_PARSE, diags, "the kernel source did not parse");

  // Target-independent preparation: reductions become shared memory and
  // barriers, the same for every backend.
  collector.setDefaultCode("XPU-COMPILE");
  {
    mlir::PassManager pm(&ctx, mlir::ModuleOp::getOperationName());
    pm.addPass(createExpandReductions());
    if (mlir::failed(pm.run(*module)))
      return stageFailure(XPU_ERROR_COMPILE, diags, "reduction expansion failed");
  }
  assignCheckSites(*module);
  out.kernels = describeKernels(*module);
  dumpStage("admitted.mlir", *module);

  // Lower and generate code for the device.
  Status st = device.compile(*module, out.kernels, out.blob);
  if (!st.isOk() && collector.hadError())
    return stageFailure(st.code(), diags, st.message().c_str());
  return st;
}

} // namespace xpu::rt
