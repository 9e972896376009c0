// The per-thread record of the last failure, read by xpu_last_error_*.
#include "runtime/status.h"

namespace xpu::rt {

namespace {
struct LastError {
  xpu_status code = XPU_SUCCESS;
  std::string message;
};
thread_local LastError lastError;
} // namespace

xpu_status lastErrorCode() { return lastError.code; }
const char *lastErrorMessage() { return lastError.message.c_str(); }

xpu_status finish(const Status &st) {
  if (!st.isOk()) {
    lastError.code = st.code();
    lastError.message = st.message();
  }
  return st.code();
}

} // namespace xpu::rt

