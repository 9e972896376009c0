// Entry files; see entry.h.
#include "entry.h"

#include <cstring>

namespace xpu::cache {

namespace {

constexpr char kMagic[8] = {'X', 'P', 'U', 'C', 'A', 'C', 'H', 'E'};

void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
uint32_t get32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(p[i]) << (8 * i);
  return v;
}
uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

} // namespace

const char *entryKindName(EntryKind kind) {
  return kind == EntryKind::kernel ? "kernel" : "source";
}

std::string entryFileName(EntryKind kind, const Key &key, uint32_t version) {
  return key.hex() + (kind == EntryKind::kernel ? ".k" : ".s") +
         std::to_string(version);
}

std::optional<EntryName> parseEntryFileName(std::string_view name) {
  if (name.size() < 35 || name[32] != '.' ||
      (name[33] != 'k' && name[33] != 's'))
    return std::nullopt;
  std::string_view digits = name.substr(34);
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos ||
      digits[0] == '0')
    return std::nullopt;
  auto key = Key::fromHex(name.substr(0, 32));
  if (!key)
    return std::nullopt;
  return EntryName{name[33] == 'k' ? EntryKind::kernel : EntryKind::source, *key,
                   uint32_t(std::stoul(std::string(digits)))};
}

std::vector<uint8_t> encodeEntry(EntryKind kind, const Key &key,
                                 const std::vector<uint8_t> &payload) {
  std::vector<uint8_t> out(kHeaderBytes + payload.size());
  uint8_t *h = out.data();
  std::memcpy(h, kMagic, 8);
  put32(h + 8, kFormatVersion);
  put32(h + 12, uint32_t(kind));
  std::memcpy(h + 16, key.bytes, 16);
  put64(h + 32, payload.size());
  put64(h + 40, checksum(payload.data(), payload.size()));
  if (!payload.empty())
    std::memcpy(h + kHeaderBytes, payload.data(), payload.size());
  return out;
}

std::string decodeEntry(std::vector<uint8_t> &file, EntryKind kind,
                        const Key &key, std::vector<uint8_t> &payload) {
  if (file.size() < kHeaderBytes)
    return "truncated header (" + std::to_string(file.size()) + " bytes)";
  const uint8_t *h = file.data();
  if (std::memcmp(h, kMagic, 8) != 0)
    return "not a cache entry (bad magic)";
  if (uint32_t v = get32(h + 8); v != kFormatVersion)
    return "format version " + std::to_string(v) + ", expected " +
           std::to_string(kFormatVersion);
  if (get32(h + 12) != uint32_t(kind))
    return "wrong entry kind";
  if (std::memcmp(h + 16, key.bytes, 16) != 0)
    return "key in the header does not match the file name";
  uint64_t length = get64(h + 32);
  if (length != file.size() - kHeaderBytes)
    return "payload length " + std::to_string(length) + " but " +
           std::to_string(file.size() - kHeaderBytes) + " bytes present";
  if (get64(h + 40) != checksum(h + kHeaderBytes, length))
    return "payload checksum mismatch";
  file.erase(file.begin(), file.begin() + kHeaderBytes);
  payload = std::move(file);
  return "";
}

} // namespace xpu::cache
