// pocl through the OpenCL ICD loader, for the CPU benchmark: one context,
// queue and program on the pocl CPU device, buffers and timed launches.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cpubench::ocl {

/// Opens pocl's CPU device and builds `source`; false (with `why`) when
/// there is no pocl platform.
bool open(const char *source, std::string &why);
std::string deviceName();

struct Buffer {
  void *mem = nullptr; ///< cl_mem
  size_t bytes = 0;
};
Buffer upload(const void *data, size_t bytes);
void download(const Buffer &b, void *data);
void release(Buffer &b);

/// One argument: a buffer, or a scalar by value.
struct Arg {
  const Buffer *buffer = nullptr;
  const void *value = nullptr;
  size_t size = 0;
};
inline Arg buf(const Buffer &b) { return {&b, nullptr, 0}; }
template <typename T> Arg val(const T &v) { return {nullptr, &v, sizeof(T)}; }

/// Enqueues `kernel` over `global` items in groups of `local` (2-D when
/// dims is 2); does not wait.
void launch(const char *kernel, unsigned dims, const size_t *global, const size_t *local,
            const std::vector<Arg> &args);
void finish();

} // namespace cpubench::ocl
