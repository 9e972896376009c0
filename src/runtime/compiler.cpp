// The path of a kernel; see compiler.h.
#include "runtime/compiler.h"
#include "capability/gate.h"
#include "runtime/dump.h"
#include "runtime/env.h"
#include "runtime/kernel_cache.h"
#include "runtime/targets.h"
#include "xpu/Pipeline.h"

#include "xpu/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
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
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double frontEndMs = 0; ///< set when the front end finishes
  Session(const CompileRequest &request, DiagnosticList &diags)
      : collector(ctx, diags), dump(dumpId(request.text)) {}
  double msSinceStart() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                     start)
        .count();
  }
  double msSinceFrontEnd() const { return msSinceStart() - frontEndMs; }
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
  s.frontEndMs = s.msSinceStart();
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

Status formatModule(const CompileRequest &request, std::string &out,
                    DiagnosticList &diags) {
  Session s(request, diags);
  s.collector.setDefaultCode("XPU-PARSE");
  auto module = parseKernelSource(s.ctx, request.text, request.sourceName);
  if (!module)
    return stageFailure(XPU_ERROR_PARSE, diags, "the kernel source did not parse");
  out = printKernelSource(*module);
  return {};
}

Status compileForTarget(const CompileRequest &request, const TargetDesc &target,
                        Blob &out, std::vector<abi::KernelInfo> &kernels,
                        DiagnosticList &diags) {
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels));
  XPU_RETURN_IF_ERROR(cap::offlineGate(target, analyzeRequirements(*module), diags));
  Status st = generateCode(*module, target, kernels, out);
  if (!st.isOk() && s.collector.hadError())
    return stageFailure(st.code(), diags, st.message().c_str());
  return st;
}

/// The admitted module as cache keys see it: generic form, without
/// locations or parameter names. Neither changes the generated code; both
/// reach the runtime through the current source's KernelInfo instead.
static std::string canonicalIR(mlir::ModuleOp module) {
  mlir::OwningOpRef<mlir::ModuleOp> copy(module.clone());
  copy->walk([](mlir::FunctionOpInterface fn) {
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.removeArgAttr(i, "xpu.name");
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, mlir::OpPrintingFlags().printGenericOpForm().enableDebugInfo(false));
  return text;
}

const cache::Key &DeviceCache::environment(const Device &device) {
  std::call_once(once_, [&] {
    environment_ = cache::environmentDigest(keyEnvironment(device));
  });
  return environment_;
}

/// Loads a compiled payload for the kernels the front end described.
static Status loadProgram(Device &device, const cache::KernelPayload &payload,
                          const std::vector<abi::KernelInfo> &kernels,
                          DiagnosticList diagnostics,
                          std::shared_ptr<const Program> &out) {
  auto program = std::make_shared<Program>();
  program->blob = {payload.code, payload.format, payload.toolchain,
                   payload.log.empty() ? "loaded from the kernel cache" : payload.log,
                   payload.footprints};
  for (const abi::KernelInfo &k : kernels)
    program->kernels.push_back(std::make_shared<const abi::KernelInfo>(k));
  program->diagnostics = std::move(diagnostics);
  XPU_RETURN_IF_ERROR(device.load(program->blob, kernels, program->code));
  out = std::move(program);
  return {};
}

/// The capability gates, then code generation for the device.
static Status compile(Device &device, Session &s, const CompileRequest &request,
                      mlir::ModuleOp module, const std::vector<abi::KernelInfo> &kernels,
                      DiagnosticList &diags, cache::KernelPayload &out) {
  // What the target language cannot express, then what this device, its
  // toolchain and our policies do not provide.
  if (!request.skipGates) {
    std::vector<KernelRequirements> needs = analyzeRequirements(module);
    XPU_RETURN_IF_ERROR(cap::staticGate(device.target().kind, needs, diags));
    XPU_RETURN_IF_ERROR(
        cap::deviceGate(device.capabilities(), device.label(), needs, diags));
  }
  double gatesMs = s.msSinceFrontEnd();
  Blob blob;
  Status st = device.compile(module, kernels, blob);
  if (!st.isOk() && s.collector.hadError())
    return stageFailure(st.code(), diags, st.message().c_str());
  XPU_RETURN_IF_ERROR(st);
  out.code = std::move(blob.code);
  out.format = std::move(blob.format);
  out.toolchain = std::move(blob.toolchain);
  out.kernels = kernels;
  out.footprints = std::move(blob.footprints);
  char times[96];
  std::snprintf(times, sizeof times, "front end %.1f ms; gates %.1f ms; ",
                s.frontEndMs, gatesMs);
  out.log = times + blob.log;
  return {};
}

/// The disk shortcut for a source seen before: its source entry names the
/// content key and carries what the front end said, so no MLIR runs.
static std::shared_ptr<const Program>
fromSourceEntry(Device &device, cache::Cache &kc, const cache::Key &sourceKey) {
  cache::SourcePayload source;
  if (!kc.loadSource(sourceKey, source))
    return nullptr;
  bool memoryHit = false;
  auto payload = kc.compiled().get(
      source.content,
      [&]() -> std::shared_ptr<const cache::KernelPayload> {
        // A kernel entry that does not fit is removed; the long way then
        // compiles and rewrites both entries.
        auto p = std::make_shared<cache::KernelPayload>();
        return kc.loadKernel(source.content, *p, &source.kernels) ? p : nullptr;
      },
      memoryHit);
  if (!payload || !cache::sameInterface(payload->kernels, source.kernels))
    return nullptr;
  std::shared_ptr<const Program> program;
  if (!loadProgram(device, *payload, source.kernels, source.diagnostics, program).isOk())
    return nullptr;
  (memoryHit ? kc.counters().memoryHits : kc.counters().diskHits)++;
  return program;
}

/// Front end, then the compiled payload by content key: from memory, from
/// disk, or compiled and stored. Records the source entry for next time.
static Status fromContent(Device &device, cache::Cache &kc, const cache::Key &env,
                          const cache::Key &sourceKey, const CompileRequest &request,
                          std::shared_ptr<const Program> &out, DiagnosticList &diags) {
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<abi::KernelInfo> kernels;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels));
  cache::Key key = cache::contentKey(env, request.options, canonicalIR(*module));

  Status st;
  bool memoryHit = false, diskHit = false;
  auto payload = kc.compiled().get(
      key,
      [&]() -> std::shared_ptr<const cache::KernelPayload> {
        auto p = std::make_shared<cache::KernelPayload>();
        if ((diskHit = kc.loadKernel(key, *p, &kernels)))
          return p;
        if (!(st = compile(device, s, request, *module, kernels, diags, *p)).isOk())
          return nullptr;
        kc.saveKernel(key, *p);
        return p;
      },
      memoryHit);
  if (!payload)
    return st;
  if (!cache::sameInterface(payload->kernels, kernels)) {
    // Same content key, other kernels: only a hash collision gets here.
    auto p = std::make_shared<cache::KernelPayload>();
    XPU_RETURN_IF_ERROR(compile(device, s, request, *module, kernels, diags, *p));
    payload = p;
    memoryHit = diskHit = false;
  }
  XPU_RETURN_IF_ERROR(loadProgram(device, *payload, kernels, diags, out));
  (memoryHit ? kc.counters().memoryHits
             : diskHit ? kc.counters().diskHits : kc.counters().compiles)++;
  kc.saveSource(sourceKey, {key, kernels, diags});
  return {};
}

Status compileProgram(Device &device, const CompileRequest &request,
                      std::shared_ptr<const Program> &out, DiagnosticList &diags) {
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<abi::KernelInfo> kernels;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels));
  cache::KernelPayload payload;
  XPU_RETURN_IF_ERROR(compile(device, s, request, *module, kernels, diags, payload));
  return loadProgram(device, payload, kernels, diags, out);
}

Status buildProgram(Device &device, DeviceCache &dc, const CompileRequest &request,
                    std::shared_ptr<const Program> &out, DiagnosticList &diags) {
  const Settings *config = nullptr;
  (void)settings(config);
  cache::Cache &kc = kernelCache();
  if (kc.mode() == cache::Mode::off || !config->dumpDir.empty()) {
    Status st = compileProgram(device, request, out, diags);
    if (st.isOk())
      kc.counters().compiles++;
    return st;
  }

  // In-process level by exact source: a hit costs a hash and a lookup.
  const cache::Key &env = dc.environment(device);
  cache::Key sourceKey = cache::sourceKey(env, request.options, request.sourceName,
                                          request.explicitDevice, request.text);
  Status st;
  bool hit = false;
  out = dc.programs.get(
      sourceKey,
      [&]() -> std::shared_ptr<const Program> {
        if (auto p = fromSourceEntry(device, kc, sourceKey)) {
          diags = p->diagnostics;
          return p;
        }
        std::shared_ptr<const Program> p;
        st = fromContent(device, kc, env, sourceKey, request, p, diags);
        return p;
      },
      hit);
  if (hit) {
    kc.counters().memoryHits++;
    diags = out->diagnostics;
  }
  return out ? Status() : st;
}

} // namespace xpu::rt
