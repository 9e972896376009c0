// The kernel cache through the C API, in one process: in-process hits,
// one compile per key under contention, keys that ignore formatting and
// names, and kernel descriptions that always come from the current source.
// Runs on the CPU with a fresh cache directory under $XPU_TEST_SCRATCH.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "xpu_c.h"

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

xpu_context ctx;
xpu_device dev;

#define XPU_OK(expr)                                                           \
  do {                                                                         \
    xpu_status st_ = (expr);                                                   \
    INFO(#expr << ": " << xpu_status_name(st_) << ": " << xpu_last_error_message()); \
    REQUIRE(st_ == XPU_SUCCESS);                                               \
  } while (0)

xpu_cache_stats stats() {
  xpu_cache_stats s = {};
  s.struct_size = sizeof s;
  XPU_OK(xpu_cache_stats_get(&s));
  return s;
}

xpu_module create(const std::string &text, const char *name = "a.mlir",
                  xpu_context c = ctx, xpu_device d = dev) {
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = name;
  xpu_module m = nullptr;
  XPU_OK(xpu_module_create(c, d, text.data(), text.size(), &opts, &m, nullptr));
  return m;
}

/// Runs kernel 0 of `m` as fill(y, v) over `groups` workgroups of 4 into a
/// buffer of 8 floats; returns the synchronize status and the buffer.
xpu_status fill(xpu_module m, uint32_t groups, float v, std::vector<float> &out) {
  xpu_kernel k;
  XPU_OK(xpu_module_kernel_at(m, 0, &k));
  xpu_buffer b;
  out.assign(8, 0.0f);
  XPU_OK(xpu_buffer_create(dev, 32, &b));
  XPU_OK(xpu_buffer_upload(b, 0, out.data(), 32));
  xpu_arg args[2] = {xpu_arg_buffer(b), xpu_arg_f32(v)};
  uint32_t grid[3] = {groups, 1, 1}, block[3] = {4, 1, 1};
  XPU_OK(xpu_launch(k, nullptr, grid, block, args, 2));
  xpu_status st = xpu_device_synchronize(dev);
  XPU_OK(xpu_buffer_download(b, 0, out.data(), 32));
  XPU_OK(xpu_buffer_free(b));
  return st;
}

/// y[i] = v; the store is bounds-checked at run time (`checked`), and a
/// failure reports its source location.
const std::string kFill = "xpu.kernel @fill(%y: !xpu.buffer<f32>, %v: f32) {\n"
                          "  %i = xpu.global_id x\n"
                          "  xpu.store %v, %y[%i] {checked} : !xpu.buffer<f32>\n"
                          "  xpu.return\n"
                          "}\n";

/// kFill again: other whitespace, comments and value names; the store is
/// on line 7 instead of 3.
const std::string kFillAgain = "// the same kernel, written differently\n"
                               "\n"
                               "xpu.kernel @fill(%out: !xpu.buffer<f32>,\n"
                               "                 %val: f32) {\n"
                               "    // one element per invocation\n"
                               "    %gid = xpu.global_id x\n"
                               "      xpu.store %val, %out[%gid]  {checked}  :   !xpu.buffer<f32>\n"
                               "    xpu.return\n"
                               "}\n";

std::string variant(int c) {
  return "xpu.kernel @fill(%y: !xpu.buffer<f32>, %v: f32) {\n"
         "  %i = xpu.global_id x\n"
         "  %c = arith.constant " + std::to_string(c) + ".0 : f32\n"
         "  %w = arith.addf %v, %c : f32\n"
         "  xpu.store %w, %y[%i] : !xpu.buffer<f32>\n"
         "  xpu.return\n"
         "}\n";
}

} // namespace

TEST_CASE("the same text again is an in-process hit that runs") {
  xpu_cache_stats before = stats();
  xpu_module a = create(kFill);
  xpu_cache_stats mid = stats();
  CHECK(mid.compiles == before.compiles + 1);
  xpu_module b = create(kFill);
  xpu_cache_stats after = stats();
  CHECK(after.compiles == mid.compiles);
  CHECK(after.memory_hits == mid.memory_hits + 1);
  std::vector<float> out;
  CHECK(fill(b, 2, 3.5f, out) == XPU_SUCCESS);
  CHECK(out == std::vector<float>(8, 3.5f));
  xpu_module_release(a);
  CHECK(fill(b, 2, 1.0f, out) == XPU_SUCCESS); // b lives on without a
  xpu_module_release(b);
}

TEST_CASE("formatting, comments and names do not change the key; reports use the current source") {
  xpu_module a = create(kFill, "a.mlir");
  xpu_cache_stats before = stats();
  xpu_module b = create(kFillAgain, "b.mlir");
  xpu_cache_stats after = stats();
  CHECK(after.compiles == before.compiles);
  CHECK(after.memory_hits == before.memory_hits + 1);

  xpu_kernel ka, kb;
  XPU_OK(xpu_module_kernel(a, "fill", &ka));
  XPU_OK(xpu_module_kernel(b, "fill", &kb));
  xpu_param_info pa, pb;
  XPU_OK(xpu_kernel_param(ka, 0, &pa));
  XPU_OK(xpu_kernel_param(kb, 0, &pb));
  CHECK(std::string(pa.name) == "y");
  CHECK(std::string(pb.name) == "out");

  // Three workgroups of 4 over 8 elements: the store is out of bounds, and
  // each module reports it where its own source has it.
  std::vector<float> out;
  REQUIRE(fill(a, 3, 1.0f, out) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(std::string(xpu_last_error_message()).find("store to 'y' at a.mlir:3:") !=
        std::string::npos);
  REQUIRE(fill(b, 3, 1.0f, out) == XPU_ERROR_OUT_OF_BOUNDS);
  INFO(xpu_last_error_message());
  CHECK(std::string(xpu_last_error_message()).find("store to 'out' at b.mlir:7:") !=
        std::string::npos);
  CHECK(out == std::vector<float>(8, 1.0f));
  xpu_module_release(a);
  xpu_module_release(b);
}

TEST_CASE("a different kernel compiles") {
  xpu_cache_stats before = stats();
  xpu_module m = create(variant(1));
  CHECK(stats().compiles == before.compiles + 1);
  std::vector<float> out;
  CHECK(fill(m, 2, 1.0f, out) == XPU_SUCCESS);
  CHECK(out == std::vector<float>(8, 2.0f));
  xpu_module_release(m);
}

TEST_CASE("threads asking for one new kernel at once compile it once") {
  xpu_cache_stats before = stats();
  std::string text = variant(2);
  std::vector<xpu_module> mods(8);
  std::vector<xpu_status> results(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      results[t] = xpu_module_create(ctx, dev, text.data(), text.size(), nullptr,
                                     &mods[t], nullptr);
    });
  for (auto &t : threads)
    t.join();
  xpu_cache_stats after = stats();
  CHECK(after.compiles == before.compiles + 1);
  CHECK(after.memory_hits == before.memory_hits + 7);
  for (int t = 0; t < 8; ++t) {
    REQUIRE(results[t] == XPU_SUCCESS);
    std::vector<float> out;
    CHECK(fill(mods[t], 2, float(t), out) == XPU_SUCCESS);
    CHECK(out == std::vector<float>(8, float(t) + 2.0f));
    xpu_module_release(mods[t]);
  }
}

TEST_CASE("another context finds what this process compiled") {
  xpu_context c2;
  xpu_device d2;
  XPU_OK(xpu_context_create(nullptr, &c2));
  XPU_OK(xpu_device_default(c2, &d2));
  xpu_cache_stats before = stats();
  xpu_module m = create(variant(1), "a.mlir", c2, d2);
  xpu_cache_stats after = stats();
  CHECK(after.compiles == before.compiles);
  CHECK(after.memory_hits + after.disk_hits == before.memory_hits + before.disk_hits + 1);
  xpu_module_release(m);
  xpu_context_release(c2);
}

TEST_CASE("cache stats, list, verify and clear") {
  xpu_cache_stats s = stats();
  CHECK(s.mode == XPU_CACHE_MODE_ON);
  CHECK(std::string(s.location).find("api") != std::string::npos);
  CHECK(s.entries >= 4); // kernel and source entries of the kernels above
  CHECK(s.bytes > 0);
  CHECK(s.stores >= 4);
  CHECK(s.bad_entries == 0);

  CHECK(xpu_cache_stats_get(nullptr) == XPU_ERROR_INVALID_ARGUMENT);
  xpu_cache_stats unset = {};
  CHECK(xpu_cache_stats_get(&unset) == XPU_ERROR_INVALID_ARGUMENT);
  struct {
    xpu_cache_stats head;
  } small = {};
  small.head.struct_size = offsetof(xpu_cache_stats, location);
  small.head.max_bytes = 12345;
  XPU_OK(xpu_cache_stats_get(&small.head));
  CHECK(small.head.mode == XPU_CACHE_MODE_ON);
  CHECK(small.head.max_bytes == 12345); // beyond struct_size: untouched

  struct Seen {
    int kernels = 0, sources = 0, bad = 0;
  } seen;
  XPU_OK(xpu_cache_list(
      [](const xpu_cache_entry *e, void *user) {
        auto *s = static_cast<Seen *>(user);
        std::string kind = e->kind;
        s->kernels += kind == "kernel";
        s->sources += kind == "source";
        s->bad += e->problem[0] != 0;
      },
      &seen));
  CHECK(seen.kernels >= 2);
  CHECK(seen.sources >= 2);
  CHECK(seen.bad == 0);
  CHECK(xpu_cache_list(nullptr, nullptr) == XPU_ERROR_INVALID_ARGUMENT);

  uint64_t checked = 0, removed = 1;
  XPU_OK(xpu_cache_verify(nullptr, nullptr, &checked, &removed));
  CHECK(checked == s.entries);
  CHECK(removed == 0);

  XPU_OK(xpu_cache_clear(&removed));
  CHECK(removed == s.entries);
  CHECK(stats().entries == 0);
  // Modules still come from the process's level, and run.
  xpu_module m = create(variant(1));
  std::vector<float> out;
  CHECK(fill(m, 2, 0.0f, out) == XPU_SUCCESS);
  CHECK(out == std::vector<float>(8, 1.0f));
  xpu_module_release(m);
}

int main(int argc, char **argv) {
  const char *root = std::getenv("XPU_TEST_SCRATCH");
  std::string dir = std::string(root && *root ? root : "cache-api-scratch") + "/api";
  std::filesystem::remove_all(dir);
  setenv("XPU_CACHE_DIR", dir.c_str(), 1);
  setenv("XPU_BACKEND", "cpu", 1);
  if (xpu_context_create(nullptr, &ctx) != XPU_SUCCESS ||
      xpu_device_default(ctx, &dev) != XPU_SUCCESS) {
    std::fprintf(stderr, "cache api test: %s\n", xpu_last_error_message());
    return 1;
  }
  doctest::Context context(argc, argv);
  int rc = context.run();
  xpu_context_release(ctx);
  return rc;
}
