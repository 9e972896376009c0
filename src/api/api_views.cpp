// C API: memref view arguments and what a memref parameter's type fixes
// (kernels imported from the gpu dialect). The launch checks views in
// api_launch.cpp through runtime/view_args.
#include "runtime/objects.h"
#include "runtime/view_args.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

static_assert(xpu::abi::kDynamicExtent == XPU_VIEW_DYNAMIC &&
                  xpu::abi::kMaxViewRank == XPU_VIEW_MAX_RANK,
              "the C API spells the view layout as the kernel ABI does");

using namespace xpu::rt;
namespace abi = xpu::abi;

extern "C" {

XPU_API xpu_arg xpu_arg_view(const xpu_view *view) {
  xpu_arg a{};
  a.kind = XPU_PARAM_VIEW;
  a.v.view = view;
  return a;
}

XPU_API xpu_status xpu_kernel_param_view(xpu_kernel kernel, uint32_t index,
                                         xpu_view_info *out) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  if (!out || out->struct_size < offsetof(xpu_view_info, rank) + sizeof(out->rank))
    return finish(invalidArgument(
        "xpu_kernel_param_view: `out` is NULL or its struct_size too small"));
  if (index >= k->arguments.size())
    return finish({XPU_ERROR_NOT_FOUND,
                   "parameter index " + std::to_string(index) + " out of range"});
  const abi::Param &p = k->info->params[k->arguments[index]];
  if (!p.view)
    return finish(invalidArgument("parameter '" + p.name + "' of kernel '" +
                                  k->info->name + "' is not a memref parameter"));
  xpu_view_info info{};
  info.struct_size = out->struct_size;
  info.rank = p.view->rank;
  info.identity = p.view->identity;
  for (unsigned d = 0; d < XPU_VIEW_MAX_RANK; ++d) {
    info.sizes[d] = d < info.rank ? p.view->sizes[d] : 0;
    info.strides[d] = d < info.rank ? p.view->strides[d] : 0;
  }
  info.offset = p.view->offset;
  std::memcpy(out, &info, std::min<size_t>(out->struct_size, sizeof info));
  return XPU_SUCCESS;
}

} // extern "C"
