// The dispatch report file (JSON Lines), and what XPU_TRACE / XPU_REPORT /
// XPU_LOG turn on at the first context; see sinks.h and observe.h.
#include "observe/observe.h"
#include "observe/sinks.h"
#include "runtime/env.h"
#include "runtime/log.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>
#include <mutex>

namespace xpu::observe {

namespace dispatch {
namespace {
std::mutex mu;
std::unique_ptr<llvm::raw_fd_ostream> file;
std::string filePath;
} // namespace

rt::Status start(const std::string &path) {
  if (path.empty())
    return rt::invalidArgument("the dispatch report file name is empty");
  std::lock_guard<std::mutex> g(mu);
  if (file)
    return {XPU_ERROR_BUSY, "dispatch reports are already written to '" + filePath + "'"};
  std::error_code ec;
  auto f = std::make_unique<llvm::raw_fd_ostream>(path, ec);
  if (ec)
    return {XPU_ERROR_INVALID_ARGUMENT,
            "cannot write dispatch reports to '" + path + "': " + ec.message()};
  file = std::move(f);
  filePath = path;
  gFeatures.fetch_or(kDispatch);
  return {};
}

rt::Status stop() {
  std::lock_guard<std::mutex> g(mu);
  if (!file)
    return {XPU_ERROR_INVALID_ARGUMENT, "no dispatch report is being written"};
  gFeatures.fetch_and(~uint32_t(kDispatch));
  file->close();
  bool failed = file->has_error();
  file->clear_error();
  file.reset();
  if (failed)
    return {XPU_ERROR_INVALID_ARGUMENT, "writing dispatch reports to '" + filePath +
                                            "' failed"};
  return {};
}

void write(llvm::json::Object line) {
  line["schema"] = "xpujit.dispatch";
  line["version"] = 1;
  std::lock_guard<std::mutex> g(mu);
  if (!file)
    return;
  *file << llvm::json::Value(std::move(line)) << "\n";
  file->flush(); // a line per launch, readable while the process runs
}
} // namespace dispatch

rt::Status configureFromEnvironment() {
  static rt::Status configured = [] {
    const rt::Settings *s = nullptr;
    if (rt::Status st = rt::settings(s); st.isOk() && s->log >= rt::LogLevel::debug)
      gFeatures.fetch_or(kDebugLog);
    // A trace the host started itself (xpujit run --trace) takes precedence.
    if (const char *path = std::getenv("XPU_TRACE"); path && *path)
      if (rt::Status st = trace::start(path); !st.isOk()) {
        if (st.code() != XPU_ERROR_BUSY)
          return rt::Status(st.code(), "XPU_TRACE: " + st.message());
        rt::log(rt::LogLevel::warn, "XPU_TRACE ignored: " + st.message());
      }
    if (const char *path = std::getenv("XPU_REPORT"); path && *path)
      if (rt::Status st = dispatch::start(path); !st.isOk())
        return rt::Status(st.code(), "XPU_REPORT: " + st.message());
    return rt::Status();
  }();
  return configured;
}

} // namespace xpu::observe
