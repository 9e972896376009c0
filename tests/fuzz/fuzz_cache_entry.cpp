// Fuzz target: the kernel cache's entry reader. The input is read as an
// entry file's name and contents, as a whole entry file, as a bare payload
// of each kind, and wrapped in a valid header (so that the payload decoders
// see inputs past the checksum). A damaged entry must be an error, never a
// crash or a wrong "good".
#include "cache/entry.h"
#include "cache/payload.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string_view>

using namespace xpu::cache;

namespace {

/// Whatever decodes must encode back to a payload that decodes the same.
template <typename Payload> void roundTrip(const std::vector<uint8_t> &bytes) {
  Payload p;
  if (!decode(bytes, p).empty())
    return;
  std::vector<uint8_t> again = encode(p);
  Payload q;
  if (!decode(again, q).empty() || encode(q) != again) {
    std::fprintf(stderr, "a decoded payload does not survive encoding\n");
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view asName(reinterpret_cast<const char *>(data), size < 64 ? size : 64);
  if (auto name = parseEntryFileName(asName))
    if (parseEntryFileName(entryFileName(name->kind, name->key, name->version))->key !=
        name->key)
      std::abort();

  std::vector<uint8_t> bytes(data, data + size);
  // The key the reader expects is the one the header names (bytes 16-31),
  // so that real entry files in the corpus get past the header check.
  Key key;
  if (size >= 32)
    std::copy(data + 16, data + 32, key.bytes);
  for (EntryKind kind : {EntryKind::kernel, EntryKind::source}) {
    std::vector<uint8_t> file = bytes, payload;
    if (decodeEntry(file, kind, key, payload).empty() && payload.size() > size)
      std::abort(); // a payload longer than the file it came from
    std::vector<uint8_t> wrapped = encodeEntry(kind, key, bytes);
    if (!decodeEntry(wrapped, kind, key, payload).empty() || payload != bytes)
      std::abort(); // a good entry must read back as written
  }
  roundTrip<KernelPayload>(bytes);
  roundTrip<SourcePayload>(bytes);
  return 0;
}
