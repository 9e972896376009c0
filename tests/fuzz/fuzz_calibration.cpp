// Fuzz target: the calibration readers. XPU_CALIBRATION names a snapshot
// file from outside the library, and a store's record files can be damaged,
// so the input is read as a snapshot and as one record. A file that does not
// check out must be refused (or its records rejected), never crash; what is
// accepted must encode back to a document that reads the same.
#include "calibration/record.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace xpu::cal;

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);

  std::vector<Record> records;
  unsigned rejected = 0;
  if (decodeSnapshot(text, records, rejected).empty()) {
    std::string again = encodeSnapshot(records);
    std::vector<Record> back;
    unsigned rejectedAgain = 0;
    if (!decodeSnapshot(again, back, rejectedAgain).empty() || rejectedAgain ||
        encodeSnapshot(back) != again)
      fail("an accepted snapshot does not survive encoding");
  }

  Record record;
  if (decode(text, record).empty()) {
    std::string again = encode(record);
    Record back;
    if (!decode(again, back).empty() || encode(back) != again)
      fail("an accepted record does not survive encoding");
  }
  return 0;
}
