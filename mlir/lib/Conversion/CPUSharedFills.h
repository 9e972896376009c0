// Shared scratch fills that no invocation can observe. See
// CPUSharedFills.cpp.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

/// Erases the cooperative zero fill (xpu-zero-scratch) of each shared
/// buffer that every invocation overwrites, one element each, before any
/// invocation reads it. Call before region formation.
void dropOverwrittenSharedFills(KernelOp kernel);

} // namespace xpu
