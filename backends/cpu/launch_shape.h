// The workgroup shape the CPU runs a kernel in when the kernel cannot tell
// workgroup shapes apart (abi::kCpuAnyShapeAttr): one workgroup is one call
// of its loops, so long rows along x vectorize and amortize the call, where
// a GPU-style 16x16 tile gives loops of one vector.
#pragma once

#include <cstdint>

namespace xpu::cpu {

/// Replaces (grid, block) by a shape with the same per-axis products
/// grid[d] * block[d]: a block as long along x as divides the x extent,
/// up to 1,024 invocations, then rows of y while they fit, keeping at
/// least kMinGroupsPerThread workgroups per thread where the launch had
/// them. Leaves the shape as it is when it finds no longer x loop.
void chooseCpuShape(uint32_t grid[3], uint32_t block[3], unsigned threads);

/// Most invocations of a CPU workgroup (DeviceIdentity::maxWorkgroupSize):
/// kMaxWorkgroupExtent, the limit the compiler's range facts and context
/// arrays assume (XPUDialect.h).
constexpr uint64_t kMaxWorkgroupInvocations = 1024;

/// Workgroups per thread the chosen shape keeps, for load balance.
constexpr uint64_t kMinGroupsPerThread = 8;

} // namespace xpu::cpu
