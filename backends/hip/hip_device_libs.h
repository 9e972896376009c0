// The AMD device libraries in a kernel module: the ocml (math) and ockl
// functions it calls, linked from their bitcode, with the libraries'
// control constants set for the target.
#pragma once

#include "runtime/backend.h"

#include <string>

namespace llvm {
class Module;
}

namespace xpu::hip {

/// Links the ocml/ockl functions `m` calls from the directory
/// cap::amdDeviceLibraries() found, and defines the control constants they
/// read (ISA version, wave size, IEEE denormals, no unsafe or finite-only
/// math, correctly rounded sqrt, ABI v5). Does nothing when `m` calls
/// neither; `linked` then stays empty, else names the files linked.
rt::Status linkDeviceLibraries(llvm::Module &m, const rt::TargetDesc &target,
                               std::string &linked);

/// The device libraries as cache keys need them: the identity (path, size,
/// times) of ocml.bc and ockl.bc, or "none found".
const std::string &deviceLibraryIdentity();

} // namespace xpu::hip
