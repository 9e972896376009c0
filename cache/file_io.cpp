// POSIX file helpers; see file_io.h.
#include "file_io.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace xpu::cache {

int readAll(int fd, size_t size, std::vector<uint8_t> &out) {
  out.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, out.data() + done, size - done, off_t(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    if (n == 0)
      return EIO; // the file is shorter than fstat said: treat as damaged
    done += size_t(n);
  }
  return 0;
}

int writeAll(int fd, const uint8_t *bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    done += size_t(n);
  }
  return 0;
}

int makeDirs(const std::string &path, mode_t mode) {
  if (path.empty())
    return ENOENT;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    if (int err = makeDirs(path.substr(0, slash), mode))
      return err;
  if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST)
    return errno;
  return 0;
}

std::string errorText(int err) {
  char buf[256];
  // GNU strerror_r may return a static string instead of filling `buf`.
  return strerror_r(err, buf, sizeof buf);
}

} // namespace xpu::cache
