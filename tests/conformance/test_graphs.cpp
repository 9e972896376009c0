// Conformance: launch graphs (capture, instantiate, replay, update), their
// run-time checks and ordering, automatic capture of repeated chains, and
// the raw path of XPU_SCHEDULER=bypass (spec §17.8).
#include "scheduler_kernels.h"

using namespace conf;
using namespace conf::sched;

namespace {

/// Automatic capture holds launches where the device has graphs of its
/// own; on the CPU a recorded chain replays launch by launch, and holding
/// it would only start it later.
bool holds() { return !bypassed() && target().backend != XPU_BACKEND_CPU; }

std::string expectedKind() {
  switch (target().backend) {
  case XPU_BACKEND_CUDA: return "cuda graph";
  case XPU_BACKEND_HIP: return "hip graph";
  case XPU_BACKEND_VULKAN: return "vulkan command buffer";
  default: return "recorded launch list";
  }
}

/// b[at] = 1, by one invocation: `at` out of bounds is a run-time check's
/// report.
const char *const kPoke = R"(
  xpu.kernel @poke(%b: !xpu.buffer<i32>, %at: i32) {
    %i = xpu.global_id x
    %c0 = arith.constant 0 : index
    %is0 = arith.cmpi eq, %i, %c0 : index
    scf.if %is0 {
      %at_idx = arith.index_castui %at : i32 to index
      %one = arith.constant 1 : i32
      xpu.store %one, %b[%at_idx] : !xpu.buffer<i32>
    }
    xpu.return
  })";

/// saxpy and scale on one vector: the host's view of a chain.
struct Chain {
  Module module{kSaxpyScale};
  xpu_kernel saxpy = module.kernel("saxpy"), scale = module.kernel("scale");
  uint32_t n;
  Shape shape;
  explicit Chain(uint32_t n) : n(n), shape(n) {}

  xpu_status saxpyOn(xpu_stream s, xpu_buffer y, xpu_buffer x, float a,
                     xpu_submission_result *result = nullptr) {
    xpu_arg args[4] = {xpu_arg_buffer(y), xpu_arg_buffer(x), xpu_arg_f32(a),
                       xpu_arg_i32(int32_t(n))};
    xpu_submission sub = XPU_SUBMISSION_INIT;
    sub.stream = s;
    return xpu_submit(saxpy, &sub, shape.grid, shape.block, args, 4, result);
  }
  xpu_status scaleOn(xpu_stream s, xpu_buffer y, float k,
                     xpu_submission_result *result = nullptr) {
    xpu_arg args[3] = {xpu_arg_buffer(y), xpu_arg_f32(k), xpu_arg_i32(int32_t(n))};
    xpu_submission sub = XPU_SUBMISSION_INIT;
    sub.stream = s;
    return xpu_submit(scale, &sub, shape.grid, shape.block, args, 3, result);
  }
};

} // namespace

TEST_CASE("graphs: capture, instantiate, replay and update") {
  const uint32_t n = 3000;
  Chain c(n);
  auto x = randomFloats(n), y0 = randomFloats(n), z0 = randomFloats(n);
  Buffer bx = Buffer::from(x), by = Buffer::from(y0), bz = Buffer::from(z0);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));

  XPU_OK(xpu_stream_begin_capture(s));
  xpu_submission_result recorded = {sizeof recorded};
  XPU_OK(c.saxpyOn(s, by.handle, bx.handle, 2.0f, &recorded));
  CHECK((recorded.flags & XPU_SUBMIT_RECORDED) != 0);
  XPU_OK(c.scaleOn(s, by.handle, 0.5f));
  XPU_OK(c.saxpyOn(s, by.handle, bx.handle, -1.0f));
  xpu_graph g = nullptr;
  XPU_OK(xpu_stream_end_capture(s, &g));
  uint32_t nodes = 0;
  XPU_OK(xpu_graph_node_count(g, &nodes));
  CHECK(nodes == 3);
  // Nothing ran while capturing.
  XPU_OK(xpu_stream_synchronize(s));
  CHECK(by.read<float>() == y0);

  xpu_graph_exec e = nullptr;
  XPU_OK(xpu_graph_instantiate(g, &e));
  CHECK(std::string(xpu_graph_exec_kind(e)) == expectedKind());
  xpu_graph_release(g); // the exec keeps what it needs
  auto step = [&](std::vector<float> &y, float a1, float k, float a2,
                  const std::vector<float> &xs) {
    for (uint32_t i = 0; i < n; ++i) {
      float v = a1 * xs[i] + y[i];
      v = k * v;
      y[i] = a2 * xs[i] + v;
    }
  };
  std::vector<float> y = y0;
  const int replays = 4;
  for (int r = 0; r < replays; ++r) {
    XPU_OK(xpu_graph_launch(e, s));
    step(y, 2.0f, 0.5f, -1.0f, x);
  }
  XPU_OK(xpu_stream_synchronize(s));
  auto out = by.read<float>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == y[i]);

  // Updates: a scalar of one launch, the buffers of another; each launch of
  // the exec uses the arguments it was enqueued with.
  xpu_arg scaleArgs[3] = {xpu_arg_buffer(by.handle), xpu_arg_f32(3.0f),
                          xpu_arg_i32(int32_t(n))};
  XPU_OK(xpu_graph_exec_set_args(e, 1, scaleArgs, 3));
  if (bypassed())
    XPU_OK(xpu_stream_synchronize(s)); // the raw path does not order streams
  XPU_OK(xpu_graph_launch(e, nullptr)); // the default stream: ordered after s's use of y
  step(y, 2.0f, 3.0f, -1.0f, x);
  xpu_arg lastArgs[4] = {xpu_arg_buffer(bz.handle), xpu_arg_buffer(bx.handle),
                         xpu_arg_f32(4.0f), xpu_arg_i32(int32_t(n))};
  XPU_OK(xpu_graph_exec_set_args(e, 2, lastArgs, 4));
  if (bypassed())
    XPU_OK(xpu_device_synchronize(target().dev));
  XPU_OK(xpu_graph_launch(e, s));
  {
    std::vector<float> z = z0;
    for (uint32_t i = 0; i < n; ++i) {
      float v = 3.0f * (2.0f * x[i] + y[i]);
      y[i] = v;
      z[i] = 4.0f * x[i] + z[i];
    }
    XPU_OK(xpu_device_synchronize(target().dev));
    auto outY = by.read<float>(), outZ = bz.read<float>();
    for (uint32_t i = 0; i < n; ++i) {
      REQUIRE(outY[i] == y[i]);
      REQUIRE(outZ[i] == z[i]);
    }
  }
  // An update is checked as a launch is.
  xpu_arg wrong[3] = {xpu_arg_buffer(by.handle), xpu_arg_i32(1), xpu_arg_i32(int32_t(n))};
  CHECK(xpu_graph_exec_set_args(e, 1, wrong, 3) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(xpu_graph_exec_set_args(e, 1, wrong, 2) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(xpu_graph_exec_set_args(e, 3, scaleArgs, 3) == XPU_ERROR_NOT_FOUND);
  xpu_graph_exec_release(e);
  CHECK(xpu_graph_launch(e, s) == XPU_ERROR_INVALID_HANDLE);
  xpu_stream_release(s);
}

TEST_CASE("graphs: misuse is refused and leaves the stream usable") {
  const uint32_t n = 256;
  Chain c(n);
  std::vector<float> ones(n, 1.0f);
  Buffer by = Buffer::from(ones), bx = Buffer::from(ones);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  xpu_graph g = nullptr;
  CHECK(xpu_stream_end_capture(s, &g) == XPU_ERROR_INVALID_ARGUMENT);
  XPU_OK(xpu_stream_begin_capture(s));
  CHECK(xpu_stream_begin_capture(s) == XPU_ERROR_INVALID_ARGUMENT);
  // Only launches are recorded: copies and events are refused meanwhile.
  std::vector<float> host(n, 2.0f);
  CHECK(xpu_buffer_upload_async(by.handle, 0, host.data(), n * 4, s) ==
        XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_copy(by.handle, 0, bx.handle, 0, n * 4, s) == XPU_ERROR_INVALID_ARGUMENT);
  xpu_event ev;
  XPU_OK(xpu_event_create(target().dev, &ev));
  CHECK(xpu_event_record(ev, s) == XPU_ERROR_INVALID_ARGUMENT);
  // A kernel that prints needs a print buffer per launch: not recorded.
  Module printing(R"(
    xpu.kernel @say(%n: i32) {
      xpu.printf "%d\n"(%n) : i32
      xpu.return
    })");
  xpu_arg say[1] = {xpu_arg_i32(7)};
  uint32_t one[3] = {1, 1, 1};
  CHECK(xpu_launch(printing.kernel("say"), s, one, one, say, 1) == XPU_ERROR_UNSUPPORTED);
  CHECK(std::string(xpu_last_error_message()).find("xpu.printf") != std::string::npos);
  // A window cannot be recorded.
  xpu_arg args[4] = {xpu_arg_buffer(by.handle), xpu_arg_buffer(bx.handle),
                     xpu_arg_f32(1.0f), xpu_arg_i32(int32_t(n))};
  xpu_submission sub = XPU_SUBMISSION_INIT;
  sub.stream = s;
  sub.window_close_ns = xpu_clock_ns() + 1000000000ull;
  CHECK(xpu_submit(c.saxpy, &sub, c.shape.grid, c.shape.block, args, 4, nullptr) ==
        XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_stream_end_capture(s, &g) == XPU_ERROR_INVALID_ARGUMENT); // nothing recorded
  CHECK(g == nullptr);
  // The stream works as before.
  XPU_OK(c.saxpyOn(s, by.handle, bx.handle, 1.0f));
  XPU_OK(xpu_stream_synchronize(s));
  for (float v : by.read<float>())
    REQUIRE(v == 2.0f);
  CHECK(xpu_graph_instantiate(nullptr, nullptr) == XPU_ERROR_INVALID_HANDLE);
  CHECK(std::string(xpu_graph_exec_kind(nullptr)).empty());
  xpu_event_release(ev);
  xpu_stream_release(s);
}

TEST_CASE("graphs: run-time checks inside a graph are reported at the next sync") {
  Module m(kPoke);
  xpu_kernel k = m.kernel("poke");
  std::vector<int32_t> zeros(16, 0);
  Buffer b = Buffer::from(zeros);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  xpu_arg args[2] = {xpu_arg_buffer(b.handle), xpu_arg_i32(3)};
  XPU_OK(xpu_stream_begin_capture(s));
  XPU_OK(xpu_launch(k, s, grid, block, args, 2));
  xpu_graph g;
  XPU_OK(xpu_stream_end_capture(s, &g));
  xpu_graph_exec e;
  XPU_OK(xpu_graph_instantiate(g, &e));
  XPU_OK(xpu_graph_launch(e, s));
  XPU_OK(xpu_stream_synchronize(s));
  // Out of bounds: reported, the store suppressed; the next replay in
  // bounds reports nothing (the graph's status word was reset).
  xpu_arg bad[2] = {xpu_arg_buffer(b.handle), xpu_arg_i32(1000)};
  XPU_OK(xpu_graph_exec_set_args(e, 0, bad, 2));
  XPU_OK(xpu_graph_launch(e, s));
  XPU_OK(xpu_graph_launch(e, s));
  CHECK(xpu_stream_synchronize(s) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(std::string(xpu_last_error_message()).find("store to 'b'") != std::string::npos);
  xpu_arg good[2] = {xpu_arg_buffer(b.handle), xpu_arg_i32(7)};
  XPU_OK(xpu_graph_exec_set_args(e, 0, good, 2));
  XPU_OK(xpu_graph_launch(e, s));
  XPU_OK(xpu_stream_synchronize(s));
  auto out = b.read<int32_t>();
  for (int i = 0; i < 16; ++i)
    REQUIRE(out[i] == (i == 3 || i == 7 ? 1 : 0));
  xpu_graph_exec_release(e);
  xpu_graph_release(g);
  xpu_stream_release(s);
}

TEST_CASE("automatic capture: run-time checks of held launches are reported") {
  Module m(kPoke);
  xpu_kernel k = m.kernel("poke");
  const int length = 6;
  std::vector<int32_t> zeros(64, 0);
  Buffer b = Buffer::from(zeros);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  // Chain `r` pokes 8 * r + j; in chain 3 (held where chains are) launch 4
  // is out of bounds; in chain 4 the last launch departs from the template
  // (another shape), so what was held goes one by one, and launch 2 is out
  // of bounds there.
  std::vector<int32_t> want(64, 0);
  for (int r = 0; r < 6; ++r) {
    bool held = false;
    for (int j = 0; j < length; ++j) {
      int32_t at = 8 * r + j;
      bool outside = (r == 3 && j == 4) || (r == 4 && j == 2);
      if (outside)
        at = 1000 + j;
      else if (at < 64)
        want[at] = 1;
      xpu_arg args[2] = {xpu_arg_buffer(b.handle), xpu_arg_i32(at)};
      uint32_t *shape = r == 4 && j == length - 1 ? grid : block; // 1 invocation, not 32
      xpu_submission sub = XPU_SUBMISSION_INIT;
      sub.stream = s;
      xpu_submission_result result = {sizeof result};
      XPU_OK(xpu_submit(k, &sub, grid, shape, args, 2, &result));
      held |= (result.flags & XPU_SUBMIT_HELD) != 0;
    }
    // Held from the third identical chain; chain 4's shape replaced the
    // template, so chain 5 is learned anew.
    CHECK(held == (r >= 2 && r <= 4 && holds()));
    xpu_status st = xpu_stream_synchronize(s);
    if (r == 3 || r == 4) {
      CHECK(st == XPU_ERROR_OUT_OF_BOUNDS);
      CHECK(std::string(xpu_last_error_message()).find("store to 'b'") != std::string::npos);
    } else {
      CHECK(st == XPU_SUCCESS);
    }
  }
  auto out = b.read<int32_t>();
  for (int i = 0; i < 64; ++i)
    REQUIRE(out[i] == want[i]);
  xpu_stream_release(s);
}

TEST_CASE("graphs: a graph on another stream waits for conflicting work") {
  if (bypassed())
    return; // the raw path does not order streams
  SlowWork work;
  uint32_t n = work.n;
  auto in = randomInts<int32_t>(n, -100000, 100000);
  std::vector<int32_t> zeros(n, 0);
  Buffer src = Buffer::from(in), a = Buffer::from(zeros), b = Buffer::from(zeros);
  xpu_stream s1, s2;
  XPU_OK(xpu_stream_create(target().dev, &s1));
  XPU_OK(xpu_stream_create(target().dev, &s2));
  Shape shape(n);
  xpu_arg args[3] = {xpu_arg_buffer(b.handle), xpu_arg_buffer(a.handle),
                     xpu_arg_i32(int32_t(n))};
  XPU_OK(xpu_stream_begin_capture(s2));
  XPU_OK(xpu_launch(work.addOne, s2, shape.grid, shape.block, args, 3));
  xpu_graph g;
  XPU_OK(xpu_stream_end_capture(s2, &g));
  xpu_graph_exec e;
  XPU_OK(xpu_graph_instantiate(g, &e));
  work.launch(s1, a.handle, src.handle); // a = in + 1, late
  XPU_OK(xpu_graph_launch(e, s2));        // b = a + 1: after it
  XPU_OK(xpu_stream_synchronize(s2));
  auto out = b.read<int32_t>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == in[i] + 2);
  xpu_graph_exec_release(e);
  xpu_graph_release(g);
  xpu_stream_release(s1);
  xpu_stream_release(s2);
}

TEST_CASE("automatic capture: repeated chains give the results of launches one by one") {
  const uint32_t n = 4096, length = 12;
  Chain c(n);
  auto x = randomFloats(n), y0 = randomFloats(n), w0 = randomFloats(n);
  Buffer bx = Buffer::from(x);
  Buffer captured[2] = {Buffer::from(y0), Buffer::from(w0)};
  Buffer plain[2] = {Buffer::from(y0), Buffer::from(w0)};
  xpu_stream s, reference;
  XPU_OK(xpu_stream_create(target().dev, &s));
  XPU_OK(xpu_stream_create(target().dev, &reference));
  XPU_OK(xpu_stream_set_auto_capture(reference, 0));
  bool held = false;
  for (int iteration = 0; iteration < 8; ++iteration) {
    // The same kernels and shapes each time; the scalars change every
    // time, the buffers on some, and iteration 5 departs in the middle.
    int which = iteration % 3 == 2 ? 1 : 0;
    for (uint32_t j = 0; j < length; ++j) {
      float a = float(iteration) * 0.25f + float(j) * 0.125f;
      xpu_submission_result result = {sizeof result};
      bool odd = j % 2;
      if (iteration == 5 && j == 6) {
        XPU_OK(c.scaleOn(s, captured[which].handle, 1.5f, &result));
        XPU_OK(c.scaleOn(reference, plain[which].handle, 1.5f));
        continue;
      }
      if (odd) {
        XPU_OK(c.scaleOn(s, captured[which].handle, 1.0f - a * 0.01f, &result));
        XPU_OK(c.scaleOn(reference, plain[which].handle, 1.0f - a * 0.01f));
      } else {
        XPU_OK(c.saxpyOn(s, captured[which].handle, bx.handle, a, &result));
        XPU_OK(c.saxpyOn(reference, plain[which].handle, bx.handle, a));
      }
      held |= (result.flags & XPU_SUBMIT_HELD) != 0;
      if (iteration < 2 || !holds())
        CHECK((result.flags & XPU_SUBMIT_HELD) == 0); // not before its third time
    }
    XPU_OK(xpu_stream_synchronize(s));
    XPU_OK(xpu_stream_synchronize(reference));
    for (int b = 0; b < 2; ++b) {
      auto got = captured[b].read<float>(), want = plain[b].read<float>();
      for (uint32_t i = 0; i < n; ++i)
        REQUIRE(got[i] == want[i]); // bit for bit
    }
  }
  CHECK(held == holds());
  // A stream turned off holds nothing.
  XPU_OK(xpu_stream_set_auto_capture(s, 0));
  for (uint32_t j = 0; j < length; ++j) {
    xpu_submission_result result = {sizeof result};
    XPU_OK(c.saxpyOn(s, captured[0].handle, bx.handle, 1.0f, &result));
    CHECK((result.flags & XPU_SUBMIT_HELD) == 0);
  }
  XPU_OK(xpu_stream_synchronize(s));
  xpu_stream_release(s);
  xpu_stream_release(reference);
}

TEST_CASE("automatic capture: chains told apart by capture id, and opted out") {
  const uint32_t n = 1024, length = 6;
  Chain c(n);
  auto x = randomFloats(n), y0 = randomFloats(n);
  Buffer bx = Buffer::from(x), by = Buffer::from(y0);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  std::vector<float> y = y0;
  bool held = false;
  for (int iteration = 0; iteration < 6; ++iteration) {
    // Two chains alternate on one stream, each with its own id; a launch
    // of XPU_CAPTURE_NEVER between them is never held.
    for (uint64_t id : {1, 2}) {
      for (uint32_t j = 0; j < length; ++j) {
        float a = id == 1 ? 0.5f : -0.25f;
        xpu_arg args[4] = {xpu_arg_buffer(by.handle), xpu_arg_buffer(bx.handle),
                           xpu_arg_f32(a), xpu_arg_i32(int32_t(n))};
        xpu_submission sub = XPU_SUBMISSION_INIT;
        sub.stream = s;
        sub.capture_id = id;
        xpu_submission_result result = {sizeof result};
        XPU_OK(xpu_submit(c.saxpy, &sub, c.shape.grid, c.shape.block, args, 4, &result));
        held |= (result.flags & XPU_SUBMIT_HELD) != 0;
        for (uint32_t i = 0; i < n; ++i)
          y[i] = a * x[i] + y[i];
      }
      xpu_arg args[3] = {xpu_arg_buffer(by.handle), xpu_arg_f32(0.75f),
                         xpu_arg_i32(int32_t(n))};
      xpu_submission never = XPU_SUBMISSION_INIT;
      never.stream = s;
      never.capture_id = XPU_CAPTURE_NEVER;
      xpu_submission_result result = {sizeof result};
      XPU_OK(xpu_submit(c.scale, &never, c.shape.grid, c.shape.block, args, 3, &result));
      CHECK((result.flags & XPU_SUBMIT_HELD) == 0);
      for (uint32_t i = 0; i < n; ++i)
        y[i] = 0.75f * y[i];
    }
    XPU_OK(xpu_stream_synchronize(s));
  }
  CHECK(held == holds());
  auto out = by.read<float>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == y[i]);
  xpu_stream_release(s);
}

TEST_CASE("scheduler bypass: XPU_SCHEDULER=bypass takes the raw path") {
  const uint32_t n = 512;
  Chain c(n);
  auto x = randomFloats(n), y0 = randomFloats(n);
  Buffer bx = Buffer::from(x), by = Buffer::from(y0);
  std::vector<float> y = y0;
  for (int iteration = 0; iteration < 4; ++iteration) {
    for (int j = 0; j < 8; ++j) {
      xpu_submission_result result = {sizeof result};
      XPU_OK(c.saxpyOn(nullptr, by.handle, bx.handle, 0.5f, &result));
      CHECK(((result.flags & XPU_SUBMIT_BYPASSED) != 0) == bypassed());
      if (bypassed())
        CHECK((result.flags & (XPU_SUBMIT_HELD | XPU_SUBMIT_ORDERED)) == 0);
      for (uint32_t i = 0; i < n; ++i)
        y[i] = 0.5f * x[i] + y[i];
    }
    XPU_OK(xpu_stream_synchronize(defaultStream()));
  }
  auto out = by.read<float>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == y[i]);
}
