// The kernel cache of one process: the in-process level for compiled
// payloads, the disk store (when there is a usable location), counters,
// and the maintenance operations behind `xpujit cache`. It stores keys,
// blobs and kernel descriptions; it knows nothing of MLIR or devices.
#pragma once

#include "disk_store.h"
#include "location.h"
#include "memory_cache.h"
#include "payload.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace xpu::cache {

/// XPU_CACHE: off (nothing is cached), readonly (the disk store is read,
/// never written), on.
enum class Mode { off, readonly, on };

constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

struct Config {
  Mode mode = Mode::on;
  Location location;
  uint64_t maxBytes = kDefaultMaxBytes;
  StoreHooks hooks;
};

/// What happened to this process's requests for modules.
struct Counters {
  std::atomic<uint64_t> memoryHits{0}, diskHits{0}, compiles{0};
};

/// One file of the store as `xpujit cache list/verify` show it.
struct EntryReport {
  StoreFile file;
  std::string description; ///< kernels of a kernel entry; target of a source entry
  std::string problem;     ///< "" when the entry is good
};

class Cache {
public:
  explicit Cache(Config config);

  Mode mode() const { return mode_; }
  /// The directory, or "" when memory-only; `note()` then says why.
  const std::string &location() const { return location_; }
  const std::string &note() const { return note_; }
  uint64_t maxBytes() const { return maxBytes_; }
  /// Null when the cache is off or memory-only.
  DiskStore *disk() { return disk_.get(); }

  /// Compiled payloads by content key (the in-process level).
  MemoryCache<KernelPayload> &compiled() { return compiled_; }
  Counters &counters() { return counters_; }

  /// A kernel entry from disk. With `expect`, an entry whose kernels do not
  /// have that interface is bad (and removed).
  bool loadKernel(const Key &key, KernelPayload &out,
                  const std::vector<abi::KernelInfo> *expect = nullptr);
  bool loadSource(const Key &key, SourcePayload &out);
  void saveKernel(const Key &key, const KernelPayload &payload);
  void saveSource(const Key &key, const SourcePayload &payload);

  /// Every entry, decoded; with `verify` bad ones also get removed (unless
  /// read-only).
  std::vector<EntryReport> entries(bool verify);
  /// Removes every entry; returns the number of files removed.
  uint64_t clear();

  /// This process's counters in one line (XPU_CACHE_STATS).
  std::string summary();

private:
  Mode mode_;
  std::string location_, note_;
  uint64_t maxBytes_;
  std::unique_ptr<DiskStore> disk_;
  MemoryCache<KernelPayload> compiled_{512};
  Counters counters_;
};

const char *modeName(Mode mode);

} // namespace xpu::cache
