// The CPU entry point's "any workgroup shape" mark: a kernel whose results
// do not depend on how its launch cuts the grid into workgroups
// (mlir/lib/Conversion/CPUWorkgroupShape.h). Kept apart from KernelABI.h so
// that its users alone include it.
#pragma once

namespace xpu::abi {

/// Set on such a kernel by xpu-cpu-work-item-loops, carried to its LLVM
/// function.
constexpr const char *kCpuAnyShapeAttr = "xpu.any_workgroup_shape";
/// `k` + this is a u64 constant beside the entry point: 1 when the runtime
/// may launch `k` in any workgroup shape whose per-axis products grid[d] *
/// block[d] are the launch's (backends/cpu/launch_shape.h), else 0.
constexpr const char *kCpuAnyShapeSuffix = ".xpu_any_shape";

} // namespace xpu::abi
