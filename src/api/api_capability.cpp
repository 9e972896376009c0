// C API: a device's capability table.
#include "capability/capability.h"
#include "runtime/objects.h"

using namespace xpu::rt;
namespace cap = xpu::cap;

namespace {

xpu_verdict verdictOf(const cap::Verdict &v) {
  if (std::holds_alternative<cap::Available>(v))
    return XPU_VERDICT_AVAILABLE;
  if (std::holds_alternative<cap::Unavailable>(v))
    return XPU_VERDICT_UNAVAILABLE;
  return XPU_VERDICT_UNKNOWN;
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_device_capability_count(xpu_device device, uint32_t *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_capability_count: `out` is NULL"));
  *out = uint32_t(dev->device->capabilities().size());
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_device_capability(xpu_device device, uint32_t index,
                                         xpu_capability *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_capability: `out` is NULL"));
  const cap::FactTable &facts = dev->device->capabilities();
  if (index >= facts.size())
    return finish({XPU_ERROR_NOT_FOUND, "capability index out of range"});
  const cap::Fact &f = facts[index];
  out->name = xpu::capabilityName(f.capability);
  out->description = xpu::capabilityPhrase(f.capability);
  out->kind = xpu_capability_kind(int(f.kind));
  out->verdict = verdictOf(f.verdict);
  if (auto *u = std::get_if<cap::Unavailable>(&f.verdict)) {
    out->kind = xpu_capability_kind(int(u->kind));
    out->reason = u->reason.c_str();
  } else if (auto *k = std::get_if<cap::Unknown>(&f.verdict)) {
    out->reason = k->why.c_str();
  } else {
    out->reason = "";
  }
  out->evidence = f.evidence.c_str();
  out->has_limit = f.limit.has_value();
  out->limit = f.limit.value_or(0);
  return XPU_SUCCESS;
}

} // extern "C"
