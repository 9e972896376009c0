// The on-disk form of one cache entry: a fixed header followed by the
// payload, in one file. The header names the entry's kind and full key and
// carries the payload's length and checksum, so a torn, truncated, flipped
// or misplaced file is recognized and never used.
#pragma once

#include "key.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xpu::cache {

/// What an entry holds. A kernel entry is a compiled module (blob and the
/// kernel descriptions it was compiled with), named by its content key. A
/// source entry maps one exact source text to a content key, named by its
/// source key.
enum class EntryKind : uint32_t { kernel = 1, source = 2 };

const char *entryKindName(EntryKind kind);

/// Bumped whenever the header or a payload encoding changes.
constexpr uint32_t kFormatVersion = 2;

/// "<32 hex digits>.k1" (kernel) or ".s1" (source); the digit is the format
/// version, so libraries with different formats can share a directory
/// without reading (or removing) each other's entries.
std::string entryFileName(EntryKind kind, const Key &key,
                          uint32_t version = kFormatVersion);

struct EntryName {
  EntryKind kind;
  Key key;
  uint32_t version;
};
/// The inverse of entryFileName; nullopt for any other name.
std::optional<EntryName> parseEntryFileName(std::string_view name);

/// Little-endian layout: magic "XPUCACHE", u32 format version, u32 kind,
/// key[16], u64 payload length, u64 payload XXH3-64.
constexpr size_t kHeaderBytes = 48;

/// Header + payload, ready to be written.
std::vector<uint8_t> encodeEntry(EntryKind kind, const Key &key,
                                 const std::vector<uint8_t> &payload);

/// Checks the header against what the reader expects and the payload
/// against its length and checksum. On success returns "" and moves the
/// payload out of `file`; otherwise returns what is wrong.
std::string decodeEntry(std::vector<uint8_t> &file, EntryKind kind,
                        const Key &key, std::vector<uint8_t> &payload);

} // namespace xpu::cache
