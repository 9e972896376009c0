// The scheduler's side of a stream: every stream's queue is a StreamQueue
// over the device's own queue. It holds what the scheduler keeps per
// stream (an explicit capture, automatic capture's chains and held
// launches, the queues of compute-unit budgets) and makes every operation
// other than a scheduled launch first hand held launches to the device,
// so the stream's order is the order of the calls.
//
// Every call happens with the stream's mu held (StreamObj::mu).
#pragma once

#include "scheduler/auto_capture.h"
#include "scheduler/hazards.h"

#include <map>
#include <memory>
#include <string>

namespace xpu::sched {

class StreamQueue final : public rt::Queue {
public:
  StreamQueue(rt::Device &device, std::unique_ptr<rt::Queue> inner,
              rt::StreamObj &stream);
  ~StreamQueue() override;

  // rt::Queue. During an explicit capture, copies and events are refused.
  rt::Status copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                    size_t bytes) override;
  rt::Status copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                     size_t bytes) override;
  rt::Status copyBuffer(rt::BackendBuffer &dst, size_t dstOffset, rt::BackendBuffer &src,
                        size_t srcOffset, size_t bytes) override;
  rt::Status copyFromPeer(rt::BackendBuffer &dst, size_t dstOffset, rt::Device &srcDevice,
                          rt::BackendBuffer &src, size_t srcOffset, size_t bytes) override;
  bool waitsForPeerEvents() const override { return inner_->waitsForPeerEvents(); }
  rt::Status launch(const rt::LaunchRequest &request) override;
  rt::Status record(rt::BackendEvent &event) override;
  rt::Status wait(rt::BackendEvent &event) override;
  rt::Status synchronize() override;
  /// Another library will enqueue on the driver's stream: automatic capture
  /// stops for good, so xpujit's launches are always there before.
  void *nativeHandle() const override;
  rt::Status launchGraph(rt::BackendGraph &graph) override;
  rt::Status flush() override;

  /// The device's queue.
  rt::Queue &device() { return *inner_; }

  // Explicit capture.
  bool capturing() const { return capture_ != nullptr; }
  rt::Status beginCapture(std::shared_ptr<GraphObj> graph);
  std::shared_ptr<GraphObj> endCapture();
  void record(const std::shared_ptr<rt::KernelObj> &kernel, const PreparedLaunch &launch);

  // Automatic capture.
  bool autoCaptureEnabled() const { return autoCaptureOn_ && !exposed_; }
  rt::Status setAutoCapture(bool on);
  AutoCapture &chains() { return chains_; }
  /// Ends the running chain (held launches to the device).
  rt::Status endChain();

  /// Makes the stream wait for `fences` (hazards.h).
  rt::Status waitFences(const Fences &fences);
  /// An event at the stream's current end, for another stream to wait on
  /// (also during a capture: it orders work enqueued before).
  rt::Status fence(std::shared_ptr<rt::BackendEvent> &out);
  /// Enqueues an instantiated graph after whatever is held.
  rt::Status enqueueExec(ExecState &exec);
  /// Keeps `object` alive until the stream's next synchronization.
  void keepUntilSync(std::shared_ptr<const void> object) {
    chains_.kept().push_back(std::move(object));
  }
  /// After a synchronization: what was kept, for the caller to let go of
  /// outside the stream's lock (StreamObj::synchronize).
  void takeKept(std::vector<std::shared_ptr<const void>> &out) { out.swap(chains_.kept()); }

  /// A device queue restricted to `units` compute units for budgeted
  /// submissions, ordered with this stream by events, and how many it runs
  /// on (`reserved`: the driver may round up); null with `why` when the
  /// device has no partitioning.
  rt::Status partition(uint32_t units, rt::Queue *&out, uint32_t &reserved,
                       std::string &why);
  /// Orders work enqueued next on `partition` after this stream's work,
  /// and this stream's later work after it (`before`: the first half).
  rt::Status orderWith(rt::Queue &partition, bool before);

private:
  rt::Status prepareOther(const char *what);

  rt::Device &dev_;
  std::unique_ptr<rt::Queue> inner_;
  rt::StreamObj &stream_;
  std::shared_ptr<GraphObj> capture_;
  AutoCapture chains_;
  bool autoCaptureOn_ = true;
  mutable bool exposed_ = false;
  std::shared_ptr<rt::BackendEvent> fence_;
  struct Partition {
    std::unique_ptr<rt::Queue> queue;
    std::unique_ptr<rt::BackendEvent> in, out;
    uint32_t reserved = 0;
    std::string refused; ///< why the device reserves no queue for it
  };
  std::map<uint32_t, Partition> partitions_;
};

/// The StreamQueue of `stream`.
inline StreamQueue &front(rt::StreamObj &stream) {
  return static_cast<StreamQueue &>(*stream.queue);
}

/// Wraps a device queue for `stream`, being made (createStream).
std::unique_ptr<rt::Queue> frontQueue(rt::Device &device, std::unique_ptr<rt::Queue> inner,
                                      rt::StreamObj &stream);

} // namespace xpu::sched
