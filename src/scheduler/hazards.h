// Ordering across streams from access sets (spec §17.8: "builds the DAG
// from access sets"): a submission that reads a buffer another stream's
// unfinished work writes (RAW), or writes one it reads or writes (WAR,
// WAW), waits for that stream's work on the device.
#pragma once

#include "runtime/objects.h"

#include <memory>
#include <vector>

namespace xpu::sched {

/// A buffer a submission uses, and how (abi::Use bits as ordering sees
/// them: accumulate and unknown uses write).
struct BufferUse {
  rt::BufferObj *buffer;
  uint8_t uses;
};

/// Events recorded on the streams a submission must wait for.
struct Fences {
  std::vector<std::shared_ptr<rt::BackendEvent>> events;
};

/// Records an event at the end of every other stream whose unfinished work
/// conflicts with `uses`. Call without `stream.mu` held; then, with it,
/// StreamQueue::waitFences makes the stream wait for them.
rt::Status fenceConflicts(const rt::StreamObj &stream, const std::vector<BufferUse> &uses,
                          Fences &out);

} // namespace xpu::sched
