// Runs one workgroup of a CPU kernel: a single call for kernels without
// barriers, or one fiber per invocation, switched at each barrier, for
// kernels with them.
#pragma once

#include "xpu/KernelABI.h"

#include <cstdint>

namespace xpu::cpu {

using GroupEntry = void (*)(const uint8_t *args, abi::CpuLaunch *launch);
using ItemEntry = void (*)(const uint8_t *args, abi::CpuLaunch *launch,
                           uint32_t tx, uint32_t ty, uint32_t tz);

/// Runs every invocation of `launch->wg` with `item`, switching between them
/// at barriers. Returns false if the workgroup needs more fibers than the
/// runner can make (out of memory).
bool runWithFibers(ItemEntry item, const uint8_t *args, abi::CpuLaunch *launch);

} // namespace xpu::cpu

/// Called by generated code at xpu.barrier (abi::kCpuBarrierSymbol).
extern "C" void __xpu_cpu_barrier(xpu::abi::CpuLaunch *launch);
