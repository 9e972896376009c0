// Admission of the launch shape a kernel fixes. A `workgroup_size` or
// `grid_size` extent that no launch can pass — below 1, a grid extent above
// what xpu_launch's uint32 extents hold, a workgroup extent or product
// above the 1,024 invocations every backend limits a workgroup to — is
// refused with XPU-PT002 at the kernel, in every profile (deterministic-v1
// refuses tighter shapes first, with XPU-GC006). Without this, such a
// shape reaches range inference and the launch record truncated.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace xpu {

/// Emits the error and fails when `kernel` fixes an extent no launch can pass.
mlir::LogicalResult verifyFixedExtents(KernelOp kernel);

} // namespace xpu
