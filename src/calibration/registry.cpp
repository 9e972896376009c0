// The process's calibration registry; see registry.h.
#include "calibration/registry.h"

#include "runtime/log.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace xpu::cal {

/// The snapshot built into the library (CMake XPU_CALIBRATION_SNAPSHOT), or
/// "" (nothing measured is built in by default).
const char *builtinSnapshot();

namespace {

void loadSnapshot(const std::string &text, const std::string &from,
                  std::vector<Record> &into, Stats &stats, std::string &note) {
  unsigned rejected = 0;
  std::string problem = decodeSnapshot(text, into, rejected);
  stats.rejected += rejected;
  if (!problem.empty()) {
    rt::logOnce(rt::LogLevel::warn, "calibration-snapshot:" + from,
                "calibration snapshot " + from + " ignored: " + problem);
    return;
  }
  if (rejected)
    rt::logOnce(rt::LogLevel::warn, "calibration-snapshot-records:" + from,
                "calibration snapshot " + from + ": " + std::to_string(rejected) +
                    " records ignored (checksum or format)");
  note += (note.empty() ? "" : ", ") + std::string("snapshot ") + from;
}

} // namespace

Registry &Registry::get() {
  static Registry *r = [] {
    const rt::Settings *s = nullptr;
    (void)rt::settings(s);
    if (s->calibrationStats)
      printStatsAtExit();
    return new Registry(); // never destroyed: read until exit
  }();
  return *r;
}

rt::Status Registry::replace(std::unique_ptr<Store> store) {
  std::lock_guard<std::mutex> g(mu_);
  if (frozen_)
    return {XPU_ERROR_BUSY, "the calibration store can only be replaced before the "
                            "first calibration record is read (it is " +
                                (store_ ? store_->describe() : std::string("chosen")) + ")"};
  store_ = std::move(store);
  return {};
}

void Registry::freezeLocked() {
  if (frozen_)
    return;
  frozen_ = true;
  if (const char *b = builtinSnapshot(); b && *b)
    loadSnapshot(b, "(built into the library)", snapshot_, stats_, snapshotNote_);
  const rt::Settings *s = nullptr;
  (void)rt::settings(s);
  if (!s->calibrationSnapshot.empty()) {
    std::ifstream in(s->calibrationSnapshot, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in)
      rt::logOnce(rt::LogLevel::warn, "calibration-snapshot-open",
                  "XPU_CALIBRATION=" + s->calibrationSnapshot +
                      ": cannot read the snapshot; calibrating instead");
    else
      loadSnapshot(text.str(), s->calibrationSnapshot, snapshot_, stats_, snapshotNote_);
  }
  if (!store_) {
    store_ = defaultStore(storeNote_);
    noLocation_ = !store_->writable() && storeNote_.rfind("XPU_CACHE=", 0) != 0 &&
                  store_->describe().rfind("none", 0) == 0;
  }
}

void Registry::disableLocked(const std::string &what, const rt::Status &st) {
  stats_.failures++;
  disabled_ = true;
  rt::logOnce(rt::LogLevel::warn, "calibration-store-failed",
              "calibration store (" + store_->describe() + ") failed to " + what + ": " +
                  st.message() + "; it is disabled for this process, whose "
                  "measurements stay in memory");
}

std::optional<Record> Registry::read(const Key &key, bool *seen) {
  std::lock_guard<std::mutex> g(mu_);
  freezeLocked();
  if (seen)
    *seen = false;
  for (const Record &r : snapshot_)
    if (r.key == key) {
      stats_.loaded++;
      return r;
    }
  if (disabled_)
    return std::nullopt;
  std::optional<std::string> text;
  if (rt::Status st = store_->load(key, text); !st.isOk()) {
    disableLocked("load a record", st);
    return std::nullopt;
  }
  if (!text)
    return std::nullopt;
  if (seen)
    *seen = true;
  Record r;
  std::string problem = decode(*text, r);
  if (problem.empty() && r.key != key)
    problem = "its key is not the live one (" + r.key.text() + ")";
  if (!problem.empty()) {
    stats_.rejected++;
    rt::log(rt::LogLevel::info, "calibration record for " + key.text() + " in " +
                                    store_->describe() + " ignored: " + problem);
    return std::nullopt;
  }
  stats_.loaded++;
  return r;
}

void Registry::write(const Record &record) {
  std::lock_guard<std::mutex> g(mu_);
  freezeLocked();
  if (disabled_)
    return;
  if (!store_->writable()) {
    // Said once; quietly when the user asked for it (XPU_CACHE=readonly).
    // An unusable cache location is described by the kernel cache's own
    // message, so it is named here, not described again.
    bool asked = storeNote_.rfind("XPU_CACHE=", 0) == 0;
    std::string where = noLocation_ ? "no usable cache location" : store_->describe();
    if (!noLocation_ && !storeNote_.empty())
      where += ": " + storeNote_;
    rt::logOnce(asked ? rt::LogLevel::info : rt::LogLevel::warn, "calibration-store-readonly",
                "calibration: nothing writable to keep measurements in (" + where +
                    "); this process's measurements stay in memory");
    return;
  }
  if (rt::Status st = store_->store(record.key, encode(record)); !st.isOk()) {
    disableLocked("store a record", st);
    return;
  }
  stats_.stored++;
}

std::unique_ptr<Store::Lock> Registry::lockForMeasuring(const Key &key) {
  Store *store;
  {
    std::lock_guard<std::mutex> g(mu_);
    freezeLocked();
    if (disabled_)
      return nullptr;
    store = store_.get();
  }
  return store->lockForMeasuring(key); // may wait: not under mu_
}

std::string Registry::describe() {
  std::lock_guard<std::mutex> g(mu_);
  if (!frozen_) // reading the description does not choose the store
    return store_ ? store_->describe() + " (no record read yet)"
                  : "not chosen yet (no record read): the default store unless the host "
                    "replaces it";
  std::string d = store_->describe();
  if (disabled_)
    d += " (disabled after a failure)";
  else if (!store_->writable() && !noLocation_)
    d += " (read-only" + (storeNote_.empty() ? "" : ": " + storeNote_) + ")";
  if (!snapshotNote_.empty())
    d = snapshotNote_ + ", then " + d;
  return d;
}

bool Registry::writable() {
  std::lock_guard<std::mutex> g(mu_);
  if (!frozen_)
    return store_ ? store_->writable() : false;
  return !disabled_ && store_->writable();
}

void printStatsAtExit() {
  std::atexit([] {
    Stats &s = Registry::get().stats();
    std::fprintf(stderr,
                 "xpujit calibration: %llu probes run, %llu records loaded, %llu "
                 "stored, %llu rejected, %llu store failures; store %s\n",
                 (unsigned long long)s.probes.load(), (unsigned long long)s.loaded.load(),
                 (unsigned long long)s.stored.load(), (unsigned long long)s.rejected.load(),
                 (unsigned long long)s.failures.load(), Registry::get().describe().c_str());
  });
}

} // namespace xpu::cal
