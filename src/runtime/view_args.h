// Launch arguments of memref parameters (kernels imported from the gpu
// dialect): a view is checked against what the parameter's memref type
// fixes, and gives the values of the layout parameters the import added.
#pragma once

#include "runtime/status.h"
#include "xpu/KernelABI.h"
#include "xpu_c.h"

#include <cstdint>

namespace xpu::rt {

/// A checked view: the element offset, sizes and strides the kernel's
/// layout parameters receive.
struct ViewValues {
  int64_t offset = 0;
  int64_t sizes[abi::kMaxViewRank] = {}, strides[abi::kMaxViewRank] = {};
};

/// Checks `view` against `layout` for elements of `elemBytes` bytes in a
/// buffer of `bufferBytes` bytes. The message of a failure says what does
/// not fit; the caller names the parameter.
Status checkView(const abi::ViewLayout &layout, unsigned elemBytes,
                 const xpu_view &view, uint64_t bufferBytes, ViewValues &out);

/// The view a plain buffer of `bufferBytes` stands for, where `layout`
/// lets the buffer alone fix it (rank 0 or 1 identity; static shapes).
bool viewOfBuffer(const abi::ViewLayout &layout, unsigned elemBytes,
                  uint64_t bufferBytes, xpu_view &out);

struct DeviceObj;
struct KernelObj;
struct Program;

/// Fills what the launch needs to know about `kernel` (of `program`)
/// beyond its slots: which parameters are launch arguments, where each
/// parameter's slots begin, and how much dynamic shared memory it may get.
void describeArguments(DeviceObj &device, const Program &program, KernelObj &kernel);

/// "memref<?x4xf32, strided<[?, 1], offset: ?>>" for messages.
std::string describeLayout(const abi::ViewLayout &layout, abi::Scalar elem);

} // namespace xpu::rt
