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
  /// The buffer of each buffer parameter, in parameter order (a print
  /// buffer among them).
  std::vector<std::shared_ptr<rt::BufferObj>> buffers;
  /// The launch's own print buffer (xpu.printf), or null.
  std::shared_ptr<rt::BufferObj> printBuffer;
  /// The caller's arguments, for launch observers; valid during the call
  /// only (never used for held or recorded launches).
  const xpu_arg *callArgs = nullptr;
  size_t callArgCount = 0;
};

/// Checks `args` against `kernel`'s parameters and the launch shape against
/// its device, and packs them into `out` (defined in api_launch.cpp, the
/// arguments' one checker). `dynamicShared`: bytes of dynamic shared memory
/// (xpu_launch_options).
rt::Status prepareLaunch(const std::shared_ptr<rt::KernelObj> &kernel,
                         const uint32_t grid[3], const uint32_t block[3],
                         const xpu_arg *args, size_t argCount, uint32_t dynamicShared,
                         PreparedLaunch &out);

/// Hands a prepared launch of `kernel` to `stream` as `submission` (NULL:
/// the default); fills `result` (may be NULL).
rt::Status submit(const std::shared_ptr<rt::KernelObj> &kernel,
                  const std::shared_ptr<rt::StreamObj> &stream, PreparedLaunch &launch,
                  const xpu_submission *submission, xpu_submission_result *result);

/// The raw enqueue every path ends in: status word, the device's queue
/// (through the launch observers when they are on and `queue` is the
/// stream's own), the stream's sequence, checks, prints, what the stream
/// keeps alive, and borrows. `stream.mu` must be held.
rt::Status enqueueRaw(rt::StreamObj &stream, rt::Queue &queue,
                      const std::shared_ptr<rt::StreamObj> &self,
                      const std::shared_ptr<rt::KernelObj> &kernel, PreparedLaunch &launch);

/// Lends `launch`'s buffers to `stream` at `sequence`, writes as the
/// kernel's manifest says (unknown uses count as writes).
void lendBuffers(const std::shared_ptr<rt::StreamObj> &stream, uint64_t sequence,
                 const rt::KernelObj &kernel,
                 const std::vector<std::shared_ptr<rt::BufferObj>> &buffers);

} // namespace xpu::sched
