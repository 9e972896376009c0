// The capability model: what a target provides, how we know it, and one
// three-valued verdict that decides whether a kernel may run.
//
// Six kinds of fact (who decides): the target language (backend-structural),
// the device (device-optional), the host toolchain (host-toolchain), the
// measured behaviour of a compiler (toolchain-semantic), our decisions
// (policy), and build options legal only with a device bit (flag-legality).
// A verdict is available, unavailable(kind, reason), or unknown — and
// unknown refuses: a device or toolchain we could not probe is never
// assumed to work.
#pragma once

#include "xpu/Requirements.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace xpu::cap {

enum class Kind {
  backendStructural,
  deviceOptional,
  hostToolchain,
  toolchainSemantic,
  policy,
  flagLegality,
};
const char *kindName(Kind k);

struct Available {};
struct Unavailable {
  Kind kind;
  std::string reason;
};
struct Unknown {
  std::string why;
};
using Verdict = std::variant<Available, Unavailable, Unknown>;

/// The one place that decides whether a verdict lets a kernel run. It
/// handles every alternative explicitly: a new kind of verdict does not
/// compile until this function says what it means.
bool permits(const Verdict &v);

const char *verdictName(const Verdict &v);

/// What one target/device provides for one capability, and the query or
/// table entry that says so.
struct Fact {
  Capability capability;
  Kind kind;             ///< who decided
  Verdict verdict;
  std::string evidence;  ///< "cuDeviceGetAttribute(COMPUTE_CAPABILITY)=9.0"
  std::optional<uint64_t> limit; ///< for quantities (bytes, invocations)
};

/// A compiler behaviour we measured; revised by a new measurement.
struct Measurement {
  std::string name;     ///< "nvptx.no-contraction"
  bool holds = false;   ///< what the measurement found
  std::string evidence; ///< how, where and when it was measured
};

/// A decision we took and the measurement it rests on; revised by a
/// decision. A policy without a measurement behind it cannot be written.
struct Policy {
  std::string name;
  Capability capability;
  const Measurement *restsOn;
  std::string decision; ///< what we refuse, and why
};

/// All facts for one device: one per capability, in Capability order.
using FactTable = std::vector<Fact>;

/// The verdict for a kernel's need: the fact's verdict, and for quantities
/// a comparison of what the kernel needs with the fact's limit.
Verdict verdictFor(const KernelRequirements &req, const Fact &fact);

} // namespace xpu::cap
