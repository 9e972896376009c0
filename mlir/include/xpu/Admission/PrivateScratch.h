// Admission rule XPU-PT005 (every profile): the private scratch one
// invocation needs — its kernel's private xpu.alloc and those of the device
// functions it calls — is at most kMaxPrivateScratchBytes. Private scratch
// lives on the invocation's stack (a 256 KiB fiber on the CPU, local or
// scratch memory on a GPU); more overflowed it and killed the process.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

/// 64 KiB: a quarter of the CPU's fiber stack, inside what CUDA local
/// memory (512 KiB per thread) and AMD scratch give one invocation.
inline constexpr uint64_t kMaxPrivateScratchBytes = 64 * 1024;

/// Emits one error at the xpu.alloc that takes the total past the limit.
mlir::LogicalResult verifyPrivateScratch(KernelOp kernel);

} // namespace xpu
