// The module report (schema "xpujit.module-report", docs/observe.md): what
// a module is, where it came from and why it was allowed on its device.
// Made on request from the module's record: the front end runs again (no
// code generation) for the admitted IR and the capability needs.
#include "observe/module_report.h"
#include "capability/gate.h"
#include "runtime/compiler.h"
#include "runtime/objects.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace xpu::observe {

namespace {

const char *targetKindName(rt::TargetDesc::Kind k) {
  switch (k) {
  case rt::TargetDesc::Kind::cpu: return "cpu";
  case rt::TargetDesc::Kind::nvptx: return "nvptx";
  case rt::TargetDesc::Kind::amdgcn: return "amdgcn";
  case rt::TargetDesc::Kind::spirv: return "spirv";
  }
  return "?";
}

const char *decidedBy(cap::Rule::By by) {
  switch (by) {
  case cap::Rule::By::table: return "target";
  case cap::Rule::By::device: return "device";
  case cap::Rule::By::hostToolchain: return "host-toolchain";
  }
  return "?";
}

std::string uuidText(const uint8_t uuid[16]) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    s += digits[uuid[i] >> 4];
    s += digits[uuid[i] & 15];
  }
  return s;
}

llvm::json::Object capabilityVerdict(const KernelRequirements &k, Capability c,
                                     const cap::Fact &fact, cap::TargetKind target) {
  cap::Verdict v = cap::verdictFor(k, fact);
  cap::Rule rule = cap::targetRule(target, c);
  llvm::json::Object o{{"need", capabilityName(c)},
                       {"where", k.whereNeeded(c)},
                       {"verdict", cap::verdictName(v)},
                       {"kind", cap::kindName(fact.kind)},
                       {"evidence", fact.evidence},
                       {"decided_by", decidedBy(rule.by)}};
  if (auto *u = std::get_if<cap::Unavailable>(&v))
    o["reason"] = u->reason;
  else if (auto *u = std::get_if<cap::Unknown>(&v))
    o["reason"] = u->why;
  if (fact.limit)
    o["limit"] = int64_t(*fact.limit);
  return o;
}

llvm::json::Object kernelEntry(const abi::KernelInfo &info, const KernelRequirements *needs,
                               const cap::FactTable &facts, cap::TargetKind target) {
  llvm::json::Array params, checks, capabilities;
  for (const abi::Param &p : info.params) {
    if (p.role != abi::Role::argument)
      continue;
    llvm::json::Object o{{"name", p.name},
                         {"kind", p.view ? "view" : p.isBuffer ? "buffer" : "scalar"},
                         {"type", abi::scalarName(p.elem)}};
    if (p.isBuffer)
      o["access"] = p.access == abi::Access::ro ? "ro" : "rw";
    if (p.lanes > 1)
      o["lanes"] = int64_t(p.lanes);
    if (p.staticCount >= 0)
      o["elements"] = p.staticCount;
    params.push_back(std::move(o));
  }
  for (const abi::CheckSite &c : info.checkSites)
    checks.push_back(llvm::json::Object{{"where", c.location}, {"what", c.what}});
  if (needs)
    for (Capability c : needs->needs)
      capabilities.push_back(capabilityVerdict(*needs, c, facts[size_t(c)], target));
  llvm::json::Object k{{"name", info.name},
                       {"location", info.location},
                       {"profile", info.profile},
                       {"admission", "admitted"},
                       {"parameters", std::move(params)},
                       {"runtime_checks", std::move(checks)},
                       {"shared_bytes", int64_t(info.sharedBytes)},
                       {"uses_barriers", info.usesBarriers},
                       {"capabilities", std::move(capabilities)}};
  auto extents = [](const std::optional<std::array<uint32_t, 3>> &e) -> llvm::json::Value {
    if (!e)
      return nullptr;
    return llvm::json::Array{int64_t((*e)[0]), int64_t((*e)[1]), int64_t((*e)[2])};
  };
  k["workgroup_size"] = extents(info.workgroupSize);
  k["grid_size"] = extents(info.gridSize);
  return k;
}

/// The front end again on the recorded source: kernels, needs, canonical IR.
rt::Status describeAgain(const ModuleRecord &rec, std::vector<abi::KernelInfo> &kernels,
                         std::vector<KernelRequirements> &needs, std::string &canonical) {
  rt::CompileRequest request;
  request.text = rec.text;
  request.sourceName = rec.sourceName;
  request.explicitDevice = rec.explicitDevice;
  request.device = rec.device;
  request.runtimeChecks = rec.runtimeChecks;
  request.options = rec.options;
  DiagnosticList diags;
  if (rt::Status st = rt::describeModule(request, kernels, needs, canonical, diags);
      !st.isOk())
    return {st.code(), "the module's source no longer compiles for its report: " +
                           st.message()};
  return {};
}

/// Everything a report says with or without a device: all but `device`,
/// `limits` and `build.cache`.
llvm::json::Object commonReport(const ModuleRecord &rec, const std::string &canonical,
                                const std::vector<abi::KernelInfo> &kernels,
                                const std::vector<KernelRequirements> &needs,
                                const cap::FactTable &facts, const rt::TargetDesc &target,
                                const DiagnosticList &diagnostics, const rt::Blob &blob,
                                bool offline) {
  llvm::json::Array kernelList;
  for (const abi::KernelInfo &k : kernels) {
    const KernelRequirements *req = nullptr;
    for (const KernelRequirements &r : needs)
      if (r.kernel == k.name)
        req = &r;
    kernelList.push_back(kernelEntry(k, req, facts, target.kind));
  }

  llvm::json::Array diagList;
  static const char *severities[] = {"error", "warning", "note", "remark"};
  for (const Diagnostic &d : diagnostics)
    diagList.push_back(llvm::json::Object{{"severity", severities[int(d.severity)]},
                                          {"code", d.code},
                                          {"message", d.message},
                                          {"file", d.file},
                                          {"line", int64_t(d.line)},
                                          {"column", int64_t(d.column)}});

  llvm::json::Array stages;
  for (const StageTime &s : rec.stages)
    stages.push_back(llvm::json::Object{{"name", s.name}, {"ms", s.ms}});

  return llvm::json::Object{
      {"schema", "xpujit.module-report"},
      {"version", 1},
      {"offline", offline},
      {"source",
       llvm::json::Object{{"name", rec.sourceName},
                          {"bytes", int64_t(rec.text.size())},
                          {"hash", rec.sourceHash},
                          {"canonical_ir_hash", textHash(canonical)}}},
      {"options", llvm::json::Object{{"text", rec.options},
                                     {"runtime_checks", rec.runtimeChecks},
                                     {"explicit_device", rec.explicitDevice}}},
      {"target", llvm::json::Object{{"kind", targetKindName(target.kind)},
                                    {"triple", target.triple},
                                    {"chip", target.chip},
                                    {"features", target.features},
                                    {"wave_width", int64_t(target.waveWidth)}}},
      {"kernels", std::move(kernelList)},
      {"diagnostics", std::move(diagList)},
      {"manifest", llvm::json::Object{{"format", blob.format},
                                      {"toolchain", blob.toolchain},
                                      {"code_bytes", int64_t(blob.code.size())},
                                      {"build_log", blob.log}}},
      {"build", llvm::json::Object{{"origin", rec.origin},
                                   {"total_ms", rec.totalMs},
                                   {"stages", std::move(stages)}}}};
}

std::string printed(llvm::json::Object report) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)));
  return text;
}

} // namespace

rt::Status moduleReport(rt::ModuleObj &module, std::string &out) {
  if (!module.observed)
    return {XPU_ERROR_INTERNAL, "the module has no build record"};
  ModuleRecord &rec = *module.observed;
  rt::DeviceObj &devObj = *module.device;
  rt::Device &device = *devObj.device;

  std::vector<abi::KernelInfo> kernels;
  std::vector<KernelRequirements> needs;
  std::string canonical;
  XPU_RETURN_IF_ERROR(describeAgain(rec, kernels, needs, canonical));

  const rt::DeviceIdentity &id = device.identity();
  llvm::json::Object report =
      commonReport(rec, canonical, kernels, needs, device.capabilities(), device.target(),
                   module.program->diagnostics, module.program->blob, false);

  llvm::json::Array lookups;
  for (const CacheLookup &l : rec.lookups)
    lookups.push_back(
        llvm::json::Object{{"level", l.level}, {"hit", l.hit}, {"key", l.key}});
  cache::Key contentKey =
      cache::contentKey(devObj.cache.environment(device), rec.options, canonical);
  (*report.getObject("build"))["cache"] = llvm::json::Object{
      {"content_key", contentKey.hex()}, {"lookups", std::move(lookups)}};

  report["device"] = llvm::json::Object{{"index", int64_t(devObj.index)},
                                        {"label", device.label()},
                                        {"backend", xpu_backend_name(id.backend)},
                                        {"name", id.name},
                                        {"vendor", id.vendor},
                                        {"arch", id.arch},
                                        {"driver", id.driver},
                                        {"uuid", uuidText(id.uuid)},
                                        {"toolchain", device.toolchainIdentity()}};
  report["limits"] =
      llvm::json::Object{{"max_workgroup_size", int64_t(id.maxWorkgroupSize)},
                         {"max_grid", llvm::json::Array{int64_t(id.maxGrid[0]),
                                                        int64_t(id.maxGrid[1]),
                                                        int64_t(id.maxGrid[2])}},
                         {"memory_bytes", int64_t(id.memoryBytes)},
                         {"compute_units", int64_t(id.computeUnits)},
                         {"wave_width", int64_t(id.waveWidth)}};
  out = printed(std::move(report));
  return {};
}

rt::Status targetReport(const ModuleRecord &rec, const rt::TargetDesc &target,
                        const rt::Blob &blob, const DiagnosticList &diagnostics,
                        std::string &out) {
  std::vector<abi::KernelInfo> kernels;
  std::vector<KernelRequirements> needs;
  std::string canonical;
  XPU_RETURN_IF_ERROR(describeAgain(rec, kernels, needs, canonical));
  out = printed(commonReport(rec, canonical, kernels, needs, cap::offlineFacts(target),
                             target, diagnostics, blob, true));
  return {};
}

} // namespace xpu::observe
