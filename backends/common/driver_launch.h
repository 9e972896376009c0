// What the CUDA and HIP backends share on their launch path. Both drivers
// take a launch's parameters as an array of pointers to each value, and both
// report a fault at a later synchronization without naming the kernel.
#pragma once

#include "runtime/backend.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace xpu::driver {

/// Pointers to each flattened parameter of a launch, then to its status
/// word. The driver copies the values at the call, so pointers into the
/// caller's argument block are enough.
class KernelParams {
public:
  rt::Status fill(const rt::LaunchRequest &r) {
    const std::vector<abi::Slot> &slots = *r.slots;
    if (slots.size() + 1 > kMax)
      return {XPU_ERROR_UNSUPPORTED,
              "kernel '" + r.info->name + "' has too many flattened parameters"};
    for (size_t i = 0; i < slots.size(); ++i)
      pointers_[i] = const_cast<uint8_t *>(r.args + slots[i].offset);
    status_ = r.status;
    pointers_[slots.size()] = &status_;
    return {};
  }
  void **data() { return pointers_; }

private:
  static constexpr size_t kMax = 64;
  void *pointers_[kMax] = {};
  uint64_t status_ = 0;
};

/// The kernels launched on a stream since its last synchronization (the
/// first 8 names), so a fault found there can say what was running.
class InFlightKernels {
public:
  void add(const std::string &name) {
    std::lock_guard<std::mutex> g(mu_);
    if (names_.size() < 8 && std::find(names_.begin(), names_.end(), name) == names_.end())
      names_.push_back(name);
  }
  /// Every name `other` holds (a graph's kernels).
  void add(const InFlightKernels &other) {
    std::vector<std::string> names;
    {
      std::lock_guard<std::mutex> g(other.mu_);
      names = other.names_;
    }
    for (const std::string &k : names)
      add(k);
  }
  /// " while running kernel 'a', 'b'", or "" when none ran; forgets them.
  std::string take() {
    std::vector<std::string> names;
    {
      std::lock_guard<std::mutex> g(mu_);
      names.swap(names_);
    }
    std::string who;
    for (const std::string &k : names)
      who += (who.empty() ? " while running kernel '" : ", '") + k + "'";
    return who;
  }

private:
  mutable std::mutex mu_;
  std::vector<std::string> names_;
};

} // namespace xpu::driver
