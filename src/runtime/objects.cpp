// Borrows, stream synchronization and object registration; see objects.h.
#include "runtime/objects.h"
#include "calibration/device_calibration.h"
#include "runtime/log.h"
#include "scheduler/stream_queue.h"
#include "xpu/PrintFormat.h"

#include <cstdio>

#include <cstring>
#include <sstream>

namespace xpu::rt {

void ContextObj::adopt(uint64_t handle) {
  std::lock_guard<std::mutex> g(mu);
  children.insert(handle);
}

void ContextObj::forget(uint64_t handle) {
  std::lock_guard<std::mutex> g(mu);
  children.erase(handle);
}

Status createStream(const std::shared_ptr<DeviceObj> &device,
                    std::shared_ptr<StreamObj> &out) {
  auto stream = std::make_shared<StreamObj>();
  stream->device = device;
  std::unique_ptr<Queue> queue;
  XPU_RETURN_IF_ERROR(device->device->createQueue(queue));
  // The scheduler's side of the stream (src/scheduler/stream_queue.h).
  stream->queue = sched::frontQueue(*device->device, std::move(queue), *stream);
  std::lock_guard<std::mutex> g(device->mu);
  device->streams.push_back(stream);
  out = std::move(stream);
  return {};
}

Status DeviceObj::synchronizeAll() {
  std::vector<std::shared_ptr<StreamObj>> live;
  {
    std::lock_guard<std::mutex> g(mu);
    for (auto it = streams.begin(); it != streams.end();) {
      if (auto s = it->lock()) {
        live.push_back(std::move(s));
        ++it;
      } else {
        it = streams.erase(it);
      }
    }
  }
  Status first;
  for (auto &s : live) {
    Status st = s->synchronize();
    if (first.isOk() && !st.isOk())
      first = st;
  }
  return first;
}

/// "kernel 'k': 3 out-of-bounds accesses were suppressed; the first was a
/// store to 'y' at k.mlir:7:5"
static Status outOfBounds(const abi::KernelInfo &kernel, uint32_t count,
                          uint32_t firstSite) {
  std::ostringstream msg;
  msg << "kernel '" << kernel.name << "': " << count << " out-of-bounds access"
      << (count == 1 ? " was" : "es were") << " suppressed";
  if (firstSite > 0 && firstSite <= kernel.checkSites.size()) {
    const abi::CheckSite &site = kernel.checkSites[firstSite - 1];
    // `what` names the access ("load from 'x'", "atomic on 'x'"), so the
    // article follows its first letter.
    bool vowel = !site.what.empty() && std::strchr("aeiou", site.what[0]);
    msg << "; the first was " << (vowel ? "an " : "a ") << site.what << " at "
        << site.location;
  }
  return {XPU_ERROR_OUT_OF_BOUNDS, msg.str()};
}

/// Formats a finished launch's printf records to standard output, and says
/// there how many did not fit.
static Status printRecords(Device &device, const PendingPrint &p) {
  std::vector<uint32_t> words(p.buffer->bytes / 4);
  XPU_RETURN_IF_ERROR(device.download(*p.buffer->memory, 0, words.data(), p.buffer->bytes));
  std::string out;
  uint32_t dropped = abi::formatPrintRecords(p.kernel->prints, words.data(), words.size(), out);
  if (dropped) {
    std::string note = "xpujit: kernel '" + p.kernel->name + "': " + std::to_string(dropped) +
                       " printf record" + (dropped == 1 ? " was" : "s were") +
                       " dropped: the launch's print buffer of " +
                       std::to_string(p.buffer->bytes) + " bytes was full";
    out += "[" + note + "]\n";
    log(LogLevel::warn, note);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return {};
}

Status StreamObj::synchronize() {
  std::vector<std::shared_ptr<Object>> finished;
  std::vector<std::shared_ptr<const void>> scheduled; // graphs, fences, held chains
  Status st;
  {
    std::lock_guard<std::mutex> g(mu);
    observe::SyncScope timing(*this);
    uint64_t upTo = enqueued;
    st = queue->synchronize();
    for (PendingCheck &check : checks) {
      // A graph's word may be counted into by a later replay on another
      // stream meanwhile: taken atomically, so no count is lost.
      uint32_t count = __atomic_exchange_n(&check.word.host[0], 0u, __ATOMIC_ACQ_REL);
      uint32_t first = __atomic_exchange_n(&check.word.host[1], 0u, __ATOMIC_ACQ_REL);
      const auto &sites = check.kernel->checkSites;
      bool loop = first > 0 && first <= sites.size() && sites[first - 1].what == "loop";
      if (count && st.isOk())
        st = loop ? device->device->calibration().loopStopped(*check.kernel, sites[first - 1])
                  : outOfBounds(*check.kernel, count, first);
      if (!check.owner)
        device->device->freeStatusWord(check.word);
    }
    checks.clear();
    for (PendingPrint &p : prints)
      if (Status printed = printRecords(*device->device, p); st.isOk() && !printed.isOk())
        st = printed;
    prints.clear();
    finished.swap(inUse);
    sched::front(*this).takeKept(scheduled);
    synchronized.store(upTo, std::memory_order_release);
    st = timing.done(std::move(st));
  }
  // Outside the lock: the last reference to a module or buffer may go here,
  // and its destruction must not wait for this stream.
  finished.clear();
  scheduled.clear();
  return st;
}

Status DeviceObj::stream0(std::shared_ptr<StreamObj> &out) {
  std::lock_guard<std::mutex> g(mu);
  if (!defaultStream)
    return {XPU_ERROR_INVALID_HANDLE, "the device's context has been released"};
  out = defaultStream;
  return {};
}

void DeviceObj::shutDown() {
  std::shared_ptr<StreamObj> own;
  std::vector<std::weak_ptr<StreamObj>> others;
  {
    std::lock_guard<std::mutex> g(mu);
    own = std::move(defaultStream);
    others.swap(streams);
  }
  if (own)
    (void)own->synchronize();
}

Status BufferObj::checkConflicts(const char *what, bool isWrite,
                                 const StreamObj *sameStream) {
  std::lock_guard<std::mutex> g(mu);
  for (auto it = borrows.begin(); it != borrows.end();) {
    auto stream = it->stream.lock();
    bool resolved = !stream || it->sequence <=
                                   stream->synchronized.load(std::memory_order_acquire);
    if (resolved) {
      it = borrows.erase(it);
      continue;
    }
    bool conflict = stream.get() != sameStream && (isWrite || it->writes);
    if (conflict)
      return {XPU_ERROR_BUSY,
              std::string("cannot ") + what + ": the buffer is borrowed by an in-flight " +
                  (it->kernel ? "launch of '" + it->kernel->name + "'"
                              : std::string(it->what)) +
                  " until its stream is synchronized"};
    ++it;
  }
  return {};
}

BufferObj::~BufferObj() {
  memory.reset();
  if (release)
    release(releaseData);
}

Status BufferObj::waitForConflicts(bool isWrite) {
  for (;;) {
    std::shared_ptr<StreamObj> wait;
    {
      std::lock_guard<std::mutex> g(mu);
      for (auto it = borrows.begin(); it != borrows.end();) {
        auto stream = it->stream.lock();
        if (!stream ||
            it->sequence <= stream->synchronized.load(std::memory_order_acquire)) {
          it = borrows.erase(it);
          continue;
        }
        if (isWrite || it->writes) {
          wait = std::move(stream);
          break;
        }
        ++it;
      }
    }
    if (!wait)
      return {};
    // A synchronization resolves every borrow enqueued before it.
    XPU_RETURN_IF_ERROR(wait->synchronize());
  }
}

Status BufferObj::checkNotMapped(const char *what) const {
  if (maps.load(std::memory_order_acquire) == 0)
    return {};
  return {XPU_ERROR_BUSY, std::string("cannot ") + what +
                              ": the buffer is mapped by the host until xpu_buffer_unmap"};
}

void BufferObj::lend(const std::shared_ptr<StreamObj> &stream, uint64_t sequence,
                     bool writes, std::shared_ptr<const abi::KernelInfo> kernel,
                     const char *what) {
  std::lock_guard<std::mutex> g(mu);
  // One borrow per stream: a later sequence on the same stream resolves
  // after every earlier one, so it stands for them all.
  for (Borrow &b : borrows) {
    if (b.stream.lock() != stream)
      continue;
    b.sequence = sequence;
    b.writes = b.writes || writes;
    if (kernel || !b.kernel) {
      b.kernel = std::move(kernel);
      b.what = what;
    }
    return;
  }
  borrows.push_back({stream, sequence, writes, std::move(kernel), what});
}

} // namespace xpu::rt
