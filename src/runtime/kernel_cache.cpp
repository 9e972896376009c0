// The process's kernel cache and cache key environments; see kernel_cache.h.
#include "runtime/kernel_cache.h"
#include "runtime/log.h"
#include "xpu/Pipeline.h"

#include "llvm/Config/llvm-config.h"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xpu::rt {

namespace {

/// The GNU build id of the object that contains this function: it changes
/// with every change to the library's code, so a rebuilt library never
/// gets another build's kernels. "" when the linker wrote none.
std::string buildId() {
  struct Search {
    uintptr_t address;
    std::string id;
  } search{reinterpret_cast<uintptr_t>(&buildId), {}};
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) -> int {
        auto *s = static_cast<Search *>(data);
        bool contains = false;
        for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          contains = ph.p_type == PT_LOAD && s->address >= start &&
                     s->address < start + ph.p_memsz;
        }
        if (!contains)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          auto *p = reinterpret_cast<const uint8_t *>(info->dlpi_addr + ph.p_vaddr);
          const uint8_t *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const uint8_t *name = p + sizeof(ElfW(Nhdr));
            const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
            if (desc + n->n_descsz > end)
              break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
              for (uint32_t j = 0; j < n->n_descsz; ++j) {
                char hex[3];
                std::snprintf(hex, sizeof hex, "%02x", desc[j]);
                s->id += hex;
              }
              return 1;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &search);
  return search.id;
}

cache::Cache *makeCache() {
  const Settings *s = nullptr;
  (void)settings(s); // a bad setting was reported by xpu_context_create
  cache::Config config;
  config.mode = s->cacheMode;
  config.location = s->cacheLocation;
  config.maxBytes = s->cacheMaxBytes;
  config.hooks.warn = [](const std::string &key, const std::string &message) {
    logOnce(LogLevel::warn, "cache:" + key, message);
  };
  config.hooks.debug = [](const std::string &message) {
    log(LogLevel::debug, message);
  };
  config.hooks.stallWrites = s->cacheStallWrites;
  auto *c = new cache::Cache(std::move(config));
  if (s->cacheStats)
    std::atexit([] { std::fprintf(stderr, "%s\n", kernelCache().summary().c_str()); });
  return c;
}

} // namespace

cache::Cache &kernelCache() {
  // Never destroyed: modules may be made until the process exits.
  static cache::Cache *instance = makeCache();
  return *instance;
}

cache::Environment keyEnvironment(const Device &device) {
  static const std::string library = [] {
    std::string id = buildId();
    return std::to_string(XPU_VERSION_MAJOR) + "." + std::to_string(XPU_VERSION_MINOR) +
           "." + std::to_string(XPU_VERSION_PATCH) +
           (id.empty() ? std::string(" (no build id)") : " build " + id);
  }();
  static const char *kinds[] = {"cpu", "nvptx", "amdgcn", "spirv"};
  const TargetDesc &t = device.target();
  const DeviceIdentity &d = device.identity();
  cache::Environment env;
  env.library = library;
  env.pipeline = std::to_string(kPipelineVersion);
  env.llvm = LLVM_VERSION_STRING;
  env.target = std::string("kind=") + kinds[int(t.kind)] + ";triple=" + t.triple +
               ";chip=" + t.chip + ";features=" + t.features +
               ";wave=" + std::to_string(t.waveWidth);
  // Tiers turned off or emulated change the code the same source compiles to.
  if (const Settings *config = nullptr; settings(config).isOk() && !config->tileTiersOff.empty())
    env.target += ";tiers-off=" + config->tileTiersOff;
  if (const Settings *config = nullptr; settings(config).isOk() && !config->tileEmulate.empty())
    env.target += ";tiles-emulate=" + config->tileEmulate;
  if (const Settings *config = nullptr; settings(config).isOk() && !config->tileSpecialize.empty())
    env.target += ";tiles-specialize=" + config->tileSpecialize;
  if (tileSplit())
    env.target += ";tiles-split=on";
  env.toolchain = device.toolchainIdentity();
  env.device = "backend=" + std::to_string(int(d.backend)) + ";name=" + d.name +
               ";vendor=" + d.vendor + ";arch=" + d.arch + ";driver=" + d.driver;
  return env;
}

std::string fileIdentity(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return path + " (absent)";
  char buf[128];
  std::snprintf(buf, sizeof buf, " (%lld bytes, mtime %lld.%09ld, ctime %lld.%09ld)",
                (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
  return path + buf;
}

} // namespace xpu::rt
