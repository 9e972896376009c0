// Conformance: streams, events, async copies and the deferred-borrow rule.
#include "harness.h"

using namespace conf;

namespace {
const char *kAddOne = R"(
  xpu.kernel @add_one(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
    %i = xpu.global_id x
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    %c1 = arith.constant 1 : i32
    %r = arith.addi %v, %c1 : i32
    xpu.store %r, %out[%i] : !xpu.buffer<i32>
    xpu.return
  })";
const uint32_t kGrid[3] = {64, 1, 1}, kBlock[3] = {64, 1, 1};
const uint32_t kN = 64 * 64;
} // namespace

TEST_CASE("an event orders work across two streams") {
  Module m(kAddOne);
  xpu_kernel k = m.kernel("add_one");
  xpu_stream s1, s2;
  xpu_event e;
  XPU_OK(xpu_stream_create(target().dev, &s1));
  XPU_OK(xpu_stream_create(target().dev, &s2));
  XPU_OK(xpu_event_create(target().dev, &e));
  auto in = randomInts<int32_t>(kN, -1000, 1000);
  std::vector<int32_t> result(kN, 0);
  Buffer a(kN * 4), b(kN * 4), c(kN * 4);
  // s1: upload, a -> b; s2 waits for it, then b -> c and downloads c.
  XPU_OK(xpu_buffer_upload_async(a.handle, 0, in.data(), kN * 4, s1));
  xpu_arg ab[2] = {xpu_arg_buffer(b.handle), xpu_arg_buffer(a.handle)};
  XPU_OK(xpu_launch(k, s1, kGrid, kBlock, ab, 2));
  XPU_OK(xpu_event_record(e, s1));
  XPU_OK(xpu_stream_wait_event(s2, e));
  xpu_arg bc[2] = {xpu_arg_buffer(c.handle), xpu_arg_buffer(b.handle)};
  XPU_OK(xpu_launch(k, s2, kGrid, kBlock, bc, 2));
  XPU_OK(xpu_buffer_download_async(c.handle, 0, result.data(), kN * 4, s2));
  XPU_OK(xpu_stream_synchronize(s2));
  XPU_OK(xpu_event_synchronize(e));
  CHECK(xpu_event_query(e) == XPU_SUCCESS);
  XPU_OK(xpu_stream_synchronize(s1));
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(result[i] == in[i] + 2);
  xpu_event_release(e);
  xpu_stream_release(s1);
  xpu_stream_release(s2);
}

TEST_CASE("a buffer lent to a launch stays borrowed until its stream syncs") {
  Module m(kAddOne);
  auto in = randomInts<int32_t>(kN, -1000, 1000);
  Buffer src = Buffer::from(in);
  xpu_buffer out;
  XPU_OK(xpu_buffer_create(target().dev, kN * 4, &out));
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  xpu_arg args[2] = {xpu_arg_buffer(out), xpu_arg_buffer(src.handle)};
  XPU_OK(xpu_launch(m.kernel("add_one"), s, kGrid, kBlock, args, 2));

  // Freeing it, or work on another stream that overwrites or reads what the
  // kernel writes: refused.
  CHECK(xpu_buffer_free(out) == XPU_ERROR_BUSY);
  CHECK(std::string(xpu_last_error_message()).find("add_one") != std::string::npos);
  std::vector<int32_t> junk(kN, 7);
  CHECK(xpu_buffer_upload_async(out, 0, junk.data(), kN * 4, nullptr) == XPU_ERROR_BUSY);
  CHECK(xpu_buffer_download_async(out, 0, junk.data(), kN * 4, nullptr) == XPU_ERROR_BUSY);
  CHECK(xpu_buffer_upload_async(src.handle, 0, junk.data(), kN * 4, nullptr) ==
        XPU_ERROR_BUSY);
  // Reading what the kernel only reads is fine, without waiting.
  std::vector<int32_t> copy(kN);
  xpu_stream other;
  XPU_OK(xpu_stream_default(target().dev, &other));
  XPU_OK(xpu_buffer_download_async(src.handle, 0, copy.data(), kN * 4, other));
  XPU_OK(xpu_stream_synchronize(other));
  CHECK(copy == in);
  // Ordered work on the same stream is fine.
  std::vector<int32_t> result(kN);
  XPU_OK(xpu_buffer_download_async(out, 0, result.data(), kN * 4, s));

  XPU_OK(xpu_stream_synchronize(s));
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(result[i] == in[i] + 1); // the refused upload changed nothing
  XPU_OK(xpu_buffer_free(out));
  CHECK(xpu_buffer_free(out) == XPU_ERROR_INVALID_HANDLE);
  xpu_stream_release(s);
}

TEST_CASE("device synchronize ends every stream's borrows") {
  Module m(kAddOne);
  Buffer src = Buffer::from(randomInts<int32_t>(kN, 0, 9));
  xpu_buffer out;
  XPU_OK(xpu_buffer_create(target().dev, kN * 4, &out));
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  xpu_arg args[2] = {xpu_arg_buffer(out), xpu_arg_buffer(src.handle)};
  XPU_OK(xpu_launch(m.kernel("add_one"), s, kGrid, kBlock, args, 2));
  XPU_OK(xpu_device_synchronize(target().dev));
  XPU_OK(xpu_buffer_free(out));
  xpu_stream_release(s);
}

TEST_CASE("blocking copies wait for the work that conflicts with them") {
  Module m(kAddOne);
  auto in = randomInts<int32_t>(kN, -1000, 1000);
  Buffer src = Buffer::from(in), out(kN * 4);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  xpu_arg args[2] = {xpu_arg_buffer(out.handle), xpu_arg_buffer(src.handle)};
  XPU_OK(xpu_launch(m.kernel("add_one"), s, kGrid, kBlock, args, 2));
  // A download of what the launch writes waits for it, as a blocking CUDA
  // copy does, and sees every element it wrote.
  std::vector<int32_t> result(kN, 0);
  XPU_OK(xpu_buffer_download(out.handle, 0, result.data(), kN * 4));
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(result[i] == in[i] + 1);
  // An upload over what a launch reads waits until it has read it.
  XPU_OK(xpu_launch(m.kernel("add_one"), s, kGrid, kBlock, args, 2));
  auto next = randomInts<int32_t>(kN, -1000, 1000);
  XPU_OK(xpu_buffer_upload(src.handle, 0, next.data(), kN * 4));
  XPU_OK(xpu_buffer_download(out.handle, 0, result.data(), kN * 4));
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(result[i] == in[i] + 1); // computed from the old contents
  XPU_OK(xpu_stream_synchronize(s));
  xpu_stream_release(s);
}
