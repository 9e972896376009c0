// What every backend device shares: its resolved capability table and the
// name it goes by in messages.
#include "capability/target_facts.h"
#include "runtime/backend.h"

namespace xpu::rt {

const cap::FactTable &Device::capabilities() {
  std::call_once(capabilitiesOnce_, [this] {
    capabilities_ = cap::resolveFacts(target(), probeCapabilities());
  });
  return capabilities_;
}

std::string Device::label() const {
  static const char *names[] = {"cpu", "cuda", "hip", "vulkan"};
  return std::string(names[int(identity().backend)]) + " device '" +
         identity().name + "'";
}

} // namespace xpu::rt
