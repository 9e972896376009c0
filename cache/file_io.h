// The few POSIX file operations the disk store needs, with EINTR and short
// transfers handled. Functions return 0 or an errno value.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xpu::cache {

/// Reads exactly `size` bytes from the start of `fd`.
int readAll(int fd, size_t size, std::vector<uint8_t> &out);
int writeAll(int fd, const uint8_t *bytes, size_t size);
/// mkdir -p; components it creates get `mode`.
int makeDirs(const std::string &path, mode_t mode);
/// strerror, thread-safe.
std::string errorText(int err);

} // namespace xpu::cache
