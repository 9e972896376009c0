// Submissions (spec §17.8): every launch reaches the device through
// submit(), which applies the submission's window, orders it after other
// streams' work on its buffers, records it into a capture, holds it for
// automatic capture, or enqueues it. XPU_SCHEDULER=bypass enqueues it raw.
#pragma once

#include "runtime/objects.h"

#include <memory>
#include <vector>

namespace xpu::sched {

/// A launch the C API checked and packed (api_launch.cpp).
struct PreparedLaunch {
  rt::LaunchRequest request; ///< request.args points into `args`
  std::vector<uint8_t> args;
  /// The buffer of each buffer parameter, in parameter order.
  std::vector<std::shared_ptr<rt::BufferObj>> buffers;
};

/// Checks `args` against `kernel`'s parameters and the launch shape against
/// its device, and packs them into `out` (defined in api_launch.cpp, the
/// arguments' one checker).
rt::Status prepareLaunch(const std::shared_ptr<rt::KernelObj> &kernel,
                         const uint32_t grid[3], const uint32_t block[3],
                         const xpu_arg *args, size_t argCount, PreparedLaunch &out);

/// Hands a prepared launch of `kernel` to `stream` as `submission` (NULL:
/// the default); fills `result` (may be NULL).
rt::Status submit(const std::shared_ptr<rt::KernelObj> &kernel,
                  const std::shared_ptr<rt::StreamObj> &stream, PreparedLaunch &launch,
                  const xpu_submission *submission, xpu_submission_result *result);

/// The raw enqueue every path ends in: status word, the device's queue,
/// the stream's sequence, checks and borrows. `stream.mu` must be held.
rt::Status enqueueRaw(rt::StreamObj &stream, rt::Queue &queue,
                      const std::shared_ptr<rt::StreamObj> &self,
                      const std::shared_ptr<rt::KernelObj> &kernel, PreparedLaunch &launch);

/// Lends `launch`'s buffers to `stream` at `sequence`, writes as the
/// kernel's manifest says (unknown uses count as writes).
void lendBuffers(const std::shared_ptr<rt::StreamObj> &stream, uint64_t sequence,
                 const rt::KernelObj &kernel,
                 const std::vector<std::shared_ptr<rt::BufferObj>> &buffers);

} // namespace xpu::sched
