// C API: the kernel cache's state and maintenance (`xpujit cache`).
#include "runtime/env.h"
#include "runtime/kernel_cache.h"

#include <unistd.h>

#include <cstring>

using namespace xpu::rt;
namespace cache = xpu::cache;

namespace {

Status cacheReady(cache::Cache *&out) {
  const Settings *s = nullptr;
  XPU_RETURN_IF_ERROR(settings(s));
  out = &kernelCache();
  return {};
}

xpu_cache_mode modeOf(cache::Cache &kc) {
  if (kc.mode() == cache::Mode::off)
    return XPU_CACHE_MODE_OFF;
  if (!kc.disk())
    return XPU_CACHE_MODE_MEMORY;
  if (kc.mode() == cache::Mode::readonly || !kc.disk()->writable())
    return XPU_CACHE_MODE_READONLY;
  return XPU_CACHE_MODE_ON;
}

/// Calls `fn` with one report as the C API shows it.
void report(const cache::EntryReport &r, const std::string &dir,
            xpu_cache_entry_fn fn, void *user) {
  std::string path = dir + "/" + r.file.name;
  std::string key = r.file.id->key.hex();
  xpu_cache_entry e = {};
  e.struct_size = sizeof e;
  e.path = path.c_str();
  e.key = key.c_str();
  e.kind = cache::entryKindName(r.file.id->kind);
  e.description = r.description.c_str();
  e.problem = r.problem.c_str();
  e.bytes = r.file.bytes;
  e.last_used = r.file.lastUsedNs / 1000000000;
  fn(&e, user);
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_cache_stats_get(xpu_cache_stats *out) {
  if (!out)
    return finish(invalidArgument("xpu_cache_stats_get: `out` is NULL"));
  if (out->struct_size < sizeof(uint32_t))
    return finish(invalidArgument("xpu_cache_stats.struct_size is not set"));
  cache::Cache *kc = nullptr;
  if (Status st = cacheReady(kc); !st.isOk())
    return finish(st);
  xpu_cache_stats s = {};
  s.struct_size = out->struct_size;
  s.mode = modeOf(*kc);
  s.location = kc->location().c_str();
  s.note = kc->note().c_str();
  s.max_bytes = kc->maxBytes();
  s.memory_hits = kc->counters().memoryHits;
  s.disk_hits = kc->counters().diskHits;
  s.compiles = kc->counters().compiles;
  if (cache::DiskStore *disk = kc->disk()) {
    for (const cache::StoreFile &f : disk->list().entries) {
      ++s.entries;
      s.bytes += f.bytes;
    }
    s.stores = disk->counters().stores;
    s.bad_entries = disk->counters().badEntries;
    s.evictions = disk->counters().evicted;
    if (s.mode == XPU_CACHE_MODE_READONLY && kc->mode() == cache::Mode::on)
      s.note = "writing failed earlier in this process (see the log)";
  }
  std::memcpy(out, &s, std::min<size_t>(out->struct_size, sizeof s));
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_cache_list(xpu_cache_entry_fn fn, void *user) {
  if (!fn)
    return finish(invalidArgument("xpu_cache_list: `fn` is NULL"));
  cache::Cache *kc = nullptr;
  if (Status st = cacheReady(kc); !st.isOk())
    return finish(st);
  for (const cache::EntryReport &r : kc->entries(/*verify=*/false))
    report(r, kc->location(), fn, user);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_cache_verify(xpu_cache_entry_fn fn, void *user,
                                    uint64_t *checked, uint64_t *removed) {
  cache::Cache *kc = nullptr;
  if (Status st = cacheReady(kc); !st.isOk())
    return finish(st);
  uint64_t nChecked = 0, nRemoved = 0;
  for (const cache::EntryReport &r : kc->entries(/*verify=*/true)) {
    ++nChecked;
    if (r.problem.empty())
      continue;
    std::string path = kc->location() + "/" + r.file.name;
    nRemoved += ::access(path.c_str(), F_OK) != 0;
    if (fn)
      report(r, kc->location(), fn, user);
  }
  if (checked)
    *checked = nChecked;
  if (removed)
    *removed = nRemoved;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_cache_clear(uint64_t *removed) {
  cache::Cache *kc = nullptr;
  if (Status st = cacheReady(kc); !st.isOk())
    return finish(st);
  if (kc->mode() != cache::Mode::on)
    return finish({XPU_ERROR_UNSUPPORTED, std::string("XPU_CACHE=") +
                                              cache::modeName(kc->mode()) +
                                              ": the disk cache is not changed"});
  if (!kc->disk())
    return finish({XPU_ERROR_UNSUPPORTED, "there is no disk cache: " + kc->note()});
  uint64_t n = kc->clear();
  if (removed)
    *removed = n;
  return XPU_SUCCESS;
}

} // extern "C"
