// Refuses fixed launch shapes no launch can pass; see LaunchExtents.h.
#include "xpu/Admission/LaunchExtents.h"
#include "xpu/KernelABI.h"

using namespace mlir;

namespace xpu {

LogicalResult verifyFixedExtents(KernelOp kernel) {
  auto refuse = [&](const std::string &why) {
    // At the kernel's location (Operation::emitError would add a dump of it).
    emitError(kernel.getLoc()) << "XPU-PT002: kernel '" << kernel.getSymName() << "': " << why;
    return failure();
  };
  if (auto grid = kernel.getGridSize())
    for (auto [axis, e] : llvm::enumerate(*grid))
      if (e < 1 || uint64_t(e) > abi::kMaxGridExtent)
        return refuse("grid extent " + std::to_string(e) + " on axis " +
                      std::to_string(axis) + " is outside 1.." +
                      std::to_string(abi::kMaxGridExtent) +
                      ", the extents a launch can pass");
  if (auto wg = kernel.getWorkgroupSize()) {
    uint64_t product = 1;
    for (auto [axis, e] : llvm::enumerate(*wg)) {
      if (e < 1 || e > kMaxWorkgroupExtent)
        return refuse("workgroup extent " + std::to_string(e) + " on axis " +
                      std::to_string(axis) + " is outside 1.." +
                      std::to_string(kMaxWorkgroupExtent) +
                      ", the workgroups any backend runs");
      product *= uint64_t(e); // at most 1024^3: no wrap
    }
    if (product > uint64_t(kMaxWorkgroupExtent))
      return refuse("a workgroup of " + std::to_string(product) +
                    " invocations exceeds " + std::to_string(kMaxWorkgroupExtent) +
                    ", the most any backend runs");
  }
  return success();
}

} // namespace xpu
