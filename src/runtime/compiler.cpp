// The path of a kernel; see compiler.h.
#include "runtime/compiler.h"
#include "calibration/device_calibration.h"
#include "capability/gate.h"
#include "observe/observe.h"
#include "runtime/dump.h"
#include "runtime/env.h"
#include "runtime/kernel_cache.h"
#include "runtime/lowering_check.h"
#include "runtime/targets.h"
#include "runtime/tile_tiering.h"
#include "capability/tile_facts.h"
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

/// A source that parsed but holds a construct the gpu dialect import does
/// not take is unsupported, not malformed (XPU-UNSUPPORTED, FrontEnd/GPU).
static xpu_status importFailure(const DiagnosticList &diags) {
  for (const Diagnostic &d : diags)
    if (d.severity == Diagnostic::Severity::error)
      return d.code == "XPU-UNSUPPORTED" ? XPU_ERROR_UNSUPPORTED : XPU_ERROR_PARSE;
  return XPU_ERROR_PARSE;
}

namespace {
/// One compilation's MLIR context, diagnostics and dump scope.
struct Session {
  mlir::MLIRContext ctx{dialects(), mlir::MLIRContext::Threading::DISABLED};
  DiagnosticCollector collector;
  DumpScope dump;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double frontEndMs = 0; ///< set when the front end finishes
  /// Reading (or, the first time on a device, measuring) its calibration.
  double calibrationMs = 0;
  bool loopSites = false; ///< number loops as check sites (see frontEnd)
  Session(const CompileRequest &request, DiagnosticList &diags)
      : collector(ctx, diags), dump(dumpId(request.text)) {
    // A diagnostic names its source location; MLIR's generic dump of the op
    // ("see current operation") only repeats it in IR the author never wrote.
    ctx.printOpOnDiagnostic(false);
  }
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
/// `loopSites` numbers the loops as run-time check sites, for a device that
/// stops loops after a budget of passes (GuardLoopLimit reports them).
static Status frontEnd(Session &s, const CompileRequest &request,
                       DiagnosticList &diags,
                       mlir::OwningOpRef<mlir::ModuleOp> &module,
                       std::vector<abi::KernelInfo> &kernels, bool loopSites = false) {
  dumpStage("input.mlir", std::string(request.text));
  observe::Stage stage("parse");
  s.collector.setDefaultCode("XPU-PARSE");
  module = parseKernelSource(s.ctx, request.text, request.sourceName);
  if (!module)
    return stageFailure(importFailure(diags), diags, "the kernel source did not parse");

  stage.next("admit");
  // Admission against each kernel's profile (ub.poison is zero before
  // anything folds it).
  s.collector.setDefaultCode("XPU-ADMIT");
  {
    mlir::PassManager pm(&s.ctx, mlir::ModuleOp::getOperationName());
    pm.addPass(createPoisonToZero());
    AdmitOptions options;
    options.explicitDevice = request.explicitDevice;
    options.device = request.device;
    options.runtimeChecks = request.runtimeChecks;
    // Calls through function values become the direct calls they stand
    // for first, so that admission (uniform control included) judges each
    // callee where it is called.
    pm.addPass(createLowerFunctionValues());
    pm.addPass(createAdmit(options));
    // Tile operands that differ between invocations are refused like any
    // other admission rule (XPU-TILE001).
    PrepareTilesOptions tileOptions;
    tileOptions.runtimeChecks = request.runtimeChecks;
    pm.addPass(createPrepareTiles(tileOptions));
    observe::instrumentPasses(pm);
    if (mlir::failed(pm.run(*module)))
      return stageFailure(XPU_ERROR_REFUSED, diags, "a kernel was refused");
  }

  // Target-independent preparation: struct parameters become their fields,
  // async copies and printf become loads, stores and atomics, scratch starts
  // as zeros. Reductions stay whole: each target's lowering expands them
  // (GPUs into shared memory and barriers, the CPU into a fold per
  // workgroup).
  stage.next("prepare");
  s.collector.setDefaultCode("XPU-COMPILE");
  mlir::PassManager pm(&s.ctx, mlir::ModuleOp::getOperationName());
  pm.addPass(createFlattenStructs());
  pm.addPass(createExpandAsyncCopies());
  pm.addPass(createLowerPrintf());
  pm.addPass(createZeroScratch());
  observe::instrumentPasses(pm);
  if (mlir::failed(pm.run(*module)))
    return stageFailure(XPU_ERROR_COMPILE, diags, "scratch initialization failed");
  assignCheckSites(*module);
  if (loopSites)
    assignLoopSites(*module);
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
  XPU_RETURN_IF_ERROR(cap::staticGate(*target, analyzeRequirements(*module), diags,
                                      /*remarks=*/true));
  // What the target cannot lower is refused here too, located at the op.
  return checkLowering(*module, *target, diags);
}

Status formatModule(const CompileRequest &request, std::string &out,
                    DiagnosticList &diags) {
  Session s(request, diags);
  s.collector.setDefaultCode("XPU-PARSE");
  auto module = parseKernelSource(s.ctx, request.text, request.sourceName);
  if (!module)
    return stageFailure(importFailure(diags), diags, "the kernel source did not parse");
  out = printKernelSource(*module);
  return {};
}

Status compileForTarget(const CompileRequest &request, const TargetDesc &target,
                        Blob &out, std::vector<abi::KernelInfo> &kernels,
                        DiagnosticList &diags) {
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels));
  observe::Stage stage("gates");
  std::string tiering; // before the gate, as in compile(): tiers change shared memory
  selectTileTiers(*module, target, cap::resolveFacts(target, cap::tileFactsOfChip(target)),
                  diags, tiering);
  XPU_RETURN_IF_ERROR(cap::offlineGate(target, analyzeRequirements(*module), diags));
  stage.next("codegen");
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

Status describeModule(const CompileRequest &request,
                      std::vector<abi::KernelInfo> &kernels,
                      std::vector<KernelRequirements> &needs, std::string &canonical,
                      DiagnosticList &diags) {
  Session s(request, diags);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels));
  needs = analyzeRequirements(*module);
  canonical = canonicalIR(*module);
  return {};
}

const cache::Key &DeviceCache::environment(Device &device) {
  std::call_once(once_, [&] {
    cache::Environment env = keyEnvironment(device);
    // What the device's measured facts change in its code (a loop guard,
    // a software fma): the calibration's first reader is the first compile.
    env.toolchain += "; " + device.calibration().codegenKey();
    environment_ = cache::environmentDigest(env);
  });
  return environment_;
}

/// Reads the device's correctness facts before anything is timed as a
/// stage (the first compile on a device that was never calibrated runs the
/// probes here), and whether its kernels number their loops (see frontEnd).
static void readCalibration(Device &device, Session &s) {
  observe::Stage stage("calibration");
  auto start = std::chrono::steady_clock::now();
  s.loopSites = device.calibration().loopPassLimit().has_value();
  s.calibrationMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
  s.start = std::chrono::steady_clock::now();
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
  observe::Stage stage("load");
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
  observe::Stage stage("gates");
  // The tiers read the device's facts; a compile without gates (the probes
  // that measure those facts) has no tiles, and asking for the facts there
  // would wait on itself. They come before the gates: the shared memory a
  // kernel with tiles needs depends on its tier.
  std::string tiering;
  if (!request.skipGates) {
    selectTileTiers(module, device.target(), device.capabilities(), diags, tiering);
    std::vector<KernelRequirements> needs = analyzeRequirements(module);
    XPU_RETURN_IF_ERROR(cap::staticGate(device.target().kind, needs, diags));
    XPU_RETURN_IF_ERROR(
        cap::deviceGate(device.capabilities(), device.label(), needs, diags));
  }
  double gatesMs = s.msSinceFrontEnd();
  Blob blob;
  stage.next("codegen");
  Status st = device.compile(module, kernels, blob);
  if (!st.isOk() && s.collector.hadError())
    return stageFailure(st.code(), diags, st.message().c_str());
  XPU_RETURN_IF_ERROR(st);
  out.code = std::move(blob.code);
  out.format = std::move(blob.format);
  out.toolchain = std::move(blob.toolchain);
  out.kernels = kernels;
  out.footprints = std::move(blob.footprints);
  char times[128];
  std::snprintf(times, sizeof times, "calibration %.1f ms; front end %.1f ms; gates %.1f ms; ",
                s.calibrationMs, s.frontEndMs, gatesMs);
  out.log = times + blob.log + (tiering.empty() ? "" : "\n" + tiering);
  return {};
}

/// The disk shortcut for a source seen before: its source entry names the
/// content key and carries what the front end said, so no MLIR runs.
static std::shared_ptr<const Program>
fromSourceEntry(Device &device, cache::Cache &kc, const cache::Key &sourceKey) {
  cache::SourcePayload source;
  bool found = kc.loadSource(sourceKey, source);
  observe::cacheLookup("source-entry", found, sourceKey.hex());
  if (!found)
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
  observe::origin(memoryHit ? "memory" : "disk");
  return program;
}

/// Front end, then the compiled payload by content key: from memory, from
/// disk, or compiled and stored. Records the source entry for next time.
static Status fromContent(Device &device, cache::Cache &kc, const cache::Key &env,
                          const cache::Key &sourceKey, const CompileRequest &request,
                          std::shared_ptr<const Program> &out, DiagnosticList &diags) {
  Session s(request, diags);
  readCalibration(device, s);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<abi::KernelInfo> kernels;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels, s.loopSites));
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
  // A payload compiled earlier (another source with the same content, or
  // another process) brings no notes: the tiers are chosen again, as they
  // were for it, so the [mma-tiering] notes are never missing.
  if ((memoryHit || diskHit) && !request.skipGates) {
    std::string tiering;
    selectTileTiers(*module, device.target(), device.capabilities(), diags, tiering);
  }
  XPU_RETURN_IF_ERROR(loadProgram(device, *payload, kernels, diags, out));
  diags = out->diagnostics;
  (memoryHit ? kc.counters().memoryHits
             : diskHit ? kc.counters().diskHits : kc.counters().compiles)++;
  observe::cacheLookup("content", memoryHit || diskHit, key.hex());
  observe::origin(memoryHit ? "memory" : diskHit ? "disk" : "compiled");
  kc.saveSource(sourceKey, {key, kernels, diags});
  return {};
}

Status compileProgram(Device &device, const CompileRequest &request,
                      std::shared_ptr<const Program> &out, DiagnosticList &diags) {
  Session s(request, diags);
  readCalibration(device, s);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<abi::KernelInfo> kernels;
  XPU_RETURN_IF_ERROR(frontEnd(s, request, diags, module, kernels, s.loopSites));
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
  std::string deviceChoice =
      (request.explicitDevice ? "explicit " : "default ") + request.device;
  cache::Key sourceKey = cache::sourceKey(env, request.options, request.sourceName,
                                          deviceChoice, request.text);
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
  observe::cacheLookup("memory", hit, sourceKey.hex());
  if (hit) {
    observe::origin("memory");
    kc.counters().memoryHits++;
    diags = out->diagnostics;
  }
  return out ? Status() : st;
}

} // namespace xpu::rt
