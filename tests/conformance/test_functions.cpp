// Conformance: bounded function values (spec 17.1) — a call through a value
// naming one of a closed set of device functions, an index outside it a
// no-op with zero results — and the grid-stride loop helper (17.2), on
// fresh random data with every element checked.
#include "surface.h"
#include "surface_kernels.h"

using namespace conf;
using namespace conf::surface;

TEST_SUITE_BEGIN("surface");

namespace {

int32_t mixHost(int32_t x, int32_t y) { return int32_t((uint32_t(x) * uint32_t(y)) ^ uint32_t(y)); }

} // namespace

TEST_CASE("a bounded function value calls its function; one outside the set does nothing") {
  Module m(kDispatch);
  const uint32_t n = 4099;
  auto which = randomInts<int32_t>(n, -2, 4);
  auto a = randomInts<int32_t>(n, INT32_MIN, INT32_MAX);
  auto b = randomInts<int32_t>(n, INT32_MIN, INT32_MAX);
  Buffer out(n * 4), bw = Buffer::from(which), ba = Buffer::from(a), bb = Buffer::from(b);
  run(m.kernel("dispatch"), {(n + 63) / 64}, {64},
      {xpu_arg_buffer(out.handle), xpu_arg_buffer(bw.handle), xpu_arg_buffer(ba.handle),
       xpu_arg_buffer(bb.handle), xpu_arg_u32(n)});
  auto got = out.read<int32_t>();
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t x = uint32_t(a[i]), y = uint32_t(b[i]);
    int32_t r = which[i] == 0   ? int32_t(x + x)
                : which[i] == 1 ? int32_t(x + y)
                : which[i] == 2 ? mixHost(a[i], b[i])
                                : 0; // outside the set: the no-op's zero
    int32_t want = mixHost(r, b[i]);
    if (got[i] != want && bad++ < 5)
      FAIL_CHECK("element " << i << " (function " << which[i] << "): " << got[i]
                            << " != " << want);
  }
  CHECK(bad == 0);
}

TEST_CASE("a function set must be xpu.funcs of one type") {
  auto check = [](const char *text, const char *says) { checkSays(text, XPU_ERROR_PARSE, says); };
  check(R"(
    xpu.func @f(%x: i32) -> i32 { xpu.return %x : i32 }
    xpu.func @g(%x: f32) -> f32 { xpu.return %x : f32 }
    xpu.kernel @k(%v: i32) {
      %f = xpu.fn_value @f of [@f, @g] : i32
      xpu.return
    })", "different types");
  check(R"(
    xpu.func @f(%x: i32) -> i32 { xpu.return %x : i32 }
    xpu.kernel @k(%v: i32) {
      %f = xpu.fn_value @h of [@f] : i32
      xpu.return
    })", "is not one of the set");
}

TEST_CASE("the grid-stride helper covers every element with any grid") {
  xpu_builder b = nullptr;
  XPU_OK(xpu_builder_create(target().ctx, &b));
  XPU_OK(xpu_builder_kernel_begin(b, "scale", nullptr));
  xpu_value out, in, n, i, x, two, y;
  XPU_OK(xpu_builder_param(b, "out", "!xpu.buffer<f32>", &out));
  XPU_OK(xpu_builder_param(b, "in", "!xpu.buffer<f32, ro>", &in));
  XPU_OK(xpu_builder_buffer_size(b, in, &n));
  XPU_OK(xpu_builder_grid_stride_begin(b, n, &i));
  XPU_OK(xpu_builder_load(b, in, i, 1, &x));
  XPU_OK(xpu_builder_constant_float(b, "f32", 2.0, &two));
  XPU_OK(xpu_builder_binary(b, XPU_BINARY_MUL, x, two, &y));
  XPU_OK(xpu_builder_store(b, y, out, i));
  XPU_OK(xpu_builder_grid_stride_end(b));
  // Misuse: a bound that is not an index, an end without a begin; nothing
  // is added.
  xpu_value bad;
  CHECK(xpu_builder_grid_stride_begin(b, two, &bad) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_builder_grid_stride_end(b) == XPU_ERROR_INVALID_ARGUMENT);
  XPU_OK(xpu_builder_return(b, nullptr, 0));
  const char *built = nullptr;
  XPU_OK(xpu_builder_print(b, &built));
  std::string text = R"(
    xpu.kernel @scale(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
      %n = xpu.buffer_size %in : !xpu.buffer<f32, ro>
      %g = xpu.global_id x
      %s = xpu.global_size x
      scf.for %i = %g to %n step %s {
        %x = xpu.load %in[%i] : !xpu.buffer<f32, ro>
        %two = arith.constant 2.0 : f32
        %y = arith.mulf %x, %two : f32
        xpu.store %y, %out[%i] : !xpu.buffer<f32>
      }
      xpu.return
    })";
  const char *formatted = nullptr;
  XPU_OK(xpu_module_format(target().ctx, text.data(), text.size(), nullptr, &formatted, nullptr));
  CHECK(std::string(built) == std::string(formatted));
  xpu_module mod = nullptr;
  XPU_OK(xpu_builder_finish(b, target().dev, nullptr, &mod, nullptr));
  xpu_kernel k = nullptr;
  XPU_OK(xpu_module_kernel(mod, "scale", &k));
  for (uint32_t groups : {1u, 7u}) {
    const uint32_t count = 10007;
    auto v = randomFloats(count);
    Buffer bo(count * 4), bi = Buffer::from(v);
    run(k, {groups}, {64}, {xpu_arg_buffer(bo.handle), xpu_arg_buffer(bi.handle)});
    auto got = bo.read<float>();
    size_t wrong = 0;
    for (uint32_t e = 0; e < count; ++e)
      wrong += got[e] != v[e] * 2.0f;
    CHECK_MESSAGE(wrong == 0, groups << " workgroups");
  }
  xpu_module_release(mod);
  xpu_builder_release(b);
}

TEST_SUITE_END();
