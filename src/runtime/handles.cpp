// The handle table; see handles.h.
#include "runtime/handles.h"

#include <algorithm>

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

constexpr uint64_t kIndexMask = (uint64_t(1) << HandleTable::kIndexBits) - 1;
constexpr uint64_t kGenMask = (uint64_t(1) << HandleTable::kGenerationBits) - 1;

uint64_t encode(uint32_t index, uint32_t gen, Kind kind) {
  return (uint64_t(kind) << 56) | ((uint64_t(gen) & kGenMask) << HandleTable::kIndexBits) |
         (uint64_t(index) + 1);
}
uint32_t generationOf(uint64_t h) {
  return uint32_t((h >> HandleTable::kIndexBits) & kGenMask);
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

Status handleTableFull(Kind kind) {
  return {XPU_ERROR_OUT_OF_MEMORY,
          std::string("cannot make a ") + kindName(kind) +
              " handle: the process holds the most live handles it can (" +
              std::to_string(HandleTable::kMaxSlots) + ")"};
}

HandleTable::HandleTable(uint32_t maxGeneration, uint32_t maxSlots)
    : maxGeneration_(std::max(maxGeneration, 1u)),
      maxSlots_(std::min(maxSlots, kMaxSlots)) {}

HandleTable::~HandleTable() {
  for (auto &chunk : chunks_)
    delete[] chunk.load(std::memory_order_relaxed);
}

HandleTable &HandleTable::get() {
  static HandleTable *table = new HandleTable(); // never destroyed: handles
                                                 // may be used at exit
  return *table;
}

HandleTable::Slot *HandleTable::slot(uint32_t index) {
  if (index >= maxSlots_)
    return nullptr;
  Slot *base = chunks_[index / kChunkSlots].load(std::memory_order_acquire);
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
      if (nextIndex_ >= maxSlots_)
        return 0;
      index = nextIndex_++;
      uint32_t chunk = index / kChunkSlots;
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
  return s.object && s.kind == kind && s.generation == generationOf(h);
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
  bool retire;
  {
    SpinGuard g(s->lock);
    if (!holds(*s, h, kind))
      return nullptr;
    obj = std::move(s->object);
    s->object.reset();
    // A slot at its last generation stays empty for good: reusing it would
    // issue a handle value a second time.
    retire = s->generation >= maxGeneration_;
    if (!retire)
      ++s->generation;
  }
  std::lock_guard<std::mutex> g(growMutex_);
  if (retire)
    ++retired_;
  else
    freeList_.push_back(uint32_t((h & kIndexMask) - 1));
  return obj;
}

uint64_t HandleTable::retiredSlots() {
  std::lock_guard<std::mutex> g(growMutex_);
  return retired_;
}

} // namespace xpu::rt
