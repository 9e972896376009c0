// The on-disk store: one file per entry in one directory.
//
// Writers write a unique temporary file in the same directory (O_EXCL, pid
// and random name), fsync it and rename it into place, so a reader sees a
// whole entry or none. Readers read the whole file into memory from an open
// descriptor, so an entry removed meanwhile (eviction, another process
// finding it bad) is never half-read. A bad entry is a miss and is removed.
//
// Last use is the file's mtime, set by the store itself: by the write, and
// with futimens on every hit. Entries are never modified after the rename,
// so the mtime carries nothing else; atime is not used because noatime and
// relatime mounts do not keep it.
#pragma once

#include "entry.h"

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace xpu::cache {

/// A file in the store's directory.
struct StoreFile {
  std::string name;            ///< file name, without the directory
  std::optional<EntryName> id; ///< set for entries, unset for temp files
  uint64_t bytes = 0;
  int64_t lastUsedNs = 0; ///< mtime, nanoseconds since the epoch
};

struct StoreListing {
  std::vector<StoreFile> entries; ///< every entry, of any format version
  std::vector<StoreFile> temps;   ///< writers' temporary files
};

struct StoreCounters {
  std::atomic<uint64_t> stores{0}, storeFailures{0}, badEntries{0}, evicted{0};
};

/// How the store reports. Warnings with the same `onceKey` are about the
/// same thing and are to be shown once (the runtime uses logOnce).
struct StoreHooks {
  std::function<void(const std::string &onceKey, const std::string &message)> warn;
  std::function<void(const std::string &message)> debug;
  /// Test hook: stop forever half-way through writing an entry, after
  /// saying so on stderr (a test kills the writer there).
  bool stallWrites = false;
};

/// A temporary file younger than this may belong to a live writer and is
/// never removed; older ones are left-overs of killed writers.
constexpr int64_t kStaleTempSeconds = 600;

class DiskStore {
public:
  /// `dir` must exist. A store that is not `writable` never creates,
  /// touches or removes anything.
  DiskStore(std::string dir, bool writable, uint64_t maxBytes, StoreHooks hooks);

  const std::string &dir() const { return dir_; }
  uint64_t maxBytes() const { return maxBytes_; }
  /// False when read-only, or after a write failed (reported once).
  bool writable() const { return writable_.load(); }
  StoreCounters &counters() { return counters_; }

  /// Checks and decodes a payload: "" when good, else what is wrong.
  using Validate = std::function<std::string(const std::vector<uint8_t> &payload)>;

  /// Reads entry (kind, key): true with its payload when the header,
  /// checksum and `validate` accept it. A bad entry is a miss and is
  /// removed. A hit becomes the entry's last use.
  bool load(EntryKind kind, const Key &key, const Validate &validate,
            std::vector<uint8_t> &payload);

  /// Writes entry (kind, key) atomically and evicts if the store has grown
  /// past its limit. False when nothing was stored.
  bool save(EntryKind kind, const Key &key, const std::vector<uint8_t> &payload);

  StoreListing list() const;

  /// Checks one listed entry as load does, without making it used. An
  /// entry of another format version is not checked (returns ""). When
  /// `remove`, a bad entry is removed. Returns "" or the problem.
  std::string check(const StoreFile &file, const Validate &validate, bool remove);

  /// Removes least-recently-used entries until at most `target` bytes
  /// remain, and stale temporary files. Returns the entries removed.
  uint64_t evictTo(uint64_t target);

  /// Removes every entry and stale temporary file; returns the files removed.
  uint64_t clear();

private:
  std::string path(const std::string &name) const { return dir_ + "/" + name; }
  /// Reads and checks the file at `name`; fills `dev`/`ino` when it opened.
  std::string read(const std::string &name, EntryKind kind, const Key &key,
                   const Validate &validate, std::vector<uint8_t> &payload,
                   bool touch, dev_t &dev, ino_t &ino);
  void reject(const std::string &name, dev_t dev, ino_t ino,
              const std::string &problem, bool remove);
  void writeFailed(int err, const std::string &what);
  void maybeEvict(uint64_t written);
  /// When the entries exceed `high` bytes, removes the least recently used
  /// down to `low`; removes stale temporary files. Returns the bytes left.
  uint64_t evict(uint64_t high, uint64_t low);

  std::string dir_;
  uint64_t maxBytes_;
  std::atomic<bool> writable_;
  StoreHooks hooks_;
  StoreCounters counters_;

  std::mutex evictMu_;
  bool scanned_ = false;
  uint64_t lastTotal_ = 0, writtenSinceScan_ = 0;
};

} // namespace xpu::cache
