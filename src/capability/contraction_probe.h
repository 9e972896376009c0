// A toolchain-semantic measurement taken on each device: does the whole
// toolchain (our lowering, LLVM, ptxas or the driver's compiler) keep a
// multiply and an add apart when the kernel does not permit contraction?
#pragma once

#include "capability/capability.h"
#include "runtime/backend.h"

namespace xpu::cap {

/// Runs out[i] = a[i]*b[i] + c[i] on `device`, with inputs for which a fused
/// multiply-add rounds differently, and compares every result with the
/// unfused host computation. The fact is available when all match,
/// unavailable when the toolchain contracted, unknown when the probe could
/// not run — with what happened as evidence.
/// `permitContraction` compiles the probe as a fast-math kernel instead, so
/// tests can show the probe detects a contracting toolchain.
Fact measureContraction(rt::Device &device, bool permitContraction = false);

} // namespace xpu::cap
