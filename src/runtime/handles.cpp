// The handle table; see handles.h.
#include "runtime/handles.h"

namespace xpu::rt {

namespace {
struct SpinGuard {
  std::atomic_flag &flag;
  explicit SpinGuard(std::atomic_flag &f) : flag(f) {
    while (flag.test_and_set(std::memory_order_acquire))
      ;
  }
  ~SpinGuard() { flag.clear(std::memory_order_release); }
};

constexpr uint64_t kIndexMask = 0xFFFFFFFFull;
constexpr uint64_t kGenMask = 0xFFFFFFull;

uint64_t encode(uint32_t index, uint32_t gen, Kind kind) {
  return (uint64_t(kind) << 56) | ((uint64_t(gen) & kGenMask) << 32) |
         (uint64_t(index) + 1);
}
} // namespace

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::context: return "context";
  case Kind::device: return "device";
  case Kind::buffer: return "buffer";
  case Kind::stream: return "stream";
  case Kind::event: return "event";
  case Kind::module: return "module";
  case Kind::kernel: return "kernel";
  case Kind::diagnostics: return "diagnostics";
  case Kind::builder: return "builder";
  case Kind::graph: return "graph";
  case Kind::graphExec: return "graph exec";
  }
  return "object";
}

HandleTable &HandleTable::get() {
  static HandleTable *table = new HandleTable(); // never destroyed: handles
                                                 // may be used at exit
  return *table;
}

HandleTable::Slot *HandleTable::slot(uint32_t index) {
  uint32_t chunk = index / kChunkSlots;
  if (chunk >= kMaxChunks)
    return nullptr;
  Slot *base = chunks_[chunk].load(std::memory_order_acquire);
  return base ? base + index % kChunkSlots : nullptr;
}

uint64_t HandleTable::add(Kind kind, std::shared_ptr<Object> obj) {
  uint32_t index;
  {
    std::lock_guard<std::mutex> g(growMutex_);
    if (!freeList_.empty()) {
      index = freeList_.back();
      freeList_.pop_back();
    } else {
      index = nextIndex_++;
      uint32_t chunk = index / kChunkSlots;
      if (chunk >= kMaxChunks)
        return 0;
      if (!chunks_[chunk].load(std::memory_order_relaxed))
        chunks_[chunk].store(new Slot[kChunkSlots], std::memory_order_release);
    }
  }
  Slot *s = slot(index);
  SpinGuard g(s->lock);
  s->kind = kind;
  s->object = std::move(obj);
  uint64_t h = encode(index, s->generation, kind);
  s->object->handle = h;
  return h;
}

HandleTable::Slot *HandleTable::slotFor(uint64_t h, Kind kind) {
  if (Kind(h >> 56) != kind || (h & kIndexMask) == 0)
    return nullptr;
  return slot(uint32_t((h & kIndexMask) - 1));
}

/// Whether `s` (locked) holds the live object `h` names.
static bool holds(const HandleTable::Slot &s, uint64_t h, Kind kind) {
  return s.object && s.kind == kind &&
         (s.generation & kGenMask) == ((h >> 32) & kGenMask);
}

std::shared_ptr<Object> HandleTable::lookup(uint64_t h, Kind kind) {
  Slot *s = slotFor(h, kind);
  if (!s)
    return nullptr;
  SpinGuard g(s->lock);
  return holds(*s, h, kind) ? s->object : nullptr;
}

std::shared_ptr<Object> HandleTable::remove(uint64_t h, Kind kind) {
  Slot *s = slotFor(h, kind);
  if (!s)
    return nullptr;
  std::shared_ptr<Object> obj;
  {
    SpinGuard g(s->lock);
    if (!holds(*s, h, kind))
      return nullptr;
    obj = std::move(s->object);
    s->object.reset();
    ++s->generation;
  }
  std::lock_guard<std::mutex> g(growMutex_);
  freeList_.push_back(uint32_t((h & kIndexMask) - 1));
  return obj;
}

} // namespace xpu::rt
