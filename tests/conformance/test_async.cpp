// Conformance: asynchronous copies from global into shared memory on fresh
// random data: tiles copied while the workgroup computes, every element
// checked; a copy that runs off its buffer reported as the out-of-bounds
// accesses it makes.
#include "surface.h"
#include "surface_kernels.h"

#include <cstring>

using namespace conf;
using namespace conf::surface;

TEST_SUITE_BEGIN("surface");

TEST_CASE("an asynchronous copy fills a shared tile before the wait returns") {
  Module m(kTiledStencil);
  for (uint32_t n : {256u * 40, 256u * 23 + 101}) {
    auto in = randomFloats(n);
    std::vector<float> sentinel(n + 7, 99.0f);
    Buffer out = Buffer::from(sentinel), bin = Buffer::from(in);
    run(m.kernel("stencil"), {(n + 255) / 256}, {256},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(n)});
    auto got = out.read<float>();
    size_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
      float l = i ? in[i - 1] : 0.0f, r = i + 1 < n ? in[i + 1] : 0.0f;
      float want = (l + in[i]) + r;
      if (std::memcmp(&got[i], &want, 4) != 0 && bad++ < 5)
        FAIL_CHECK("n " << n << " element " << i << ": " << got[i] << " != " << want);
    }
    CHECK(bad == 0);
    CHECK(got[n] == 99.0f);
  }
}

TEST_CASE("an asynchronous copy past its buffer is reported, never read") {
  Module m(R"(
    xpu.kernel @overrun(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %count: i32) {
      %c0 = arith.constant 0 : index
      %t = xpu.thread_id x
      %tile = xpu.alloc : !xpu.buffer<64xf32, shared>
      %k = arith.index_castui %count : i32 to index
      %tok = xpu.async_copy %in[%c0] to %tile[%c0], %k : !xpu.buffer<f32, ro> to !xpu.buffer<64xf32, shared>
      xpu.async_wait %tok
      %v = xpu.load %tile[%t] : !xpu.buffer<64xf32, shared>
      xpu.store %v, %out[%t] : !xpu.buffer<f32>
      xpu.return
    })");
  Buffer out(32 * 4), in(16 * 4);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  xpu_arg args[] = {xpu_arg_buffer(out.handle), xpu_arg_buffer(in.handle), xpu_arg_u32(48)};
  XPU_OK(xpu_launch(m.kernel("overrun"), nullptr, grid, block, args, 3));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  std::string why = xpu_last_error_message();
  INFO(why);
  CHECK(why.find("32 out-of-bounds accesses") != std::string::npos);
  CHECK(why.find("load from 'in'") != std::string::npos);
}

TEST_SUITE_END();
