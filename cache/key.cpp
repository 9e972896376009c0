// Cache keys; see key.h.
#include "key.h"

#define XXH_INLINE_ALL // header-only: no run-time dependency on libxxhash
#include <xxhash.h>

namespace xpu::cache {

namespace {

/// Streams length-prefixed fields into one XXH3-128 state.
class Hasher {
public:
  Hasher() { XXH3_128bits_reset(&state); }
  Hasher &add(std::string_view field) {
    uint64_t n = field.size();
    XXH3_128bits_update(&state, &n, sizeof n);
    XXH3_128bits_update(&state, field.data(), field.size());
    return *this;
  }
  Hasher &add(const Key &k) {
    return add(std::string_view(reinterpret_cast<const char *>(k.bytes), 16));
  }
  Key finish() {
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&state));
    Key k;
    std::memcpy(k.bytes, c.digest, 16);
    return k;
  }

private:
  XXH3_state_t state;
};

} // namespace

std::string Key::hex() const {
  static const char digits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[2 * i] = digits[bytes[i] >> 4];
    s[2 * i + 1] = digits[bytes[i] & 15];
  }
  return s;
}

std::optional<Key> Key::fromHex(std::string_view text) {
  if (text.size() != 32)
    return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    return -1;
  };
  Key k;
  for (int i = 0; i < 16; ++i) {
    int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    k.bytes[i] = uint8_t(hi << 4 | lo);
  }
  return k;
}

Key environmentDigest(const Environment &env) {
  return Hasher()
      .add("xpujit-environment")
      .add(env.library)
      .add(env.pipeline)
      .add(env.llvm)
      .add(env.target)
      .add(env.toolchain)
      .add(env.device)
      .finish();
}

Key contentKey(const Key &environment, std::string_view options,
               std::string_view canonicalIR) {
  return Hasher()
      .add("xpujit-content")
      .add(environment)
      .add(options)
      .add(canonicalIR)
      .finish();
}

Key sourceKey(const Key &environment, std::string_view options,
              std::string_view sourceName, std::string_view deviceChoice,
              std::string_view text) {
  return Hasher()
      .add("xpujit-source")
      .add(environment)
      .add(options)
      .add(sourceName)
      .add(deviceChoice)
      .add(text)
      .finish();
}

uint64_t checksum(const void *bytes, size_t size) {
  return XXH3_64bits(bytes, size);
}

} // namespace xpu::cache
