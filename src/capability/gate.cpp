// The capability gates; see gate.h.
#include "capability/gate.h"

namespace xpu::cap {

namespace {

/// A diagnostic at "file:line:col".
Diagnostic at(const std::string &where, Diagnostic::Severity severity,
              std::string code, std::string message) {
  Diagnostic d;
  d.severity = severity;
  d.code = std::move(code);
  d.message = std::move(message);
  size_t c2 = where.rfind(':');
  size_t c1 = c2 == std::string::npos ? c2 : where.rfind(':', c2 - 1);
  if (c1 != std::string::npos) {
    d.file = where.substr(0, c1);
    d.line = unsigned(std::strtoul(where.c_str() + c1 + 1, nullptr, 10));
    d.column = unsigned(std::strtoul(where.c_str() + c2 + 1, nullptr, 10));
  } else {
    d.file = where;
  }
  return d;
}

std::string need(const KernelRequirements &k, Capability c) {
  return "kernel '" + k.kernel + "' needs " + capabilityPhrase(c);
}

rt::Status refused(const DiagnosticList &diags, size_t first) {
  const Diagnostic &d = diags[first];
  std::string where = d.file.empty() ? "" : d.file + ":" + std::to_string(d.line) +
                                                ":" + std::to_string(d.column) + ": ";
  return {XPU_ERROR_REFUSED, where + "error: " + d.code + ": " + d.message};
}

} // namespace

rt::Status staticGate(TargetKind target, const std::vector<KernelRequirements> &kernels,
                      DiagnosticList &diags, bool remarks) {
  size_t first = diags.size();
  bool any = false;
  for (const KernelRequirements &k : kernels)
    for (Capability c : k.needs) {
      Rule rule = targetRule(target, c);
      std::string where = k.whereNeeded(c);
      if (rule.by == Rule::By::table && !permits(rule.verdict) &&
          std::holds_alternative<Unavailable>(rule.verdict)) {
        if (!any)
          first = diags.size();
        any = true;
        diags.push_back(at(where, Diagnostic::Severity::error, "XPU-CAP001",
                           need(k, c) + "; target " + targetName(target) +
                               " cannot express it: " +
                               std::get<Unavailable>(rule.verdict).reason +
                               " (backend-structural)"));
      } else if (remarks) {
        const char *who = rule.by == Rule::By::table    ? "the target"
                          : rule.by == Rule::By::device ? "the device"
                                                        : "the host toolchain";
        diags.push_back(at(where, Diagnostic::Severity::remark, "XPU-CAP000",
                           need(k, c) + "; on " + targetName(target) +
                               " decided by " + who + ": " + rule.evidence));
      }
    }
  return any ? refused(diags, first) : rt::Status();
}

rt::Status deviceGate(const FactTable &facts, const std::string &label,
                      const std::vector<KernelRequirements> &kernels,
                      DiagnosticList &diags) {
  size_t first = diags.size();
  bool any = false;
  for (const KernelRequirements &k : kernels)
    for (Capability c : k.needs) {
      const Fact &fact = facts[size_t(c)];
      Verdict v = verdictFor(k, fact);
      if (permits(v))
        continue;
      if (!any)
        first = diags.size();
      any = true;
      std::string message;
      const char *code;
      if (auto *u = std::get_if<Unavailable>(&v)) {
        code = "XPU-CAP001";
        message = need(k, c) + "; " + label + ": " + u->reason + " (" +
                  kindName(u->kind) + "; " + fact.evidence + ")";
      } else {
        code = "XPU-CAP002";
        message = need(k, c) + "; " + label + ": unknown (" +
                  std::get<Unknown>(v).why + "), and an unknown capability "
                  "is refused";
      }
      diags.push_back(at(k.whereNeeded(c), Diagnostic::Severity::error, code, message));
    }
  return any ? refused(diags, first) : rt::Status();
}

FactTable offlineFacts(const rt::TargetDesc &target) {
  FactTable facts = resolveFacts(target, {});
  for (Fact &f : facts)
    if (f.kind == Kind::deviceOptional || f.kind == Kind::toolchainSemantic)
      f = Fact{f.capability, f.kind, Available{}, "decided by the device that loads it"};
  return facts;
}

rt::Status offlineGate(const rt::TargetDesc &target,
                       const std::vector<KernelRequirements> &kernels,
                       DiagnosticList &diags) {
  XPU_RETURN_IF_ERROR(staticGate(target.kind, kernels, diags));
  return deviceGate(offlineFacts(target), std::string("target ") + targetName(target.kind) + " " +
                               target.chip,
                    kernels, diags);
}

} // namespace xpu::cap
