// Deadline windows (spec §17.8: "a submission whose window has closed is
// rejected with its reason and never run late"). The window bounds when a
// submission starts: it is handed to the device once its stream's earlier
// work has finished and the window is open, or not at all.
#pragma once

#include "runtime/objects.h"

#include <cstdint>

namespace xpu::sched {

/// xpu_clock_ns(): CLOCK_MONOTONIC in nanoseconds.
uint64_t clockNs();

/// Waits (the stream's mu held, everything before the submission already
/// on its queue) until the stream's earlier work has finished and `open`
/// has come; XPU_ERROR_DEADLINE, saying by how much and why, when `close`
/// (0: none) passes first. `kernel` names the submission in messages.
rt::Status awaitWindow(rt::StreamObj &stream, const std::string &kernel, uint64_t open,
                       uint64_t close);

} // namespace xpu::sched
