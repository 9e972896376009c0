// Messages to stderr, filtered by XPU_LOG.
#pragma once

#include "runtime/env.h"

#include <string>

namespace xpu::rt {

void log(LogLevel level, const std::string &message);
/// Logs `message` only the first time `key` is seen in this process.
void logOnce(LogLevel level, const std::string &key, const std::string &message);

} // namespace xpu::rt
