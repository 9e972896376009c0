// Automatic capture; see auto_capture.h.
#include "scheduler/auto_capture.h"

#include "runtime/log.h"

#include <algorithm>

namespace xpu::sched {

using rt::Status;

namespace {
/// Segments start small, so the device starts early, and double up to
/// this many launches.
constexpr size_t kFirstSegment = 4, kLargestSegment = 128;
} // namespace

Status AutoCapture::offer(const std::shared_ptr<rt::KernelObj> &kernel,
                          PreparedLaunch &launch, uint64_t captureId,
                          rt::StreamObj &stream, const std::shared_ptr<rt::StreamObj> &self,
                          rt::Queue &device, bool &held) {
  held = false;
  if (active_ && captureId != id_)
    XPU_RETURN_IF_ERROR(endChain(stream, device));
  if (!active_) {
    active_ = true;
    id_ = captureId;
    length_ = heldFrom_ = 0;
    diverged_ = tooLong_ = false;
    auto it = templates_.find(captureId);
    replaying_ = it != templates_.end() && !it->second.segments.empty() ? &it->second
                                                                        : nullptr;
  }
  if (tooLong_ || length_ == kMaxChain) {
    tooLong_ = true; // templates are never longer: nothing is held here
    return {};
  }
  if (chain_.size() <= length_)
    chain_.emplace_back();
  Node &node = chain_[length_];
  node.assign(kernel, launch);
  size_t pos = length_;
  bool follows = replaying_ && !diverged_ && pos < replaying_->shapes.size() &&
                 node.sameShape(replaying_->shapes[pos]);
  if (!follows) {
    Status st;
    if (replaying_ && !diverged_) {
      // It departs from the template: what is held goes first, one by one.
      diverged_ = true;
      st = releaseHeld(stream, device, pos);
    }
    heldFrom_ = ++length_; // the caller enqueues this one
    return st;
  }
  // Held: accounted for now, as if enqueued. Its run-time checks report
  // through its segment's status words, or through a word of its own if
  // it is handed over alone (releaseHeld).
  ++length_;
  lendBuffers(self, ++stream.enqueued, *kernel, node.buffers);
  held = true;
  for (Segment &segment : replaying_->segments)
    if (pos + 1 == segment.end)
      return replay(segment, stream, self, device);
  return {};
}

Status AutoCapture::releaseHeld(rt::StreamObj &stream, rt::Queue &device, size_t end) {
  Status first;
  for (size_t i = heldFrom_; i < end; ++i) {
    const std::shared_ptr<const abi::KernelInfo> &info = chain_[i].kernel->info;
    rt::StatusWord word;
    Status st;
    if (!info->checkSites.empty())
      st = stream.device->device->allocateStatusWord(word);
    if (st.isOk()) {
      rt::LaunchRequest request;
      chain_[i].toRequest(word.device, request);
      st = device.launch(request);
    }
    if (word.host) {
      if (st.isOk())
        stream.checks.push_back({word, info, nullptr});
      else
        stream.device->device->freeStatusWord(word);
    }
    if (!st.isOk() && first.isOk())
      first = st;
  }
  keepAlive(heldFrom_, end);
  heldFrom_ = end;
  return first;
}

Status AutoCapture::replay(Segment &segment, rt::StreamObj &stream,
                           const std::shared_ptr<rt::StreamObj> &self, rt::Queue &device) {
  ExecState &exec = *segment.exec;
  for (size_t i = segment.begin; i < segment.end; ++i)
    if (!exec.matches(i - segment.begin, chain_[i]))
      XPU_RETURN_IF_ERROR(exec.setNode(i - segment.begin, chain_[i]));
  Status st = exec.enqueue(device);
  keepAlive(segment.begin, segment.end);
  heldFrom_ = segment.end;
  if (!st.isOk())
    return st;
  exec.account(stream, self, stream.enqueued);
  return {};
}

void AutoCapture::keepAlive(size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    // The kernel too: its code runs until the stream synchronizes.
    if (kept_.empty() || kept_.back() != chain_[i].kernel)
      kept_.push_back(chain_[i].kernel);
    for (const std::shared_ptr<rt::BufferObj> &b : chain_[i].buffers)
      if (kept_.empty() || kept_.back() != b)
        kept_.push_back(b);
  }
}

void AutoCapture::instantiate(Template &t, rt::StreamObj &stream) {
  for (size_t begin = 0, size = kFirstSegment; begin < length_;
       begin += size, size = std::min(size * 2, kLargestSegment)) {
    Segment segment;
    segment.begin = begin;
    segment.end = std::min(length_, begin + size);
    std::vector<const Node *> nodes;
    for (size_t i = segment.begin; i < segment.end; ++i)
      nodes.push_back(&chain_[i]);
    if (Status st = ExecState::create(stream.device, nodes, /*holdBuffers=*/false,
                                      segment.exec);
        !st.isOk()) {
      rt::log(rt::LogLevel::info, "automatic capture: a chain of " +
                                      std::to_string(length_) +
                                      " launches is not captured: " + st.message());
      t.failed = true;
      t.segments.clear();
      return;
    }
    if (!segment.exec->native()) {
      // Replayed one launch at a time (the CPU), a held chain only starts
      // later than its launches would: not worth holding.
      rt::log(rt::LogLevel::debug, "automatic capture: " +
                                       stream.device->device->label() +
                                       " has no graphs of its own; chains run as launched");
      t.failed = true;
      t.segments.clear();
      return;
    }
    t.segments.push_back(std::move(segment));
  }
  rt::log(rt::LogLevel::debug,
          "automatic capture: a chain of " + std::to_string(length_) + " launches of '" +
              chain_[0].kernel->info->name + "'... replays as " +
              std::to_string(t.segments.size()) + " segments (" +
              t.segments.front().exec->kind() + ")");
}

Status AutoCapture::endChain(rt::StreamObj &stream, rt::Queue &device) {
  if (!active_)
    return {};
  active_ = false;
  Status st = releaseHeld(stream, device, length_);
  if (!tooLong_ && length_ >= kMinChain) {
    Template &t = templates_[id_];
    bool same = t.shapes.size() == length_;
    for (size_t i = 0; same && i < length_; ++i)
      same = chain_[i].sameShape(t.shapes[i]);
    if (!same) {
      t = Template();
      for (size_t i = 0; i < length_; ++i) {
        Node shape;
        shape.kernel = chain_[i].kernel;
        std::copy(chain_[i].grid, chain_[i].grid + 3, shape.grid);
        std::copy(chain_[i].block, chain_[i].block + 3, shape.block);
        shape.dynamicShared = chain_[i].dynamicShared;
        t.shapes.push_back(std::move(shape));
      }
      t.repeats = 1;
    } else if (!t.failed && ++t.repeats >= 2 && t.segments.empty()) {
      instantiate(t, stream);
    }
  }
  // Nothing of the chain is kept past its handing over.
  for (size_t i = 0; i < length_; ++i) {
    chain_[i].buffers.clear();
    chain_[i].kernel.reset();
  }
  length_ = heldFrom_ = 0;
  replaying_ = nullptr;
  return st;
}

void AutoCapture::clear() {
  templates_.clear();
  replaying_ = nullptr;
}

} // namespace xpu::sched
