// Where calibration records leave memory: a store (load, store, writable).
// Spec §17.8: records leave memory only through a store; the default one is
// a directory in the user's cache (the kernel cache's location rules: never
// under /tmp), and a host may replace it before the first record is read.
// Stores move encoded records (see record.h); checking them is the
// registry's job, so a store needs to know nothing about their contents.
#pragma once

#include "calibration/record.h"
#include "runtime/status.h"

#include <memory>
#include <optional>
#include <string>

namespace xpu::cal {

/// How long a process waits for another that measures the same device.
constexpr int kLockWaitSeconds = 60;

class Store {
public:
  virtual ~Store() = default;
  /// "directory /home/me/.cache/xpujit/calibration", "the host's store".
  virtual std::string describe() const = 0;
  /// Whether store() may be called.
  virtual bool writable() const = 0;
  /// The encoded record stored under `key`, or nothing. An error status
  /// means the store failed (it is then disabled for the process).
  virtual rt::Status load(const Key &key, std::optional<std::string> &text) = 0;
  virtual rt::Status store(const Key &key, const std::string &text) = 0;

  /// Held while one process measures `key`, so that others starting at the
  /// same time wait and read what it stored instead of measuring too.
  class Lock {
  public:
    virtual ~Lock() = default;
    /// Whether another process held it first (and may have stored the
    /// record meanwhile).
    bool waited = false;
  };
  /// Null where the store cannot lock (the measurement is then simply
  /// taken by each process that finds no record).
  virtual std::unique_ptr<Lock> lockForMeasuring(const Key &) { return nullptr; }
};

/// One file per record, `<dir>/<key digest>.json`, written to a temporary
/// file in the same directory and renamed into place.
class DirectoryStore : public Store {
public:
  /// `dir` is created (mode 0700) when `create`; a directory that cannot be
  /// created or written makes the store read-only, with `note()` saying why.
  DirectoryStore(std::string dir, bool create);
  std::string describe() const override { return "directory " + dir_; }
  bool writable() const override { return writable_; }
  const std::string &note() const { return note_; }
  rt::Status load(const Key &key, std::optional<std::string> &text) override;
  rt::Status store(const Key &key, const std::string &text) override;
  /// An flock on `<dir>/<key digest>.lock`; waits at most `kLockWaitSeconds`
  /// for another process (a hung one must not stop this one).
  std::unique_ptr<Lock> lockForMeasuring(const Key &key) override;

private:
  std::string dir_, note_;
  bool writable_ = false;
};

/// The default store: `calibration/` in the kernel cache's location
/// (XPU_CACHE_DIR, else $XDG_CACHE_HOME/xpujit, else ~/.cache/xpujit),
/// read-only under XPU_CACHE=readonly and XPU_CACHE=off (records there are
/// read, nothing is written). With no usable location it is a store that
/// holds nothing and is not writable; `note` says why.
std::unique_ptr<Store> defaultStore(std::string &note);

} // namespace xpu::cal
