// Conformance: profiles through the C API. A deterministic kernel runs with
// the right answer; refusals come back as located diagnostics; launch-time
// rules of deterministic-v1 hold; portable kernels report out-of-bounds
// accesses at sync instead of touching memory outside their buffers.
// (Each refusal code is observed by its own fixture in tests/lit/admission.)
#include "harness.h"

using namespace conf;

namespace {

// The deterministic baseline of tests/lit/admission/baseline.mlir, for
// the device named DEVICE (withDevice puts the one under test there).
const char *kBaselineText = R"(
xpu.kernel @baseline(%out: !xpu.buffer<1024xi32>, %in: !xpu.buffer<1024xi32, ro>,
                     %hist: !xpu.buffer<16xi32>, %scale: i32, %v: vector<4xi16>)
    attributes {profile = "deterministic-v1",
                effects = ["DeviceCopyIn", "DeviceDispatch", "DeviceCopyOut"],
                device = "DEVICE",
                workgroup_size = array<i64: 256, 1, 1>, grid_size = array<i64: 4, 1, 1>} {
  %g = xpu.global_id x
  %x = xpu.load %in[%g] : !xpu.buffer<1024xi32, ro>
  %y = arith.muli %x, %scale : i32
  %sum = xpu.reduce add %y sequential : i32
  xpu.barrier
  %c15 = arith.constant 15 : i32
  %bucket = arith.andi %x, %c15 : i32
  %bi = arith.index_castui %bucket : i32 to index
  %one = arith.constant 1 : i32
  %old = xpu.atomic_rmw add %one, %hist[%bi] seq_cst device : !xpu.buffer<16xi32>
  %r = arith.addi %y, %sum : i32
  xpu.store %r, %out[%g] : !xpu.buffer<1024xi32>
  xpu.return
})";

// A deterministic kernel that fixes no launch shape.
const char *kCopy = R"(
xpu.kernel @copy(%out: !xpu.buffer<i8>, %in: !xpu.buffer<i8, ro>)
    attributes {profile = "deterministic-v1"} {
  %g = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<i8, ro>
  %m = xpu.buffer_size %out : !xpu.buffer<i8>
  %a = arith.cmpi ult, %g, %n : index
  %b = arith.cmpi ult, %g, %m : index
  %ok = arith.andi %a, %b : i1
  scf.if %ok {
    %v = xpu.load %in[%g] : !xpu.buffer<i8, ro>
    xpu.store %v, %out[%g] : !xpu.buffer<i8>
  }
  xpu.return
})";

std::string lastMessage() { return xpu_last_error_message(); }

/// The device under test as a kernel's `device` attribute names it:
/// BACKEND:INDEX, INDEX counting that backend's devices in the context.
std::string deviceSpec() {
  uint32_t n = 0, index = 0;
  XPU_OK(xpu_device_count(target().ctx, &n));
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    XPU_OK(xpu_device_get(target().ctx, i, &d));
    if (d == target().dev)
      break;
    XPU_OK(xpu_device_info_get(d, &info));
    index += info.backend == target().backend;
  }
  return std::string(xpu_backend_name(target().backend)) + ":" + std::to_string(index);
}

std::string withDevice(std::string text, const std::string &device) {
  text.replace(text.find("DEVICE"), 6, device);
  return text;
}

/// The baseline for the device under test.
std::string baseline() { return withDevice(kBaselineText, deviceSpec()); }

} // namespace

TEST_CASE("the deterministic baseline runs and matches the host exactly") {
  Module m(baseline());
  auto in = randomInts<int32_t>(1024, INT32_MIN, INT32_MAX);
  int32_t scale = randomInts<int32_t>(1, -1000, 1000)[0];
  std::vector<int32_t> zeros(16, 0);
  Buffer bout(1024 * 4), bin = Buffer::from(in), hist = Buffer::from(zeros);
  xpu_arg v{};
  v.kind = XPU_PARAM_SCALAR;
  v.type = XPU_TYPE_I16;
  v.lanes = 4;
  run(m.kernel("baseline"), {4}, {256},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
       xpu_arg_buffer(hist.handle), xpu_arg_i32(scale), v});
  auto out = bout.read<int32_t>();
  std::vector<int32_t> wantHist(16, 0);
  for (int g = 0; g < 4; ++g) {
    uint32_t sum = 0; // wrapping, left to right
    for (int t = 0; t < 256; ++t)
      sum += uint32_t(in[g * 256 + t]) * uint32_t(scale);
    for (int t = 0; t < 256; ++t) {
      int i = g * 256 + t;
      REQUIRE(out[i] == int32_t(uint32_t(in[i]) * uint32_t(scale) + sum));
      ++wantHist[uint32_t(in[i]) & 15];
    }
  }
  CHECK(hist.read<int32_t>() == wantHist);
}

TEST_CASE("a deterministic kernel needs an explicitly chosen device (XPU-GC002)") {
  std::string text = baseline();
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = "baseline.mlir";
  xpu_module mod = nullptr;
  xpu_diagnostics diags = nullptr;
  CHECK(xpu_module_create(target().ctx, nullptr, text.data(), text.size(), &opts,
                          &mod, &diags) == XPU_ERROR_REFUSED);
  CHECK(mod == nullptr);
  REQUIRE(xpu_diagnostics_count(diags) == 1);
  xpu_diagnostic d;
  XPU_OK(xpu_diagnostics_get(diags, 0, &d));
  CHECK(std::string(d.code) == "XPU-GC002");
  CHECK(std::string(d.file) == "baseline.mlir");
  CHECK(d.line == 2);
  CHECK(d.column == 1);
  CHECK(std::string(d.message).find("explicitly chosen device") != std::string::npos);
  CHECK(lastMessage().rfind("baseline.mlir:2:1: error: XPU-GC002:", 0) == 0);
  xpu_diagnostics_release(diags);

  // The same text, given its device, is admitted.
  XPU_OK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                           &opts, &mod, nullptr));
  xpu_module_release(mod);
}

TEST_CASE("XPU-GC002: a kernel's device names the device its module is made for") {
  // Names are matched as XPU_DEVICE's: BACKEND (any of its devices) or
  // BACKEND:INDEX (that backend's INDEX-th device in the context).
  std::string backend = xpu_backend_name(target().backend);
  for (const std::string &ok : {deviceSpec(), backend}) {
    CAPTURE(ok);
    Module m(withDevice(kBaselineText, ok));
  }
  std::string other = target().backend == XPU_BACKEND_CPU ? "vulkan" : "cpu";
  for (const std::string &bad : {std::string(), std::string("no-such-device:99"), other,
                                 backend + ":99", backend + ":", backend + ":-1",
                                 backend + ":99999999999999999999", std::string("CPU"),
                                 std::string("explicit")}) {
    CAPTURE(bad);
    std::string text = withDevice(kBaselineText, bad);
    xpu_module mod = nullptr;
    CHECK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                            nullptr, &mod, nullptr) == XPU_ERROR_REFUSED);
    CHECK(mod == nullptr);
    CHECK(lastMessage().rfind("<input>:2:1: error: XPU-GC002: kernel 'baseline': ", 0) == 0);
  }
  // The device named differs from the module's: the message says both.
  std::string text = withDevice(kBaselineText, backend + ":7");
  xpu_module mod = nullptr;
  CHECK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(), nullptr,
                          &mod, nullptr) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().find("names '" + backend + ":7', but the module is created for " +
                           deviceSpec()) != std::string::npos);
}

TEST_CASE("a refusal is one located diagnostic, in the list and as JSON") {
  std::string text = baseline();
  text.replace(text.find("%y sequential"), 13, "%y tree");
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = "tree.mlir";
  xpu_module mod = nullptr;
  xpu_diagnostics diags = nullptr;
  CHECK(xpu_module_check(target().ctx, text.data(), text.size(), &opts, &diags) ==
        XPU_ERROR_REFUSED);
  REQUIRE(xpu_diagnostics_count(diags) == 1);
  xpu_diagnostic d;
  XPU_OK(xpu_diagnostics_get(diags, 0, &d));
  CHECK(std::string(d.code) == "XPU-GC008");
  CHECK(d.line == 11);
  CHECK(d.column == 10);
  std::string json = xpu_diagnostics_json(diags);
  CHECK(json.find("\"code\":\"XPU-GC008\"") != std::string::npos);
  CHECK(json.find("\"line\":11,\"column\":10") != std::string::npos);
  xpu_diagnostics_release(diags);
  // The whole module is refused: no partial admission.
  CHECK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(), &opts,
                          &mod, nullptr) == XPU_ERROR_REFUSED);
  CHECK(mod == nullptr);
}

TEST_CASE("deterministic launches keep the RFC's shape, capacity and aliasing rules") {
  Module m(kCopy);
  xpu_kernel k = m.kernel("copy");
  auto data = randomInts<int8_t>(4096, -128, 127);
  Buffer in = Buffer::from(data), out(4096);
  xpu_arg args[2] = {xpu_arg_buffer(out.handle), xpu_arg_buffer(in.handle)};
  uint32_t grid[3] = {16, 1, 1}, block[3] = {256, 1, 1};
  XPU_OK(xpu_launch(k, nullptr, grid, block, args, 2));
  XPU_OK(xpu_stream_synchronize(defaultStream()));
  CHECK(out.read<int8_t>() == data);

  // XPU-GC006: a grid axis over 65,535 (the CPU device itself allows it).
  uint32_t bigGrid[3] = {65536, 1, 1}, atBoundGrid[3] = {65535, 1, 1};
  CHECK(xpu_launch(k, nullptr, bigGrid, block, args, 2) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().rfind("XPU-GC006: kernel 'copy': grid extent 65536", 0) == 0);
  uint32_t one[3] = {1, 1, 1};
  XPU_OK(xpu_launch(k, nullptr, atBoundGrid, one, args, 2));
  XPU_OK(xpu_stream_synchronize(defaultStream()));

  // XPU-GC013: 16 Mi + 1 elements; exactly 16 Mi is admitted.
  Buffer huge((16u << 20) + 1), atBound(16u << 20);
  xpu_arg hugeArgs[2] = {xpu_arg_buffer(out.handle), xpu_arg_buffer(huge.handle)};
  CHECK(xpu_launch(k, nullptr, grid, block, hugeArgs, 2) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().rfind("XPU-GC013:", 0) == 0);
  xpu_arg boundArgs[2] = {xpu_arg_buffer(out.handle), xpu_arg_buffer(atBound.handle)};
  XPU_OK(xpu_launch(k, nullptr, grid, block, boundArgs, 2));
  XPU_OK(xpu_stream_synchronize(defaultStream()));

  // XPU-GC011: one buffer as both the written output and the input.
  xpu_arg same[2] = {xpu_arg_buffer(in.handle), xpu_arg_buffer(in.handle)};
  CHECK(xpu_launch(k, nullptr, grid, block, same, 2) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().rfind("XPU-GC011:", 0) == 0);

  // A zero extent is a shape outside the bounds (XPU-GC006), on any axis.
  for (int axis = 0; axis < 3; ++axis) {
    uint32_t zero[3] = {1, 1, 1};
    zero[axis] = 0;
    CHECK(xpu_launch(k, nullptr, zero, block, args, 2) == XPU_ERROR_REFUSED);
    CHECK(lastMessage().rfind("XPU-GC006: kernel 'copy': grid extent 0 on axis " +
                                  std::to_string(axis), 0) == 0);
    CHECK(xpu_launch(k, nullptr, grid, zero, args, 2) == XPU_ERROR_REFUSED);
    CHECK(lastMessage().rfind("XPU-GC006: kernel 'copy': workgroup extent 0 on axis " +
                                  std::to_string(axis), 0) == 0);
  }

  // Several at once: the RFC's precedence, capacity (GC013) before shape
  // (GC006) before aliasing (GC011).
  xpu_arg hugeTwice[2] = {xpu_arg_buffer(huge.handle), xpu_arg_buffer(huge.handle)};
  CHECK(xpu_launch(k, nullptr, bigGrid, block, hugeTwice, 2) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().rfind("XPU-GC013:", 0) == 0);
  CHECK(xpu_launch(k, nullptr, bigGrid, block, same, 2) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().rfind("XPU-GC006:", 0) == 0);
  uint32_t zeroBlock[3] = {0, 1, 1};
  CHECK(xpu_launch(k, nullptr, grid, zeroBlock, hugeArgs, 2) == XPU_ERROR_REFUSED);
  CHECK(lastMessage().rfind("XPU-GC013:", 0) == 0);
}

TEST_CASE("portable: out-of-bounds accesses are suppressed and reported at sync") {
  Module m(R"(
    xpu.kernel @shift(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %off: i32) {
      %i = xpu.global_id x
      %o = arith.index_cast %off : i32 to index
      %src = arith.addi %i, %o : index
      %v = xpu.load %in[%src] : !xpu.buffer<i32, ro>
      xpu.store %v, %out[%src] : !xpu.buffer<i32>
      xpu.return
    })");
  const uint32_t n = 1000, off = 300, launched = 1024;
  auto in = randomInts<int32_t>(n, 1, 1 << 30); // never zero
  std::vector<int32_t> sentinel(n, -7);
  Buffer bin = Buffer::from(in), bout = Buffer::from(sentinel);
  xpu_arg args[3] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
                     xpu_arg_i32(int32_t(off))};
  uint32_t grid[3] = {launched / 64, 1, 1}, block[3] = {64, 1, 1};
  XPU_OK(xpu_launch(m.kernel("shift"), nullptr, grid, block, args, 3));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  // Every invocation whose index passed the end had its load and its store
  // suppressed: exactly that many, each counted.
  uint32_t bad = launched + off - n;
  std::string msg = lastMessage();
  CHECK(msg.find("kernel 'shift': " + std::to_string(2 * bad) +
                 " out-of-bounds accesses were suppressed") != std::string::npos);
  CHECK(msg.find("load from 'in'") != std::string::npos);
  auto out = bout.read<int32_t>();
  for (uint32_t i = 0; i < off; ++i)
    REQUIRE(out[i] == -7); // never written
  for (uint32_t i = off; i < n; ++i)
    REQUIRE(out[i] == in[i]);
  // The stream works on after the error was reported.
  XPU_OK(xpu_stream_synchronize(defaultStream()));
}

TEST_CASE("portable: a suppressed load reads zero") {
  Module m(R"(
    xpu.kernel @gather(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                       %idx: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %n = xpu.buffer_size %out : !xpu.buffer<i32>
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        %j32 = xpu.load %idx[%i] : !xpu.buffer<i32, ro>
        %j = arith.index_cast %j32 : i32 to index
        %v = xpu.load %in[%j] : !xpu.buffer<i32, ro>
        xpu.store %v, %out[%i] : !xpu.buffer<i32>
      }
      xpu.return
    })");
  const uint32_t n = 512;
  auto in = randomInts<int32_t>(n, 1, 1000);
  auto idx = randomInts<int32_t>(n, -50, int32_t(n) + 50);
  Buffer bin = Buffer::from(in), bidx = Buffer::from(idx), bout(n * 4);
  xpu_arg args[3] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
                     xpu_arg_buffer(bidx.handle)};
  uint32_t grid[3] = {n / 64, 1, 1}, block[3] = {64, 1, 1};
  XPU_OK(xpu_launch(m.kernel("gather"), nullptr, grid, block, args, 3));
  uint32_t outside = 0;
  for (int32_t j : idx)
    outside += j < 0 || j >= int32_t(n);
  xpu_status st = xpu_stream_synchronize(defaultStream());
  CHECK(st == (outside ? XPU_ERROR_OUT_OF_BOUNDS : XPU_SUCCESS));
  auto out = bout.read<int32_t>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == (idx[i] < 0 || idx[i] >= int32_t(n) ? 0 : in[idx[i]]));
}
