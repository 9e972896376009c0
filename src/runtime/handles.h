// The handle table: turns the C API's opaque handles into objects, and
// recognizes NULL, released and wrong-kind handles instead of crashing.
//
// A handle is a 64-bit value: the object kind in bits 56-63, the slot's
// generation in bits 24-55 (32 bits) and slot index + 1 in bits 0-23 (at
// most 2^24 - 1 live handles). Releasing a handle bumps its slot's
// generation; a slot whose generation reaches its limit is retired, never
// handed out again. So a handle value is issued at most once in a process:
// a stale copy never names another object, however many objects come and
// go (2^56 handles in all, about 390 years at 5.8 million a second).
// Slots live in fixed chunks that are never freed, so a lookup only reads
// memory that stays valid; each slot has its own spin lock.
#pragma once

#include "runtime/status.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace xpu::rt {

enum class Kind : uint8_t {
  context = 1,
  device,
  buffer,
  stream,
  event,
  module,
  kernel,
  diagnostics,
  builder,
  graph,
  graphExec,
};

const char *kindName(Kind kind);

/// Base of every object a handle can name.
struct Object {
  virtual ~Object() = default;
  uint64_t handle = 0; ///< the object's own handle, once registered
};

class HandleTable {
public:
  static constexpr unsigned kIndexBits = 24;
  static constexpr unsigned kGenerationBits = 32;
  static constexpr uint32_t kMaxGeneration = 0xFFFFFFFFu;

  static HandleTable &get();
  /// A table of at most `maxSlots` slots that retire after `maxGeneration`
  /// generations (tests use small limits to reach both).
  explicit HandleTable(uint32_t maxGeneration = kMaxGeneration,
                       uint32_t maxSlots = kMaxSlots);
  ~HandleTable(); ///< (the process's table is never destroyed)
  HandleTable(const HandleTable &) = delete;
  HandleTable &operator=(const HandleTable &) = delete;

  /// Registers `obj` and returns its new handle, or 0 when every slot is
  /// live or retired (the caller reports XPU_ERROR_OUT_OF_MEMORY).
  uint64_t add(Kind kind, std::shared_ptr<Object> obj);
  /// The object behind `handle` if it is live and of `kind`, else null.
  std::shared_ptr<Object> lookup(uint64_t handle, Kind kind);
  /// Unregisters `handle`; returns the object (null if it was not live).
  std::shared_ptr<Object> remove(uint64_t handle, Kind kind);
  /// Slots retired so far (their generation reached the limit).
  uint64_t retiredSlots();

  struct Slot {
    std::atomic_flag lock = ATOMIC_FLAG_INIT;
    uint32_t generation = 1;
    Kind kind{};
    std::shared_ptr<Object> object;
  };
  static constexpr uint32_t kMaxSlots = (1u << kIndexBits) - 1;

private:
  static constexpr uint32_t kChunkSlots = 4096;
  static constexpr uint32_t kMaxChunks = (kMaxSlots + kChunkSlots - 1) / kChunkSlots;

  Slot *slot(uint32_t index);
  Slot *slotFor(uint64_t handle, Kind kind);

  const uint32_t maxGeneration_, maxSlots_;
  std::atomic<Slot *> chunks_[kMaxChunks] = {};
  std::mutex growMutex_;
  std::vector<uint32_t> freeList_;
  uint32_t nextIndex_ = 0;
  uint64_t retired_ = 0;
};

/// The error for a full handle table.
Status handleTableFull(Kind kind);

template <typename T> constexpr Kind kindOf();

/// Typed lookup: returns the object, or an INVALID_HANDLE status naming what
/// was expected.
template <typename T>
Status resolve(const void *handle, std::shared_ptr<T> &out) {
  if (!handle)
    return {XPU_ERROR_INVALID_HANDLE,
            std::string("NULL ") + kindName(kindOf<T>()) + " handle"};
  auto obj = HandleTable::get().lookup(reinterpret_cast<uint64_t>(handle),
                                       kindOf<T>());
  if (!obj)
    return {XPU_ERROR_INVALID_HANDLE,
            std::string("invalid ") + kindName(kindOf<T>()) +
                " handle (released, or not a " + kindName(kindOf<T>()) + ")"};
  out = std::static_pointer_cast<T>(std::move(obj));
  return {};
}

template <typename H> H toHandle(uint64_t h) { return reinterpret_cast<H>(h); }

} // namespace xpu::rt
