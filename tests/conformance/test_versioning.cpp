// Conformance: run-time checks and aliasing where the CPU backend versions
// its loops (one range check per workgroup, a checked copy for the rest;
// code with `noalias` unless the launch's buffers overlap): counts stay
// exact, results right, on every backend.
#include "harness.h"

#include <string>

using namespace conf;

TEST_CASE("out-of-bounds counts are exact when only some workgroups leave the buffer") {
  // Reads the right and lower neighbour with no guard: the last column and
  // row read past the end of the row or buffer (and 'in' is one row short
  // of a full grid, so every workgroup of the last row of groups fails).
  Module m(R"(
    xpu.kernel @neighbours(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %w: i32) {
      %x = xpu.global_id x
      %y = xpu.global_id y
      %wi = arith.index_castui %w : i32 to index
      %row = arith.muli %y, %wi : index
      %i = arith.addi %row, %x : index
      %c1 = arith.constant 1 : index
      %r = arith.addi %i, %c1 : index
      %d = arith.addi %i, %wi : index
      %vr = xpu.load %in[%r] : !xpu.buffer<f32, ro>
      %vd = xpu.load %in[%d] : !xpu.buffer<f32, ro>
      %s = arith.addf %vr, %vd : f32
      xpu.store %s, %out[%i] : !xpu.buffer<f32>
      xpu.return
    })");
  const uint32_t bx = 16, by = 4, gx = 5, gy = 6, w = bx * gx, h = by * gy;
  const uint32_t inSize = w * (h - 1); // one row short
  auto in = randomFloats(inSize);
  Buffer bin = Buffer::from(in), bout(w * h * 4);
  uint32_t grid[3] = {gx, gy, 1}, block[3] = {bx, by, 1};
  xpu_arg args[3] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
                     xpu_arg_u32(w)};
  XPU_OK(xpu_launch(m.kernel("neighbours"), nullptr, grid, block, args, 3));
  uint64_t bad = 0;
  std::vector<float> want(w * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t i = y * w + x;
      float r = i + 1 < inSize ? in[i + 1] : 0.f, d = i + w < inSize ? in[i + w] : 0.f;
      bad += (i + 1 >= inSize) + (i + w >= inSize);
      want[i] = r + d;
    }
  REQUIRE(bad > 0);
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  std::string msg = xpu_last_error_message();
  INFO(msg);
  CHECK(msg.find(std::to_string(bad) + " out-of-bounds accesses were suppressed") !=
        std::string::npos);
  auto out = bout.read<float>();
  for (uint32_t i = 0; i < w * h; ++i) {
    INFO("element " << i);
    REQUIRE(std::memcmp(&out[i], &want[i], 4) == 0);
  }
}

TEST_CASE("one buffer passed as two parameters keeps each invocation's program order") {
  Module m(R"(
    xpu.kernel @order(%out: !xpu.buffer<i32>, %y: !xpu.buffer<i32>, %x: !xpu.buffer<i32, ro>,
                      %n: i32) {
      %i = xpu.global_id x
      %ni = arith.index_castui %n : i32 to index
      %ok = arith.cmpi ult, %i, %ni : index
      scf.if %ok {
        %old = xpu.load %x[%i] : !xpu.buffer<i32, ro>
        %c7 = arith.constant 7 : i32
        %nv = arith.addi %old, %c7 : i32
        xpu.store %nv, %y[%i] : !xpu.buffer<i32>
        %again = xpu.load %x[%i] : !xpu.buffer<i32, ro>
        xpu.store %again, %out[%i] : !xpu.buffer<i32>
      }
      xpu.return
    })");
  const uint32_t n = 1000;
  auto v = randomInts<int32_t>(n, -1 << 20, 1 << 20);
  for (bool same : {true, false}) {
    Buffer by = Buffer::from(v), bx = Buffer::from(v), bout(n * 4);
    run(m.kernel("order"), {(n + 63) / 64}, {64},
        {xpu_arg_buffer(bout.handle), xpu_arg_buffer(by.handle),
         xpu_arg_buffer(same ? by.handle : bx.handle), xpu_arg_u32(n)});
    auto out = bout.read<int32_t>(), y = by.read<int32_t>();
    for (uint32_t i = 0; i < n; ++i) {
      INFO((same ? "aliased" : "distinct") << ", element " << i);
      REQUIRE(y[i] == v[i] + 7);
      // Aliased, the second read sees this invocation's own store.
      REQUIRE(out[i] == (same ? v[i] + 7 : v[i]));
    }
  }
}
