// The path of a kernel; see compiler.h.
#include "runtime/compiler.h"
#include "capability/gate.h"
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

namespace {
/// One compilation's MLIR context, diagnostics and dump scope.
struct Session {
  mlir::MLIRContext ctx{dialects(), mlir::MLIRContext::Threading::DISABLED};
  DiagnosticCollector collector;
  DumpScope dump;
  Session(const CompileRequest &request, DiagnosticList &diags)
      : collector(ctx, diags), dump(dumpId(request.text)) {}
  static std::string dumpId(std::string_view text) {
    std::ostringstream id;
    id << std::hex << std::hash<std::string_view>()(text);
    return id.str();
  }
};
} // namespace

/// Parse, verify, admit and describe: everything before code generation.
static Status frontEnd(Session &s, const CompileRequest &request,
                       DiagnosticList &diags,
                       mlir::OwningOpRef<mlir::ModuleOp> &module,
                       std::vector<abi::KernelInfo> &kernels) {
  dumpStage("input.mlir", std::string(request.text));
  s.collector.setDefaultCode("XPU-PARSE");
  module = parseKernelSource(s.ctx, request.text, request.sourceName);
  if (!module)
    return stageFailure(XPU_ERROR_PARSE, diags, "the kernel source did not parse");

  // Admission against each kernel's profile.
  s.collector.setDefaultCode("XPU-ADMIT");
  {
    mlir::PassManager pm(&s.ctx, mlir::ModuleOp::getOperationName());
    AdmitOptions options;
    options.explicitDevice = request.explicitDevice;
    options.runtimeChecks = request.runtimeChecks;
    pm.addPass(createAdmit(options));
    if (mlir::failed(pm.run(*module)))
      return stageFailure(XPU_ERROR_REFUSED, diags, "a kernel was refused");
  }

  // Target-independent preparation: reductions become shared memory and
  // barriers, the same for every backend.
  s.collector.setDefaultCode("XPU-COMPILE");
  mlir::PassManager pm(&s.ctx, mlir::ModuleOp::getOperationName());
  pm.addPass(createExpandReductions());
  if (mlir::failed(pm.run(*module)))
    return stageFailure(XPU_ERROR_COMPILE, diags, "reduction expansion failed");
  assignCheckSites(*module);
  kernels = describeKernels(*module);
  dumpStage("admitted.mlir", *module);
  return {};
}

Status checkModule(const CompileRequest &request, DiagnosticList &diags) {
  std::optional<cap::TargetKind> target;
  if (!request.target.empty() && !(target = cap::parseTargetKind(request.target)))
    return invalidArgument("unknown target '" + request.target +
                           "' (accepted: cpu, nvptx, amdgcn, spirv)");
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<abi::KernelInfo> kernels;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels));
  if (!target)
    return {};
  return cap::staticGate(*target, analyzeRequirements(*module), diags,
                         /*remarks=*/true);
}

Status compileModule(Device &device, const CompileRequest &request,
                     CompiledModule &out, DiagnosticList &diags) {
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, out.kernels));

  // Capability gates: what the target language cannot express, then what
  // this device, its toolchain and our policies do not provide.
  if (!request.skipGates) {
    std::vector<KernelRequirements> needs = analyzeRequirements(*module);
    XPU_RETURN_IF_ERROR(cap::staticGate(device.target().kind, needs, diags));
    XPU_RETURN_IF_ERROR(
        cap::deviceGate(device.capabilities(), device.label(), needs, diags));
  }

  Status st = device.compile(*module, out.kernels, out.blob);
  if (!st.isOk() && s.collector.hadError())
    return stageFailure(st.code(), diags, st.message().c_str());
  return st;
}

} // namespace xpu::rt
