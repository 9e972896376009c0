// A main() for the fuzz targets in builds without libFuzzer: runs every file
// named on the command line, or found under a named directory, through
// LLVMFuzzerTestOneInput once. CTest runs the seed corpus and the kept
// crash inputs this way in every build.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
// Targets that have set-up define it; libFuzzer calls it once before the
// inputs, and so does this main.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

namespace fs = std::filesystem;

static void runFile(const fs::path &path, size_t &count) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  std::fprintf(stderr, "input %s (%zu bytes)\n", path.c_str(), bytes.size());
  // A copy of exactly the input's size, so that reads past it are caught.
  std::vector<uint8_t> exact(bytes);
  LLVMFuzzerTestOneInput(exact.data(), exact.size());
  ++count;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path p = argv[i];
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (const auto &e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file())
          files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const fs::path &f : files)
        runFile(f, count);
    } else if (fs::is_regular_file(p, ec)) {
      runFile(p, count);
    } else {
      std::fprintf(stderr, "no such input: %s\n", argv[i]);
      return 1;
    }
  }
  std::printf("ran %zu inputs\n", count);
  return count ? 0 : 1;
}
