// Linking an AMDGPU object file into a code object, the shared ELF the
// HIP runtime loads, with lld linked into this library (no ld.lld needed).
#pragma once

#include "runtime/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xpu::hip {

/// Links the relocatable `object` into `hsaco`. One link at a time per
/// process (lld keeps global state).
rt::Status linkCodeObject(const std::vector<uint8_t> &object, std::vector<uint8_t> &hsaco);

/// "lld 22.1.8"
std::string linkerIdentity();

} // namespace xpu::hip
