// Running a probe kernel on one device, below the C API: compile (no gates,
// no kernel cache: a probe measures what the gates would need), allocate,
// launch, synchronize, check the status word. Every probe in
// src/calibration uses it.
#pragma once

#include "runtime/backend.h"
#include "runtime/compiler.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace xpu::cal {

/// A device buffer holding a copy of a host vector.
struct ProbeBuffer {
  std::unique_ptr<rt::BackendBuffer> memory;
  uint64_t count = 0;
  size_t bytes = 0;
};

template <typename T>
rt::Status makeBuffer(rt::Device &device, const std::vector<T> &host, ProbeBuffer &out) {
  out.count = host.size();
  out.bytes = host.size() * sizeof(T);
  XPU_RETURN_IF_ERROR(device.allocate(out.bytes, out.memory));
  return device.upload(*out.memory, 0, host.data(), out.bytes);
}

template <typename T>
rt::Status readBuffer(rt::Device &device, ProbeBuffer &buffer, std::vector<T> &host) {
  host.resize(buffer.bytes / sizeof(T));
  return device.download(*buffer.memory, 0, host.data(), buffer.bytes);
}

/// One launch argument: a buffer, or a scalar of `bytes` bytes.
struct ProbeArg {
  ProbeBuffer *buffer = nullptr;
  uint64_t scalar = 0;
  static ProbeArg of(ProbeBuffer &b) { return {&b, 0}; }
  template <typename T> static ProbeArg value(T v) {
    ProbeArg a;
    std::memcpy(&a.scalar, &v, sizeof v);
    return a;
  }
};

/// A compiled probe module.
class ProbeProgram {
public:
  /// Compiles `text` for `device`; `name` is its source name in messages.
  rt::Status build(rt::Device &device, const std::string &text, const std::string &name);
  /// What compiled it ("LLVM 22.1.8 NVPTX sm_90; ptxas 13.0"), for evidence.
  const std::string &toolchain() const { return program_->blob.toolchain; }

  /// Enqueues `kernel` on `queue`.
  rt::Status launch(rt::Queue &queue, const std::string &kernel, uint32_t grid,
                    uint32_t block, const std::vector<ProbeArg> &args);
  /// Synchronizes `queue` and checks the status words of the launches
  /// since the last call.
  rt::Status finish(rt::Queue &queue);
  /// launch, then finish.
  rt::Status run(rt::Queue &queue, const std::string &kernel, uint32_t grid,
                 uint32_t block, const std::vector<ProbeArg> &args);

  ~ProbeProgram();

private:
  rt::Device *device_ = nullptr;
  std::shared_ptr<const rt::Program> program_;
  std::vector<rt::StatusWord> words_;
};

} // namespace xpu::cal
