// The environment variables xpujit reads, parsed and checked in one place.
// An unknown value is an error that lists the accepted ones.
#pragma once

#include "cache/cache.h"
#include "runtime/status.h"

#include <optional>
#include <string>

namespace xpu::rt {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

struct Settings {
  std::optional<xpu_backend> backend; ///< XPU_BACKEND
  std::string device;                 ///< XPU_DEVICE ("cuda:0", "cpu")
  LogLevel log = LogLevel::warn;      ///< XPU_LOG
  std::string dumpDir;                ///< XPU_DUMP_DIR

  cache::Mode cacheMode = cache::Mode::on;          ///< XPU_CACHE
  /// From XPU_CACHE_DIR, XDG_CACHE_HOME or HOME (not yet checked on disk).
  cache::Location cacheLocation;
  uint64_t cacheMaxBytes = cache::kDefaultMaxBytes; ///< XPU_CACHE_MAX_BYTES
  bool cacheStats = false;                          ///< XPU_CACHE_STATS
  bool cacheStallWrites = false; ///< XPU_CACHE_TEST_HOOK=stall-write
  /// Testing aids for the Vulkan backend: features not to enable, and
  /// staging copies even where device memory is host-visible.
  std::string vulkanDisableFeatures; ///< XPU_VULKAN_DISABLE_FEATURES
  bool vulkanStaging = false;        ///< XPU_VULKAN_STAGING=1
  /// XPU_SCHEDULER=bypass: the raw launch path (no ordering across
  /// streams, no automatic capture), for A/B measurement.
  bool schedulerBypass = false;
};

/// Reads the environment. The result is computed once per process.
Status settings(const Settings *&out);

/// Parses a byte count: digits with an optional K, M, G or T suffix
/// (powers of 1024).
std::optional<uint64_t> parseBytes(const std::string &text);

/// Parses "cpu", "cuda", "hip" or "vulkan".
std::optional<xpu_backend> parseBackend(const std::string &name);

} // namespace xpu::rt
