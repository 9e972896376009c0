// The process's calibration records outside memory: snapshots first (one
// built into the library, then the file XPU_CALIBRATION names), then one
// store, the default store unless the host replaced it before the first
// record was read. A record is served only when it decodes, its checksum
// holds and its key is exactly the live one (so a snapshot is served only
// on the device, driver and compiler it was measured with). A store that
// fails is disabled once and reported; with nothing writable the process
// runs from memory and says so once.
#pragma once

#include "calibration/store.h"

#include <atomic>
#include <mutex>

namespace xpu::cal {

/// What calibration did in this process (XPU_CALIBRATION_STATS, the C API).
struct Stats {
  std::atomic<uint64_t> probes{0};   ///< probe measurements taken
  std::atomic<uint64_t> loaded{0};   ///< records served from a snapshot or store
  std::atomic<uint64_t> stored{0};   ///< records written to the store
  std::atomic<uint64_t> rejected{0}; ///< records ignored: checksum, key, format
  std::atomic<uint64_t> failures{0}; ///< store calls that failed
};

class Registry {
public:
  static Registry &get();

  /// Replaces the store. XPU_ERROR_BUSY once a record has been read: the
  /// records served so far came from the store in place.
  rt::Status replace(std::unique_ptr<Store> store);

  /// The valid record for `key`, if a snapshot or the store has one.
  /// `seen` (when given) tells whether the store had a record for the key
  /// at all, valid or not.
  std::optional<Record> read(const Key &key, bool *seen = nullptr);
  /// Stores `record` when the store is writable; otherwise it stays in
  /// the caller's memory (said once).
  void write(const Record &record);
  /// The store's lock for measuring `key` (see Store::lockForMeasuring);
  /// null when there is none.
  std::unique_ptr<Store::Lock> lockForMeasuring(const Key &key);

  /// What serves records: "directory ...", plus the snapshots in use.
  std::string describe();
  bool writable();
  Stats &stats() { return stats_; }

private:
  Registry() = default;
  void freezeLocked();
  void disableLocked(const std::string &what, const rt::Status &st);

  std::mutex mu_;
  bool frozen_ = false, disabled_ = false;
  std::unique_ptr<Store> store_;
  std::string storeNote_;
  bool noLocation_ = false; ///< the default store found no usable location
  std::vector<Record> snapshot_;
  std::string snapshotNote_;
  Stats stats_;
};

/// Prints this process's counters to stderr at exit (XPU_CALIBRATION_STATS=1).
void printStatsAtExit();

} // namespace xpu::cal
