// Conformance: wave (subgroup) operations on fresh random data, every lane
// checked against a host model of waves (consecutive linear indices, the
// last wave of a workgroup partial), in full and partial waves, for i32,
// f32, i64 and f64; and a workgroup reduction and prefix scan built from
// them.
#include "surface.h"
#include "wave_kernels.h"

#include <cmath>
#include <cstring>
#include <ios>
#include <type_traits>

using namespace conf;

TEST_SUITE_BEGIN("surface");

namespace {

/// A backend without `capability` must refuse `text` naming it.
void expectRefused(const std::string &text, const char *capability) {
  xpu_status st;
  std::string said = diagnosticsOf(text, st);
  INFO(said);
  CHECK(st == XPU_ERROR_REFUSED);
  CHECK(said.find("XPU-CAP00") != std::string::npos);
  MESSAGE("SKIP: " << target().name << " has no " << capability << " (refused: " << said
                   << ")");
}

/// Whether the device runs kernels of type `t` and wave operations `caps`;
/// when it does not, checks that `text` is refused.
bool runsHere(const std::string &text, const std::string &t,
              std::initializer_list<const char *> caps) {
  std::vector<const char *> need(caps);
  if (t == "i64")
    need.push_back("i64.arith");
  if (t == "f64")
    need.push_back("f64.arith");
  for (const char *c : need)
    if (!capabilityAvailable(c)) {
      expectRefused(text, c);
      return false;
    }
  return true;
}

uint32_t deviceWaveWidth() {
  xpu_device_info info = {sizeof info};
  XPU_OK(xpu_device_info_get(target().dev, &info));
  return info.wave_width;
}

template <typename T> std::vector<T> randomValues(size_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(-1000, 1000);
    std::vector<T> v(n);
    for (auto &x : v)
      x = d(rng());
    return v;
  } else {
    return randomInts<T>(n, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  }
}

template <typename T> bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

template <typename T> std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char s[64];
    std::snprintf(s, sizeof s, "%a", double(v));
    return s;
  } else {
    return std::to_string(v);
  }
}

/// The lane ids and widths kernels report must follow the model: lane =
/// index in workgroup % width, one width for the whole launch.
uint32_t checkedWidth(const std::vector<int32_t> &info, uint32_t block) {
  uint32_t width = uint32_t(info[1]);
  REQUIRE(width >= 1);
  REQUIRE(width <= 128);
  size_t bad = 0;
  for (size_t i = 0; i < info.size() / 2; ++i)
    if ((uint32_t(info[2 * i]) != (i % block) % width || uint32_t(info[2 * i + 1]) != width) &&
        bad++ < 5)
      FAIL_CHECK("invocation " << i << ": lane " << info[2 * i] << " of width "
                               << info[2 * i + 1] << ", the model says lane "
                               << (i % block) % width << " of " << width);
  REQUIRE(bad == 0);
  return width;
}

template <typename T> void shuffles(const char *t) {
  std::string text = wave::shuffleKernel("shuffles", t);
  if (!runsHere(text, t, {"wave.shuffle"}))
    return;
  Module m(text);
  uint32_t guess = deviceWaveWidth();
  for (auto [grid, block] : {std::pair<uint32_t, uint32_t>{4, 75}, {3, 64}}) {
    uint32_t n = grid * block;
    auto v = randomValues<T>(n);
    auto off = randomInts<int32_t>(n, -4, int32_t(2 * guess + 4));
    off[0] = INT32_MIN, off[1] = INT32_MAX, off[2] = -1, off[3] = 0;
    auto lanes = randomInts<int32_t>(grid, 0, int32_t(guess + 2));
    Buffer out(n * 5 * sizeof(T)), info(n * 2 * 4);
    Buffer bin = Buffer::from(v), boff = Buffer::from(off), blanes = Buffer::from(lanes);
    run(m.kernel("shuffles"), {grid}, {block},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle), xpu_arg_buffer(boff.handle),
         xpu_arg_buffer(blanes.handle), xpu_arg_buffer(info.handle)});
    uint32_t width = checkedWidth(info.read<int32_t>(), block);
    auto got = out.read<T>();
    size_t bad = 0;
    const char *modes[5] = {"xor", "up", "down", "index", "broadcast"};
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t wg = i / block;
      WavePlace p = wavePlace(i % block, block, width);
      uint32_t k = uint32_t(off[i]);
      uint32_t src[5] = {p.lane ^ k, p.lane - k, p.lane + k, k, uint32_t(lanes[wg])};
      for (int j = 0; j < 5; ++j) {
        T want = src[j] < p.count ? v[wg * block + p.start + src[j]] : v[i];
        if (!sameBits(got[5 * i + j], want) && bad++ < 8)
          FAIL_CHECK(t << " " << modes[j] << " (block " << block << ", width " << width
                       << ") invocation " << i << " lane " << p.lane << " offset "
                       << off[i] << ": " << show(got[5 * i + j]) << " != " << show(want));
      }
    }
    CHECK(bad == 0);
  }
}

} // namespace

TEST_CASE("wave shuffles and broadcasts read the live lane they name, else their own value") {
  shuffles<int32_t>("i32");
  shuffles<float>("f32");
  shuffles<int64_t>("i64");
  shuffles<double>("f64");
}

TEST_CASE("wave ballots and votes see exactly the live lanes whose predicate holds") {
  std::string text = wave::ballotKernel();
  if (!runsHere(text, "i32", {"wave.ballot", "wave.vote"}))
    return;
  Module m(text);
  for (auto [grid, block] : {std::pair<uint32_t, uint32_t>{5, 75}, {4, 128}}) {
    uint32_t n = grid * block;
    // Workgroup 0: all true, 1: all false, the rest: a different density each.
    std::vector<int32_t> pred(n);
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t wg = i / block;
      int32_t percent = wg == 0 ? 100 : wg == 1 ? 0 : int32_t(20 * wg);
      pred[i] = randomInts<int32_t>(1, 0, 99)[0] < percent ? int32_t(1 + (i & 7)) : 0;
    }
    Buffer out(n * 6 * 4), bpred = Buffer::from(pred);
    run(m.kernel("ballot"), {grid}, {block},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bpred.handle), xpu_arg_u32(n)});
    auto got = out.read<int32_t>();
    // The width: the kernel's own, from where lane 0 of a full wave's ballot
    // of an all-true workgroup ends.
    uint32_t width = 0;
    for (int w = 0; w < 4; ++w)
      width += __builtin_popcount(uint32_t(got[w]));
    REQUIRE(width >= 1);
    size_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t wg = i / block;
      WavePlace p = wavePlace(i % block, block, width);
      uint32_t want[4] = {0, 0, 0, 0};
      bool any = false, all = true;
      for (uint32_t l = 0; l < p.count; ++l) {
        bool on = pred[wg * block + p.start + l] != 0;
        if (on)
          want[l / 32] |= 1u << (l % 32);
        any |= on;
        all &= on;
      }
      for (int w = 0; w < 4; ++w)
        if (uint32_t(got[4 * i + w]) != want[w] && bad++ < 8)
          FAIL_CHECK("ballot word " << w << " of invocation " << i << " (block " << block
                                    << "): " << std::hex << got[4 * i + w] << " != " << want[w]);
      if ((got[4 * n + 2 * i] != int32_t(any) || got[4 * n + 2 * i + 1] != int32_t(all)) &&
          bad++ < 8)
        FAIL_CHECK("any/all of invocation " << i << ": " << got[4 * n + 2 * i] << "/"
                                            << got[4 * n + 2 * i + 1] << " != " << any << "/"
                                            << all);
    }
    CHECK(bad == 0);
  }
}

namespace {

/// The combiners on the host, as the dialect defines them (integers wrap,
/// fmin/fmax are minimum/maximum: NaN wins, -0 < +0).
template <typename T> T combineHost(const std::string &k, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (k == "add")
      return a + b;
    if (k == "mul")
      return a * b;
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
    bool min = k == "fmin";
    if (a == b)
      return (std::signbit(a) == min) ? a : b;
    return (a < b) == min ? a : b;
  } else {
    using U = std::make_unsigned_t<T>;
    U ua = U(a), ub = U(b);
    if (k == "add") return T(U(ua + ub));
    if (k == "mul") return T(U(ua * ub));
    if (k == "smin") return std::min(a, b);
    if (k == "smax") return std::max(a, b);
    if (k == "umin") return T(std::min(ua, ub));
    if (k == "umax") return T(std::max(ua, ub));
    if (k == "and") return T(ua & ub);
    if (k == "or") return T(ua | ub);
    return T(ua ^ ub);
  }
}

template <typename T> T identityHost(const std::string &k) {
  if constexpr (std::is_floating_point_v<T>) {
    if (k == "mul") return 1;
    if (k == "fmin") return std::numeric_limits<T>::infinity();
    if (k == "fmax") return -std::numeric_limits<T>::infinity();
    return 0;
  } else {
    if (k == "mul") return 1;
    if (k == "and" || k == "umin") return T(-1);
    if (k == "smin") return std::numeric_limits<T>::max();
    if (k == "smax") return std::numeric_limits<T>::min();
    return 0;
  }
}

template <typename T> bool sameResult(T got, T want) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(want))
      return std::isnan(got);
  return sameBits(got, want);
}

/// Inputs whose float sums and products are exact in any order (halves to
/// fours of either sign), and for fmin/fmax values with zeros of both
/// signs, infinities and, in one workgroup, a NaN.
template <typename T> void reduceInputs(size_t n, uint32_t block, std::vector<T> &in,
                                        std::vector<T> &special) {
  if constexpr (std::is_floating_point_v<T>) {
    const T choices[] = {0.5, -0.5, 1, -1, 2, -2, 4, -4};
    auto pick = randomInts<int>(n, 0, 7);
    in.resize(n);
    for (size_t i = 0; i < n; ++i)
      in[i] = choices[pick[i]];
    special = randomValues<T>(n);
    const T edge[] = {T(0), -T(0), std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity()};
    for (size_t i = 0; i < n; i += 7)
      special[i] = edge[(i / 7) % 4];
    // Workgroup 1: only zeros, so the sign of zero decides min and max.
    for (size_t i = block; i < 2 * block && i < n; ++i)
      special[i] = (i % 3) ? T(0) : -T(0);
    if (n > 2 * block + 5)
      special[2 * block + 5] = std::numeric_limits<T>::quiet_NaN();
  } else {
    in = randomValues<T>(n);
    // Small values in one workgroup, so products do not vanish at once.
    for (size_t i = 0; i < block && i < n; ++i)
      in[i] = T(randomInts<int>(1, -3, 3)[0]);
    special = in;
  }
}

template <typename T> void reductions(const char *t) {
  const auto &kinds = t[0] == 'f' ? wave::floatKinds() : wave::intKinds();
  std::string text = wave::reduceKernel("reductions", t, kinds);
  std::initializer_list<const char *> caps =
      std::string(t) == "i64" || std::string(t) == "f64"
          ? std::initializer_list<const char *>{"wave.reduce", "wave.reduce.64bit"}
          : std::initializer_list<const char *>{"wave.reduce"};
  if (!runsHere(text, t, caps))
    return;
  Module m(text);
  for (auto [grid, block] : {std::pair<uint32_t, uint32_t>{4, 75}, {3, 64}}) {
    uint32_t n = grid * block;
    std::vector<T> in, special;
    reduceInputs(n, block, in, special);
    size_t outs = 3 * kinds.size();
    Buffer out(n * outs * sizeof(T)), info(n * 2 * 4);
    Buffer bin = Buffer::from(in), bspec = Buffer::from(special);
    run(m.kernel("reductions"), {grid}, {block},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle), xpu_arg_buffer(bspec.handle),
         xpu_arg_buffer(info.handle)});
    uint32_t width = checkedWidth(info.read<int32_t>(), block);
    auto got = out.read<T>();
    size_t bad = 0;
    const char *what[3] = {"reduce", "inclusive scan", "exclusive scan"};
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t wg = i / block;
      WavePlace p = wavePlace(i % block, block, width);
      for (size_t k = 0; k < kinds.size(); ++k) {
        const std::vector<T> &x = kinds[k].special ? special : in;
        const T *wv = &x[wg * block + p.start];
        T all = identityHost<T>(kinds[k].name), before = all;
        for (uint32_t l = 0; l < p.count; ++l) {
          if (l == p.lane)
            before = all;
          all = combineHost(kinds[k].name, all, wv[l]);
        }
        T upto = combineHost(kinds[k].name, before, wv[p.lane]);
        T want[3] = {all, upto, before};
        for (int j = 0; j < 3; ++j) {
          T g = got[outs * i + 3 * k + j];
          if (!sameResult(g, want[j]) && bad++ < 8)
            FAIL_CHECK(t << " " << kinds[k].name << " " << what[j] << " (block " << block
                         << ", width " << width << ") invocation " << i << " lane "
                         << p.lane << ": " << show(g) << " != " << show(want[j]));
        }
      }
    }
    CHECK(bad == 0);
  }
}

} // namespace

TEST_CASE("wave reductions and scans of every combiner match the host in every lane") {
  reductions<int32_t>("i32");
  reductions<float>("f32");
  reductions<int64_t>("i64");
  reductions<double>("f64");
}

namespace {

/// Each workgroup sums its elements of `in` (0 past n): a wave reduction
/// per wave, the waves' partials in shared memory, then wave 0 folds them a
/// wave at a time.
const char *const kWaveBlockSum = R"(
    xpu.kernel @wave_block_sum(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
      %t = xpu.thread_id x
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %size = xpu.workgroup_size x
      %width = xpu.wave_width
      %lane = xpu.lane_id
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %n_idx = arith.index_castui %n : i32 to index
      %inside = arith.cmpi ult, %g, %n_idx : index
      %v = scf.if %inside -> i32 {
        %x = xpu.load %in[%g] : !xpu.buffer<i32, ro>
        scf.yield %x : i32
      } else {
        scf.yield %zero : i32
      }
      %s = xpu.wave_reduce add %v : i32
      %partials = xpu.alloc : !xpu.buffer<1024xi32, shared>
      %wave = arith.divui %t, %width : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        xpu.store %s, %partials[%wave] : !xpu.buffer<1024xi32, shared>
      }
      xpu.barrier
      %waves = arith.ceildivui %size, %width : index
      // Wave 0 decides by lane 0's wave index, the same in every lane of a
      // wave: the wave operations below need wave-uniform control (UC001).
      %wave32 = arith.index_castui %wave : index to i32
      %wave_u = xpu.wave_broadcast %wave32, %zero : i32
      %wave0 = arith.cmpi eq, %wave_u, %zero : i32
      scf.if %wave0 {
        %total = scf.for %c = %c0 to %waves step %width iter_args(%acc = %zero) -> (i32) {
          %j = arith.addi %c, %lane : index
          %has = arith.cmpi ult, %j, %waves : index
          %p = scf.if %has -> i32 {
            %x = xpu.load %partials[%j] : !xpu.buffer<1024xi32, shared>
            scf.yield %x : i32
          } else {
            scf.yield %zero : i32
          }
          %r = xpu.wave_reduce add %p : i32
          %next = arith.addi %acc, %r : i32
          scf.yield %next : i32
        }
        scf.if %first {
          xpu.store %total, %out[%wg] : !xpu.buffer<i32>
        }
      }
      xpu.return
    })";

/// Each workgroup's inclusive prefix sum of `in` (0 past n) into `out`: a
/// wave scan per wave, each wave's total in shared memory, wave 0 turns the
/// totals into exclusive prefixes a wave at a time (carrying the sum so far),
/// and every lane adds its wave's prefix.
const char *const kWaveBlockScan = R"(
    xpu.kernel @wave_block_scan(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
      %t = xpu.thread_id x
      %g = xpu.global_id x
      %size = xpu.workgroup_size x
      %width = xpu.wave_width
      %lane = xpu.lane_id
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %n_idx = arith.index_castui %n : i32 to index
      %inside = arith.cmpi ult, %g, %n_idx : index
      %v = scf.if %inside -> i32 {
        %x = xpu.load %in[%g] : !xpu.buffer<i32, ro>
        scf.yield %x : i32
      } else {
        scf.yield %zero : i32
      }
      %incl = xpu.wave_scan add %v inclusive : i32
      %totals = xpu.alloc : !xpu.buffer<1024xi32, shared>
      %wave = arith.divui %t, %width : index
      %wlast = arith.subi %width, %c1 : index
      %slast = arith.subi %size, %c1 : index
      %is_wlast = arith.cmpi eq, %lane, %wlast : index
      %is_slast = arith.cmpi eq, %t, %slast : index
      %last = arith.ori %is_wlast, %is_slast : i1
      scf.if %last {
        xpu.store %incl, %totals[%wave] : !xpu.buffer<1024xi32, shared>
      }
      xpu.barrier
      %waves = arith.ceildivui %size, %width : index
      // Wave 0 decides by lane 0's wave index, the same in every lane of a
      // wave: the wave operations below need wave-uniform control (UC001).
      %wave32 = arith.index_castui %wave : index to i32
      %wave_u = xpu.wave_broadcast %wave32, %zero : i32
      %wave0 = arith.cmpi eq, %wave_u, %zero : i32
      scf.if %wave0 {
        %done = scf.for %c = %c0 to %waves step %width iter_args(%carry = %zero) -> (i32) {
          %j = arith.addi %c, %lane : index
          %has = arith.cmpi ult, %j, %waves : index
          %x = scf.if %has -> i32 {
            %y = xpu.load %totals[%j] : !xpu.buffer<1024xi32, shared>
            scf.yield %y : i32
          } else {
            scf.yield %zero : i32
          }
          %e = xpu.wave_scan add %x exclusive : i32
          %r = xpu.wave_reduce add %x : i32
          scf.if %has {
            %prefix = arith.addi %e, %carry : i32
            xpu.store %prefix, %totals[%j] : !xpu.buffer<1024xi32, shared>
          }
          %next = arith.addi %carry, %r : i32
          scf.yield %next : i32
        }
      }
      xpu.barrier
      %before = xpu.load %totals[%wave] : !xpu.buffer<1024xi32, shared>
      %result = arith.addi %incl, %before : i32
      scf.if %inside {
        xpu.store %result, %out[%g] : !xpu.buffer<i32>
      }
      xpu.return
    })";

bool runsWaveReductions(const char *text) {
  return runsHere(text, "i32", {"wave.reduce", "wave.ops"});
}

} // namespace

TEST_CASE("a workgroup reduction built from wave reductions") {
  if (!runsWaveReductions(kWaveBlockSum))
    return;
  Module m(kWaveBlockSum);
  for (uint32_t block : {256u, 75u, 1024u}) {
    const uint32_t groups = 37, n = groups * block - 11;
    auto in = randomInts<int32_t>(n, -100000, 100000);
    Buffer out(groups * 4), bin = Buffer::from(in);
    run(m.kernel("wave_block_sum"), {groups}, {block},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(n)});
    auto got = out.read<int32_t>();
    for (uint32_t g = 0; g < groups; ++g) {
      int64_t want = 0;
      for (uint32_t i = g * block; i < std::min(n, (g + 1) * block); ++i)
        want += in[i];
      CHECK_MESSAGE(got[g] == int32_t(want), "block " << block << " workgroup " << g);
    }
  }
}

TEST_CASE("a workgroup prefix scan built from wave scans") {
  if (!runsWaveReductions(kWaveBlockScan))
    return;
  Module m(kWaveBlockScan);
  for (uint32_t block : {256u, 75u, 1024u}) {
    const uint32_t groups = 19, n = groups * block - 7;
    auto in = randomInts<int32_t>(n, -100000, 100000);
    Buffer out(n * 4), bin = Buffer::from(in);
    run(m.kernel("wave_block_scan"), {groups}, {block},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(n)});
    auto got = out.read<int32_t>();
    size_t bad = 0;
    int32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
      sum = (i % block == 0 ? 0 : sum) + in[i];
      if (got[i] != sum && bad++ < 5)
        FAIL_CHECK("block " << block << " element " << i << ": " << got[i] << " != " << sum);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("the builder makes the wave operations the text does, and refuses misuse") {
  xpu_builder b = nullptr;
  XPU_OK(xpu_builder_create(target().ctx, &b));
  XPU_OK(xpu_builder_kernel_begin(b, "wb", nullptr));
  xpu_value out, k, p, i, v, r1, r2, r3, r4, r5, r6, small, bad;
  XPU_OK(xpu_builder_param(b, "out", "!xpu.buffer<f32>", &out));
  XPU_OK(xpu_builder_param(b, "k", "i32", &k));
  XPU_OK(xpu_builder_param(b, "p", "i1", &p));
  XPU_OK(xpu_builder_coordinate(b, XPU_COORD_GLOBAL_ID, 0, &i));
  XPU_OK(xpu_builder_load(b, out, i, 1, &v));
  XPU_OK(xpu_builder_wave_shuffle(b, XPU_WAVE_SHUFFLE_DOWN, v, k, &r1));
  XPU_OK(xpu_builder_wave_broadcast(b, r1, k, &r2));
  XPU_OK(xpu_builder_wave_reduce(b, XPU_REDUCE_FMAX, r2, &r3));
  XPU_OK(xpu_builder_wave_scan(b, XPU_REDUCE_ADD, r3, XPU_WAVE_SCAN_INCLUSIVE, &r4));
  XPU_OK(xpu_builder_wave_ballot(b, p, &r5));
  XPU_OK(xpu_builder_wave_vote(b, XPU_WAVE_ALL, p, &r6));
  // Misuse: an i16 value, an offset that is not i32, a combiner that does not
  // apply, a predicate that is not i1; nothing is added.
  XPU_OK(xpu_builder_constant_int(b, "i16", 3, &small));
  CHECK(xpu_builder_wave_shuffle(b, XPU_WAVE_SHUFFLE_XOR, small, k, &bad) ==
        XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_builder_wave_shuffle(b, XPU_WAVE_SHUFFLE_XOR, v, i, &bad) ==
        XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_builder_wave_reduce(b, XPU_REDUCE_SMIN, v, &bad) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(xpu_last_error_message()).find("'smin' does not apply") !=
        std::string::npos);
  CHECK(xpu_builder_wave_ballot(b, k, &bad) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_builder_wave_vote(b, xpu_wave_vote(7), p, &bad) == XPU_ERROR_INVALID_ARGUMENT);
  XPU_OK(xpu_builder_store(b, r4, out, i));
  XPU_OK(xpu_builder_return(b, nullptr, 0));
  const char *built = nullptr;
  XPU_OK(xpu_builder_print(b, &built));
  std::string text = R"(
    xpu.kernel @wb(%out: !xpu.buffer<f32>, %k: i32, %p: i1) {
      %i = xpu.global_id x
      %v = xpu.load %out[%i] : !xpu.buffer<f32>
      %r1 = xpu.wave_shuffle down %v, %k : f32
      %r2 = xpu.wave_broadcast %r1, %k : f32
      %r3 = xpu.wave_reduce fmax %r2 : f32
      %r4 = xpu.wave_scan add %r3 inclusive : f32
      %r5 = xpu.wave_ballot %p : vector<4xi32>
      %r6 = xpu.wave_vote all %p
      %small = arith.constant 3 : i16
      xpu.store %r4, %out[%i] : !xpu.buffer<f32>
      xpu.return
    })";
  const char *formatted = nullptr;
  XPU_OK(xpu_module_format(target().ctx, text.data(), text.size(), nullptr, &formatted, nullptr));
  CHECK(std::string(built) == std::string(formatted));
  xpu_builder_release(b);
}

TEST_CASE("deterministic-v1: integer wave reductions admitted; float ones, shuffles and ballots refused") {
  auto check = [](const std::string &body, const char *code) {
    std::string text = "xpu.kernel @k(%out: !xpu.buffer<1024xi32>) attributes {profile = "
                       "\"deterministic-v1\", workgroup_size = array<i64: 64>, grid_size = "
                       "array<i64: 16>} {\n  %t = xpu.global_id x\n" + body +
                       "  xpu.return\n}\n";
    xpu_diagnostics diags = nullptr;
    xpu_status st = xpu_module_check(target().ctx, text.data(), text.size(), nullptr, &diags);
    std::string said = xpu_diagnostics_text(diags);
    xpu_diagnostics_release(diags);
    INFO(text << said);
    if (!code) {
      CHECK(st == XPU_SUCCESS);
    } else {
      CHECK(st == XPU_ERROR_REFUSED);
      CHECK(said.find(code) != std::string::npos);
    }
  };
  const std::string value = "  %v = arith.index_cast %t : index to i32\n";
  const std::string store = "  xpu.store %r, %out[%t] : !xpu.buffer<1024xi32>\n";
  check(value + "  %r = xpu.wave_reduce add %v : i32\n" + store, nullptr);
  check(value + "  %r = xpu.wave_scan xor %v exclusive : i32\n" + store, nullptr);
  check(value + "  %f = arith.sitofp %v : i32 to f32\n  %r = xpu.wave_reduce add %f : f32\n",
        "XPU-GC010");
  check(value + "  %r = xpu.wave_shuffle xor %v, %v : i32\n" + store, "XPU-GC012");
  check("  %p = arith.constant true\n  %r = xpu.wave_ballot %p : vector<4xi32>\n",
        "XPU-GC012");
}

TEST_SUITE_END();
