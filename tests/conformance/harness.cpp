// The conformance harness and the suite's main(); see harness.h.
#define DOCTEST_CONFIG_IMPLEMENT
#include "harness.h"

#include <cstdio>
#include <cstdlib>

namespace conf {

Target &target() {
  static Target t;
  return t;
}

std::mt19937_64 &rng() {
  static std::mt19937_64 r = [] {
    uint64_t seed = std::random_device()();
    if (const char *s = std::getenv("XPU_TEST_SEED"))
      seed = std::strtoull(s, nullptr, 10);
    std::printf("conformance: random seed %llu (XPU_TEST_SEED repeats it)\n",
                (unsigned long long)seed);
    return std::mt19937_64(seed);
  }();
  return r;
}

Module::Module(const std::string &text, xpu_device dev) {
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_create(target().ctx, dev ? dev : target().dev,
                                    text.data(), text.size(), nullptr, &handle,
                                    &diags);
  // INFO is evaluated on failure: copy the strings before the release.
  std::string said = xpu_diagnostics_text(diags);
  std::string status = std::string(xpu_status_name(st)) + ": " + xpu_last_error_message();
  INFO("diagnostics: " << said);
  INFO("status: " << status);
  xpu_diagnostics_release(diags);
  REQUIRE(st == XPU_SUCCESS);
}

xpu_kernel Module::kernel(const char *name) const {
  xpu_kernel k = nullptr;
  XPU_OK(xpu_module_kernel(handle, name, &k));
  return k;
}

Buffer::Buffer(size_t n) : bytes(n) {
  XPU_OK(xpu_buffer_create(target().dev, n, &handle));
}

Buffer::~Buffer() {
  if (!handle)
    return;
  (void)xpu_device_synchronize(target().dev);
  (void)xpu_buffer_free(handle);
}

xpu_stream defaultStream() {
  xpu_stream s = nullptr;
  XPU_OK(xpu_stream_default(target().dev, &s));
  return s;
}

std::string diagnosticsOf(const std::string &text, xpu_status &st) {
  xpu_module m = nullptr;
  xpu_diagnostics diags = nullptr;
  st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(), nullptr, &m,
                         &diags);
  std::string said = xpu_diagnostics_text(diags);
  xpu_diagnostics_release(diags);
  xpu_module_release(m);
  return said;
}

void run(xpu_kernel k, std::initializer_list<uint32_t> grid,
         std::initializer_list<uint32_t> block, std::vector<xpu_arg> args) {
  uint32_t g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
  std::copy(grid.begin(), grid.end(), g);
  std::copy(block.begin(), block.end(), b);
  XPU_OK(xpu_launch(k, nullptr, g, b, args.data(), args.size()));
  XPU_OK(xpu_stream_synchronize(defaultStream()));
}

} // namespace conf

/// Selects the backend under test; exits 77 (skipped) when it has no device.
int main(int argc, char **argv) {
  using namespace conf;
  const char *want = std::getenv("XPU_TEST_BACKEND");
  std::string backend = want && *want ? want : "cpu";
  if (xpu_context_create(nullptr, &target().ctx) != XPU_SUCCESS) {
    std::fprintf(stderr, "conformance: cannot create a context: %s\n",
                 xpu_last_error_message());
    return 1;
  }
  uint32_t n = 0;
  xpu_device_count(target().ctx, &n);
  for (uint32_t i = 0; i < n && !target().dev; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    xpu_device_get(target().ctx, i, &d);
    xpu_device_info_get(d, &info);
    if (backend == xpu_backend_name(info.backend)) {
      target().dev = d;
      target().backend = info.backend;
      target().name = info.name;
    }
  }
  if (!target().dev) {
    xpu_backend b = XPU_BACKEND_CPU;
    for (xpu_backend x : {XPU_BACKEND_CUDA, XPU_BACKEND_HIP, XPU_BACKEND_VULKAN})
      if (backend == xpu_backend_name(x))
        b = x;
    std::printf("SKIP: no %s device (%s)\n", backend.c_str(),
                xpu_context_backend_note(target().ctx, b));
    xpu_context_release(target().ctx);
    return 77;
  }
  std::printf("conformance: %s device '%s'\n", backend.c_str(), target().name.c_str());
  doctest::Context runner(argc, argv);
  int rc = runner.run();
  xpu_context_release(target().ctx);
  xpu_cache_stats stats = {sizeof stats};
  if (xpu_cache_stats_get(&stats) == XPU_SUCCESS)
    std::printf("conformance: kernel cache %s: %llu from memory, %llu from disk, "
                "%llu compiled%s%s\n",
                stats.location, (unsigned long long)stats.memory_hits,
                (unsigned long long)stats.disk_hits, (unsigned long long)stats.compiles,
                *stats.note ? "; " : "", stats.note);
  // The ".cached" run must really have been served by the disk cache.
  if (rc == 0 && std::getenv("XPU_TEST_EXPECT_CACHED") &&
      (stats.compiles != 0 || stats.disk_hits == 0)) {
    std::printf("FAILED: expected every module from the disk cache\n");
    rc = 1;
  }
  return rc;
}
