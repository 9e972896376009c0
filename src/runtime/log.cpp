// Messages to stderr, filtered by XPU_LOG; see log.h.
#include "runtime/log.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace xpu::rt {

void log(LogLevel level, const std::string &message) {
  const Settings *s = nullptr;
  (void)settings(s);
  if (int(level) > int(s->log))
    return;
  static const char *names[] = {"error", "warn", "info", "debug"};
  std::fprintf(stderr, "xpujit %s: %s\n", names[int(level)], message.c_str());
}

void logOnce(LogLevel level, const std::string &key, const std::string &message) {
  static std::mutex mu;
  static std::set<std::string> seen;
  {
    std::lock_guard<std::mutex> g(mu);
    if (!seen.insert(key).second)
      return;
  }
  log(level, message);
}

} // namespace xpu::rt
