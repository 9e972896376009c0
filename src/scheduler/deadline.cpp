// Deadline windows; see deadline.h.
#include "scheduler/deadline.h"

#include "scheduler/stream_queue.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

namespace xpu::sched {

using rt::Status;

uint64_t clockNs() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

namespace {

std::string duration(uint64_t ns) {
  char text[48];
  if (ns < 1000000)
    std::snprintf(text, sizeof text, "%.1f us", ns / 1e3);
  else
    std::snprintf(text, sizeof text, "%.3f ms", ns / 1e6);
  return text;
}

Status missed(const std::string &kernel, uint64_t late, const std::string &why) {
  return {XPU_ERROR_DEADLINE, "submission of kernel '" + kernel + "' not run: its window "
                                  "closed " + duration(late) + " ago, " + why};
}

void pause(uint64_t now, uint64_t until) {
  uint64_t step = until > now ? std::min<uint64_t>(until - now, 50000) : 0;
  if (step > 2000)
    std::this_thread::sleep_for(std::chrono::nanoseconds(step));
  else
    std::this_thread::yield();
}

} // namespace

Status awaitWindow(rt::StreamObj &stream, const std::string &kernel, uint64_t open,
                   uint64_t close) {
  uint64_t now = clockNs();
  if (close && now > close)
    return missed(kernel, now - close, "before it was submitted");
  // The stream's earlier work (and what it waits for) must be done for the
  // submission to start when it is handed over.
  std::shared_ptr<rt::BackendEvent> idle;
  XPU_RETURN_IF_ERROR(front(stream).fence(idle));
  while (!idle->isComplete()) {
    now = clockNs();
    if (close && now > close)
      return missed(kernel, now - close,
                    "while the stream's earlier work was still running");
    pause(now, close ? close : now + 50000);
  }
  while ((now = clockNs()) < open)
    pause(now, open);
  if (close && now > close)
    return missed(kernel, now - close, "by the time its stream was idle and it was open");
  return {};
}

} // namespace xpu::sched
