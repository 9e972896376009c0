// The verdict algebra; see capability.h.
#include "capability/capability.h"

namespace xpu::cap {

namespace {
template <class... F> struct Overload : F... {
  using F::operator()...;
};
template <class... F> Overload(F...) -> Overload<F...>;
} // namespace

const char *kindName(Kind k) {
  switch (k) {
  case Kind::backendStructural: return "backend-structural";
  case Kind::deviceOptional: return "device-optional";
  case Kind::hostToolchain: return "host-toolchain";
  case Kind::toolchainSemantic: return "toolchain-semantic";
  case Kind::policy: return "policy";
  case Kind::flagLegality: return "flag-legality";
  }
  return "?";
}

bool permits(const Verdict &v) {
  // No catch-all: std::visit rejects an alternative with no handler here.
  return std::visit(Overload{
                        [](const Available &) { return true; },
                        [](const Unavailable &) { return false; },
                        [](const Unknown &) { return false; },
                    },
                    v);
}

const char *verdictName(const Verdict &v) {
  return std::visit(Overload{
                        [](const Available &) { return "available"; },
                        [](const Unavailable &) { return "unavailable"; },
                        [](const Unknown &) { return "unknown"; },
                    },
                    v);
}

Verdict verdictFor(const KernelRequirements &req, const Fact &fact) {
  if (!permits(fact.verdict) || !fact.limit)
    return fact.verdict;
  uint64_t need = 0;
  const char *unit = "";
  if (fact.capability == Capability::sharedMemory) {
    need = req.sharedBytes;
    unit = " bytes of shared memory";
  } else if (fact.capability == Capability::workgroupInvocations) {
    need = req.workgroupInvocations;
    unit = " invocations per workgroup";
  }
  if (need > *fact.limit)
    return Unavailable{fact.kind, "needs " + std::to_string(need) + unit +
                                      "; the limit is " +
                                      std::to_string(*fact.limit)};
  return fact.verdict;
}

} // namespace xpu::cap
