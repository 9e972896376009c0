// Parsing of the environment variables; see env.h.
#include "runtime/env.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace xpu::rt {

std::optional<xpu_backend> parseBackend(const std::string &name) {
  if (name == "cpu")
    return XPU_BACKEND_CPU;
  if (name == "cuda")
    return XPU_BACKEND_CUDA;
  if (name == "hip")
    return XPU_BACKEND_HIP;
  if (name == "vulkan")
    return XPU_BACKEND_VULKAN;
  return std::nullopt;
}

std::optional<uint64_t> parseDecimal(std::string_view text, uint64_t max) {
  if (text.empty())
    return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    unsigned digit = unsigned(c - '0');
    if (v > (max - digit) / 10)
      return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

std::optional<uint64_t> parseBytes(const std::string &text) {
  size_t n = text.find_first_not_of("0123456789");
  std::string_view digits = std::string_view(text).substr(0, n);
  std::string_view suffix =
      n == std::string::npos ? std::string_view() : std::string_view(text).substr(n);
  if (suffix.size() > 1)
    return std::nullopt;
  static const std::string units = "KMGT";
  unsigned shift = 0;
  if (!suffix.empty()) {
    size_t u = units.find(suffix[0]);
    if (u == std::string::npos)
      return std::nullopt;
    shift = 10 * unsigned(u + 1);
  }
  auto v = parseDecimal(digits, UINT64_MAX >> shift);
  if (!v)
    return std::nullopt;
  return *v << shift;
}

static Status readCacheSettings(Settings &s) {
  if (const char *v = std::getenv("XPU_CACHE"); v && *v) {
    std::string m = v;
    if (m == "on")
      s.cacheMode = cache::Mode::on;
    else if (m == "off")
      s.cacheMode = cache::Mode::off;
    else if (m == "readonly")
      s.cacheMode = cache::Mode::readonly;
    else
      return invalidArgument("XPU_CACHE='" + m + "' is not one of: on, off, readonly");
  }
  s.cacheLocation = cache::chooseLocation(std::getenv("XPU_CACHE_DIR"),
                                          std::getenv("XDG_CACHE_HOME"),
                                          std::getenv("HOME"));
  if (const char *v = std::getenv("XPU_CACHE_MAX_BYTES"); v && *v) {
    auto bytes = parseBytes(v);
    if (!bytes || *bytes == 0)
      return invalidArgument(std::string("XPU_CACHE_MAX_BYTES='") + v +
                             "' is not a positive byte count (digits with an "
                             "optional K, M, G or T suffix, e.g. 512M)");
    s.cacheMaxBytes = *bytes;
  }
  if (const char *v = std::getenv("XPU_CACHE_STATS"); v && *v) {
    std::string b = v;
    if (b != "0" && b != "1")
      return invalidArgument("XPU_CACHE_STATS='" + b + "' is not one of: 0, 1");
    s.cacheStats = b == "1";
  }
  if (const char *v = std::getenv("XPU_CACHE_TEST_HOOK"); v && *v) {
    std::string h = v;
    if (h != "stall-write")
      return invalidArgument("XPU_CACHE_TEST_HOOK='" + h + "' is not one of: stall-write");
    s.cacheStallWrites = true;
  }
  return {};
}

static Status readCalibrationSettings(Settings &s) {
  if (const char *v = std::getenv("XPU_CALIBRATION"); v && *v)
    s.calibrationSnapshot = v;
  if (const char *v = std::getenv("XPU_CALIBRATION_STATS"); v && *v) {
    std::string b = v;
    if (b != "0" && b != "1")
      return invalidArgument("XPU_CALIBRATION_STATS='" + b + "' is not one of: 0, 1");
    s.calibrationStats = b == "1";
  }
  return {};
}

static Status readSettings(Settings &s) {
  if (const char *v = std::getenv("XPU_BACKEND"); v && *v) {
    s.backend = parseBackend(v);
    if (!s.backend)
      return invalidArgument(std::string("XPU_BACKEND='") + v +
                             "' is not one of: cpu, cuda, hip, vulkan");
  }
  if (const char *v = std::getenv("XPU_DEVICE"); v && *v) {
    std::string d = v;
    std::string backend = d.substr(0, d.find(':'));
    if (!parseBackend(backend))
      return invalidArgument("XPU_DEVICE='" + d +
                             "' must be BACKEND or BACKEND:INDEX with BACKEND "
                             "one of: cpu, cuda, hip, vulkan");
    s.deviceBackend = *parseBackend(backend);
    if (d.find(':') != std::string::npos) {
      auto index = parseDecimal(std::string_view(d).substr(d.find(':') + 1), UINT32_MAX);
      if (!index)
        return invalidArgument("XPU_DEVICE='" + d +
                               "': the index after ':' must be a number from 0 to " +
                               std::to_string(UINT32_MAX));
      s.deviceIndex = uint32_t(*index);
    }
    s.device = d;
  }
  if (const char *v = std::getenv("XPU_LOG"); v && *v) {
    std::string l = v;
    if (l == "error")
      s.log = LogLevel::error;
    else if (l == "warn")
      s.log = LogLevel::warn;
    else if (l == "info")
      s.log = LogLevel::info;
    else if (l == "debug")
      s.log = LogLevel::debug;
    else
      return invalidArgument("XPU_LOG='" + l +
                             "' is not one of: error, warn, info, debug");
  }
  if (const char *v = std::getenv("XPU_DUMP_DIR"); v && *v)
    s.dumpDir = v;
  // The feature names are checked by the Vulkan backend, which knows them.
  if (const char *v = std::getenv("XPU_VULKAN_DISABLE_FEATURES"); v && *v)
    s.vulkanDisableFeatures = v;
  if (const char *v = std::getenv("XPU_VULKAN_STAGING"); v && *v) {
    std::string staging = v;
    if (staging != "0" && staging != "1")
      return invalidArgument("XPU_VULKAN_STAGING='" + staging + "' is not one of: 0, 1");
    s.vulkanStaging = staging == "1";
  }
  if (const char *v = std::getenv("XPU_TILE_TIERS_OFF"); v && *v) {
    // The tiers of src/runtime/tile_tiering.cpp that a device may offer.
    static const char *known[] = {"wgmma", "mma.sync", "dot4", "mfma", "wmma",
                                  "cooperative-matrix", "cooperative-matrix-workgroup"};
    std::string list = v;
    for (size_t at = 0; at <= list.size();) {
      size_t end = std::min(list.find(',', at), list.size());
      std::string name = list.substr(at, end - at);
      if (std::find(std::begin(known), std::end(known), name) == std::end(known))
        return invalidArgument("XPU_TILE_TIERS_OFF: '" + name +
                               "' is not one of: wgmma, mma.sync, dot4, mfma, wmma, "
                               "cooperative-matrix, cooperative-matrix-workgroup");
      at = end + 1;
    }
    s.tileTiersOff = list;
  }
  if (const char *v = std::getenv("XPU_TILE_EMULATE"); v && *v) {
    std::string tier = v;
    if (tier != "mfma" && tier != "wmma" && tier != "cooperative-matrix" &&
        tier != "cooperative-matrix-workgroup")
      return invalidArgument("XPU_TILE_EMULATE='" + tier +
                             "' is not one of: mfma, wmma, cooperative-matrix, "
                             "cooperative-matrix-workgroup");
    s.tileEmulate = tier;
  }
  if (const char *v = std::getenv("XPU_TILE_SPECIALIZE"); v && *v) {
    std::string which = v;
    if (which != "workgroup" && which != "all" && which != "off")
      return invalidArgument("XPU_TILE_SPECIALIZE='" + which +
                             "' is not one of: workgroup, all, off");
    s.tileSpecialize = which;
  }
  if (const char *v = std::getenv("XPU_TILE_SPLIT"); v && *v) {
    std::string which = v;
    if (which != "on" && which != "off")
      return invalidArgument("XPU_TILE_SPLIT='" + which + "' is not one of: on, off");
    s.tileSplit = which == "on";
  }
  if (const char *v = std::getenv("XPU_SCHEDULER"); v && *v) {
    std::string mode = v;
    if (mode != "on" && mode != "bypass")
      return invalidArgument("XPU_SCHEDULER='" + mode + "' is not one of: on, bypass");
    s.schedulerBypass = mode == "bypass";
  }
  XPU_RETURN_IF_ERROR(readCalibrationSettings(s));
  return readCacheSettings(s);
}

Status settings(const Settings *&out) {
  static Settings s;
  static Status st;
  static std::once_flag once;
  std::call_once(once, [] { st = readSettings(s); });
  out = &s;
  return st;
}

bool tileSplit() {
  const Settings *config = nullptr;
  return settings(config).isOk() && config->tileSplit;
}

std::string tileSpecialization() {
  const Settings *config = nullptr;
  return settings(config).isOk() && !config->tileSpecialize.empty() ? config->tileSpecialize
                                                                    : "workgroup";
}

} // namespace xpu::rt
