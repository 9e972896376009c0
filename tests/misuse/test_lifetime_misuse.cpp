// Objects released while work that uses them is still queued: events with a
// record or a wait queued, modules with a launch queued, streams with work
// queued, a context with everything queued. The work completes with the
// right results and nothing is used after it is freed (the sanitizer build
// runs these too). The suite runs with XPU_CACHE=off, so that a released
// module's code is held by nothing but its module and the queue.
#include "misuse.h"

#include <cstring>
#include <vector>

using namespace misuse;

namespace {

constexpr uint32_t kSpinSteps = 1u << 23; // tens of milliseconds on the CPU
const uint32_t kOne[3] = {1, 1, 1};

struct Spin {
  xpu_module module = compile(kSpin);
  xpu_kernel spin = kernelOf(module, "spin");
  xpu_kernel copy = kernelOf(module, "copy");
};

xpu_buffer floatBuffer(float v) {
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(env().dev, 4, &b));
  XPU_OK(xpu_buffer_upload(b, 0, &v, 4));
  return b;
}

float read(xpu_buffer b) {
  float v = 0;
  XPU_OK(xpu_buffer_download(b, 0, &v, 4));
  return v;
}

void launchSpin(xpu_kernel k, xpu_stream s, xpu_buffer o) {
  xpu_arg args[2] = {xpu_arg_buffer(o), xpu_arg_u32(kSpinSteps)};
  XPU_OK(xpu_launch(k, s, kOne, kOne, args, 2));
}

} // namespace

TEST_CASE("an event released with its record queued, then waited for by another stream") {
  Spin k;
  xpu_stream a, b;
  XPU_OK(xpu_stream_create(env().dev, &a));
  XPU_OK(xpu_stream_create(env().dev, &b));
  xpu_buffer src = floatBuffer(1.0f), dst = floatBuffer(0.0f);
  launchSpin(k.spin, a, src);
  xpu_event e;
  XPU_OK(xpu_event_create(env().dev, &e));
  XPU_OK(xpu_event_record(e, a));
  XPU_OK(xpu_stream_wait_event(b, e));
  xpu_event_release(e); // the record and the wait are still queued
  CHECK(xpu_event_query(e) == XPU_ERROR_INVALID_HANDLE);
  xpu_arg args[2] = {xpu_arg_buffer(dst), xpu_arg_buffer(src)};
  XPU_OK(xpu_launch(k.copy, b, kOne, kOne, args, 2));
  XPU_OK(xpu_stream_synchronize(b));
  // The copy ran after the spin: the wait held although the event was gone.
  float expected = spinReference(1.0f, kSpinSteps);
  CHECK(read(dst) == expected);
  XPU_OK(xpu_stream_synchronize(a));
  CHECK(read(src) == expected);
  xpu_stream_release(a);
  xpu_stream_release(b);
  XPU_OK(xpu_buffer_free(src));
  XPU_OK(xpu_buffer_free(dst));
  xpu_module_release(k.module);
}

TEST_CASE("a module released with its launches queued") {
  xpu_buffer o = floatBuffer(2.0f);
  xpu_stream s;
  XPU_OK(xpu_stream_create(env().dev, &s));
  Spin k;
  launchSpin(k.spin, s, o);
  launchSpin(k.spin, s, o);
  xpu_module_release(k.module); // both launches still queued (or running)
  CHECK(xpu_kernel_name(k.spin) == std::string());
  XPU_OK(xpu_stream_synchronize(s));
  CHECK(read(o) == spinReference(spinReference(2.0f, kSpinSteps), kSpinSteps));
  xpu_stream_release(s);
  XPU_OK(xpu_buffer_free(o));
}

TEST_CASE("a stream released with work queued finishes it; its buffers were busy") {
  Spin k;
  xpu_buffer o = floatBuffer(3.0f);
  xpu_stream s;
  XPU_OK(xpu_stream_create(env().dev, &s));
  xpu_stream other;
  XPU_OK(xpu_stream_create(env().dev, &other));
  launchSpin(k.spin, s, o);
  XPU_FAILS(xpu_buffer_free(o), XPU_ERROR_BUSY);
  // A copy queued on another stream would race the launch: refused. (A
  // blocking copy would wait for it instead.)
  float host = 0;
  XPU_FAILS(xpu_buffer_upload_async(o, 0, &host, 4, other), XPU_ERROR_BUSY);
  xpu_stream_release(s); // waits for the spin
  CHECK(read(o) == spinReference(3.0f, kSpinSteps));
  XPU_OK(xpu_buffer_free(o));
  xpu_stream_release(other);
  xpu_module_release(k.module);
}

TEST_CASE("a context released with launches, copies, records and waits queued") {
  xpu_context ctx;
  XPU_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = deviceOf(ctx);
  xpu_module m;
  XPU_OK(xpu_module_create(ctx, dev, kSpin, std::strlen(kSpin), nullptr, &m, nullptr));
  xpu_kernel spin = kernelOf(m, "spin");
  xpu_buffer o;
  XPU_OK(xpu_buffer_create(dev, 4, &o));
  static float host = 5.0f, back = 0;
  XPU_OK(xpu_buffer_upload_async(o, 0, &host, 4, nullptr));
  xpu_stream s;
  XPU_OK(xpu_stream_create(dev, &s));
  xpu_event e;
  XPU_OK(xpu_event_create(dev, &e));
  launchSpin(spin, nullptr, o);
  XPU_OK(xpu_event_record(e, s));
  XPU_OK(xpu_stream_wait_event(s, e));
  XPU_OK(xpu_buffer_download_async(o, 0, &back, 4, nullptr));
  xpu_context_release(ctx); // waits, then releases everything made from it
  CHECK(back == spinReference(5.0f, kSpinSteps));
  CHECK(xpu_buffer_free(o) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_stream_synchronize(s) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_event_query(e) == XPU_ERROR_INVALID_HANDLE);
  xpu_module_release(m);
}
