// What every backend device shares: its resolved capability table and the
// name it goes by in messages.
#include "capability/contraction_probe.h"
#include "capability/target_facts.h"
#include "runtime/backend.h"

namespace xpu::rt {

const cap::FactTable &Device::capabilities() {
  std::call_once(capabilitiesOnce_, [this] {
    std::vector<cap::Fact> probed = probeCapabilities();
    probed.push_back(cap::measureContraction(*this));
    capabilities_ = cap::resolveFacts(target(), probed);
  });
  return capabilities_;
}

std::string Device::label() const {
  static const char *names[] = {"cpu", "cuda", "hip", "vulkan"};
  return std::string(names[int(identity().backend)]) + " device '" +
         identity().name + "'";
}

} // namespace xpu::rt

namespace xpu::rt {

const char *memoryKindName(xpu_memory_kind kind) {
  switch (kind) {
  case XPU_MEMORY_DEVICE: return "device";
  case XPU_MEMORY_HOST_VISIBLE: return "host-visible";
  case XPU_MEMORY_MANAGED: return "managed";
  default: return "unknown";
  }
}

} // namespace xpu::rt
