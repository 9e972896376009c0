// C API: the last error of this thread, and status names.
#include "runtime/enum_bits.h"
#include "runtime/status.h"

extern "C" {

XPU_API xpu_status xpu_last_error_status(void) {
  return xpu::rt::lastErrorCode();
}

XPU_API const char *xpu_last_error_message(void) {
  return xpu::rt::lastErrorMessage();
}

XPU_API const char *xpu_status_name(xpu_status status) {
  switch (xpu::rt::enumBits(status)) {
#define NAME(s) case s: return #s;
    NAME(XPU_SUCCESS)
    NAME(XPU_ERROR_INVALID_ARGUMENT)
    NAME(XPU_ERROR_INVALID_HANDLE)
    NAME(XPU_ERROR_OUT_OF_MEMORY)
    NAME(XPU_ERROR_PARSE)
    NAME(XPU_ERROR_REFUSED)
    NAME(XPU_ERROR_NOT_FOUND)
    NAME(XPU_ERROR_UNSUPPORTED)
    NAME(XPU_ERROR_COMPILE)
    NAME(XPU_ERROR_BACKEND)
    NAME(XPU_ERROR_DEVICE_FAULT)
    NAME(XPU_ERROR_DEVICE_LOST)
    NAME(XPU_ERROR_BUSY)
    NAME(XPU_ERROR_OUT_OF_BOUNDS)
    NAME(XPU_ERROR_ARGUMENT_MISMATCH)
    NAME(XPU_ERROR_INTERNAL)
    NAME(XPU_ERROR_DEADLINE)
#undef NAME
  case XPU_STATUS_FORCE32:
    break;
  }
  return "XPU_ERROR_UNKNOWN";
}

} // extern "C"
