// The in-process level: a map from key to a shared, immutable value, with
// single flight (one caller makes a missing value while the others asking
// for the same key wait for it) and least-recently-used eviction beyond a
// number of entries (values in use stay alive through their shared_ptr).
#pragma once

#include "key.h"

#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace xpu::cache {

template <typename V> class MemoryCache {
public:
  explicit MemoryCache(size_t capacity) : capacity_(capacity ? capacity : 1) {}

  /// The value for `key`. When there is none, `make()` runs on this thread
  /// (returning null for failure) while other callers for `key` wait. A
  /// failure is not remembered: each waiter then tries for itself. `hit`
  /// says whether the value came from the map.
  template <typename Make>
  std::shared_ptr<const V> get(const Key &key, Make &&make, bool &hit) {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      auto it = map_.find(key);
      if (it == map_.end())
        break;
      std::shared_ptr<Slot> slot = it->second;
      if (!slot->done)
        done_.wait(l, [&] { return slot->done; });
      if (slot->value) {
        if (slot->inLru)
          lru_.splice(lru_.begin(), lru_, slot->lru);
        hit = true;
        return slot->value;
      }
    }
    auto slot = std::make_shared<Slot>();
    map_.emplace(key, slot);
    l.unlock();
    std::shared_ptr<const V> value;
    try {
      value = make();
    } catch (...) {
      finish(key, slot, nullptr);
      throw;
    }
    finish(key, slot, value);
    hit = false;
    return value;
  }

  size_t size() {
    std::lock_guard<std::mutex> g(mu_);
    return lru_.size();
  }

private:
  struct Slot {
    bool done = false;
    bool inLru = false;
    std::shared_ptr<const V> value;
    typename std::list<Key>::iterator lru;
  };

  void finish(const Key &key, const std::shared_ptr<Slot> &slot,
              std::shared_ptr<const V> value) {
    {
      std::lock_guard<std::mutex> g(mu_);
      slot->done = true;
      slot->value = std::move(value);
      if (!slot->value) {
        map_.erase(key);
      } else {
        lru_.push_front(key);
        slot->lru = lru_.begin();
        slot->inLru = true;
        while (lru_.size() > capacity_) {
          map_.erase(lru_.back());
          lru_.pop_back();
        }
      }
    }
    done_.notify_all();
  }

  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable done_;
  std::unordered_map<Key, std::shared_ptr<Slot>, KeyHash> map_;
  std::list<Key> lru_; ///< finished values, most recently used first
};

} // namespace xpu::cache
