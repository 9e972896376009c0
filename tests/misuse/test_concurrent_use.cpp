// Many threads using the API at once: each launches on its own stream and
// on the shared default stream, records and waits for events, and makes and
// releases modules, buffers and contexts, while others release what they
// made. Every result is checked; the ThreadSanitizer job runs this too.
#include "misuse.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using namespace misuse;

namespace {

constexpr int kThreads = 6;
constexpr uint32_t kN = 512;

/// One thread's work: `rounds` saxpy launches, each checked.
void worker(int id, xpu_kernel shared, std::atomic<int> &failures) {
  Env &e = env();
  xpu_stream own;
  if (xpu_stream_create(e.dev, &own) != XPU_SUCCESS) {
    ++failures;
    return;
  }
  std::vector<float> x(kN), y(kN);
  xpu_buffer bx, by;
  if (xpu_buffer_create(e.dev, kN * 4, &bx) || xpu_buffer_create(e.dev, kN * 4, &by)) {
    ++failures;
    return;
  }
  for (int round = 0; round < 20; ++round) {
    // Every other round compiles its own module (an in-process hit, or a
    // compile when the cache is off) and releases it with the launch queued.
    xpu_module m = nullptr;
    xpu_kernel k = shared;
    if (round % 2 &&
        (xpu_module_create(e.ctx, e.dev, kSaxpy, std::strlen(kSaxpy), nullptr, &m,
                           nullptr) ||
         xpu_module_kernel(m, "saxpy", &k))) {
      ++failures;
      break;
    }
    for (uint32_t i = 0; i < kN; ++i) {
      x[i] = float(i + id);
      y[i] = float(round);
    }
    xpu_stream s = round % 3 ? own : nullptr;
    xpu_event ev;
    uint32_t grid[3] = {kN / 64, 1, 1}, block[3] = {64, 1, 1};
    xpu_arg args[4] = {xpu_arg_buffer(by), xpu_arg_buffer(bx), xpu_arg_f32(float(id)),
                       xpu_arg_u32(kN)};
    if (xpu_buffer_upload_async(bx, 0, x.data(), kN * 4, s) ||
        xpu_buffer_upload_async(by, 0, y.data(), kN * 4, s) ||
        xpu_launch(k, s, grid, block, args, 4) || xpu_event_create(e.dev, &ev) ||
        xpu_event_record(ev, s ? s : own)) {
      ++failures;
      break;
    }
    xpu_module_release(m);
    xpu_event_release(ev); // its record may still be queued
    std::vector<float> out(kN);
    xpu_status st = s ? xpu_stream_synchronize(s) : xpu_device_synchronize(e.dev);
    if (st || xpu_buffer_download(by, 0, out.data(), kN * 4)) {
      ++failures;
      break;
    }
    for (uint32_t i = 0; i < kN; ++i)
      if (out[i] != float(id) * x[i] + float(round)) {
        ++failures;
        break;
      }
  }
  (void)xpu_stream_synchronize(own);
  xpu_stream_release(own);
  (void)xpu_device_synchronize(e.dev);
  (void)xpu_buffer_free(bx);
  (void)xpu_buffer_free(by);
}

} // namespace

TEST_CASE("threads launching at once on their own streams and the default stream") {
  xpu_module m = compile(kSaxpy);
  xpu_kernel k = kernelOf(m, "saxpy");
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(worker, t, k, std::ref(failures));
  // Meanwhile: contexts made and released, stale handles used.
  std::thread churn([&] {
    for (int i = 0; i < 10; ++i) {
      xpu_context c;
      if (xpu_context_create(nullptr, &c) != XPU_SUCCESS) {
        ++failures;
        return;
      }
      xpu_device d;
      xpu_buffer b;
      if (xpu_device_get(c, 0, &d) == XPU_SUCCESS &&
          xpu_buffer_create(d, 64, &b) == XPU_SUCCESS)
        (void)xpu_buffer_free(b);
      xpu_context_release(c);
      if (xpu_device_synchronize(d) != XPU_ERROR_INVALID_HANDLE)
        ++failures;
    }
  });
  for (auto &t : threads)
    t.join();
  churn.join();
  CHECK(failures.load() == 0);
  XPU_OK(xpu_device_synchronize(env().dev));
  xpu_module_release(m);
}
