// Status: an xpu_status code with a message, returned by every internal
// operation that can fail.
#pragma once

#include "xpu_c.h"

#include <string>
#include <utility>

namespace xpu::rt {

class [[nodiscard]] Status {
public:
  Status() = default; // success
  Status(xpu_status code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool isOk() const { return code_ == XPU_SUCCESS; }
  explicit operator bool() const { return isOk(); }
  xpu_status code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  xpu_status code_ = XPU_SUCCESS;
  std::string message_;
};

inline Status invalidArgument(std::string m) {
  return {XPU_ERROR_INVALID_ARGUMENT, std::move(m)};
}
inline Status internalError(std::string m) {
  return {XPU_ERROR_INTERNAL, std::move(m)};
}

#define XPU_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    ::xpu::rt::Status _st = (expr);                                            \
    if (!_st.isOk())                                                           \
      return _st;                                                              \
  } while (0)

/// Records `st` as this thread's last error (when it is one) and returns its
/// code: the C API's way out of every call.
xpu_status finish(const Status &st);

/// This thread's last recorded error.
xpu_status lastErrorCode();
const char *lastErrorMessage();

} // namespace xpu::rt
