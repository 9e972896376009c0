// The environment variables xpujit reads, parsed and checked in one place.
// An unknown value is an error that lists the accepted ones.
#pragma once

#include "cache/cache.h"
#include "runtime/status.h"

#include <optional>
#include <string>
#include <string_view>

namespace xpu::rt {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

struct Settings {
  std::optional<xpu_backend> backend; ///< XPU_BACKEND
  std::string device;                 ///< XPU_DEVICE ("cuda:0", "cpu")
  xpu_backend deviceBackend = XPU_BACKEND_CPU; ///< XPU_DEVICE's backend
  uint32_t deviceIndex = 0;                    ///< and index (0 when none)
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
  /// Testing aid for tile tiering: tier names (comma-separated) never
  /// chosen, so a kernel demotes past them with a note saying so.
  std::string tileTiersOff; ///< XPU_TILE_TIERS_OFF
  /// Testing aid for the AMD tiers without AMD hardware: on the CPU, tile
  /// kernels take this tier (mfma or wmma) with each matrix instruction
  /// computed from its definition, so its lowering runs and is checked.
  std::string tileEmulate; ///< XPU_TILE_EMULATE
  std::string tileSpecialize; ///< XPU_TILE_SPECIALIZE (empty: workgroup)
  bool tileSplit = false;     ///< XPU_TILE_SPLIT=on
  /// XPU_SCHEDULER=bypass: the raw launch path (no ordering across
  /// streams, no automatic capture), for A/B measurement.
  bool schedulerBypass = false;

  /// Calibration: a snapshot file to serve records from, and whether to
  /// print this process's calibration counters at exit.
  std::string calibrationSnapshot; ///< XPU_CALIBRATION
  bool calibrationStats = false;   ///< XPU_CALIBRATION_STATS=1
};

/// Reads the environment. The result is computed once per process.
Status settings(const Settings *&out);

/// Which tile kernels' Vulkan pipelines are specialized on their strides
/// (XPU_TILE_SPECIALIZE; SPIRVOptions::specializeTileStrides).
std::string tileSpecialization();

/// Whether workgroup-scope tile kernels with a copying K loop are split in
/// two on Vulkan (XPU_TILE_SPLIT=on; SPIRVOptions::splitCopyingTiles). Off
/// by default until the split has run on a device that has the tier.
bool tileSplit();

/// Parses a byte count: digits with an optional K, M, G or T suffix
/// (powers of 1024); nullopt for anything else or a count above 2^64 - 1.
std::optional<uint64_t> parseBytes(const std::string &text);

/// Parses decimal digits only, at most `max`; nullopt otherwise (no sign,
/// no spaces, no exceptions).
std::optional<uint64_t> parseDecimal(std::string_view text, uint64_t max);

/// Parses "cpu", "cuda", "hip" or "vulkan".
std::optional<xpu_backend> parseBackend(const std::string &name);

} // namespace xpu::rt
