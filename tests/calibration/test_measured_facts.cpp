// What the calibration measured, and what kernels then get, on the device
// under test (XPU_TEST_BACKEND): loops past the device's loop budget return
// their count or fail naming the limit, never a truncated count; math.fma
// is a correctly rounded fused multiply-add or refused naming the
// measurement; subnormal results are what the calibration says they are.
#include "../conformance/harness.h"

#include <cmath>
#include <optional>

using namespace conf;

namespace {

/// The measured value of fact `name` on the device under test.
std::optional<double> measured(const char *name) {
  uint32_t n = 0;
  XPU_OK(xpu_device_calibration_count(target().dev, XPU_CALIBRATION_CORRECTNESS, &n));
  for (uint32_t i = 0; i < n; ++i) {
    xpu_calibration_record r = {sizeof r};
    XPU_OK(xpu_device_calibration_record(target().dev, i, &r));
    if (std::string(r.name) == name)
      return r.has_value ? std::optional<double>(r.value) : std::nullopt;
  }
  return std::nullopt;
}

/// The device's loop budget, 0 when it has none.
uint64_t loopLimit() {
  std::optional<double> v = measured("loop.pass-limit");
  REQUIRE(v);
  return uint64_t(*v);
}

/// Launches and synchronizes; returns the status (the message stays in
/// xpu_last_error_message).
xpu_status tryRun(xpu_kernel k, uint32_t grid, uint32_t block, std::vector<xpu_arg> args) {
  uint32_t g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
  xpu_status st = xpu_launch(k, defaultStream(), g, b, args.data(), uint32_t(args.size()));
  if (st == XPU_SUCCESS)
    st = xpu_stream_synchronize(defaultStream());
  return st;
}

/// A launch that failed because the device stopped a loop: the error names
/// the limit and the loop.
void checkLoopFailure(xpu_status st, uint64_t limit) {
  std::string msg = xpu_last_error_message();
  INFO(msg);
  CHECK(st == XPU_ERROR_UNSUPPORTED);
  CHECK(msg.find("stopped the loop at") != std::string::npos);
  CHECK(msg.find("at most " + std::to_string(limit) + " loop passes") != std::string::npos);
}

// Counting loops in the shapes of /work/shared/repros/lavapipe/vk_loop_*:
// one loop, two in sequence, two nested, a long loop over i8 data, loops in
// different invocations of one group, an inner loop in a branch no
// invocation takes.
const char *kLoops = R"(
xpu.kernel @one(%out: !xpu.buffer<i32>, %n: !xpu.buffer<i32, ro>) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = xpu.global_id x
  %size = xpu.buffer_size %out : !xpu.buffer<i32>
  %in = arith.cmpi ult, %g, %size : index
  scf.if %in {
    %ni = xpu.load %n[%g] : !xpu.buffer<i32, ro>
    %N = arith.index_castui %ni : i32 to index
    %r = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
      %a = arith.addi %acc, %one : i32
      scf.yield %a : i32
    }
    xpu.store %r, %out[%g] : !xpu.buffer<i32>
  }
  xpu.return
}
xpu.kernel @two(%out: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %a = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  %b = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %a) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  xpu.store %b, %out[%c0] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @nested(%out: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %a = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
    %b = scf.for %j = %c0 to %N step %c1 iter_args(%acc2 = %acc) -> (i32) {
      %x = arith.addi %acc2, %one : i32
      scf.yield %x : i32
    }
    scf.yield %b : i32
  }
  xpu.store %a, %out[%c0] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @histogram(%hist: !xpu.buffer<256xi32>, %data: !xpu.buffer<i8, ro>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %N = arith.index_castui %n : i32 to index
  %bin = xpu.global_id x
  %in = arith.cmpi ult, %bin, %c256 : index
  scf.if %in {
    %cnt = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
      %b = xpu.load %data[%i] : !xpu.buffer<i8, ro>
      %bi = arith.index_castui %b : i8 to index
      %eq = arith.cmpi eq, %bi, %bin : index
      %inc = arith.select %eq, %one, %zero : i32
      %a2 = arith.addi %acc, %inc : i32
      scf.yield %a2 : i32
    }
    xpu.store %cnt, %hist[%bin] : !xpu.buffer<256xi32>
  }
  xpu.return
}
xpu.kernel @apart(%out: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %g = xpu.global_id x
  %size = xpu.buffer_size %out : !xpu.buffer<i32>
  %in = arith.cmpi ult, %g, %size : index
  %first = arith.cmpi eq, %g, %c0 : index
  %na = arith.select %first, %N, %c0 : index
  %nb = arith.select %first, %c0, %N : index
  %a = scf.for %i = %c0 to %na step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  %b = scf.for %i = %c0 to %nb step %c1 iter_args(%acc = %a) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  scf.if %in {
    xpu.store %b, %out[%g] : !xpu.buffer<i32>
  }
  xpu.return
}
xpu.kernel @untaken(%out: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %g = xpu.global_id x
  %never = arith.cmpi ugt, %g, %N : index
  %a = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = arith.addi %acc, %one : i32
    %r = scf.if %never -> (i32) {
      %b = scf.for %j = %c0 to %N step %c1 iter_args(%y = %x) -> (i32) {
        %y2 = arith.addi %y, %one : i32
        scf.yield %y2 : i32
      }
      scf.yield %b : i32
    } else {
      scf.yield %x : i32
    }
    scf.yield %r : i32
  }
  xpu.store %a, %out[%c0] : !xpu.buffer<i32>
  xpu.return
}
)";

/// Runs one of the scalar-count kernels over one invocation and checks
/// that it counted `want`, or that the device stopped it and said so.
/// Returns whether it ran to the end.
bool countOrFail(Module &m, const char *kernel, int32_t n, int64_t want, uint64_t limit,
                 uint32_t invocations = 1) {
  INFO(kernel << " n=" << n);
  Buffer out = Buffer::from(std::vector<int32_t>(invocations, -1));
  xpu_status st = tryRun(m.kernel(kernel), 1, invocations,
                         {xpu_arg_buffer(out.handle), xpu_arg_i32(n)});
  if (st != XPU_SUCCESS) {
    checkLoopFailure(st, limit);
    CHECK(limit > 0); // only a device with a measured budget stops loops
    return false;
  }
  std::vector<int32_t> got = out.read<int32_t>();
  CHECK(got[0] == want);
  return true;
}

} // namespace

TEST_CASE("a loop past the device's loop budget counts to the end or fails naming it") {
  uint64_t limit = loopLimit();
  Module m(kLoops);
  // 100,000 iterations in one loop (lavapipe's budget is 65,535 passes).
  {
    Buffer n = Buffer::from(std::vector<int32_t>{100000});
    Buffer out = Buffer::from(std::vector<int32_t>{-1});
    xpu_status st = tryRun(m.kernel("one"), 1, 1,
                           {xpu_arg_buffer(out.handle), xpu_arg_buffer(n.handle)});
    if (st == XPU_SUCCESS)
      CHECK(out.read<int32_t>()[0] == 100000);
    else
      checkLoopFailure(st, limit);
    CHECK((st == XPU_SUCCESS) == (limit == 0 || 100001 <= limit));
  }
  bool ran = countOrFail(m, "two", 50000, 100000, limit);
  CHECK(ran == (limit == 0 || 100002 <= limit));
  ran = countOrFail(m, "nested", 300, 90000, limit);
  CHECK(ran == (limit == 0 || 300 * 302 + 1 <= limit));
  // Different loops in two invocations of one group, and a loop in a branch
  // nobody takes: the budget is shared, which a count per invocation misses.
  for (int32_t n : {20000, 40000}) {
    INFO("apart n=" << n);
    Buffer out = Buffer::from(std::vector<int32_t>(2, -1));
    xpu_status st =
        tryRun(m.kernel("apart"), 1, 2, {xpu_arg_buffer(out.handle), xpu_arg_i32(n)});
    if (st == XPU_SUCCESS)
      CHECK(out.read<int32_t>() == std::vector<int32_t>{n, n});
    else
      checkLoopFailure(st, limit);
  }
  (void)countOrFail(m, "untaken", 20000, 20000, limit);
  ran = countOrFail(m, "untaken", 40000, 40000, limit);
  CHECK(ran == (limit == 0 || 2 * 40000 + 1 <= limit));
}

TEST_CASE("loops of random lengths: every count is exact, or the launch fails naming the budget") {
  uint64_t limit = loopLimit();
  Module m(kLoops);
  for (int32_t most : {4000, 150000}) {
    INFO("trip counts up to " << most);
    std::vector<int32_t> n = randomInts<int32_t>(256, 0, most);
    Buffer bn = Buffer::from(n);
    Buffer out = Buffer::from(std::vector<int32_t>(n.size(), -1));
    xpu_status st = tryRun(m.kernel("one"), 4, 64, {xpu_arg_buffer(out.handle),
                                                    xpu_arg_buffer(bn.handle)});
    if (st != XPU_SUCCESS) {
      checkLoopFailure(st, limit);
      CHECK(most > 4000); // short loops are never stopped, nor reported
      continue;
    }
    std::vector<int32_t> got = out.read<int32_t>();
    for (size_t i = 0; i < n.size(); ++i)
      CHECK(got[i] == n[i]);
  }
}

TEST_CASE("a histogram over 100,000 bytes counts every byte or fails naming the budget") {
  uint64_t limit = loopLimit();
  Module m(kLoops);
  std::vector<int8_t> data = randomInts<int8_t>(100000, -128, 127);
  std::vector<int32_t> want(256, 0);
  for (int8_t b : data)
    want[uint8_t(b)]++;
  Buffer bd = Buffer::from(data);
  Buffer hist = Buffer::from(std::vector<int32_t>(256, -1));
  xpu_status st = tryRun(m.kernel("histogram"), 4, 64,
                         {xpu_arg_buffer(hist.handle), xpu_arg_buffer(bd.handle),
                          xpu_arg_i32(int32_t(data.size()))});
  if (st != XPU_SUCCESS) {
    checkLoopFailure(st, limit);
    CHECK(limit > 0);
    CHECK(limit < data.size());
    return;
  }
  CHECK(hist.read<int32_t>() == want);
}

namespace {

// A loop that stays within the budget, then tile ops whose element loops
// (made by the tile lowering, not written in the kernel) need more passes
// than are left: the tile must come out whole, or the launch fail naming
// the budget, never be copied in part (issue 15's loop guard).
const char *kTileAfterLoop = R"(
xpu.kernel @tile_after_loop(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                            %count: !xpu.buffer<i32>, %n: i32)
    attributes {workgroup_size = array<i64: 1, 1, 1>} {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ld = arith.constant 32 : index
  %N = arith.index_castui %n : i32 to index
  %r = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
    %a = arith.addi %acc, %one : i32
    scf.yield %a : i32
  }
  xpu.store %r, %count[%c0] : !xpu.buffer<i32>
  %t = xpu.tile_load %in[%c0], %ld : !xpu.buffer<i32, ro> -> !xpu.tile<32x32xi32>
  %u = xpu.tile_add %t, %t : !xpu.tile<32x32xi32>
  xpu.tile_store %u, %out[%c0], %ld : !xpu.tile<32x32xi32>, !xpu.buffer<i32>
  xpu.return
}
)";

} // namespace

TEST_CASE("tile ops after a long loop: every element, or the launch fails naming the budget") {
  uint64_t limit = loopLimit();
  Module m(kTileAfterLoop);
  std::vector<int32_t> in = randomInts<int32_t>(1024, -1000000, 1000000);
  Buffer bin = Buffer::from(in);
  for (int32_t n : {10, 65500}) {
    INFO("loop of " << n);
    Buffer out = Buffer::from(std::vector<int32_t>(1024, -1));
    Buffer count = Buffer::from(std::vector<int32_t>{-1});
    xpu_status st = tryRun(m.kernel("tile_after_loop"), 1, 1,
                           {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle),
                            xpu_arg_buffer(count.handle), xpu_arg_i32(n)});
    if (st != XPU_SUCCESS) {
      checkLoopFailure(st, limit);
      CHECK(limit > 0);
      CHECK(n > 10); // the tile ops alone fit any budget measured so far
      continue;
    }
    CHECK(count.read<int32_t>()[0] == n);
    std::vector<int32_t> got = out.read<int32_t>();
    for (size_t e = 0; e < in.size(); ++e)
      CHECK(got[e] == 2 * in[e]);
  }
}

namespace {

/// A kernel @fma computing math.fma elementwise over `elem` ("f32", "f64").
std::string fmaKernel(const std::string &elem) {
  std::string text = R"(
xpu.kernel @fma(%out: !xpu.buffer<ELEM>, %a: !xpu.buffer<ELEM, ro>, %b: !xpu.buffer<ELEM, ro>,
                %c: !xpu.buffer<ELEM, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %out : !xpu.buffer<ELEM>
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    %x = xpu.load %a[%i] : !xpu.buffer<ELEM, ro>
    %y = xpu.load %b[%i] : !xpu.buffer<ELEM, ro>
    %z = xpu.load %c[%i] : !xpu.buffer<ELEM, ro>
    %r = math.fma %x, %y, %z : ELEM
    xpu.store %r, %out[%i] : !xpu.buffer<ELEM>
  }
  xpu.return
}
)";
  for (size_t at; (at = text.find("ELEM")) != std::string::npos;)
    text.replace(at, 4, elem);
  return text;
}

/// Inputs where a fused multiply-add rounds differently from a*b+c: the
/// first quarter near-cancelling (a*b ~ -c), then random ones of mixed
/// magnitude and sign, then some infinities, NaNs and subnormals.
template <typename T> void fmaInputs(std::vector<T> &a, std::vector<T> &b, std::vector<T> &c) {
  size_t n = a.size();
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exp(-40, 40);
  for (size_t i = 0; i < n; ++i) {
    a[i] = T(std::ldexp(unit(rng()), exp(rng())));
    b[i] = T(std::ldexp(unit(rng()), exp(rng())));
    c[i] = i < n / 4 ? T(-(a[i] * b[i])) * T(1 + std::ldexp(unit(rng()), -20))
                     : T(std::ldexp(unit(rng()), exp(rng())));
  }
  a[n - 1] = T(INFINITY);
  b[n - 2] = T(NAN);
  c[n - 3] = T(-INFINITY);
  a[n - 4] = std::numeric_limits<T>::denorm_min();
  b[n - 4] = T(0.5);
}

template <typename T> bool sameBits(T x, T y) {
  return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0;
}

/// Runs @fma of `mod` over `n` fresh inputs; the count of results that
/// are not std::fma's bits (the first few are logged).
template <typename T> size_t wrongFmas(xpu_module mod, size_t n) {
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(mod, "fma", &k));
  std::vector<T> a(n), b(n), c(n);
  fmaInputs(a, b, c);
  Buffer ba = Buffer::from(a), bb = Buffer::from(b), bc = Buffer::from(c);
  Buffer out = Buffer::from(std::vector<T>(n, T(-1)));
  run(k, {uint32_t(n / 64)}, {64},
      {xpu_arg_buffer(out.handle), xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
       xpu_arg_buffer(bc.handle)});
  std::vector<T> got = out.read<T>();
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    if (!sameBits(got[i], std::fma(a[i], b[i], c[i])) && wrong++ < 5)
      INFO(i << ": fma(" << a[i] << ", " << b[i] << ", " << c[i] << ") = " << got[i]
             << ", want " << std::fma(a[i], b[i], c[i]));
  return wrong;
}

} // namespace

TEST_CASE("math.fma of f32 is correctly rounded, in hardware or in software, or refused") {
  xpu_module mod = nullptr;
  std::string text = fmaKernel("f32");
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                                    nullptr, &mod, nullptr);
  if (st != XPU_SUCCESS) {
    // Only a device that neither fuses it nor has f64 to compute it with.
    std::string msg = xpu_last_error_message();
    INFO(msg);
    CHECK(st == XPU_ERROR_REFUSED);
    CHECK(msg.find("fused multiply-add of f32") != std::string::npos);
    CHECK(measured("fma.f32.fused") == std::optional<double>(0.0));
    return;
  }
  CHECK(wrongFmas<float>(mod, 4096) == 0);
  xpu_module_release(mod);
}

TEST_CASE("math.fma of f64 is correctly rounded where the device fuses it, else refused") {
  xpu_module mod = nullptr;
  std::string text = fmaKernel("f64");
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                                    nullptr, &mod, nullptr);
  std::optional<double> fused = measured("fma.f64.fused");
  if (st != XPU_SUCCESS) {
    std::string msg = xpu_last_error_message();
    INFO(msg);
    CHECK(st == XPU_ERROR_REFUSED);
    // No f64 at all, or f64 without a fused multiply-add (with the probe's
    // evidence).
    bool noF64 = msg.find("f64 arithmetic") != std::string::npos;
    CHECK((noF64 || msg.find("fused multiply-add of f64") != std::string::npos));
    if (!noF64) {
      CHECK(fused == std::optional<double>(0.0));
      CHECK(msg.find("bit-identical to a correctly rounded fma") != std::string::npos);
    }
    return;
  }
  CHECK(fused == std::optional<double>(1.0));
  CHECK(wrongFmas<double>(mod, 2048) == 0);
  xpu_module_release(mod);
}

TEST_CASE("subnormal f32 results are what the calibration measured") {
  // exp(-90) and 2^-70 * 2^-70 are subnormal in f32.
  Module m(R"(
xpu.kernel @sub(%out: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %out : !xpu.buffer<f32>
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    %v = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %p = arith.mulf %v, %v : f32
    xpu.store %p, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
)");
  std::vector<float> x(256);
  std::uniform_int_distribution<int> e(-74, -64); // squares from 2^-148 to 2^-128
  for (float &v : x)
    v = std::ldexp(1.0f + float(rng()() % 1024) / 1024.0f, e(rng()));
  Buffer bx = Buffer::from(x), out = Buffer::from(std::vector<float>(x.size(), -1.0f));
  run(m.kernel("sub"), {4}, {64}, {xpu_arg_buffer(out.handle), xpu_arg_buffer(bx.handle)});
  std::vector<float> got = out.read<float>();
  std::optional<double> kept = measured("subnormal.f32.arith");
  REQUIRE(kept);
  for (size_t i = 0; i < x.size(); ++i) {
    float want = x[i] * x[i];
    if (*kept == 1.0 || std::fpclassify(want) != FP_SUBNORMAL)
      CHECK(sameBits(got[i], want));
    else
      CHECK((sameBits(got[i], want) || got[i] == 0.0f));
  }
}

TEST_CASE("f32 exp and exp2 keep subnormal results (computed through a square where the driver flushes)") {
  xpu_module mod = nullptr;
  const char *text = R"(
xpu.kernel @exps(%e: !xpu.buffer<f32>, %e2: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %x : !xpu.buffer<f32, ro>
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    %v = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %a = math.exp %v : f32
    %c = arith.constant 1.4426950408889634 : f32
    %w = arith.mulf %v, %c : f32
    %b = math.exp2 %w : f32
    xpu.store %a, %e[%i] : !xpu.buffer<f32>
    xpu.store %b, %e2[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
)";
  xpu_status st =
      xpu_module_create(target().ctx, target().dev, text, std::strlen(text), nullptr, &mod,
                        nullptr);
  if (st == XPU_ERROR_REFUSED && std::string(xpu_last_error_message()).find("math library") !=
                                     std::string::npos) {
    MESSAGE("SKIP: no math library on this device: " << xpu_last_error_message());
    return;
  }
  XPU_OK(st);
  xpu_kernel k;
  XPU_OK(xpu_module_kernel(mod, "exps", &k));
  // Arguments from the normal range down to where exp underflows to zero.
  std::vector<float> x = randomFloats(512, -104.0f, -80.0f);
  x[0] = -90.0f;
  Buffer bx = Buffer::from(x), be = Buffer::from(std::vector<float>(x.size(), -1.0f)),
         be2 = Buffer::from(std::vector<float>(x.size(), -1.0f));
  run(k, {8}, {64}, {xpu_arg_buffer(be.handle), xpu_arg_buffer(be2.handle),
                     xpu_arg_buffer(bx.handle)});
  std::vector<float> e = be.read<float>(), e2 = be2.read<float>();
  // Vulkan allows exp 3 + 2|x| ULP; here relative 3e-5 at most, plus the
  // rounding of a subnormal (2^-149), against the host's correctly rounded
  // double result.
  size_t flushed = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double want = std::exp(double(x[i]));
    double want2 = std::exp2(double(x[i] * 1.4426950408889634f));
    double tol = 3e-5 * want + std::ldexp(1.0, -149), tol2 = 3e-5 * want2 + std::ldexp(1.0, -149);
    INFO("x = " << x[i] << ": exp " << e[i] << " (want " << want << "), exp2 " << e2[i]
                << " (want " << want2 << ")");
    flushed += want > std::ldexp(1.0, -149) && e[i] == 0.0f;
    CHECK(std::fabs(double(e[i]) - want) <= tol);
    CHECK(std::fabs(double(e2[i]) - want2) <= tol2);
  }
  CHECK(flushed == 0);
  xpu_module_release(mod);
}
