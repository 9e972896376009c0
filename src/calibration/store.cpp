// The directory store and the default store; see store.h.
#include "calibration/store.h"

#include "cache/file_io.h"
#include "runtime/env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

namespace xpu::cal {

namespace {

/// A store with nowhere to keep anything: every load misses.
class NoStore : public Store {
public:
  explicit NoStore(std::string why) : why_(std::move(why)) {}
  std::string describe() const override { return "none (" + why_ + ")"; }
  bool writable() const override { return false; }
  rt::Status load(const Key &, std::optional<std::string> &text) override {
    text.reset();
    return {};
  }
  rt::Status store(const Key &, const std::string &) override {
    return {XPU_ERROR_UNSUPPORTED, "no calibration store: " + why_};
  }

private:
  std::string why_;
};

rt::Status ioError(const std::string &what, const std::string &path, int err) {
  return {XPU_ERROR_BACKEND, what + " " + path + ": " + cache::errorText(err)};
}

} // namespace

DirectoryStore::DirectoryStore(std::string dir, bool create) : dir_(std::move(dir)) {
  if (create)
    if (int err = cache::makeDirs(dir_, 0700)) {
      note_ = "cannot create " + dir_ + ": " + cache::errorText(err);
      return;
    }
  if (!create) {
    note_ = "opened read-only";
    return;
  }
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) {
    note_ = dir_ + " is not writable: " + cache::errorText(errno);
    return;
  }
  writable_ = true;
}

rt::Status DirectoryStore::load(const Key &key, std::optional<std::string> &text) {
  text.reset();
  std::string path = dir_ + "/" + key.digest() + ".json";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? rt::Status() : ioError("cannot open", path, errno);
  struct stat st;
  std::vector<uint8_t> bytes;
  int err = ::fstat(fd, &st) != 0 ? errno : cache::readAll(fd, size_t(st.st_size), bytes);
  ::close(fd);
  if (err)
    return ioError("cannot read", path, err);
  text = std::string(bytes.begin(), bytes.end());
  return {};
}

rt::Status DirectoryStore::store(const Key &key, const std::string &text) {
  if (!writable_)
    return {XPU_ERROR_UNSUPPORTED, "the calibration store " + dir_ + " is read-only (" +
                                       note_ + ")"};
  // A write past RLIMIT_FSIZE raises SIGXFSZ, which kills the process
  // (the kernel cache's disk store says the same): never start one.
  struct rlimit rl;
  if (::getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      text.size() > rl.rlim_cur)
    return {XPU_ERROR_BACKEND, "a calibration record of " + std::to_string(text.size()) +
                                   " bytes exceeds RLIMIT_FSIZE (ulimit -f)"};
  std::string final = dir_ + "/" + key.digest() + ".json";
  std::random_device rd;
  std::string temp = dir_ + "/.tmp." + std::to_string(::getpid()) + "." +
                     std::to_string(rd()) + ".json";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return ioError("cannot create", temp, errno);
  int err = cache::writeAll(fd, reinterpret_cast<const uint8_t *>(text.data()), text.size());
  if (!err && ::fsync(fd) != 0)
    err = errno;
  if (::close(fd) != 0 && !err)
    err = errno;
  if (!err && ::rename(temp.c_str(), final.c_str()) != 0)
    err = errno;
  if (err) {
    ::unlink(temp.c_str());
    return ioError("cannot write", final, err);
  }
  return {};
}

namespace {
class FileLock : public Store::Lock {
public:
  explicit FileLock(int fd) : fd_(fd) {}
  ~FileLock() override { ::close(fd_); } // closing releases the flock
private:
  int fd_;
};
} // namespace

std::unique_ptr<Store::Lock> DirectoryStore::lockForMeasuring(const Key &key) {
  if (!writable_)
    return nullptr;
  std::string path = dir_ + "/" + key.digest() + ".lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return nullptr;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kLockWaitSeconds);
  bool waited = false;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() > until) {
      ::close(fd);
      return nullptr;
    }
    waited = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto lock = std::make_unique<FileLock>(fd);
  lock->waited = waited;
  return lock;
}

std::unique_ptr<Store> defaultStore(std::string &note) {
  const rt::Settings *s = nullptr;
  (void)rt::settings(s); // a bad setting was reported by xpu_context_create
  cache::Location loc = s->cacheLocation;
  // XPU_CACHE=readonly and off write nothing to the cache's location;
  // records already there are still read.
  bool create = s->cacheMode == cache::Mode::on;
  std::string asked = create ? "" : std::string("XPU_CACHE=") + cache::modeName(s->cacheMode);
  cache::prepareLocation(loc, create);
  if (loc.dir.empty()) {
    note = asked.empty() ? loc.problem : asked;
    return std::make_unique<NoStore>(note);
  }
  auto store = std::make_unique<DirectoryStore>(loc.dir + "/calibration", create);
  note = asked.empty() ? store->note() : asked;
  return store;
}

} // namespace xpu::cal
