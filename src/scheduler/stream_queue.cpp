// The scheduler's side of a stream; see stream_queue.h.
#include "scheduler/stream_queue.h"

#include "runtime/env.h"

namespace xpu::sched {

using rt::Status;

StreamQueue::StreamQueue(rt::Device &device, std::unique_ptr<rt::Queue> inner,
                         rt::StreamObj &stream)
    : dev_(device), inner_(std::move(inner)), stream_(stream) {
  const rt::Settings *config = nullptr;
  (void)rt::settings(config);
  autoCaptureOn_ = !config->schedulerBypass;
}

StreamQueue::~StreamQueue() {
  // Releasing a stream synchronizes it first; whatever is still held goes
  // to the device, without instantiating anything.
  chains_.clear();
  (void)chains_.endChain(stream_, *inner_);
  partitions_.clear(); // before the device queue they are ordered with
}

std::unique_ptr<rt::Queue> frontQueue(rt::Device &device, std::unique_ptr<rt::Queue> inner,
                                      rt::StreamObj &stream) {
  return std::make_unique<StreamQueue>(device, std::move(inner), stream);
}

/// Before any operation but a scheduled launch: refused while capturing,
/// else whatever is held goes to the device first.
Status StreamQueue::prepareOther(const char *what) {
  if (capture_)
    return rt::invalidArgument(std::string("the stream is capturing a graph: ") + what +
                               " cannot be recorded (only launches are); end the "
                               "capture first");
  return endChain();
}

Status StreamQueue::endChain() { return chains_.endChain(stream_, *inner_); }

Status StreamQueue::copyIn(rt::BackendBuffer &dst, size_t offset, const void *src,
                           size_t bytes) {
  XPU_RETURN_IF_ERROR(prepareOther("a copy"));
  return inner_->copyIn(dst, offset, src, bytes);
}

Status StreamQueue::copyOut(rt::BackendBuffer &src, size_t offset, void *dst,
                            size_t bytes) {
  XPU_RETURN_IF_ERROR(prepareOther("a copy"));
  return inner_->copyOut(src, offset, dst, bytes);
}

Status StreamQueue::copyBuffer(rt::BackendBuffer &dst, size_t dstOffset,
                               rt::BackendBuffer &src, size_t srcOffset, size_t bytes) {
  XPU_RETURN_IF_ERROR(prepareOther("a copy"));
  return inner_->copyBuffer(dst, dstOffset, src, srcOffset, bytes);
}

Status StreamQueue::copyFromPeer(rt::BackendBuffer &dst, size_t dstOffset,
                                 rt::Device &srcDevice, rt::BackendBuffer &src,
                                 size_t srcOffset, size_t bytes) {
  XPU_RETURN_IF_ERROR(prepareOther("a copy"));
  return inner_->copyFromPeer(dst, dstOffset, srcDevice, src, srcOffset, bytes);
}

Status StreamQueue::launch(const rt::LaunchRequest &request) {
  XPU_RETURN_IF_ERROR(prepareOther("an unscheduled launch"));
  return inner_->launch(request);
}

Status StreamQueue::record(rt::BackendEvent &event) {
  XPU_RETURN_IF_ERROR(prepareOther("an event record"));
  return inner_->record(event);
}

Status StreamQueue::wait(rt::BackendEvent &event) {
  XPU_RETURN_IF_ERROR(prepareOther("an event wait"));
  return inner_->wait(event);
}

Status StreamQueue::synchronize() {
  // During a capture nothing recorded is enqueued: this waits for the
  // work enqueued before it.
  Status held = endChain();
  Status st = inner_->synchronize();
  return held.isOk() ? st : held;
}

void *StreamQueue::nativeHandle() const {
  auto &self = const_cast<StreamQueue &>(*this); // held work must reach the driver's stream
  if (!exposed_) {
    exposed_ = true;
    (void)self.endChain();
    self.chains_.clear();
  }
  return inner_->nativeHandle();
}

Status StreamQueue::launchGraph(rt::BackendGraph &graph) {
  XPU_RETURN_IF_ERROR(endChain());
  return inner_->launchGraph(graph);
}

Status StreamQueue::flush() {
  XPU_RETURN_IF_ERROR(endChain());
  return inner_->flush();
}

Status StreamQueue::beginCapture(std::shared_ptr<GraphObj> graph) {
  if (capture_)
    return rt::invalidArgument("the stream is already capturing a graph");
  XPU_RETURN_IF_ERROR(endChain());
  capture_ = std::move(graph);
  return {};
}

std::shared_ptr<GraphObj> StreamQueue::endCapture() { return std::move(capture_); }

void StreamQueue::record(const std::shared_ptr<rt::KernelObj> &kernel,
                         const PreparedLaunch &launch) {
  capture_->nodes.emplace_back();
  capture_->nodes.back().assign(kernel, launch);
}

Status StreamQueue::setAutoCapture(bool on) {
  const rt::Settings *config = nullptr;
  (void)rt::settings(config);
  Status st = endChain();
  autoCaptureOn_ = on && !config->schedulerBypass;
  if (!autoCaptureOn_)
    chains_.clear();
  return st;
}

Status StreamQueue::waitFences(const Fences &fences) {
  if (fences.events.empty())
    return {};
  XPU_RETURN_IF_ERROR(endChain());
  for (const std::shared_ptr<rt::BackendEvent> &event : fences.events) {
    XPU_RETURN_IF_ERROR(inner_->wait(*event));
    keepUntilSync(event); // the device's wait may refer to it until then
  }
  return {};
}

Status StreamQueue::fence(std::shared_ptr<rt::BackendEvent> &out) {
  XPU_RETURN_IF_ERROR(endChain());
  if (!fence_) {
    std::unique_ptr<rt::BackendEvent> event;
    XPU_RETURN_IF_ERROR(dev_.createEvent(event));
    fence_ = std::move(event);
  }
  // Re-recording is safe: a wait already enqueued keeps the point it saw.
  XPU_RETURN_IF_ERROR(inner_->record(*fence_));
  out = fence_;
  return {};
}

Status StreamQueue::enqueueExec(ExecState &exec) {
  XPU_RETURN_IF_ERROR(prepareOther("a graph launch"));
  return exec.enqueue(*inner_);
}

Status StreamQueue::partition(uint32_t units, rt::Queue *&out, uint32_t &reserved,
                              std::string &why) {
  out = nullptr;
  auto it = partitions_.find(units);
  if (it == partitions_.end()) {
    Partition p;
    Status st = dev_.createPartitionedQueue({units}, p.queue, p.reserved);
    if (st.isOk())
      st = dev_.createEvent(p.in);
    if (st.isOk())
      st = dev_.createEvent(p.out);
    if (!st.isOk() && st.code() != XPU_ERROR_UNSUPPORTED) {
      why = st.message();
      return st;
    }
    // A budget the device cannot reserve is not asked for again (a CUDA
    // driver's refusal costs a green context's creation each time).
    if (!st.isOk())
      p = {nullptr, nullptr, nullptr, 0, st.message()};
    it = partitions_.emplace(units, std::move(p)).first;
  }
  why = it->second.refused;
  out = it->second.queue.get();
  reserved = it->second.reserved;
  return {};
}

Status StreamQueue::orderWith(rt::Queue &partition, bool before) {
  for (auto &[units, p] : partitions_) {
    if (p.queue.get() != &partition)
      continue;
    if (before) {
      XPU_RETURN_IF_ERROR(endChain());
      XPU_RETURN_IF_ERROR(inner_->record(*p.in));
      return partition.wait(*p.in);
    }
    XPU_RETURN_IF_ERROR(partition.record(*p.out));
    return inner_->wait(*p.out);
  }
  return rt::internalError("orderWith: not one of the stream's partitions");
}

} // namespace xpu::sched
