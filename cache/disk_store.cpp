// The on-disk store; see disk_store.h.
#include "disk_store.h"
#include "file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <random>

namespace xpu::cache {

namespace {

/// Anything larger is not something this library wrote.
constexpr uint64_t kMaxEntryBytes = uint64_t(4) << 30;

int64_t mtimeNs(const struct stat &st) {
  return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string tempName() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[64];
  std::snprintf(buf, sizeof buf, ".tmp.%ld.%016llx", long(::getpid()),
                (unsigned long long)(rng() ^ counter++));
  return buf;
}

/// Closes a descriptor on scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

DiskStore::DiskStore(std::string dir, bool writable, uint64_t maxBytes,
                     StoreHooks hooks)
    : dir_(std::move(dir)), maxBytes_(maxBytes), writable_(writable),
      hooks_(std::move(hooks)) {}

std::string DiskStore::read(const std::string &name, EntryKind kind,
                            const Key &key, const Validate &validate,
                            std::vector<uint8_t> &payload, bool touch,
                            dev_t &dev, ino_t &ino) {
  Fd f{::open(path(name).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
  if (f.fd < 0)
    return errno == ENOENT ? "" : "cannot open: " + errorText(errno);
  struct stat st;
  if (::fstat(f.fd, &st) != 0)
    return "cannot stat: " + errorText(errno);
  dev = st.st_dev;
  ino = st.st_ino;
  if (!S_ISREG(st.st_mode))
    return "not a regular file";
  if (uint64_t(st.st_size) > kMaxEntryBytes)
    return "implausibly large (" + std::to_string(st.st_size) + " bytes)";
  std::vector<uint8_t> file;
  if (int err = readAll(f.fd, size_t(st.st_size), file))
    return "cannot read: " + errorText(err);
  std::string problem = decodeEntry(file, kind, key, payload);
  if (problem.empty() && validate)
    problem = validate(payload);
  if (problem.empty() && touch && writable()) {
    // The hit is the entry's last use (see the header: our own LRU stamp).
    struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    (void)::futimens(f.fd, times);
  }
  return problem;
}

void DiskStore::reject(const std::string &name, dev_t dev, ino_t ino,
                       const std::string &problem, bool remove) {
  counters_.badEntries++;
  bool removed = false;
  if (remove && writable()) {
    // Only the file that was read: a writer may have renamed a good entry
    // over it meanwhile.
    struct stat now;
    if (::lstat(path(name).c_str(), &now) == 0 && now.st_dev == dev &&
        now.st_ino == ino)
      removed = ::unlink(path(name).c_str()) == 0;
  }
  if (hooks_.warn)
    hooks_.warn("bad:" + path(name),
                "cache entry " + path(name) + " is damaged (" + problem + "); " +
                    (removed ? "removed" : "not used"));
}

bool DiskStore::load(EntryKind kind, const Key &key, const Validate &validate,
                     std::vector<uint8_t> &payload) {
  std::string name = entryFileName(kind, key);
  dev_t dev = 0;
  ino_t ino = 0;
  payload.clear();
  std::string problem = read(name, kind, key, validate, payload, true, dev, ino);
  if (problem.empty())
    return ino != 0; // opened and good; not opened: no such entry
  if (ino != 0)
    reject(name, dev, ino, problem, true);
  else if (hooks_.debug)
    hooks_.debug("cache entry " + path(name) + ": " + problem);
  return false;
}

void DiskStore::writeFailed(int err, const std::string &what) {
  counters_.storeFailures++;
  writable_ = false;
  if (hooks_.warn)
    hooks_.warn("unwritable:" + dir_,
                "cannot write the kernel cache in " + dir_ + " (" + what + ": " +
                    errorText(err) +
                    "); kernels compiled from now on are kept in memory only");
}

bool DiskStore::save(EntryKind kind, const Key &key,
                     const std::vector<uint8_t> &payload) {
  if (!writable())
    return false;
  std::vector<uint8_t> file = encodeEntry(kind, key, payload);
  if (file.size() > maxBytes_) {
    if (hooks_.debug)
      hooks_.debug("cache entry of " + std::to_string(file.size()) +
                   " bytes is larger than XPU_CACHE_MAX_BYTES; not stored");
    return false;
  }
  // A write past RLIMIT_FSIZE raises SIGXFSZ, which kills the process:
  // never start one.
  struct rlimit rl;
  if (::getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      file.size() > rl.rlim_cur) {
    writeFailed(EFBIG, "an entry of " + std::to_string(file.size()) +
                           " bytes exceeds the file size limit (ulimit -f)");
    return false;
  }

  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 8; ++attempt) {
    temp = tempName();
    fd = ::open(path(temp).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    writeFailed(errno, "cannot create a file");
    return false;
  }
  size_t half = file.size() / 2;
  int err = writeAll(fd, file.data(), half);
  if (!err && hooks_.stallWrites) {
    std::fprintf(stderr, "xpujit: test hook: writer stalled in %s\n",
                 path(temp).c_str());
    std::fflush(stderr);
    for (;;)
      ::pause();
  }
  if (!err)
    err = writeAll(fd, file.data() + half, file.size() - half);
  if (!err && ::fsync(fd) != 0)
    err = errno;
  if (::close(fd) != 0 && !err)
    err = errno;
  if (!err && ::rename(path(temp).c_str(), path(entryFileName(kind, key)).c_str()) != 0)
    err = errno;
  if (err) {
    ::unlink(path(temp).c_str());
    writeFailed(err, "writing an entry");
    return false;
  }
  counters_.stores++;
  maybeEvict(file.size());
  return true;
}

void DiskStore::maybeEvict(uint64_t written) {
  std::lock_guard<std::mutex> g(evictMu_);
  writtenSinceScan_ += written;
  // Other processes write too: rescan after a while even when this
  // process's own estimate is under the limit.
  if (scanned_ && lastTotal_ + writtenSinceScan_ <= maxBytes_ &&
      writtenSinceScan_ <= maxBytes_ / 16)
    return;
  scanned_ = true;
  writtenSinceScan_ = 0;
  // Down to a low-water mark, so that eviction does not run on every write.
  lastTotal_ = evict(maxBytes_, maxBytes_ - maxBytes_ / 8);
}

StoreListing DiskStore::list() const {
  StoreListing out;
  DIR *d = ::opendir(dir_.c_str());
  if (!d)
    return out;
  while (struct dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    bool temp = name.rfind(".tmp.", 0) == 0;
    auto id = temp ? std::nullopt : parseEntryFileName(name);
    if (!temp && !id)
      continue; // not ours: never touched
    struct stat st;
    if (::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    StoreFile f{name, id, uint64_t(st.st_size), mtimeNs(st)};
    (temp ? out.temps : out.entries).push_back(std::move(f));
  }
  ::closedir(d);
  return out;
}

std::string DiskStore::check(const StoreFile &file, const Validate &validate,
                             bool remove) {
  if (!file.id || file.id->version != kFormatVersion)
    return "";
  dev_t dev = 0;
  ino_t ino = 0;
  std::vector<uint8_t> payload;
  std::string problem =
      read(file.name, file.id->kind, file.id->key, validate, payload, false, dev, ino);
  if (!problem.empty() && ino != 0)
    reject(file.name, dev, ino, problem, remove);
  return problem;
}

uint64_t DiskStore::evictTo(uint64_t target) {
  uint64_t before = counters_.evicted;
  evict(target, target);
  return counters_.evicted - before;
}

uint64_t DiskStore::evict(uint64_t high, uint64_t low) {
  StoreListing l = list();
  uint64_t total = 0;
  for (const StoreFile &f : l.entries)
    total += f.bytes;
  if (!writable())
    return total;
  int64_t staleBefore = nowNs() - kStaleTempSeconds * 1000000000;
  for (const StoreFile &t : l.temps)
    if (t.lastUsedNs < staleBefore)
      ::unlink(path(t.name).c_str());
  if (total <= high)
    return total;
  std::sort(l.entries.begin(), l.entries.end(),
            [](const StoreFile &a, const StoreFile &b) {
              return a.lastUsedNs != b.lastUsedNs ? a.lastUsedNs < b.lastUsedNs
                                                  : a.name < b.name;
            });
  uint64_t removed = 0;
  for (const StoreFile &f : l.entries) {
    if (total <= low)
      break;
    // Unlinking never disturbs a reader: it reads from its open descriptor.
    if (::unlink(path(f.name).c_str()) == 0 || errno == ENOENT) {
      total -= f.bytes;
      ++removed;
    }
  }
  counters_.evicted += removed;
  if (removed && hooks_.debug)
    hooks_.debug("evicted " + std::to_string(removed) +
                 " least recently used cache entries from " + dir_);
  return total;
}

uint64_t DiskStore::clear() {
  if (!writable())
    return 0;
  StoreListing l = list();
  int64_t staleBefore = nowNs() - kStaleTempSeconds * 1000000000;
  uint64_t removed = 0;
  for (const StoreFile &f : l.entries)
    removed += ::unlink(path(f.name).c_str()) == 0;
  for (const StoreFile &t : l.temps)
    if (t.lastUsedNs < staleBefore)
      removed += ::unlink(path(t.name).c_str()) == 0;
  return removed;
}

} // namespace xpu::cache
