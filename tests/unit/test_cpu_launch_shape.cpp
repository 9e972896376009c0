// The workgroup shape the CPU runs shape-blind kernels in
// (backends/cpu/launch_shape.h): it must cover exactly the launch's global
// index space, stay within the workgroup limit, and keep enough workgroups
// for the threads.
#include "backends/cpu/launch_shape.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>

using xpu::cpu::chooseCpuShape;

namespace {

struct Shape {
  uint32_t grid[3], block[3];
};

Shape chosen(Shape s, unsigned threads) {
  chooseCpuShape(s.grid, s.block, threads);
  return s;
}

uint64_t groups(const Shape &s) { return uint64_t(s.grid[0]) * s.grid[1] * s.grid[2]; }

void checkCovers(const Shape &from, unsigned threads) {
  Shape to = chosen(from, threads);
  uint64_t invocations = uint64_t(to.block[0]) * to.block[1] * to.block[2];
  CHECK(invocations >= 1);
  CHECK(invocations <= xpu::cpu::kMaxWorkgroupInvocations);
  for (int d = 0; d < 3; ++d)
    CHECK(uint64_t(to.grid[d]) * to.block[d] == uint64_t(from.grid[d]) * from.block[d]);
  CHECK(groups(to) >= std::min(groups(from), xpu::cpu::kMinGroupsPerThread * threads));
  CHECK(to.block[0] >= from.block[0]);
}

} // namespace

TEST_CASE("cpu launch shape: a 2-D tiled launch becomes rows along x") {
  Shape s = chosen({{128, 2048 / 16, 1}, {16, 16, 1}}, 2);
  CHECK(s.block[0] == 1024);
  CHECK(s.block[1] == 1);
  CHECK(s.grid[0] == 2);
  CHECK(s.grid[1] == 2048);
  checkCovers({{128, 128, 1}, {16, 16, 1}}, 2);
}

TEST_CASE("cpu launch shape: short rows take several rows of y") {
  Shape s = chosen({{4, 64, 1}, {16, 16, 1}}, 2);
  CHECK(s.block[0] == 64);
  CHECK(s.block[0] * s.block[1] <= 1024);
  CHECK(s.block[1] > 1);
  checkCovers({{4, 64, 1}, {16, 16, 1}}, 2);
}

TEST_CASE("cpu launch shape: what cannot grow stays as it is") {
  // One invocation; a prime number of groups; a block at the limit.
  for (Shape s : {Shape{{1, 1, 1}, {1, 1, 1}}, Shape{{127, 1, 1}, {16, 1, 1}},
                  Shape{{64, 1, 1}, {1024, 1, 1}}}) {
    Shape t = chosen(s, 2);
    for (int d = 0; d < 3; ++d) {
      CHECK(t.grid[d] == s.grid[d]);
      CHECK(t.block[d] == s.block[d]);
    }
  }
}

TEST_CASE("cpu launch shape: random launches keep their index space") {
  std::mt19937 rng(std::random_device{}());
  auto pick = [&](uint32_t hi) { return std::uniform_int_distribution<uint32_t>(1, hi)(rng); };
  for (int i = 0; i < 2000; ++i) {
    Shape s{{pick(4096), pick(64), pick(8)}, {pick(64), pick(16), 1}};
    while (uint64_t(s.block[0]) * s.block[1] > 1024)
      s.block[1] = 1;
    checkCovers(s, pick(16));
  }
}
