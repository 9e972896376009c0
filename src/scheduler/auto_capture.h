// Automatic capture (spec §17.8: "captures short-kernel chains for
// replay"). A chain is the run of launches on a stream between two other
// operations on it. A chain that repeats with the same kernels and launch
// shapes is instantiated, after its second identical run, as segments
// (ExecState: a CUDA or HIP graph, a recorded Vulkan command buffer); from
// its third run on its launches are held on the host and each segment is
// handed to the device once its last launch arrives, updated where the
// arguments differ. A launch that departs from the template, and the end
// of the chain, hand what is held to the device one launch at a time.
#pragma once

#include "scheduler/graph.h"

#include <map>
#include <memory>
#include <vector>

namespace xpu::sched {

class AutoCapture {
public:
  /// Chains shorter than this are not captured: a graph of so few launches
  /// saves less than it costs.
  static constexpr size_t kMinChain = 4;
  /// Chains longer than this are not captured (nor recorded past it).
  static constexpr size_t kMaxChain = 4096;

  /// Offers a launch of the running chain (the stream's mu held). Either
  /// records it and leaves `held` false (the caller enqueues it), or holds
  /// it (`held` true: its sequence and borrows are taken here)
  /// and, when it completes a segment, enqueues the segment on `device`.
  rt::Status offer(const std::shared_ptr<rt::KernelObj> &kernel, PreparedLaunch &launch,
                   uint64_t captureId, rt::StreamObj &stream,
                   const std::shared_ptr<rt::StreamObj> &self, rt::Queue &device,
                   bool &held);
  /// Ends the running chain: held launches go to `device` one by one; the
  /// chain becomes, or confirms, its template.
  rt::Status endChain(rt::StreamObj &stream, rt::Queue &device);
  /// Forgets every template (auto capture turned off).
  void clear();
  /// What the launches handed over need until the stream synchronizes.
  std::vector<std::shared_ptr<const void>> &kept() { return kept_; }

private:
  struct Segment {
    size_t begin = 0, end = 0;
    std::shared_ptr<ExecState> exec;
  };
  struct Template {
    std::vector<Node> shapes; ///< kernel and shape of each launch (no buffers)
    unsigned repeats = 0;     ///< identical runs in a row
    bool failed = false;      ///< instantiation failed: never captured
    std::vector<Segment> segments;
  };

  rt::Status releaseHeld(rt::StreamObj &stream, rt::Queue &device, size_t end);
  rt::Status replay(Segment &segment, rt::StreamObj &stream,
                    const std::shared_ptr<rt::StreamObj> &self, rt::Queue &device);
  void instantiate(Template &t, rt::StreamObj &stream);
  void keepAlive(size_t begin, size_t end);

  std::map<uint64_t, Template> templates_;
  bool active_ = false;
  uint64_t id_ = 0;
  Template *replaying_ = nullptr; ///< the template the chain follows
  bool diverged_ = false, tooLong_ = false;
  std::vector<Node> chain_;             ///< its launches (storage reused)
  size_t length_ = 0, heldFrom_ = 0;
  std::vector<std::shared_ptr<const void>> kept_;
};

} // namespace xpu::sched
