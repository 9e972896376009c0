// Helpers of the kernel-surface tests (waves, atomics, struct arguments,
// printf, ...): capability lookups and the host model of waves.
#pragma once

#include "harness.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace conf {

/// The device's entry for capability `name` ("wave.shuffle"); its strings
/// are the device's.
inline xpu_capability capability(const char *name) {
  uint32_t n = 0;
  XPU_OK(xpu_device_capability_count(target().dev, &n));
  for (uint32_t i = 0; i < n; ++i) {
    xpu_capability c;
    XPU_OK(xpu_device_capability(target().dev, i, &c));
    if (std::string(c.name) == name)
      return c;
  }
  FAIL("no capability named " << name);
  xpu_capability none = {};
  none.name = none.description = none.reason = none.evidence = "";
  return none;
}

inline bool capabilityAvailable(const char *name) {
  return capability(name).verdict == XPU_VERDICT_AVAILABLE;
}

/// Its limit; UINT64_MAX when it states none.
inline uint64_t capabilityLimit(const char *name) {
  xpu_capability c = capability(name);
  return c.has_limit ? c.limit : UINT64_MAX;
}

/// Checks `text` with xpu_module_check: it must end with `want` and its
/// diagnostics say `says` (unless NULL). Returns the diagnostics' text.
inline std::string checkSays(const std::string &text, xpu_status want, const char *says) {
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_check(target().ctx, text.data(), text.size(), nullptr, &diags);
  std::string said = xpu_diagnostics_text(diags);
  xpu_diagnostics_release(diags);
  INFO(text << "\n" << said);
  CHECK(st == want);
  if (says)
    CHECK(said.find(says) != std::string::npos);
  return said;
}

/// Where an invocation sits in its wave, as the model of xpu_c.h has it:
/// waves are consecutive linear indices of a workgroup of `block`
/// invocations, `width` wide, the last one partial.
struct WavePlace {
  uint32_t lane, start, count; ///< lane, first index of the wave, live lanes
};
inline WavePlace wavePlace(uint32_t t, uint32_t block, uint32_t width) {
  uint32_t lane = t % width, start = t - lane;
  return {lane, start, std::min(width, block - start)};
}

} // namespace conf
