// Compute-unit budgets on CUDA (spec §17.8): a green context holding part
// of a device's SMs, and a stream in it. Kernels and memory stay the
// primary context's: a green context is a view of the primary context with
// fewer SMs (cuCtxFromGreenCtx: "a normal primary context but with the
// resources of the specified green context").
#pragma once

#include "cuda_driver.h"

namespace xpu::cuda {

/// What a device's SM resource lets a split give (cuDeviceGetDevResource).
struct SmSplitRules {
  uint32_t smCount = 0;      ///< the device's SMs
  uint32_t minPartition = 0; ///< the fewest SMs one group may have
  uint32_t alignment = 0;    ///< group sizes are multiples of it
};

/// The SMs a split must be asked for to hold `request`: at least the
/// minimum partition and 1, rounded up to the alignment. 0 when that is not
/// less than the device's SMs (no partition would restrict anything).
uint32_t roundSmRequest(uint32_t request, const SmSplitRules &rules);

/// A green context and the one stream xpujit launches into it.
struct GreenStream {
  CUgreenCtx context = nullptr;
  CUstream stream = nullptr;
  uint32_t smCount = 0; ///< the SMs the driver reserved for it
};

/// Makes a green context of at least `request` SMs of `device` (as
/// roundSmRequest rounds it) and a non-blocking stream in it. UNSUPPORTED,
/// naming what is missing, when the driver lacks an entry point or cannot
/// split that many SMs off; the driver's error otherwise.
rt::Status createGreenStream(const Driver &drv, CUdevice device, uint32_t request,
                             GreenStream &out);

/// Destroys the stream, then the green context.
void destroyGreenStream(const Driver &drv, GreenStream &green);

} // namespace xpu::cuda
