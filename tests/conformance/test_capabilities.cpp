// Conformance: the device's capability table through the C API, and a
// kernel that needs f64 runs where the table says f64 is available.
#include "harness.h"

#include <map>

using namespace conf;

TEST_CASE("every capability has a verdict, a kind and the evidence behind it") {
  uint32_t n = 0;
  XPU_OK(xpu_device_capability_count(target().dev, &n));
  REQUIRE(n > 0);
  std::map<std::string, xpu_capability> byName;
  for (uint32_t i = 0; i < n; ++i) {
    xpu_capability c;
    XPU_OK(xpu_device_capability(target().dev, i, &c));
    CAPTURE(c.name);
    CHECK(std::string(c.name).size() > 0);
    CHECK(std::string(c.evidence).size() > 0); // no fact without a source
    if (c.verdict != XPU_VERDICT_AVAILABLE)
      CHECK(std::string(c.reason).size() > 0);
    byName[c.name] = c;
  }
  CHECK(byName.count("f64.arith"));
  CHECK(byName.count("shared.memory"));
  CHECK(byName["shared.memory"].has_limit == 1);
  xpu_capability c;
  CHECK(xpu_device_capability(target().dev, n, &c) == XPU_ERROR_NOT_FOUND);
  CHECK(xpu_device_capability(nullptr, 0, &c) == XPU_ERROR_INVALID_HANDLE);
}

TEST_CASE("an f64 kernel is admitted and runs where f64 is available") {
  xpu_capability f64;
  uint32_t n = 0;
  XPU_OK(xpu_device_capability_count(target().dev, &n));
  bool available = false;
  for (uint32_t i = 0; i < n; ++i) {
    XPU_OK(xpu_device_capability(target().dev, i, &f64));
    if (std::string(f64.name) == "f64.arith")
      available = f64.verdict == XPU_VERDICT_AVAILABLE;
  }
  const std::string text = R"(
    xpu.kernel @dscale(%out: !xpu.buffer<f64>, %in: !xpu.buffer<f64, ro>, %s: f64) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<f64, ro>
      %r = arith.mulf %v, %s : f64
      xpu.store %r, %out[%i] : !xpu.buffer<f64>
      xpu.return
    })";
  xpu_module mod = nullptr;
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(),
                                    text.size(), nullptr, &mod, nullptr);
  if (!available) {
    // Refused with the capability named (this backend reports no f64).
    CHECK(st == XPU_ERROR_REFUSED);
    CHECK(std::string(xpu_last_error_message()).find("f64") != std::string::npos);
    return;
  }
  REQUIRE(st == XPU_SUCCESS);
  std::vector<double> in(256);
  for (auto &x : in)
    x = std::uniform_real_distribution<double>(-1e6, 1e6)(rng());
  Buffer bin = Buffer::from(in), bout(256 * 8);
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(mod, "dscale", &k));
  run(k, {4}, {64},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_f64(1.0 / 3)});
  auto out = bout.read<double>();
  for (int i = 0; i < 256; ++i)
    REQUIRE(out[i] == in[i] * (1.0 / 3));
  xpu_module_release(mod);
}
