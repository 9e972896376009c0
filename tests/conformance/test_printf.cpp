// Conformance: printf in kernels, the same on every backend: each record
// printed exactly (values of every width, flags, widths, precisions) when
// the stream synchronizes; printing from a device function; a full print
// buffer reported with the number of records dropped, never silently; and
// deterministic-v1 refusing it.
#include "surface.h"
#include "surface_kernels.h"

#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <sstream>

using namespace conf;
using namespace conf::surface;

TEST_SUITE_BEGIN("surface");

namespace {

/// Captures what the process writes to standard output between start and
/// the destructor's end (the runtime prints records there at sync).
class CapturedStdout {
public:
  CapturedStdout() {
    std::fflush(stdout);
    file = std::tmpfile();
    REQUIRE(file);
    saved = dup(1);
    dup2(fileno(file), 1);
  }
  std::string finish() {
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    std::rewind(file);
    std::string text;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;)
      text.append(buf, n);
    std::fclose(file);
    return text;
  }

private:
  FILE *file = nullptr;
  int saved = -1;
};

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}


std::string cFormat(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

} // namespace

TEST_CASE("printf prints every record exactly at synchronization, from kernels and helpers") {
  if (!capabilityAvailable("i64.arith") || !capabilityAvailable("f64.arith")) {
    MESSAGE("SKIP: " << target().name << " has no 64-bit arithmetic");
    return;
  }
  Module m(kPrinting);
  const uint32_t n = 777;
  auto a = randomInts<int32_t>(n, INT32_MIN, INT32_MAX);
  auto b = randomInts<int64_t>(n, INT64_MIN, INT64_MAX);
  auto f = randomFloats(n, -1000, 1000);
  std::vector<double> d(n);
  for (auto &x : d)
    x = double(randomFloats(1, -1, 1)[0]) * 1e30;
  Buffer ba = Buffer::from(a), bb = Buffer::from(b), bf = Buffer::from(f), bd = Buffer::from(d);
  CapturedStdout capture;
  uint32_t grid[3] = {(n + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  xpu_arg args[] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
                    xpu_arg_buffer(bf.handle), xpu_arg_buffer(bd.handle), xpu_arg_u32(n)};
  xpu_status launched = xpu_launch(m.kernel("printing"), nullptr, grid, block, args, 5);
  xpu_status synced = xpu_stream_synchronize(defaultStream());
  std::vector<std::string> got = lines(capture.finish());
  XPU_OK(launched);
  XPU_OK(synced);
  std::vector<std::string> want;
  for (uint32_t i = 0; i < n; ++i) {
    want.push_back(cFormat("#%d a=%d u=%u x=%08X b=%lld s=%d bool=%d f=%.4f g=%g 100%%", int(i),
                           a[i], uint32_t(a[i]), uint32_t(a[i]), (long long)b[i],
                           int(int8_t(a[i])), int(a[i] < int32_t(i)), double(f[i]), d[i]));
    want.push_back(cFormat("helper %d: %.6e", int(i), d[i]));
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  REQUIRE(got.size() == want.size());
  size_t bad = 0;
  for (size_t k = 0; k < got.size(); ++k)
    if (got[k] != want[k] && bad++ < 5)
      FAIL_CHECK("'" << got[k] << "' != '" << want[k] << "'");
  CHECK(bad == 0);
}

TEST_CASE("a full print buffer drops records and says how many, never silently") {
  Module m(R"(
    xpu.kernel @flood(%n: i32) {
      %g = xpu.global_id x
      %i = arith.index_cast %g : index to i32
      xpu.printf "%d\n"(%i) : i32
      xpu.return
    })");
  // Records of 2 words: the buffer holds (1 MiB / 4 - 4) / 2 of them.
  const uint32_t fit = ((1u << 20) / 4 - 4) / 2, launched = fit + 4321;
  CapturedStdout capture;
  uint32_t grid[3] = {(launched + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  uint32_t total = grid[0] * 256;
  xpu_arg args[] = {xpu_arg_u32(total)};
  xpu_status st = xpu_launch(m.kernel("flood"), nullptr, grid, block, args, 1);
  xpu_status synced = xpu_stream_synchronize(defaultStream());
  std::vector<std::string> got = lines(capture.finish());
  XPU_OK(st);
  XPU_OK(synced);
  REQUIRE(got.size() == fit + 1);
  std::string note = got.back();
  INFO(note);
  CHECK(note.find(std::to_string(total - fit) + " printf records were dropped") !=
        std::string::npos);
  CHECK(note.find("'flood'") != std::string::npos);
  // The records that fit are whole, and each invocation at most once.
  std::vector<char> seen(total, 0);
  for (size_t k = 0; k + 1 < got.size(); ++k) {
    long v = std::strtol(got[k].c_str(), nullptr, 10);
    REQUIRE(v >= 0);
    REQUIRE(v < long(total));
    CHECK(seen[v]++ == 0);
  }
}

TEST_CASE("printf is refused by deterministic-v1 (XPU-GC012: a host effect) and checked") {
  auto check = checkSays;
  check(R"(
    xpu.kernel @k(%out: !xpu.buffer<64xi32>) attributes {profile = "deterministic-v1",
        workgroup_size = array<i64: 64>, grid_size = array<i64: 1>} {
      %c = arith.constant 1 : i32
      xpu.printf "%d\n"(%c) : i32
      xpu.return
    })", XPU_ERROR_REFUSED, "XPU-GC012");
  check(R"(
    xpu.kernel @k(%v: f32) {
      xpu.printf "%d %s\n"(%v) : f32
      xpu.return
    })", XPU_ERROR_PARSE, "'%s'");
  check(R"(
    xpu.kernel @k(%v: f32) {
      xpu.printf "%d\n"(%v) : f32
      xpu.return
    })", XPU_ERROR_PARSE, "takes an integer");
}

TEST_SUITE_END();
