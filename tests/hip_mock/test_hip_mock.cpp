// xpujit's side of the HIP runtime API, against a mock libamdhip64
// (mock_amdhip64.cpp) with one fake device: enumeration and identity,
// capability probes with their queries, memory, module loading of the code
// objects xpujit generates for the device's architecture, the launch's
// parameters, the missing-device-library refusal, and a device fault
// followed by a lost device. Kernels do not run here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "xpu_c.h"

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define XPU_OK(expr)                                                           \
  do {                                                                         \
    xpu_status st_ = (expr);                                                   \
    INFO(#expr << " -> " << xpu_status_name(st_) << ": "                       \
               << xpu_last_error_message());                                   \
    REQUIRE(st_ == XPU_SUCCESS);                                               \
  } while (0)

struct Hip {
  xpu_context ctx = nullptr;
  xpu_device dev = nullptr;
  xpu_device_info info = {sizeof info};
  Hip() {
    XPU_OK(xpu_context_create(nullptr, &ctx));
    uint32_t n = 0;
    XPU_OK(xpu_device_count(ctx, &n));
    for (uint32_t i = 0; i < n && !dev; ++i) {
      xpu_device d;
      XPU_OK(xpu_device_get(ctx, i, &d));
      XPU_OK(xpu_device_info_get(d, &info));
      if (info.backend == XPU_BACKEND_HIP)
        dev = d;
    }
    INFO("hip note: " << xpu_context_backend_note(ctx, XPU_BACKEND_HIP));
    REQUIRE(dev);
  }
  ~Hip() { xpu_context_release(ctx); }
};

std::string expectedArch() {
  const char *a = std::getenv("MOCK_HIP_ARCH");
  return a && *a ? a : "gfx942:sramecc+:xnack-";
}

using LastLaunch = int (*)(char *, size_t, unsigned *, unsigned *, uint8_t (*)[8], int);
LastLaunch mockLastLaunch() {
  std::string lib = std::string(std::getenv("ROCM_PATH")) + "/lib/libamdhip64.so";
  void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h);
  auto f = reinterpret_cast<LastLaunch>(dlsym(h, "mockLastLaunch"));
  REQUIRE(static_cast<bool>(f));
  return f;
}

const char *kAddOne = R"(
  xpu.kernel @add_one(%b: !xpu.buffer<i32>, %k: i32) {
    %i = xpu.global_id x
    %v = xpu.load %b[%i] : !xpu.buffer<i32>
    %r = arith.addi %v, %k : i32
    xpu.store %r, %b[%i] : !xpu.buffer<i32>
    xpu.return
  })";

} // namespace

TEST_CASE("the HIP device: identity from the runtime") {
  Hip h;
  CHECK(std::string(h.info.name) == "Mock AMD Instinct");
  CHECK(std::string(h.info.vendor) == "AMD");
  CHECK(std::string(h.info.arch) == expectedArch());
  CHECK(std::string(h.info.driver) == "HIP runtime 6.3.42134, driver 6.3.42134");
  CHECK(h.info.memory_bytes == uint64_t(192) << 30);
  CHECK(h.info.compute_units == 304);
  CHECK(h.info.wave_width == (expectedArch().rfind("gfx1", 0) == 0 ? 32u : 64u));
  CHECK(h.info.max_workgroup_size == 1024);
  CHECK(h.info.uuid[0] == 0xa0);
  CHECK(h.info.uuid[15] == 0xaf);
  // HIP comes before the CPU in the default order.
  xpu_device def = nullptr;
  XPU_OK(xpu_device_default(h.ctx, &def));
  CHECK(def == h.dev);
}

TEST_CASE("capabilities name their HIP queries; missing device libraries are a verdict") {
  Hip h;
  uint32_t n = 0;
  XPU_OK(xpu_device_capability_count(h.dev, &n));
  bool shared = false, math = false, contraction = false;
  for (uint32_t i = 0; i < n; ++i) {
    xpu_capability c;
    XPU_OK(xpu_device_capability(h.dev, i, &c));
    std::string name = c.name, evidence = c.evidence, reason = c.reason;
    INFO(name << ": " << reason << "; " << evidence);
    if (name == "shared.memory") {
      shared = true;
      CHECK(c.verdict == XPU_VERDICT_AVAILABLE);
      CHECK(c.limit == 65536);
      CHECK(evidence == "hipDeviceGetAttribute(hipDeviceAttributeMaxSharedMemoryPerBlock)=65536");
    } else if (name == "math.library") {
      math = true;
      CHECK(c.verdict == XPU_VERDICT_UNAVAILABLE);
      CHECK(c.kind == XPU_CAPABILITY_HOST_TOOLCHAIN);
      CHECK(reason.find(std::string(std::getenv("ROCM_PATH")) + "/amdgcn/bitcode/ocml.bc") !=
            std::string::npos);
    } else if (name == "fp.contraction-control") {
      // The probe ran through the HIP launch path (the mock runs nothing).
      contraction = true;
      CHECK(evidence.find("hip device 'Mock AMD Instinct'") != std::string::npos);
    }
    CHECK_FALSE(evidence.empty());
  }
  CHECK(shared);
  CHECK(math);
  CHECK(contraction);
}

TEST_CASE("memory, a code object for the device, and the launch's parameters") {
  Hip h;
  std::vector<int32_t> data(200), back(200);
  for (int i = 0; i < 200; ++i)
    data[i] = i * 7 - 3;
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(h.dev, data.size() * 4, &b));
  XPU_OK(xpu_buffer_upload(b, 0, data.data(), data.size() * 4));
  XPU_OK(xpu_buffer_download(b, 0, back.data(), back.size() * 4));
  CHECK(back == data);

  xpu_module m;
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_create(h.ctx, h.dev, kAddOne, std::strlen(kAddOne), nullptr,
                                    &m, &diags);
  INFO(xpu_diagnostics_text(diags) << xpu_last_error_message());
  xpu_diagnostics_release(diags);
  REQUIRE(st == XPU_SUCCESS);
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(m, "add_one", &k));
  xpu_arg args[2] = {xpu_arg_buffer(b), xpu_arg_i32(-5)};
  uint32_t grid[3] = {4, 1, 1}, block[3] = {64, 1, 1};
  XPU_OK(xpu_launch(k, nullptr, grid, block, args, 2));
  xpu_stream s;
  XPU_OK(xpu_stream_default(h.dev, &s));
  XPU_OK(xpu_stream_synchronize(s));

  char name[64];
  unsigned g[3], bl[3];
  uint8_t params[16][8];
  mockLastLaunch()(name, sizeof name, g, bl, params, 16);
  CHECK(std::string(name) == "add_one");
  CHECK((g[0] == 4 && g[1] == 1 && g[2] == 1));
  CHECK((bl[0] == 64 && bl[1] == 1 && bl[2] == 1));
  // The flattened parameters: pointer, element count, k, status word.
  uint64_t pointer, count, status;
  int32_t kValue;
  std::memcpy(&pointer, params[0], 8);
  std::memcpy(&count, params[1], 8);
  std::memcpy(&kValue, params[2], 4);
  std::memcpy(&status, params[3], 8);
  CHECK(pointer != 0);
  CHECK(count == 200);
  CHECK(kValue == -5);
  CHECK(status != 0);

  // Another wave width than the device's is refused for a device.
  xpu_module_options options = XPU_MODULE_OPTIONS_INIT;
  options.wave_width = h.info.wave_width == 64 ? 32 : 64;
  CHECK(xpu_module_create(h.ctx, h.dev, kAddOne, std::strlen(kAddOne), &options, &m,
                          nullptr) == XPU_ERROR_UNSUPPORTED);
}

TEST_CASE("a kernel needing math functions is refused naming what was looked for") {
  Hip h;
  const char *text = R"(
    xpu.kernel @m(%o: !xpu.buffer<f32>) {
      %i = xpu.global_id x
      %v = xpu.load %o[%i] : !xpu.buffer<f32>
      %s = math.sin %v : f32
      xpu.store %s, %o[%i] : !xpu.buffer<f32>
      xpu.return
    })";
  xpu_module m;
  xpu_diagnostics diags = nullptr;
  CHECK(xpu_module_create(h.ctx, h.dev, text, std::strlen(text), nullptr, &m, &diags) ==
        XPU_ERROR_REFUSED);
  std::string all = xpu_diagnostics_text(diags);
  xpu_diagnostics_release(diags);
  INFO(all);
  CHECK(all.find("XPU-CAP001: kernel 'm' needs math library functions") != std::string::npos);
  CHECK(all.find("/amdgcn/bitcode/ocml.bc") != std::string::npos);
}

template <typename F> F mockSymbol(const char *name) {
  std::string lib = std::string(std::getenv("ROCM_PATH")) + "/lib/libamdhip64.so";
  void *h = dlopen(lib.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h);
  auto f = reinterpret_cast<F>(dlsym(h, name));
  REQUIRE(static_cast<bool>(f));
  return f;
}

TEST_CASE("graphs, budgets and manifests on HIP: hipGraph nodes, CU masks, code facts") {
  Hip h;
  xpu_module m;
  XPU_OK(xpu_module_create(h.ctx, h.dev, kAddOne, std::strlen(kAddOne), nullptr, &m, nullptr));
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(m, "add_one", &k));
  xpu_buffer b, b2;
  XPU_OK(xpu_buffer_create(h.dev, 200 * 4, &b));
  XPU_OK(xpu_buffer_create(h.dev, 200 * 4, &b2));
  uint64_t address = 0, address2 = 0;
  XPU_OK(xpu_buffer_address(b, &address));
  XPU_OK(xpu_buffer_address(b2, &address2));
  xpu_stream s;
  XPU_OK(xpu_stream_create(h.dev, &s));
  uint32_t grid[3] = {4, 1, 1}, block[3] = {64, 1, 1};

  // Two launches captured: a hipGraph of two kernel nodes, replayed by
  // hipGraphLaunch with the captured parameters, updated in place.
  XPU_OK(xpu_stream_begin_capture(s));
  xpu_arg first[2] = {xpu_arg_buffer(b), xpu_arg_i32(-5)};
  xpu_arg second[2] = {xpu_arg_buffer(b), xpu_arg_i32(7)};
  XPU_OK(xpu_launch(k, s, grid, block, first, 2));
  XPU_OK(xpu_launch(k, s, grid, block, second, 2));
  xpu_graph g;
  XPU_OK(xpu_stream_end_capture(s, &g));
  xpu_graph_exec e;
  XPU_OK(xpu_graph_instantiate(g, &e));
  CHECK(std::string(xpu_graph_exec_kind(e)) == "hip graph");
  auto graphLaunches = mockSymbol<int (*)()>("mockGraphLaunches");
  int before = graphLaunches();
  XPU_OK(xpu_graph_launch(e, s));
  XPU_OK(xpu_stream_synchronize(s));
  CHECK(graphLaunches() == before + 1);
  char name[64];
  unsigned gr[3], bl[3];
  uint8_t params[16][8];
  uint64_t pointer;
  int32_t kValue;
  mockLastLaunch()(name, sizeof name, gr, bl, params, 16);
  std::memcpy(&pointer, params[0], 8);
  std::memcpy(&kValue, params[2], 4);
  CHECK(std::string(name) == "add_one");
  CHECK((gr[0] == 4 && bl[0] == 64));
  CHECK(pointer == address);
  CHECK(kValue == 7);
  xpu_arg updated[2] = {xpu_arg_buffer(b2), xpu_arg_i32(9)};
  XPU_OK(xpu_graph_exec_set_args(e, 1, updated, 2));
  XPU_OK(xpu_graph_launch(e, s));
  XPU_OK(xpu_stream_synchronize(s));
  mockLastLaunch()(name, sizeof name, gr, bl, params, 16);
  std::memcpy(&pointer, params[0], 8);
  std::memcpy(&kValue, params[2], 4);
  CHECK(pointer == address2);
  CHECK(kValue == 9);
  xpu_graph_exec_release(e);
  xpu_graph_release(g);

  // A budget reserves CUs: a stream made with the first N of the mask set.
  xpu_submission sub = XPU_SUBMISSION_INIT;
  sub.stream = s;
  sub.compute_units = 4;
  xpu_submission_result result = {sizeof result};
  XPU_OK(xpu_submit(k, &sub, grid, block, first, 2, &result));
  XPU_OK(xpu_stream_synchronize(s));
  INFO(result.note);
  CHECK((result.flags & XPU_SUBMIT_BUDGET_RESERVED) != 0);
  CHECK(result.compute_units == 4);
  uint32_t mask[16] = {};
  int words = mockSymbol<int (*)(uint32_t *, int)>("mockLastCUMask")(mask, 16);
  CHECK(words == int((h.info.compute_units + 31) / 32));
  CHECK(mask[0] == 0xFu);
  for (int i = 1; i < words && i < 16; ++i)
    CHECK(mask[i] == 0u);

  // The manifest's footprint from the code object's metadata.
  xpu_kernel_manifest man = {sizeof man};
  XPU_OK(xpu_kernel_manifest_get(k, &man));
  INFO(man.json);
  CHECK(man.registers.known);
  CHECK(std::string(man.registers.source).find(".vgpr_count") != std::string::npos);
  CHECK(man.spill_bytes.known);
  CHECK(man.max_workgroup_size.known);
  CHECK(man.local_bytes.known);
  uint32_t uses = 0;
  XPU_OK(xpu_kernel_param_uses(k, 0, &uses, nullptr));
  CHECK(uses == (XPU_USE_READ | XPU_USE_WRITE));
  xpu_stream_release(s);
}

const char *kMockFault = R"(
    xpu.kernel @mock_fault(%b: !xpu.buffer<i32>) {
      %i = xpu.global_id x
      %one = arith.constant 1 : i32
      xpu.store %one, %b[%i] : !xpu.buffer<i32>
      xpu.return
    })";

TEST_CASE("a device fault is reported, then the device is lost") {
  Hip h;
  const char *text = kMockFault;
  xpu_module m;
  XPU_OK(xpu_module_create(h.ctx, h.dev, text, std::strlen(text), nullptr, &m, nullptr));
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(m, "mock_fault", &k));
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(h.dev, 256, &b));
  xpu_arg arg = xpu_arg_buffer(b);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  XPU_OK(xpu_launch(k, nullptr, grid, block, &arg, 1));
  xpu_stream s;
  XPU_OK(xpu_stream_default(h.dev, &s));
  CHECK(xpu_stream_synchronize(s) == XPU_ERROR_DEVICE_FAULT);
  std::string message = xpu_last_error_message();
  CHECK(message.find("kernel 'mock_fault'") != std::string::npos);
  CHECK(message.find("hipErrorIllegalAddress") != std::string::npos);
  xpu_buffer other;
  CHECK(xpu_buffer_create(h.dev, 16, &other) == XPU_ERROR_DEVICE_LOST);
  CHECK(std::string(xpu_last_error_message()).find("lost") != std::string::npos);
}

// In a process of its own (".graphfault"): a fault poisons the mock as it
// does HIP.
TEST_CASE("a graph fault names the replayed graph's kernels") {
  Hip h;
  xpu_module m;
  XPU_OK(xpu_module_create(h.ctx, h.dev, kMockFault, std::strlen(kMockFault), nullptr, &m,
                           nullptr));
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(m, "mock_fault", &k));
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(h.dev, 256, &b));
  xpu_arg arg = xpu_arg_buffer(b);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  xpu_stream s;
  XPU_OK(xpu_stream_create(h.dev, &s));
  XPU_OK(xpu_stream_begin_capture(s));
  XPU_OK(xpu_launch(k, s, grid, block, &arg, 1));
  xpu_graph g;
  XPU_OK(xpu_stream_end_capture(s, &g));
  xpu_graph_exec e;
  XPU_OK(xpu_graph_instantiate(g, &e));
  XPU_OK(xpu_graph_launch(e, s));
  CHECK(xpu_stream_synchronize(s) == XPU_ERROR_DEVICE_FAULT);
  CHECK(std::string(xpu_last_error_message()).find("kernel 'mock_fault'") != std::string::npos);
  xpu_graph_exec_release(e);
  xpu_graph_release(g);
}
