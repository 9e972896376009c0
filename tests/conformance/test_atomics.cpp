// Conformance: compare-exchange, exchange and float min/max atomics on
// global and shared memory, for 32- and 64-bit integers and floats, on
// fresh random data with every element checked; and a histogram built from
// compare-exchange on shared memory.
#include "atomic_kernels.h"
#include "surface.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <type_traits>

using namespace conf;

TEST_SUITE_BEGIN("surface");

namespace {

template <typename T> bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// Whether this device runs 64-bit atomics (and so i64/f64 kernels).
bool wideAtomics() {
  return capabilityAvailable("atomic.i64") && capabilityAvailable("i64.arith");
}

/// `text` must be refused by the Vulkan backend naming shared memory.
void expectSharedRefusal(const std::string &text) {
  xpu_module m = nullptr;
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                                    nullptr, &m, nullptr);
  std::string why = xpu_last_error_message();
  xpu_module_release(m);
  INFO(why);
  CHECK(st == XPU_ERROR_REFUSED);
  CHECK(why.find("XPU-CAP001") != std::string::npos);
  CHECK(why.find("shared memory") != std::string::npos);
}

/// Values whose sums are exact in any order: small integers (as floats too).
template <typename T> std::vector<T> smallValues(size_t n) {
  auto v = randomInts<int>(n, -50, 50);
  return std::vector<T>(v.begin(), v.end());
}

template <typename T> void compareExchange(const char *t) {
  bool wide = sizeof(T) == 8;
  if (wide && !wideAtomics()) {
    MESSAGE("SKIP: " << target().name << " has no 64-bit atomics");
    return;
  }
  bool vulkan = target().backend == XPU_BACKEND_VULKAN;
  bool sharedHere = !(vulkan && std::is_floating_point_v<T>);
  // lavapipe loses compare-exchanges that release (vulkan_codegen.cpp): it
  // must refuse them, and runs the relaxed ones.
  bool lavapipe = std::string(target().name).find("llvmpipe") != std::string::npos;
  if (!sharedHere)
    expectSharedRefusal(atomics::casKernel("cas", t, true, lavapipe ? "relaxed" : "acq_rel"));
  const char *order = "acq_rel";
  if (lavapipe) {
    std::string text = atomics::casKernel("cas", t, false, "acq_rel");
    xpu_module refused = nullptr;
    CHECK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(), nullptr,
                            &refused, nullptr) == XPU_ERROR_REFUSED);
    CHECK(std::string(xpu_last_error_message()).find("vulkan.lavapipe-cas-release") !=
          std::string::npos);
    xpu_module_release(refused);
    order = "relaxed";
  }
  Module m(atomics::casKernel("cas", t, sharedHere, order));
  const uint32_t groups = 20, block = 128, n = groups * block, slots = 37;
  auto in = smallValues<T>(n);
  auto acc0 = smallValues<T>(slots);
  auto shared0 = smallValues<T>(64);
  Buffer acc = Buffer::from(acc0), sh = Buffer::from(shared0), bin = Buffer::from(in);
  run(m.kernel("cas"), {groups}, {block},
      {xpu_arg_buffer(acc.handle), xpu_arg_buffer(sh.handle), xpu_arg_buffer(bin.handle),
       xpu_arg_u32(slots)});
  std::vector<T> want = acc0, wantShared = shared0;
  for (uint32_t i = 0; i < n; ++i)
    want[i % slots] += in[i];
  for (uint32_t i = 0; i < block; ++i)
    wantShared[i % 64] += in[i];
  auto got = acc.read<T>(), gotShared = sh.read<T>();
  for (uint32_t s = 0; s < slots; ++s)
    CHECK_MESSAGE(sameBits(got[s], want[s]), t << " global slot " << s << ": " << got[s]
                                               << " != " << want[s]);
  if (sharedHere)
    for (uint32_t s = 0; s < 64; ++s)
      CHECK_MESSAGE(sameBits(gotShared[s], wantShared[s]),
                    t << " shared slot " << s << ": " << gotShared[s] << " != " << wantShared[s]);
}

/// Each slot's exchanges form a chain: the values returned plus the final
/// one are the initial value plus the values exchanged in, exactly once each.
template <typename T> void checkChains(const char *what, const std::vector<T> &initial,
                                       const std::vector<T> &in, const std::vector<T> &old,
                                       const std::vector<T> &final, uint32_t count, uint32_t m) {
  for (uint32_t s = 0; s < m; ++s) {
    std::vector<T> put = {initial[s]}, got = {final[s]};
    for (uint32_t i = s; i < count; i += m) {
      put.push_back(in[i]);
      got.push_back(old[i]);
    }
    std::sort(put.begin(), put.end());
    std::sort(got.begin(), got.end());
    CHECK_MESSAGE(put == got, what << " slot " << s << ": the values returned and left are not "
                                      "those put in");
  }
}

template <typename T> void exchange(const char *t) {
  if (sizeof(T) == 8 && !wideAtomics()) {
    MESSAGE("SKIP: " << target().name << " has no 64-bit atomics");
    return;
  }
  std::string text = atomics::xchgKernel("xchg", t);
  if (std::is_floating_point_v<T> && target().backend == XPU_BACKEND_VULKAN) {
    // Vulkan exchanges floats only with the float-atomics features.
    xpu_module probe = nullptr;
    xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                                      nullptr, &probe, nullptr);
    std::string why = xpu_last_error_message();
    xpu_module_release(probe);
    if (st != XPU_SUCCESS) {
      CHECK(st == XPU_ERROR_REFUSED);
      CHECK(why.find("Float") != std::string::npos);
      MESSAGE("SKIP: " << why);
      return;
    }
  }
  Module m(text);
  const uint32_t groups = 12, block = 64, n = groups * block, slots = 29;
  // Distinct values, so a chain is checked exactly.
  std::vector<T> in(n), slot0(slots), shared0(16);
  auto keys = randomInts<int>(n + slots + 16, 0, 1 << 12);
  for (size_t k = 0; k < keys.size(); ++k) {
    T v = T(keys[k] * int(keys.size()) + int(k));
    (k < n ? in[k] : k < n + slots ? slot0[k - n] : shared0[k - n - slots]) = v;
  }
  Buffer slot = Buffer::from(slot0), old(n * sizeof(T)), slotShared = Buffer::from(shared0),
         oldShared(n * sizeof(T)), bin = Buffer::from(in);
  run(m.kernel("xchg"), {groups}, {block},
      {xpu_arg_buffer(slot.handle), xpu_arg_buffer(old.handle), xpu_arg_buffer(slotShared.handle),
       xpu_arg_buffer(oldShared.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(slots)});
  checkChains<T>("global", slot0, in, old.read<T>(), slot.read<T>(), n, slots);
  checkChains<T>("shared", shared0, in, oldShared.read<T>(), slotShared.read<T>(), block, 16);
}

/// minimum / maximum as the dialect defines them: NaN wins, -0 < +0.
template <typename T> T minimumHost(T a, T b, bool min) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) == min ? a : b;
  return (a < b) == min ? a : b;
}

template <typename T> bool sameResult(T got, T want) {
  return std::isnan(want) ? std::isnan(got) : sameBits(got, want);
}

template <typename T> void minMax(const char *t) {
  if (sizeof(T) == 8 && !wideAtomics()) {
    MESSAGE("SKIP: " << target().name << " has no 64-bit atomics");
    return;
  }
  bool sharedHere = target().backend != XPU_BACKEND_VULKAN;
  if (!sharedHere)
    expectSharedRefusal(atomics::minMaxKernel("minmax", t, true));
  Module m(atomics::minMaxKernel("minmax", t, sharedHere));
  const uint32_t groups = 16, block = 64, n = groups * block, slots = 41;
  std::uniform_real_distribution<T> d(-100, 100);
  std::vector<T> in(n), lo0(slots + 32), hi0(slots);
  for (auto &x : in)
    x = d(rng());
  for (auto &x : lo0)
    x = d(rng());
  for (auto &x : hi0)
    x = d(rng());
  // Slot 0: only zeros of both signs, so the order of zeros decides; slot
  // 1: a NaN among them.
  for (uint32_t i = 0; i < n; i += slots)
    in[i] = (i / slots) % 2 ? T(0) : -T(0);
  lo0[0] = hi0[0] = T(0);
  in[1 + 3 * slots] = std::numeric_limits<T>::quiet_NaN();
  Buffer lo = Buffer::from(lo0), hi = Buffer::from(hi0), bin = Buffer::from(in);
  run(m.kernel("minmax"), {groups}, {block},
      {xpu_arg_buffer(lo.handle), xpu_arg_buffer(hi.handle), xpu_arg_buffer(bin.handle),
       xpu_arg_u32(slots)});
  std::vector<T> wantLo = lo0, wantHi = hi0;
  for (uint32_t i = 0; i < n; ++i) {
    wantLo[i % slots] = minimumHost(wantLo[i % slots], in[i], true);
    wantHi[i % slots] = minimumHost(wantHi[i % slots], in[i], false);
  }
  if (sharedHere) {
    // Workgroup 0's fmin into a shared copy of in[0 .. 31], stored after the slots.
    for (uint32_t k = 0; k < 32; ++k)
      wantLo[slots + k] = in[k];
    for (uint32_t i = 0; i < block; ++i)
      wantLo[slots + i % 32] = minimumHost(wantLo[slots + i % 32], in[i], true);
  }
  auto gotLo = lo.read<T>(), gotHi = hi.read<T>();
  for (uint32_t s = 0; s < slots + (sharedHere ? 32 : 0); ++s)
    CHECK_MESSAGE(sameResult(gotLo[s], wantLo[s]),
                  t << " fmin slot " << s << ": " << gotLo[s] << " != " << wantLo[s]);
  for (uint32_t s = 0; s < slots; ++s)
    CHECK_MESSAGE(sameResult(gotHi[s], wantHi[s]),
                  t << " fmax slot " << s << ": " << gotHi[s] << " != " << wantHi[s]);
}

} // namespace

TEST_CASE("compare-exchange loops add exactly, on global and shared memory") {
  compareExchange<int32_t>("i32");
  compareExchange<int64_t>("i64");
  compareExchange<float>("f32");
  compareExchange<double>("f64");
}

TEST_CASE("exchanges hand every value on exactly once, on global and shared memory") {
  exchange<int32_t>("i32");
  exchange<int64_t>("i64");
  exchange<float>("f32");
  exchange<double>("f64");
}

TEST_CASE("float atomic min and max follow minimum/maximum, on global and shared memory") {
  minMax<float>("f32");
  minMax<double>("f64");
}

namespace {

/// Each workgroup counts its values of `in` (mod 256) into 256 shared bins
/// with compare-exchange loops, then adds its bins to the global histogram.
const char *const kSharedHistogram = R"(
    xpu.kernel @histogram(%hist: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32)
        attributes {workgroup_size = array<i64: 256>} {
      %g = xpu.global_id x
      %t = xpu.thread_id x
      %c255 = arith.constant 255 : i32
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %bins = xpu.alloc : !xpu.buffer<256xi32, shared>
      xpu.store %zero, %bins[%t] : !xpu.buffer<256xi32, shared>
      xpu.barrier
      %n_idx = arith.index_castui %n : i32 to index
      %inside = arith.cmpi ult, %g, %n_idx : index
      scf.if %inside {
        %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
        %b32 = arith.andi %v, %c255 : i32
        %b = arith.index_castui %b32 : i32 to index
        %guess = xpu.load %bins[%b] : !xpu.buffer<256xi32, shared>
        %done = scf.while (%old = %guess) : (i32) -> i32 {
          %new = arith.addi %old, %one : i32
          %seen = xpu.atomic_rmw cmpxchg %new, %bins[%b] expected %old relaxed workgroup
                    : !xpu.buffer<256xi32, shared>
          %again = arith.cmpi ne, %seen, %old : i32
          scf.condition(%again) %seen : i32
        } do {
        ^bb0(%s: i32):
          scf.yield %s : i32
        }
      }
      xpu.barrier
      %count = xpu.load %bins[%t] : !xpu.buffer<256xi32, shared>
      %prev = xpu.atomic_rmw add %count, %hist[%t] relaxed device : !xpu.buffer<i32>
      xpu.return
    })";

} // namespace

TEST_CASE("a histogram with compare-exchange on shared memory") {
  Module m(kSharedHistogram);
  const uint32_t n = 256 * 97 - 13;
  auto in = randomInts<int32_t>(n, INT32_MIN, INT32_MAX);
  // Crowd some bins, so many invocations contend for one.
  for (uint32_t i = 0; i < n; i += 3)
    in[i] = int32_t(i % 4);
  std::vector<int32_t> zero(256, 0);
  Buffer hist = Buffer::from(zero), bin = Buffer::from(in);
  run(m.kernel("histogram"), {(n + 255) / 256}, {256},
      {xpu_arg_buffer(hist.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(n)});
  std::vector<int32_t> want(256, 0);
  for (int32_t v : in)
    ++want[uint32_t(v) & 255];
  auto got = hist.read<int32_t>();
  for (int b = 0; b < 256; ++b)
    CHECK_MESSAGE(got[b] == want[b], "bin " << b);
}

TEST_CASE("deterministic-v1 refuses compare-exchange: its outcome depends on the schedule") {
  std::string text = R"(
    xpu.kernel @k(%out: !xpu.buffer<64xi32>) attributes {profile = "deterministic-v1",
        workgroup_size = array<i64: 64>, grid_size = array<i64: 1>} {
      %t = xpu.global_id x
      %v = arith.index_cast %t : index to i32
      %zero = arith.constant 0 : i32
      %r = xpu.atomic_rmw cmpxchg %v, %out[%t] expected %zero seq_cst device : !xpu.buffer<64xi32>
      xpu.return
    })";
  checkSays(text, XPU_ERROR_REFUSED, "XPU-GC009");
}

TEST_SUITE_END();
