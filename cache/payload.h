// What entries carry, and its byte encoding. A kernel payload is a compiled
// blob together with the kernel descriptions it was compiled with; a source
// payload is what the front end said about one exact source text (its
// content key, kernel descriptions and diagnostics). Decoding checks every
// length and enum, so arbitrary bytes give an error, never a crash.
#pragma once

#include "key.h"

#include "xpu/Diagnostic.h"
#include "xpu/KernelABI.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xpu::cache {

struct KernelPayload {
  std::vector<uint8_t> code; ///< the blob's bytes
  std::string format;        ///< "elf-object", "cubin", ...
  std::string toolchain;     ///< what produced it
  std::vector<abi::KernelInfo> kernels;
  /// Per kernel, what the code generator learned of its code (may be empty).
  std::vector<abi::Footprint> footprints;
  std::string log; ///< how long each stage took; not stored in entries
};

struct SourcePayload {
  Key content;
  std::vector<abi::KernelInfo> kernels;
  DiagnosticList diagnostics;
};

std::vector<uint8_t> encode(const KernelPayload &p);
std::vector<uint8_t> encode(const SourcePayload &p);
/// Return "" on success, else what is wrong with `bytes`.
std::string decode(const std::vector<uint8_t> &bytes, KernelPayload &out);
std::string decode(const std::vector<uint8_t> &bytes, SourcePayload &out);

/// Whether code compiled for kernels `a` runs kernels `b`: the same kernels
/// in the same order with the same parameter kinds and types, shared memory,
/// barriers, fixed sizes and number of check sites. Names of parameters and
/// source locations may differ: they come from the current source.
bool sameInterface(const std::vector<abi::KernelInfo> &a,
                   const std::vector<abi::KernelInfo> &b);

} // namespace xpu::cache
