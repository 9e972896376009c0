// See launch_shape.h.
#include "launch_shape.h"

#include <algorithm>

namespace xpu::cpu {

namespace {

/// The largest multiple m * unit of `unit` that divides `extent`, with
/// m * unit <= limit and extent / (m * unit) * others >= minGroups; 0 when
/// there is none above `unit` itself. The candidates are multiples of
/// `unit`, so the search is short for GPU-sized blocks.
uint64_t longestDivisor(uint64_t extent, uint64_t unit, uint64_t limit, uint64_t others,
                        uint64_t minGroups) {
  for (uint64_t m = std::min(limit, extent) / unit; m >= 2; --m) {
    uint64_t d = m * unit;
    if (extent % d == 0 && extent / d * others >= minGroups)
      return d;
  }
  return 0;
}

} // namespace

void chooseCpuShape(uint32_t grid[3], uint32_t block[3], unsigned threads) {
  const uint64_t limit = kMaxWorkgroupInvocations;
  uint64_t extent[3];
  for (int d = 0; d < 3; ++d)
    extent[d] = uint64_t(grid[d]) * block[d];
  uint64_t groups = uint64_t(grid[0]) * grid[1] * grid[2];
  // Keep the launch's parallelism where it had less than the target.
  uint64_t minGroups = std::min(groups, kMinGroupsPerThread * std::max(1u, threads));
  uint64_t x = longestDivisor(extent[0], block[0], limit, extent[1] * extent[2], minGroups);
  if (!x)
    return;
  uint64_t y = longestDivisor(extent[1], 1, limit / x, extent[0] / x * extent[2], minGroups);
  if (!y)
    y = 1;
  uint64_t shape[3] = {x, y, 1};
  for (int d = 0; d < 3; ++d) {
    block[d] = uint32_t(shape[d]);
    grid[d] = uint32_t(extent[d] / shape[d]);
  }
}

} // namespace xpu::cpu
