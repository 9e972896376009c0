// Cache keys: XXH3-128 digests over everything that changes generated code.
// Every field is hashed with its length, so no two different inputs can
// produce the same byte stream.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace xpu::cache {

struct Key {
  uint8_t bytes[16] = {};
  bool operator==(const Key &o) const { return std::memcmp(bytes, o.bytes, 16) == 0; }
  bool operator!=(const Key &o) const { return !(*this == o); }
  /// 32 lowercase hex digits.
  std::string hex() const;
  static std::optional<Key> fromHex(std::string_view text);
};

struct KeyHash {
  size_t operator()(const Key &k) const {
    size_t h;
    std::memcpy(&h, k.bytes, sizeof h);
    return h;
  }
};

/// What a device compiles for, as text. The runtime fills one per device
/// (src/runtime/cache_key.cpp); every field here goes into every key.
struct Environment {
  std::string library;   ///< library version and build id
  std::string pipeline;  ///< lowering pipeline version (bumped by hand)
  std::string llvm;      ///< LLVM version the library embeds
  std::string target;    ///< kind, triple, chip, features, wave width
  std::string toolchain; ///< e.g. "LLVM 22.1.8", "ptxas 13.0"
  std::string device;    ///< backend, name, vendor, arch, driver version
};

/// Digest of an Environment, computed once per device.
Key environmentDigest(const Environment &env);

/// The key of a compiled module: the canonical IR after admission (no
/// locations, no parameter names), compile options and the environment.
Key contentKey(const Key &environment, std::string_view options,
               std::string_view canonicalIR);

/// The key of one exact source text: the shortcut from text to a content
/// entry without running the front end. `sourceName` and `deviceChoice`
/// (how the device was chosen and which one it is: admission checks a
/// kernel's `device` against it) change what the front end reports, so
/// they are part of it.
Key sourceKey(const Key &environment, std::string_view options,
              std::string_view sourceName, std::string_view deviceChoice,
              std::string_view text);

/// XXH3-64 of `bytes` (entry checksums).
uint64_t checksum(const void *bytes, size_t size);

} // namespace xpu::cache
