// What every backend device shares: its calibration, its resolved
// capability table and the name it goes by in messages.
#include "calibration/device_calibration.h"
#include "capability/target_facts.h"
#include "runtime/backend.h"

namespace xpu::rt {

Device::Device() : calibration_(std::make_unique<cal::DeviceCalibration>(*this)) {}

Device::~Device() = default;

const cap::FactTable &Device::capabilities() {
  std::call_once(capabilitiesOnce_, [this] {
    // What the device reports, then what was measured on it (the
    // toolchain-semantic facts), which may depend on the former.
    std::vector<cap::Fact> probed = probeCapabilities();
    cap::FactTable reported = cap::resolveFacts(target(), probed);
    for (cap::Fact &f : calibration().capabilityFacts(reported))
      probed.push_back(std::move(f));
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
