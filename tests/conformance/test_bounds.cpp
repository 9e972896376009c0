// Conformance: the bounds reproducers of shared/repros/soundness/ on every
// backend. Under deterministic-v1 each is refused (XPU-GC007 at the access,
// XPU-PT002 at a kernel whose fixed shape no launch can pass); under
// portable the access the old prover wrongly proved is checked, so the
// launch reports XPU_ERROR_OUT_OF_BOUNDS instead of touching memory outside
// the buffer, and every in-bounds result is right.
#include "harness.h"

#include <algorithm>

using namespace conf;

namespace {

// The reproducers' common body: out[g] = in[g] * s + (the workgroup's sum of
// them), and a histogram of in[g] & 15. Each reproducer adds parameters
// after %s and its unsound guard at the comment; the guarded access writes
// to `probe` instead of `out`, so the outputs stay deterministic.
const char *kBody = R"(
xpu.kernel @k(%out: !xpu.buffer<1024xi32>, %in: !xpu.buffer<1024xi32, ro>,
              %hist: !xpu.buffer<16xi32>, %probe: !xpu.buffer<16xi32>, %s: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>, grid_size = array<i64: 4, 1, 1>} {
  %g = xpu.global_id x
  // the reproducer's guard
  %x = xpu.load %in[%g] : !xpu.buffer<1024xi32, ro>
  %y = arith.muli %x, %s : i32
  %sum = xpu.reduce add %y sequential : i32
  xpu.barrier
  %c15 = arith.constant 15 : i32
  %b = arith.andi %x, %c15 : i32
  %bi = arith.index_castui %b : i32 to index
  %one = arith.constant 1 : i32
  %old = xpu.atomic_rmw add %one, %hist[%bi] seq_cst device : !xpu.buffer<16xi32>
  %r = arith.addi %y, %sum : i32
  xpu.store %r, %out[%g] : !xpu.buffer<1024xi32>
  xpu.return
}
)";

/// gc007-hole-minsi-ult.mlir: j < minsi(size, n) read unsigned; n < 0 makes
/// the minimum a huge unsigned value.
const char *kMinsiParams = ", %n: i32, %dyn: !xpu.buffer<i32, ro>";
const char *kMinsiHole = R"(  %j = arith.index_cast %s : i32 to index
  %sz = xpu.buffer_size %dyn : !xpu.buffer<i32, ro>
  %ni = arith.index_cast %n : i32 to index
  %m = arith.minsi %sz, %ni : index
  %ok = arith.cmpi ult, %j, %m : index
  scf.if %ok {
    %z = xpu.load %dyn[%j] : !xpu.buffer<i32, ro>
    %c0 = arith.constant 0 : index
    xpu.store %z, %probe[%c0] : !xpu.buffer<16xi32>
  })";

/// gc007-hole-signed-bound-ult.mlir: j < b read unsigned, b in [-5, 2].
const char *kSignedBoundParams = "";
const char *kSignedBoundHole = R"(  %j = arith.index_cast %s : i32 to index
  %c7 = arith.constant 7 : i32
  %lo = arith.andi %s, %c7 : i32
  %c5 = arith.constant 5 : i32
  %bb = arith.subi %lo, %c5 : i32
  %bix = arith.index_cast %bb : i32 to index
  %ok = arith.cmpi ult, %j, %bix : index
  scf.if %ok {
    %c1 = arith.constant 1 : i32
    %o2 = xpu.atomic_rmw add %c1, %probe[%j] seq_cst device : !xpu.buffer<16xi32>
  })";

/// gc007-hole-signed-wrap.mlir: (j + 2^63 - 1) < size read signed wraps.
const char *kWrapParams = ", %n: i64, %dyn: !xpu.buffer<i32, ro>";
const char *kWrapHole = R"(  %mask = arith.constant 9223372036854775807 : i64
  %nn = arith.andi %n, %mask : i64
  %j = arith.index_cast %nn : i64 to index
  %k = arith.constant 9223372036854775807 : index
  %jk = arith.addi %j, %k : index
  %sz = xpu.buffer_size %dyn : !xpu.buffer<i32, ro>
  %ok = arith.cmpi slt, %jk, %sz : index
  scf.if %ok {
    %z = xpu.load %dyn[%j] : !xpu.buffer<i32, ro>
    %c0 = arith.constant 0 : index
    xpu.store %z, %probe[%c0] : !xpu.buffer<16xi32>
  })";

std::string kernelText(const char *params, const char *hole, bool deterministic) {
  std::string text = kBody;
  auto put = [&](const std::string &what, const std::string &with) {
    text.replace(text.find(what), what.size(), with);
  };
  put("%s: i32)", std::string("%s: i32") + params + ")");
  put("  // the reproducer's guard", hole);
  // The device capability names the backend under test (XPU-GC002).
  if (deterministic)
    put("attributes {", std::string("attributes {profile = \"deterministic-v1\", effects = "
                                    "[\"DeviceCopyIn\", \"DeviceDispatch\", \"DeviceCopyOut\"], "
                                    "device = \"") +
                            xpu_backend_name(target().backend) + "\", ");
  return text;
}

/// The line (1-based) of the first line of `text` that contains `what`.
unsigned lineOf(const std::string &text, const std::string &what) {
  size_t at = text.find(what);
  REQUIRE(at != std::string::npos);
  return unsigned(std::count(text.begin(), text.begin() + long(at), '\n')) + 1;
}

struct Refusal {
  std::string code, message;
  unsigned line = 0;
};

/// Creates a module for the device under test, expecting a refusal.
Refusal refused(const std::string &text) {
  xpu_module mod = nullptr;
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                                    nullptr, &mod, &diags);
  CHECK(st == XPU_ERROR_REFUSED);
  CHECK(mod == nullptr);
  Refusal r;
  REQUIRE(xpu_diagnostics_count(diags) == 1);
  xpu_diagnostic d;
  XPU_OK(xpu_diagnostics_get(diags, 0, &d));
  r.code = d.code;
  r.message = d.message;
  r.line = d.line;
  xpu_diagnostics_release(diags);
  return r;
}

/// Runs a reproducer kernel (portable) and checks its deterministic
/// outputs; returns the synchronization's status.
struct Repro {
  Module module;
  std::vector<int32_t> in = randomInts<int32_t>(1024, INT32_MIN, INT32_MAX);
  std::vector<int32_t> probeInit = randomInts<int32_t>(16, -1000, 1000);
  int32_t s;
  Buffer out{1024 * 4}, bin = Buffer::from(in), hist = Buffer::from(std::vector<int32_t>(16, 0)),
         probe = Buffer::from(probeInit);

  Repro(const std::string &text, int32_t s) : module(text), s(s) {}

  xpu_status launch(std::vector<xpu_arg> extra) {
    std::vector<xpu_arg> args = {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle),
                                 xpu_arg_buffer(hist.handle), xpu_arg_buffer(probe.handle),
                                 xpu_arg_i32(s)};
    args.insert(args.end(), extra.begin(), extra.end());
    uint32_t grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
    XPU_OK(xpu_launch(module.kernel("k"), nullptr, grid, block, args.data(), args.size()));
    return xpu_stream_synchronize(defaultStream());
  }

  void checkOutputs() {
    auto got = out.read<int32_t>();
    std::vector<int32_t> wantHist(16, 0);
    for (int g = 0; g < 4; ++g) {
      uint32_t sum = 0; // wrapping, left to right
      for (int t = 0; t < 256; ++t)
        sum += uint32_t(in[g * 256 + t]) * uint32_t(s);
      for (int t = 0; t < 256; ++t) {
        int i = g * 256 + t;
        REQUIRE(got[i] == int32_t(uint32_t(in[i]) * uint32_t(s) + sum));
        ++wantHist[uint32_t(in[i]) & 15];
      }
    }
    CHECK(hist.read<int32_t>() == wantHist);
  }
};

std::string lastMessage() { return xpu_last_error_message(); }

} // namespace

TEST_CASE("bounds reproducers are refused under deterministic-v1 (XPU-GC007 at the access)") {
  struct Case {
    const char *params, *hole, *access, *what;
  } cases[] = {
      {kMinsiParams, kMinsiHole, "xpu.load %dyn[%j]", "load"},
      {kSignedBoundParams, kSignedBoundHole, "%probe[%j]", "atomic"},
      {kWrapParams, kWrapHole, "xpu.load %dyn[%j]", "load"},
  };
  for (const Case &c : cases) {
    std::string text = kernelText(c.params, c.hole, true);
    Refusal r = refused(text);
    CHECK(r.code == "XPU-GC007");
    CHECK(r.line == lineOf(text, c.access));
    CHECK(r.message.find(std::string("this ") + c.what + " is neither proven") != std::string::npos);
  }
}

TEST_CASE("portable: j < minsi(size, n) with n < 0 is checked, not trusted") {
  auto dyn = randomInts<int32_t>(16, -1000, 1000);
  Buffer bdyn = Buffer::from(dyn);
  Repro r(kernelText(kMinsiParams, kMinsiHole, false), 5000);
  // n = -1: the minimum is -1, a huge unsigned bound; j = 5000 is far past
  // the 16 elements. Every one of the 1024 invocations reaches the load.
  CHECK(r.launch({xpu_arg_i32(-1), xpu_arg_buffer(bdyn.handle)}) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(lastMessage().find("1024 out-of-bounds accesses were suppressed; the first was a "
                           "load from 'dyn'") != std::string::npos);
  auto probe = r.probe.read<int32_t>();
  CHECK(probe[0] == 0); // the suppressed load read zero
  for (int i = 1; i < 16; ++i)
    REQUIRE(probe[i] == r.probeInit[i]);
  r.checkOutputs();

  // j = 7 with the same n is in bounds: the load runs and is right.
  Repro ok(kernelText(kMinsiParams, kMinsiHole, false), 7);
  XPU_OK(ok.launch({xpu_arg_i32(-1), xpu_arg_buffer(bdyn.handle)}));
  CHECK(ok.probe.read<int32_t>()[0] == dyn[7]);
  ok.checkOutputs();
}

TEST_CASE("portable: j < b with a negative signed b is checked, not trusted") {
  // s = 100: b = (100 & 7) - 5 = -1, so j = 100 passes `ult` and the atomic
  // would add to element 100 of a 16-element buffer.
  Repro r(kernelText(kSignedBoundParams, kSignedBoundHole, false), 100);
  CHECK(r.launch({}) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(lastMessage().find("1024 out-of-bounds accesses were suppressed") != std::string::npos);
  CHECK(lastMessage().find("the first was an atomic on 'probe'") != std::string::npos);
  CHECK(r.probe.read<int32_t>() == r.probeInit);
  r.checkOutputs();

  // s = 3: b = -2 again passes, and element 3 is in bounds: 1024 adds.
  Repro ok(kernelText(kSignedBoundParams, kSignedBoundHole, false), 3);
  XPU_OK(ok.launch({}));
  auto probe = ok.probe.read<int32_t>();
  for (int i = 0; i < 16; ++i)
    REQUIRE(probe[i] == ok.probeInit[i] + (i == 3 ? 1024 : 0));
  ok.checkOutputs();
}

TEST_CASE("portable: (j + 2^63 - 1) < size read signed is checked, not trusted") {
  auto dyn = randomInts<int32_t>(16, -1000, 1000);
  Buffer bdyn = Buffer::from(dyn);
  // n = 1000: j + 2^63 - 1 wraps negative and passes `slt`; j = 1000.
  Repro r(kernelText(kWrapParams, kWrapHole, false), 11);
  CHECK(r.launch({xpu_arg_i64(1000), xpu_arg_buffer(bdyn.handle)}) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(r.probe.read<int32_t>()[0] == 0);
  r.checkOutputs();
  // n = 3 wraps too, into bounds: dyn[3].
  Repro ok(kernelText(kWrapParams, kWrapHole, false), 11);
  XPU_OK(ok.launch({xpu_arg_i64(3), xpu_arg_buffer(bdyn.handle)}));
  CHECK(ok.probe.read<int32_t>()[0] == dyn[3]);
  ok.checkOutputs();
}

namespace {

// elided-check.mlir, with the grid extent as a parameter.
std::string shapeKernel(const std::string &grid) {
  return "xpu.kernel @k(%out: !xpu.buffer<16xi32>)\n"
         "    attributes {workgroup_size = array<i64: 2>, grid_size = array<i64: " +
         grid +
         ">} {\n"
         "  %g = xpu.global_id x\n"
         "  %c = arith.constant 7 : i32\n"
         "  xpu.store %c, %out[%g] : !xpu.buffer<16xi32>\n"
         "  xpu.return\n"
         "}\n";
}

} // namespace

TEST_CASE("a fixed grid no launch can pass is refused; a legal one keeps its check") {
  // elided-check.mlir: 2 * 4611686018427387920 overflowed int64, the store
  // lost its check, and a launch with the extent truncated to 16 wrote 32
  // elements into 16.
  Refusal r = refused(shapeKernel("4611686018427387920"));
  CHECK(r.code == "XPU-PT002");
  CHECK(r.line == 1);
  CHECK(r.message.find("grid extent 4611686018427387920 on axis 0") != std::string::npos);

  // 8 x 2 invocations fit the 16 elements: proven, no check, no error.
  Module fits(shapeKernel("8"));
  auto sentinel = randomInts<int32_t>(16, -1000, 1000);
  Buffer a = Buffer::from(sentinel);
  run(fits.kernel("k"), {8}, {2}, {xpu_arg_buffer(a.handle)});
  CHECK(a.read<int32_t>() == std::vector<int32_t>(16, 7));

  // 9 x 2 do not: the two past the end are suppressed and reported.
  Module over(shapeKernel("9"));
  Buffer b = Buffer::from(sentinel);
  uint32_t grid[3] = {9, 1, 1}, block[3] = {2, 1, 1};
  xpu_arg args[1] = {xpu_arg_buffer(b.handle)};
  XPU_OK(xpu_launch(over.kernel("k"), nullptr, grid, block, args, 1));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(lastMessage().find("2 out-of-bounds accesses were suppressed") != std::string::npos);
  CHECK(b.read<int32_t>() == std::vector<int32_t>(16, 7));
}

TEST_CASE("a checked vector access near the top of the index range is out of bounds") {
  // The check once tested index + 3 < size, which wraps for index = -3..-1.
  Module m(R"(
    xpu.kernel @vec(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %p: i64) {
      %i = arith.index_cast %p : i64 to index
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro> -> vector<4xi32>
      %c0 = arith.constant 0 : index
      xpu.store %v, %out[%c0] : !xpu.buffer<i32> -> vector<4xi32>
      xpu.return
    })");
  const int64_t n = 64;
  auto in = randomInts<int32_t>(n, 1, 1 << 30); // never zero
  Buffer bin = Buffer::from(in), bout(16);
  auto launch = [&](int64_t p) {
    xpu_arg args[3] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_i64(p)};
    uint32_t one[3] = {1, 1, 1};
    XPU_OK(xpu_launch(m.kernel("vec"), nullptr, one, one, args, 3));
    return xpu_stream_synchronize(defaultStream());
  };
  for (int64_t p : {int64_t(-1), int64_t(-3), n - 3, n, INT64_MIN, INT64_MAX}) {
    INFO("index " << p);
    CHECK(launch(p) == XPU_ERROR_OUT_OF_BOUNDS);
    CHECK(bout.read<int32_t>() == std::vector<int32_t>(4, 0)); // the load read zeros
  }
  for (int64_t p : {int64_t(0), n / 2, n - 4}) {
    INFO("index " << p);
    XPU_OK(launch(p));
    CHECK(bout.read<int32_t>() == std::vector<int32_t>(in.begin() + p, in.begin() + p + 4));
  }
}
