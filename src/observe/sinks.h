// The two files observers write: a trace (Chrome/Perfetto trace-event
// JSON, written whole when recording stops) and a dispatch report (JSON
// Lines, one object per launch, written as launches resolve).
#pragma once

#include "runtime/status.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace xpu::observe {

namespace trace {
constexpr int kHostPid = 1;
/// Devices are processes of their own in the trace: 100 + device index.
int devicePid(uint32_t deviceIndex, const std::string &label);
/// A small number for the calling thread, named in the trace.
uint32_t hostThread();
/// A complete event ("ph": "X"); times in microseconds on nowUs()'s clock.
/// `tid` is a host thread (pid kHostPid) or a stream (a device's pid).
void complete(std::string name, const char *category, double startUs,
              double durationUs, int pid, uint32_t tid,
              llvm::json::Object args = {});
rt::Status start(const std::string &path);
/// Writes the file; events recorded since start are dropped after.
rt::Status stop();
} // namespace trace

namespace dispatch {
rt::Status start(const std::string &path);
rt::Status stop();
/// Writes one line (the schema and version fields are added here).
void write(llvm::json::Object line);
} // namespace dispatch

} // namespace xpu::observe
