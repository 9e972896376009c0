// The trace-event file (Chrome's "JSON Object Format", which Perfetto and
// chrome://tracing open): events are kept in memory and written when
// recording stops, or when the process exits; see sinks.h.
#include "observe/observe.h"
#include "observe/sinks.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>

namespace xpu::observe {

std::atomic<uint32_t> gFeatures{0};

double usAt(std::chrono::steady_clock::time_point t) {
  static const auto origin = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t - origin).count();
}

double nowUs() { return usAt(std::chrono::steady_clock::now()); }

namespace trace {
namespace {

struct Recorder {
  std::mutex mu;
  std::string path;
  llvm::json::Array events;
  std::set<std::pair<int, uint32_t>> namedTracks;
  std::set<int> namedProcesses;

  /// Writes what was recorded; called with `mu` held.
  rt::Status flush() {
    llvm::json::Object root;
    root["traceEvents"] = std::move(events);
    root["displayTimeUnit"] = "ms";
    root["otherData"] = llvm::json::Object{{"schema", "xpujit.trace"}, {"version", 1}};
    events = llvm::json::Array();
    namedTracks.clear();
    namedProcesses.clear();
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return {XPU_ERROR_INVALID_ARGUMENT,
              "cannot write the trace to '" + path + "': " + ec.message()};
    os << llvm::json::Value(std::move(root)) << "\n";
    os.close();
    if (os.has_error())
      return {XPU_ERROR_INVALID_ARGUMENT, "writing the trace to '" + path + "' failed"};
    return {};
  }

  void metadata(const char *what, int pid, std::optional<uint32_t> tid,
                std::string name) {
    llvm::json::Object e{{"ph", "M"}, {"name", what}, {"pid", pid},
                         {"args", llvm::json::Object{{"name", std::move(name)}}}};
    if (tid)
      e["tid"] = int64_t(*tid);
    events.push_back(std::move(e));
  }

  ~Recorder() { // the process ends while recording: keep what was seen
    std::lock_guard<std::mutex> g(mu);
    if (!path.empty())
      (void)flush();
  }
};

Recorder &recorder() {
  static Recorder r;
  return r;
}

} // namespace

uint32_t hostThread() {
  static std::atomic<uint32_t> next{1};
  thread_local uint32_t id = next++;
  return id;
}

int devicePid(uint32_t deviceIndex, const std::string &label) {
  int pid = 100 + int(deviceIndex);
  Recorder &r = recorder();
  std::lock_guard<std::mutex> g(r.mu);
  if (!r.path.empty() && r.namedProcesses.insert(pid).second)
    r.metadata("process_name", pid, std::nullopt,
               "device " + std::to_string(deviceIndex) + ": " + label);
  return pid;
}

void complete(std::string name, const char *category, double startUs,
              double durationUs, int pid, uint32_t tid, llvm::json::Object args) {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.path.empty())
    return;
  if (r.namedTracks.insert({pid, tid}).second)
    r.metadata("thread_name", pid, tid,
               (pid == kHostPid ? "host thread " : "stream ") + std::to_string(tid));
  llvm::json::Object e{{"name", std::move(name)}, {"cat", category}, {"ph", "X"},
                       {"ts", startUs},           {"dur", durationUs < 0 ? 0.0 : durationUs},
                       {"pid", pid},              {"tid", int64_t(tid)}};
  if (!args.empty())
    e["args"] = std::move(args);
  r.events.push_back(std::move(e));
}

rt::Status start(const std::string &path) {
  if (path.empty())
    return rt::invalidArgument("the trace file name is empty");
  Recorder &r = recorder();
  {
    std::lock_guard<std::mutex> g(r.mu);
    if (!r.path.empty())
      return {XPU_ERROR_BUSY, "a trace is already being recorded to '" + r.path + "'"};
    // Fail now, not at the end of the run, when the file cannot be made.
    std::error_code ec;
    { llvm::raw_fd_ostream probe(path, ec); }
    if (ec)
      return {XPU_ERROR_INVALID_ARGUMENT,
              "cannot write the trace to '" + path + "': " + ec.message()};
    r.path = path;
    r.metadata("process_name", kHostPid, std::nullopt,
               "xpujit host (pid " + std::to_string(getpid()) + ")");
  }
  gFeatures.fetch_or(kTrace);
  return {};
}

rt::Status stop() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.path.empty())
    return {XPU_ERROR_INVALID_ARGUMENT, "no trace is being recorded"};
  gFeatures.fetch_and(~uint32_t(kTrace));
  rt::Status st = r.flush();
  r.path.clear();
  return st;
}

} // namespace trace
} // namespace xpu::observe
