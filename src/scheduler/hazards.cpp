// Ordering across streams; see hazards.h.
#include "scheduler/hazards.h"

#include "scheduler/stream_queue.h"

#include <algorithm>

namespace xpu::sched {

using rt::Status;

Status fenceConflicts(const rt::StreamObj &stream, const std::vector<BufferUse> &uses,
                      Fences &out) {
  std::vector<std::shared_ptr<rt::StreamObj>> others;
  for (const BufferUse &u : uses) {
    bool writes = u.uses & (abi::useWrite | abi::useAccumulate | abi::useUnknown);
    std::lock_guard<std::mutex> g(u.buffer->mu);
    for (const rt::Borrow &b : u.buffer->borrows) {
      auto other = b.stream.lock();
      if (!other || other.get() == &stream ||
          b.sequence <= other->synchronized.load(std::memory_order_acquire))
        continue;
      if ((writes || b.writes) &&
          std::find(others.begin(), others.end(), other) == others.end())
        others.push_back(std::move(other));
    }
  }
  for (const std::shared_ptr<rt::StreamObj> &other : others) {
    std::lock_guard<std::mutex> g(other->mu);
    std::shared_ptr<rt::BackendEvent> event;
    XPU_RETURN_IF_ERROR(front(*other).fence(event));
    out.events.push_back(std::move(event));
  }
  return {};
}

} // namespace xpu::sched
