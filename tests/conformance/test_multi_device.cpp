// Conformance: work across the devices of one context -- copies within a
// device and between two, events that order one device's work after
// another's, one source compiled and loaded per device.
#include "harness.h"

using namespace conf;

namespace {
const char *kAddK = R"(
  xpu.kernel @add_k(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %k: i32) {
    %i = xpu.global_id x
    %n = xpu.buffer_size %out : !xpu.buffer<i32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %r = arith.addi %v, %k : i32
      xpu.store %r, %out[%i] : !xpu.buffer<i32>
    }
    xpu.return
  })";
const uint32_t kN = 1 << 16;
const uint32_t kGrid[3] = {kN / 256, 1, 1}, kBlock[3] = {256, 1, 1};

/// Another device of the test context than the one under test, if any.
xpu_device otherDevice() {
  uint32_t n = 0;
  XPU_OK(xpu_device_count(target().ctx, &n));
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d = nullptr;
    XPU_OK(xpu_device_get(target().ctx, i, &d));
    if (d != target().dev)
      return d;
  }
  return nullptr;
}

xpu_buffer upload(xpu_device dev, const std::vector<int32_t> &v) {
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(dev, v.size() * 4, &b));
  XPU_OK(xpu_buffer_upload(b, 0, v.data(), v.size() * 4));
  return b;
}

std::vector<int32_t> download(xpu_buffer b, size_t n) {
  std::vector<int32_t> v(n);
  XPU_OK(xpu_buffer_download(b, 0, v.data(), n * 4));
  return v;
}
} // namespace

TEST_CASE("copies between buffers of one device, in stream order") {
  auto in = randomInts<int32_t>(kN, -1 << 30, 1 << 30);
  Module m(kAddK);
  xpu_buffer a = upload(target().dev, in), b, c;
  XPU_OK(xpu_buffer_create(target().dev, kN * 4, &b));
  XPU_OK(xpu_buffer_create(target().dev, kN * 4, &c));
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  // a + 5 -> b, b[1000..] -> c[0..], c + 1 -> b: all on one stream.
  xpu_arg ab[3] = {xpu_arg_buffer(b), xpu_arg_buffer(a), xpu_arg_i32(5)};
  XPU_OK(xpu_launch(m.kernel("add_k"), s, kGrid, kBlock, ab, 3));
  XPU_OK(xpu_buffer_copy(c, 0, b, 4000, (kN - 1000) * 4, s));
  CHECK(xpu_buffer_free(c) == XPU_ERROR_BUSY); // lent to the copy
  XPU_OK(xpu_stream_synchronize(s));
  auto r = download(c, kN - 1000);
  for (uint32_t i = 0; i < kN - 1000; ++i)
    REQUIRE(r[i] == in[i + 1000] + 5);
  // Ranges are checked; overlapping within one buffer is refused.
  CHECK(xpu_buffer_copy(c, 4, b, 0, kN * 4, s) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_copy(b, 8, b, 0, 64, s) == XPU_ERROR_INVALID_ARGUMENT);
  XPU_OK(xpu_buffer_copy(b, 64, b, 0, 64, s));
  XPU_OK(xpu_stream_synchronize(s));
  auto rb = download(b, 32);
  for (int i = 0; i < 16; ++i)
    REQUIRE(rb[16 + i] == rb[i]);
  xpu_stream_release(s);
  XPU_OK(xpu_buffer_free(a));
  XPU_OK(xpu_buffer_free(b));
  XPU_OK(xpu_buffer_free(c));
}

TEST_CASE("work on two devices: one source, a copy between them, a cross-device event") {
  xpu_device other = otherDevice();
  if (!other) {
    MESSAGE("SKIP: the context has one device; nothing to copy between");
    return;
  }
  auto in = randomInts<int32_t>(kN, -1 << 30, 1 << 30);
  Module here(kAddK), there(kAddK, other); // compiled per target, loaded per device
  xpu_buffer a = upload(target().dev, in), b, c, d;
  XPU_OK(xpu_buffer_create(target().dev, kN * 4, &b));
  XPU_OK(xpu_buffer_create(other, kN * 4, &c));
  XPU_OK(xpu_buffer_create(other, kN * 4, &d));
  xpu_stream s1, s2;
  xpu_event e;
  XPU_OK(xpu_stream_create(target().dev, &s1));
  XPU_OK(xpu_stream_create(other, &s2));
  XPU_OK(xpu_event_create(target().dev, &e));
  // Device 1: b = a + 3; then b -> c on device 2's stream, once the event
  // says device 1's kernel is done; device 2: d = c + 4.
  xpu_arg ab[3] = {xpu_arg_buffer(b), xpu_arg_buffer(a), xpu_arg_i32(3)};
  XPU_OK(xpu_launch(here.kernel("add_k"), s1, kGrid, kBlock, ab, 3));
  XPU_OK(xpu_event_record(e, s1));
  XPU_OK(xpu_stream_wait_event(s2, e));
  XPU_OK(xpu_buffer_copy(c, 0, b, 0, kN * 4, s2));
  xpu_arg cd[3] = {xpu_arg_buffer(d), xpu_arg_buffer(c), xpu_arg_i32(4)};
  XPU_OK(xpu_launch(there.kernel("add_k"), s2, kGrid, kBlock, cd, 3));
  XPU_OK(xpu_stream_synchronize(s2));
  auto r = download(d, kN);
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(r[i] == in[i] + 7);
  // And back, the other way round, on the default stream of the destination.
  XPU_OK(xpu_buffer_copy(b, 0, d, 0, kN * 4, nullptr));
  XPU_OK(xpu_device_synchronize(target().dev));
  auto back = download(b, kN);
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(back[i] == in[i] + 7);
  xpu_event_release(e);
  xpu_stream_release(s1);
  xpu_stream_release(s2);
  for (xpu_buffer x : {a, b, c, d})
    XPU_OK(xpu_buffer_free(x));
}
