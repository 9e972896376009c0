// The runtime's side of the kernel cache (cache/): the process's cache,
// configured from the environment, and what a device puts into keys.
#pragma once

#include "cache/cache.h"
#include "runtime/backend.h"

namespace xpu::rt {

/// The process's kernel cache, made on first use from the settings. When
/// XPU_CACHE_STATS=1 its counters are printed to stderr at exit.
cache::Cache &kernelCache();

/// Everything about `device` and this library that changes generated code:
/// library version and build id, pipeline and LLVM versions, the target,
/// the device's toolchain, and the device model and driver (not its serial
/// number, so identical devices share entries).
cache::Environment keyEnvironment(const Device &device);

/// A toolchain file as keys name it: path, size, and modification and
/// change times (replacing a file gives it a new change time), or that it
/// is absent. One stat: naming a tool in a key never runs or reads it.
std::string fileIdentity(const std::string &path);

} // namespace xpu::rt
