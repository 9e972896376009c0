// What the runtime tells observers: traces (XPU_TRACE), dispatch reports
// (XPU_REPORT), launch hooks and the records module reports are made from.
// All of it is off until a variable, a hook or a C API call turns it on;
// the launch path then pays one relaxed load and a predictable branch.
#pragma once

#include "runtime/status.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
class PassManager;
}

namespace xpu::rt {
struct StreamObj;
struct KernelObj;
struct LaunchRequest;
struct CompileRequest;
class BackendEvent;
class Device;
} // namespace xpu::rt

namespace xpu::observe {

enum Feature : uint32_t {
  kTrace = 1u,    ///< a trace file is being recorded
  kDispatch = 2u, ///< dispatch reports are being written
  kHooks = 4u,    ///< launch hooks are set
  kDebugLog = 8u, ///< XPU_LOG=debug: a line per launch
};
extern std::atomic<uint32_t> gFeatures;
inline bool launchObserved() {
  return __builtin_expect(gFeatures.load(std::memory_order_relaxed) != 0, 0);
}
inline bool enabled(Feature f) {
  return (gFeatures.load(std::memory_order_relaxed) & f) != 0;
}

/// Starts what XPU_TRACE and XPU_REPORT ask for, once per process. A file
/// that cannot be written is an error, reported by every context creation.
rt::Status configureFromEnvironment();

/// Microseconds on the trace's clock (steady, from the first use).
double nowUs();
/// A steady-clock reading on the same microsecond scale as nowUs().
double usAt(std::chrono::steady_clock::time_point t);

// --- compiling --------------------------------------------------------------

/// One stage of xpu_module_create; how long it took ends up in the trace,
/// the XPU_LOG=info log and the module's report.
struct StageTime {
  std::string name;
  double startUs = 0, ms = 0;
};

/// A cache level asked for a module: "memory" (by source), "source-entry"
/// (disk, by source), "content" (memory or disk, by canonical IR).
struct CacheLookup {
  std::string level;
  bool hit = false;
  std::string key;
};

/// What one xpu_module_create did, kept with the module for its report.
struct ModuleRecord {
  std::string sourceName, sourceHash, options, text;
  /// The device `device` attributes were admitted against (empty offline).
  std::string device;
  bool explicitDevice = true;
  bool runtimeChecks = true;
  std::string origin = "compiled"; ///< memory, disk or compiled
  std::vector<StageTime> stages;
  std::vector<CacheLookup> lookups;
  double totalMs = 0;
  /// The report, made on the first xpu_module_report.
  std::mutex reportMu;
  std::string report;
};

/// The record of the xpu_module_create running on this thread: stages
/// and cache lookups of buildProgram land in it.
class BuildScope {
public:
  BuildScope(const rt::CompileRequest &request, const rt::Device &device);
  /// Without a device (xpu_compile_for_target_report): `label` names the
  /// target in the trace and the log.
  BuildScope(const rt::CompileRequest &request, std::string label);
  ~BuildScope();
  /// The record, with the total time and the origin; logs "module:".
  std::shared_ptr<ModuleRecord> finish(bool ok);

private:
  std::shared_ptr<ModuleRecord> record_;
  BuildScope *outer_;
  double startUs_;
  std::string deviceLabel_;
};

/// A compile stage, timed from construction to next() or destruction.
/// Stages inside another (the probes a first calibration compiles) are
/// traced, but only the outermost ones are the module's.
class Stage {
public:
  explicit Stage(const char *name);
  ~Stage() { end(); }
  /// Ends this stage and begins `name`.
  void next(const char *name);
  Stage(const Stage &) = delete;
  Stage &operator=(const Stage &) = delete;

private:
  void end();
  const char *name_;
  double startUs_;
  bool outermost_;
};

/// Sets (or with NULL removes) the launch hooks of xpu_launch_hooks_set.
rt::Status setHooks(const xpu_launch_hooks *hooks);

/// With XPU_LOG=debug or a trace: a line and an event per pass `pm` runs.
void instrumentPasses(mlir::PassManager &pm);

/// XXH3-128 of `text`, as 32 hex digits (the source hash of reports).
std::string textHash(std::string_view text);

/// A cache lookup's outcome (and where a module came from, for `origin`
/// values "memory", "disk" or "compiled").
void cacheLookup(const char *level, bool hit, const std::string &keyHex);
void origin(const char *where);

// --- streams ----------------------------------------------------------------

struct PendingLaunch;

/// Launches of one stream awaiting their device times; a member of the
/// StreamObj, guarded by its mutex. Declared last in StreamObj, so its
/// events go before the device does.
class StreamLog {
public:
  StreamLog();
  ~StreamLog();
  std::vector<std::unique_ptr<PendingLaunch>> pending;
  /// A completed event and when (trace clock) it completed: device times
  /// are placed on the host's timeline from it.
  std::unique_ptr<rt::BackendEvent> origin;
  double originUs = 0;
  uint32_t id; ///< stream number in traces and reports
};

/// A launch with observers on: the enter hook, events around the enqueue,
/// the exit hook, a pending record. Called with the stream's mutex held.
rt::Status observedLaunch(rt::StreamObj &stream, const rt::KernelObj &kernel,
                          const rt::LaunchRequest &request, const xpu_arg *args,
                          size_t argCount);

/// Times a stream synchronization; `done` resolves the stream's pending
/// launches (device times into the trace and the dispatch report).
class SyncScope {
public:
  explicit SyncScope(rt::StreamObj &stream);
  rt::Status done(rt::Status status);

private:
  rt::StreamObj &stream_;
  double startUs_;
};

/// A host copy (blocking or enqueued), for the trace.
class CopySpan {
public:
  CopySpan(const char *what, size_t bytes);
  ~CopySpan();
  CopySpan(const CopySpan &) = delete;
  CopySpan &operator=(const CopySpan &) = delete;

private:
  const char *what_;
  size_t bytes_;
  double startUs_;
};

} // namespace xpu::observe
