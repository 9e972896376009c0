// Launch arguments of memref parameters; see view_args.h.
#include "runtime/view_args.h"
#include "runtime/compiler.h"
#include "runtime/objects.h"

#include <string>

namespace xpu::rt {

namespace {

std::string extent(int64_t v) {
  return v == abi::kDynamicExtent ? "?" : std::to_string(v);
}

} // namespace

std::string describeLayout(const abi::ViewLayout &layout, abi::Scalar elem) {
  std::string s = "memref<";
  for (unsigned d = 0; d < layout.rank; ++d)
    s += extent(layout.sizes[d]) + "x";
  s += abi::scalarName(elem);
  if (!layout.identity) {
    s += ", strided<[";
    for (unsigned d = 0; d < layout.rank; ++d)
      s += (d ? ", " : "") + extent(layout.strides[d]);
    s += "], offset: " + extent(layout.offset) + ">";
  }
  return s + ">";
}

Status checkView(const abi::ViewLayout &layout, unsigned elemBytes,
                 const xpu_view &view, uint64_t bufferBytes, ViewValues &out) {
  auto bad = [](const std::string &why) {
    return Status{XPU_ERROR_ARGUMENT_MISMATCH, why};
  };
  if (view.rank != layout.rank)
    return bad("the view has rank " + std::to_string(view.rank) + ", the memref " +
               std::to_string(layout.rank));
  if (view.byte_offset % elemBytes)
    return bad("the view's byte offset " + std::to_string(view.byte_offset) +
               " is not a multiple of the element size " + std::to_string(elemBytes));
  if (view.byte_offset > uint64_t(INT64_MAX))
    return bad("the view's byte offset is out of range");
  out.offset = int64_t(view.byte_offset / elemBytes);
  if (layout.offset != abi::kDynamicExtent && out.offset != layout.offset)
    return bad("the view starts at element " + std::to_string(out.offset) +
               "; the memref type fixes its offset at " + std::to_string(layout.offset) +
               " (a strided layout with offset: ? takes any)");
  bool empty = false;
  for (unsigned d = 0; d < layout.rank; ++d) {
    int64_t size = view.sizes[d];
    if (size < 0)
      return bad("size " + std::to_string(d) + " of the view is negative");
    if (layout.sizes[d] != abi::kDynamicExtent && size != layout.sizes[d])
      return bad("size " + std::to_string(d) + " of the view is " + std::to_string(size) +
                 "; the memref type fixes it at " + std::to_string(layout.sizes[d]));
    empty |= size == 0;
    out.sizes[d] = size;
    out.strides[d] = view.strides[d];
  }
  // Strides matter only where a dimension has two elements or more.
  int64_t rowMajor = 1;
  for (unsigned d = layout.rank; d-- > 0;) {
    int64_t want = layout.identity ? rowMajor : layout.strides[d];
    if (want != abi::kDynamicExtent && out.sizes[d] > 1 && out.strides[d] != want)
      return bad("stride " + std::to_string(d) + " of the view is " +
                 std::to_string(out.strides[d]) + "; the memref type needs " +
                 std::to_string(want) +
                 (layout.identity ? " (an identity layout is row-major)" : ""));
    if (__builtin_mul_overflow(rowMajor, std::max<int64_t>(out.sizes[d], 1), &rowMajor))
      return bad("the view's sizes overflow");
  }
  if (empty)
    return {};
  // The lowest and highest element must lie in the buffer.
  int64_t lo = out.offset, hi = out.offset;
  for (unsigned d = 0; d < layout.rank; ++d) {
    int64_t reach;
    if (__builtin_mul_overflow(out.sizes[d] - 1, out.strides[d], &reach) ||
        __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
      return bad("the view's extent overflows");
  }
  uint64_t count = bufferBytes / elemBytes;
  if (lo < 0 || uint64_t(hi) >= count)
    return bad("the view reaches elements " + std::to_string(lo) + " to " +
               std::to_string(hi) + "; the buffer holds " + std::to_string(count));
  return {};
}

bool viewOfBuffer(const abi::ViewLayout &layout, unsigned elemBytes,
                  uint64_t bufferBytes, xpu_view &out) {
  out = xpu_view{};
  out.rank = layout.rank;
  if (!layout.identity)
    return false;
  uint64_t count = bufferBytes / elemBytes;
  if (layout.rank == 1 && layout.sizes[0] == abi::kDynamicExtent) {
    out.sizes[0] = int64_t(count);
    out.strides[0] = 1;
    return true;
  }
  int64_t stride = 1;
  for (unsigned d = layout.rank; d-- > 0;) {
    if (layout.sizes[d] == abi::kDynamicExtent)
      return false;
    out.sizes[d] = layout.sizes[d];
    out.strides[d] = stride;
    stride *= layout.sizes[d];
  }
  return true;
}

namespace {

bool usesDynamicShared(const abi::KernelInfo &k) {
  for (const abi::Param &p : k.params)
    if (p.role == abi::Role::dynamicSharedBytes)
      return true;
  return k.minDynamicSharedBytes > 0;
}

} // namespace

void describeArguments(DeviceObj &device, const Program &program, KernelObj &kernel) {
  const abi::KernelInfo &info = *kernel.info;
  kernel.arguments = abi::argumentParams(info);
  kernel.firstSlot.clear();
  uint32_t slot = 0;
  for (const abi::Param &p : info.params) {
    kernel.firstSlot.push_back(slot);
    slot += p.isBuffer ? 2 : 1;
  }
  const cap::Fact &shared =
      device.device->capabilities()[size_t(Capability::sharedMemory)];
  uint64_t limit = shared.limit.value_or(0);
  // Vulkan fixes one dynamic array per module: the limit less the largest
  // static shared memory of the module's kernels that use it (as
  // populateInteropToSPIRVPatterns sizes it).
  uint64_t used = info.sharedBytes;
  // The code's own figure where the compiler left one: a tile tier lays
  // out its shared memory otherwise than the description counted, and
  // on CUDA a kernel's own dynamic shared memory comes first.
  for (size_t i = 0; i < program.kernels.size() && i < program.blob.footprints.size(); ++i)
    if (program.kernels[i] == kernel.info) {
      const abi::Footprint &f = program.blob.footprints[i];
      used = std::max(f.sharedBytes.known ? f.sharedBytes.value : used, f.launchSharedBytes);
    }
  if (device.device->identity().backend == XPU_BACKEND_VULKAN)
    for (const auto &k : program.kernels)
      if (usesDynamicShared(*k))
        used = std::max(used, k->sharedBytes);
  kernel.dynamicSharedCapacity = limit > used ? limit - used : 0;
}

} // namespace xpu::rt
