// Shared pieces of the xpujit command-line tool. The tool uses only the
// public C API of libxpujit.
#pragma once

#include "xpu_c.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cli {

/// Exit codes: 0 success, 1 the command failed, 2 bad usage.
constexpr int kOk = 0, kFailed = 1, kUsage = 2;

/// Prints "xpujit: STATUS_NAME: message" for the last failed call.
int reportFailure(const char *what, xpu_status status);

bool readFile(const std::string &path, std::string &out);

/// Decimal digits only, at most `max`; nullopt for anything else (a sign,
/// spaces, a suffix, a value that does not fit).
std::optional<uint64_t> parseCount(const std::string &text, uint64_t max);

/// A context that releases itself.
struct Context {
  xpu_context handle = nullptr;
  ~Context() { xpu_context_release(handle); }
};

/// Finds the device `spec` names ("cpu", "cuda:0", "2" for index 2), or the
/// default device when `spec` is empty.
xpu_status findDevice(xpu_context ctx, const std::string &spec, xpu_device *out);

/// One `--arg` of `xpujit run`.
struct ArgSpec {
  bool isBuffer = false;
  bool isView = false;               ///< view:TYPE[AxB...]: a row-major view
  xpu_type type = XPU_TYPE_I32;
  uint64_t count = 0;                ///< buffer elements
  std::vector<int64_t> shape;        ///< a view's sizes
  std::string fill = "zero";         ///< zero | iota | rand | value:V
  std::string scalar;                ///< scalar value text
  std::string text;                  ///< as written
};

/// Parses "f32:2.5", "i32:1024", "buf:f32[1024]=rand", "buf:i32[64]=iota",
/// "buf:f64[8]=value:1.5", "view:f32[512x512]=rand" (a buffer of 512*512
/// elements passed as a row-major 512x512 view). Returns an error message,
/// or "" on success.
std::string parseArgSpec(const std::string &text, ArgSpec &out);

/// Fills `bytes` (count elements of `type`) as `fill` asks, drawing random
/// values from `seed`. Returns an error message, or "".
std::string fillBuffer(const ArgSpec &spec, uint64_t seed,
                       std::vector<uint8_t> &bytes);

/// The launch argument a scalar spec stands for.
xpu_arg scalarArg(const ArgSpec &spec);

/// Formats element `i` of `bytes` as text.
std::string formatElement(xpu_type type, const uint8_t *bytes, uint64_t i);

int runDevices(int argc, char **argv);
int runCheck(int argc, char **argv);
int runRun(int argc, char **argv);
int runCompile(int argc, char **argv);
int runCache(int argc, char **argv);
int runCalibrate(int argc, char **argv);
/// Prints the device's calibration facts (measuring what is missing), each
/// line starting with `indent`.
int printCalibration(xpu_device device, const char *indent);

} // namespace cli
