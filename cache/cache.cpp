// The kernel cache of one process; see cache.h.
#include "cache.h"

#include <unistd.h>

namespace xpu::cache {

const char *modeName(Mode mode) {
  switch (mode) {
  case Mode::off: return "off";
  case Mode::readonly: return "readonly";
  case Mode::on: return "on";
  }
  return "?";
}

Cache::Cache(Config config)
    : mode_(config.mode), maxBytes_(config.maxBytes) {
  if (mode_ == Mode::off) {
    note_ = "XPU_CACHE=off: nothing is cached";
    return;
  }
  Location loc = config.location;
  prepareLocation(loc, mode_ == Mode::on);
  bool writable = mode_ == Mode::on;
  if (!loc.dir.empty() && writable && ::access(loc.dir.c_str(), W_OK) != 0) {
    loc.problem = "the cache directory " + loc.dir + " is not writable";
    loc.dir.clear();
  }
  if (loc.dir.empty()) {
    note_ = loc.problem + "; kernels are cached in memory only";
    if (config.hooks.warn && mode_ == Mode::on)
      config.hooks.warn("location", note_);
    else if (config.hooks.debug)
      config.hooks.debug(note_);
    return;
  }
  location_ = loc.dir;
  disk_ = std::make_unique<DiskStore>(loc.dir, writable, maxBytes_,
                                      std::move(config.hooks));
}

bool Cache::loadKernel(const Key &key, KernelPayload &out,
                       const std::vector<abi::KernelInfo> *expect) {
  if (!disk_)
    return false;
  std::vector<uint8_t> bytes;
  return disk_->load(EntryKind::kernel, key,
                     [&](const std::vector<uint8_t> &p) {
                       std::string problem = decode(p, out);
                       if (problem.empty() && expect && !sameInterface(out.kernels, *expect))
                         problem = "its kernels differ from the source's";
                       return problem;
                     },
                     bytes);
}

bool Cache::loadSource(const Key &key, SourcePayload &out) {
  if (!disk_)
    return false;
  std::vector<uint8_t> bytes;
  return disk_->load(EntryKind::source, key,
                     [&](const std::vector<uint8_t> &p) { return decode(p, out); },
                     bytes);
}

void Cache::saveKernel(const Key &key, const KernelPayload &payload) {
  if (disk_)
    disk_->save(EntryKind::kernel, key, encode(payload));
}

void Cache::saveSource(const Key &key, const SourcePayload &payload) {
  if (disk_)
    disk_->save(EntryKind::source, key, encode(payload));
}

namespace {

std::string describe(const std::vector<abi::KernelInfo> &kernels) {
  std::string s;
  for (const abi::KernelInfo &k : kernels)
    s += (s.empty() ? "" : ",") + k.name;
  return s.empty() ? "(no kernels)" : s;
}

} // namespace

std::vector<EntryReport> Cache::entries(bool verify) {
  std::vector<EntryReport> out;
  if (!disk_)
    return out;
  for (StoreFile &f : disk_->list().entries) {
    EntryReport r;
    auto validate = [&](const std::vector<uint8_t> &p) {
      if (f.id->kind == EntryKind::kernel) {
        KernelPayload k;
        std::string problem = decode(p, k);
        r.description = describe(k.kernels) + " (" + k.format + ", " + k.toolchain + ")";
        return problem;
      }
      SourcePayload s;
      std::string problem = decode(p, s);
      r.description = "source of " + describe(s.kernels) + " -> " + s.content.hex();
      return problem;
    };
    if (f.id->version != kFormatVersion)
      r.description = "format " + std::to_string(f.id->version) +
                      " (another library version; not read)";
    else
      r.problem = disk_->check(f, validate, verify);
    r.file = std::move(f);
    out.push_back(std::move(r));
  }
  return out;
}

uint64_t Cache::clear() { return disk_ ? disk_->clear() : 0; }

std::string Cache::summary() {
  auto n = [](uint64_t v, const char *what) { return std::to_string(v) + " " + what; };
  std::string s = "xpujit cache: " + n(counters_.memoryHits, "memory hits") + ", " +
                  n(counters_.diskHits, "disk hits") + ", " +
                  n(counters_.compiles, "compiled");
  StoreCounters none;
  StoreCounters &c = disk_ ? disk_->counters() : none;
  s += "; " + n(c.stores, "stored") + ", " + n(c.badEntries, "bad entries") + ", " +
       n(c.evicted, "evicted") + ", " + n(c.storeFailures, "failed writes");
  s += std::string("; mode ") + modeName(mode_) + ", " +
       (disk_ ? location_ : "memory only");
  return s;
}

} // namespace xpu::cache
