// Conformance: tiles and mac (issue 15) on fresh random data, every element
// checked against a host reference: a tiled GEMM for each element type, row-
// and column-major operands, the accumulator epilogue ops, bounds checks,
// the uniformity refusal, and the [mma-tiering] note naming each kernel's
// tier and why faster tiers were not taken.
//
// Tolerances (per element type, against a float64 host reference computed
// from the exact operand values):
//   f16, bf16 and f32 operands, f32 accumulator: |c - ref| <= K * 2^-23 *
//     sum_k |a_ik b_kj| (K roundings of at most half an f32 ulp each, as for
//     any order of f32 sums; products of f16/bf16 are exact in f32);
//   f64: the same with 2^-52;
//   i8 operands, i32 accumulator: exact. Being exact against one reference,
//     the integer results are bit-identical on every backend.
#include "surface.h"

#include "../../bench/gemm/gemm_kernel.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstring>

using namespace conf;

TEST_SUITE_BEGIN("tiles");

namespace {

using Gemm = gemm::Kernel;
using gemm::fromBf16;
using gemm::fromHalf;
using gemm::toBf16;
using gemm::toHalf;

/// The module's diagnostics as text (notes included), and the module.
std::string compileNotes(const std::string &text, xpu_module &m, xpu_status &st) {
  xpu_diagnostics diags = nullptr;
  st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(), nullptr, &m,
                         &diags);
  std::string said = xpu_diagnostics_text(diags);
  xpu_diagnostics_release(diags);
  return said;
}

/// The one [mma-tiering] note about kernel `name` in `said`.
std::string tierNote(const std::string &said, const std::string &name);

/// The note about @gemm when `text` compiles (it must).
std::string gemmNote(const std::string &text) {
  xpu_status st;
  std::string said = diagnosticsOf(text, st);
  INFO(said);
  REQUIRE(st == XPU_SUCCESS);
  return tierNote(said, "gemm");
}

std::string tierNote(const std::string &said, const std::string &name) {
  std::string key = "[mma-tiering] kernel '" + name + "': ";
  size_t at = said.find(key);
  REQUIRE_MESSAGE(at != std::string::npos, "no tiering note in: " << said);
  CHECK_MESSAGE(said.find(key, at + 1) == std::string::npos, "two notes: " << said);
  size_t end = said.find('\n', at);
  return said.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
}

/// Runs `g` on m x n x k with operands from `a` and `b` (raw element bits
/// of the operand type) and returns C's bytes.
template <typename Elem, typename Out>
std::vector<Out> runGemm(const Gemm &g, int m, int n, int k, const std::vector<Elem> &a,
                         const std::vector<Elem> &b, std::string *notes = nullptr) {
  xpu_module mod = nullptr;
  xpu_status st;
  std::string said = compileNotes(g.text(), mod, st);
  INFO(g.text() << "\n" << said << "\n" << xpu_last_error_message());
  REQUIRE(st == XPU_SUCCESS);
  if (notes)
    *notes = said;
  xpu_kernel kernel = nullptr;
  XPU_OK(xpu_module_kernel(mod, "gemm", &kernel));
  Buffer ba = Buffer::from(a), bb = Buffer::from(b);
  // Poisoned output: every element must be written.
  std::vector<Out> poison(size_t(g.cShift) + size_t(m) * n);
  std::memset(poison.data(), 0x7f, poison.size() * sizeof(Out));
  Buffer bc = Buffer::from(poison);
  run(kernel, {uint32_t(n / g.tn), uint32_t(m / g.tm)}, {uint32_t(g.threads)},
      {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle), xpu_arg_buffer(bc.handle),
       xpu_arg_i32(m), xpu_arg_i32(n), xpu_arg_i32(k)});
  std::vector<Out> out = bc.read<Out>();
  xpu_module_release(mod);
  out.erase(out.begin(), out.begin() + g.cShift); // C starts after the shift
  return out;
}

/// A's element (i, kk) in the layout `g` reads (after its shift).
size_t aIndex(const Gemm &g, int m, int k, int i, int kk) {
  return g.aShift + (g.aColMajor ? size_t(kk) * m + i : size_t(i) * k + kk);
}

/// B's element (kk, j) in the layout `g` reads.
size_t bIndex(const Gemm &g, int n, int k, int kk, int j) {
  return g.bColMajor ? size_t(j) * k + kk : size_t(kk) * n + j;
}

/// How many elements of the row-major m x n `c` differ from factor · A·B
/// (A's element (i, kk) is a(i, kk), B's (kk, j) is b(kk, j)) by more than
/// K·unit·factor·Σ|ab| (plus one rounding of the epilogue when factor is
/// not 1); the first few are reported.
size_t wrongElements(int m, int n, int k, const std::function<double(int, int)> &a,
                     const std::function<double(int, int)> &b, const std::vector<float> &c,
                     double unit, double factor = 1) {
  size_t bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int kk = 0; kk < k; ++kk) {
        double p = a(i, kk) * b(kk, j);
        ref += p;
        mag += std::fabs(p);
      }
      double got = c[size_t(i) * n + j];
      ref *= factor;
      mag *= factor;
      double bound = k * unit * mag + (factor == 1 ? 0 : unit * mag);
      if (!(std::fabs(got - ref) <= bound + 1e-30) && bad++ < 5)
        MESSAGE("C[" << i << "][" << j << "] = " << got << ", expected " << ref);
    }
  return bad;
}

/// A float GEMM: operands drawn as floats, stored through `encode`, the
/// reference from `decode` of the stored bits; every element within the
/// stated bound. An epilogue that multiplies the sums by `factor` (exactly
/// representable) adds one rounding of the result.
template <typename Elem>
void checkFloatGemm(const Gemm &g, int m, int n, int k, Elem (*encode)(float),
                    float (*decode)(Elem), double unit, double factor = 1) {
  std::vector<float> fa = randomFloats(size_t(m) * k), fb = randomFloats(size_t(k) * n);
  // A starts after g.aShift elements (of which the kernel reads none).
  std::vector<Elem> a(g.aShift + fa.size(), encode(0.0f)), b(fb.size());
  for (size_t i = 0; i < fa.size(); ++i)
    a[g.aShift + i] = encode(fa[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = encode(fb[i]);
  std::vector<float> c = runGemm<Elem, float>(g, m, n, k, a, b);
  CHECK(wrongElements(
            m, n, k, [&](int i, int kk) { return double(decode(a[aIndex(g, m, k, i, kk)])); },
            [&](int kk, int j) { return double(decode(b[bIndex(g, n, k, kk, j)])); }, c, unit,
            factor) == 0);
}

/// The evidence behind capability `name`.
std::string capabilityEvidence(const char *name) { return capability(name).evidence; }

/// Whether XPU_TILE_TIERS_OFF names `tier`.
bool tierTurnedOff(const char *tier) {
  const char *env = std::getenv("XPU_TILE_TIERS_OFF");
  return (std::string(",") + (env ? env : "") + ",").find(std::string(",") + tier + ",") !=
         std::string::npos;
}

/// The tier an f16 or bf16 GEMM must take on CUDA: wgmma where the device
/// has it, the tier is not turned off (XPU_TILE_TIERS_OFF) and the kernel
/// fits it (whole warpgroups, 64x16x16 steps, at most 256 columns per
/// warpgroup); else mma.sync (whole warps, 16x8x16 steps); "" when neither.
std::string nvidiaTier(const Gemm &g) {
  bool wgmmaOff = tierTurnedOff("wgmma");
  int groups = g.threads / 128;
  bool grid = false;
  for (int used = groups; used >= 1 && !grid; --used)
    for (int wn = 1; wn <= used && !grid; ++wn)
      grid = used % wn == 0 && g.tm % (64 * (used / wn)) == 0 && g.tn % (16 * wn) == 0 &&
             g.tn / wn <= 256;
  if (capabilityAvailable("tile.wgmma") && !wgmmaOff && g.threads % 128 == 0 &&
      g.tk % 16 == 0 && grid)
    return "wgmma";
  if (capabilityAvailable("tile.mma-sync") && g.threads % 32 == 0 && g.tm % 16 == 0 &&
      g.tn % 8 == 0 && g.tk % 16 == 0)
    return "mma.sync";
  return "";
}

/// The tier emulated on the CPU (XPU_TILE_EMULATE), or "".
std::string emulatedTier() {
  const char *env = std::getenv("XPU_TILE_EMULATE");
  return env && target().backend == XPU_BACKEND_CPU ? env : "";
}

/// Whether an f16 GEMM fits the workgroup-scope cooperative-matrix tier
/// (tile_tiering.cpp): 32x32 blocks of C, 16-deep steps, sides up to 256,
/// 1, 2, 4 or 8 subgroups of 32.
bool fitsWorkgroupMatrices(const Gemm &g) {
  int groups = g.threads / 32;
  return g.ta == "f16" && g.tc == "f32" && g.threads % 32 == 0 && g.tm % 32 == 0 &&
         g.tn % 32 == 0 && g.tk % 16 == 0 && g.tm <= 256 && g.tn <= 256 && g.tk <= 256 &&
         groups <= 8 && (groups & (groups - 1)) == 0;
}

/// Whether XPU_TILE_TIERS_OFF names `tier`.
bool tierOff(const std::string &tier) {
  const char *env = std::getenv("XPU_TILE_TIERS_OFF");
  return env && ("," + std::string(env) + ",").find("," + tier + ",") != std::string::npos;
}

/// The cooperative-matrix tier an f16 GEMM must take on a Vulkan device:
/// the workgroup-scope one where its fact permits and the kernel fits it
/// (its operands, in slices of K where both are row-major, and with an
/// epilogue its sums, in the shared memory the fact's limit leaves;
/// tile_tiering.cpp puts it first), else the subgroup one where its fact
/// permits; "" where neither applies.
std::string vulkanCoopTier(const Gemm &g) {
  if (target().backend != XPU_BACKEND_VULKAN || g.ta != "f16" || g.tc != "f32" ||
      g.threads % 32 || g.tm % 16 || g.tn % 16 || g.tk % 16)
    return "";
  int k = g.aColMajor || g.bColMajor ? g.tk : g.tk % 32 ? 16 : 32;
  uint64_t shared = uint64_t(g.tm * (k + 8) + k * (g.tn + 8)) * 2 +
                    uint64_t(std::max(g.tm, g.tn)) * 4 +
                    (g.epilogue.empty() ? 0 : uint64_t(g.tm * g.tn) * 4);
  if (!tierOff("cooperative-matrix-workgroup") &&
      capabilityAvailable("tile.cooperative-matrix-workgroup") && fitsWorkgroupMatrices(g) &&
      shared <= capabilityLimit("tile.cooperative-matrix-workgroup"))
    return "cooperative-matrix-workgroup";
  if (!tierOff("cooperative-matrix") && capabilityAvailable("tile.cooperative-matrix"))
    return "cooperative-matrix";
  return "";
}

/// The tier an f16 or bf16 GEMM must take on the CPU under XPU_TILE_EMULATE:
/// the emulated one when the kernel is made of 16x16x16 steps in whole
/// waves (64 for mfma, 32 for wmma) that all hold sums, or (cooperative
/// matrices) of f16 16x16x16 steps in whole subgroups of 32; "" otherwise.
std::string emulatedTierOf(const Gemm &g) {
  std::string tier = emulatedTier();
  if (tier.empty())
    return "";
  if (tier == "cooperative-matrix-workgroup") // emulated: 2^19 sums in all (tile_tiering.cpp)
    return fitsWorkgroupMatrices(g) && g.tm * g.tn * g.threads <= (1 << 19) ? tier : "";
  if (tier == "cooperative-matrix") // f16 only; subgroups need not all hold sums
    return g.ta == "f16" && g.threads % 32 == 0 && g.tm % 16 == 0 && g.tn % 16 == 0 &&
                   g.tk % 16 == 0
               ? tier
               : "";
  int wave = tier == "mfma" ? 64 : 32, waves = g.threads / wave;
  bool everyWave = false;
  for (int wm = 1; wm <= waves && !everyWave; ++wm)
    everyWave = waves % wm == 0 && g.tm % (16 * wm) == 0 && g.tn % (16 * (waves / wm)) == 0;
  bool fits = (g.ta == "f16" || g.ta == "bf16") && g.threads % wave == 0 && g.tm % 16 == 0 &&
              g.tn % 16 == 0 && g.tk % 16 == 0 && everyWave;
  return fits ? tier : "";
}

/// Kernel `k` of `text` (f16 operands, tm x tn sums, 16-deep steps, on
/// `threads` invocations) must take the workgroup-scope cooperative-matrix
/// tier where it is emulated or the device has it and the kernel fits:
/// the edge tests then run that tier's element-wise stores.
void checkWorkgroupTierWhereFits(const std::string &text, int tm, int tn, int threads) {
  Gemm g;
  g.ta = "f16";
  g.tm = tm;
  g.tn = tn;
  g.tk = 16;
  g.threads = threads;
  std::string want = emulatedTier().empty() ? vulkanCoopTier(g) : emulatedTierOf(g);
  if (want != "cooperative-matrix-workgroup")
    return;
  xpu_status st;
  std::string note = tierNote(diagnosticsOf(text, st), "k");
  CHECK(note.rfind(want + " (", 0) == 0);
}

/// Whether the device refuses `text` for its shared memory limit
/// (XPU-CAP001): a skip, said so, where the software tile keeps large sums
/// in shared memory.
bool refusedForSharedMemory(const std::string &text) {
  xpu_status st;
  std::string said = diagnosticsOf(text, st);
  if (st != XPU_ERROR_REFUSED || said.find("XPU-CAP001") == std::string::npos ||
      said.find("shared memory") == std::string::npos)
    return false;
  MESSAGE("SKIP on " << target().name << ": " << said);
  return true;
}

float same(float f) { return f; }
float keep(float f) { return f; }

bool runsHere(const std::string &text, std::initializer_list<const char *> caps) {
  for (const char *c : caps)
    if (!capabilityAvailable(c)) {
      xpu_status st;
      std::string said = diagnosticsOf(text, st);
      INFO(said);
      CHECK(st == XPU_ERROR_REFUSED);
      MESSAGE("SKIP: " << target().name << " has no " << std::string(c) << " (refused: " << said << ")");
      return false;
    }
  return true;
}

} // namespace

TEST_CASE("an f32 tile GEMM matches the host reference, B row- and column-major") {
  for (bool colMajor : {false, true}) {
    Gemm g;
    g.bColMajor = colMajor;
    INFO("B column-major: " << colMajor);
    checkFloatGemm<float>(g, 32, 48, 64, same, keep, std::ldexp(1.0, -23));
  }
}

TEST_CASE("the benchmark's grouped block order computes every block once") {
  // Five block rows in groups of two (the last group has one row), seven
  // block columns: each block is computed by exactly one workgroup.
  Gemm g;
  g.group = 2;
  checkFloatGemm<float>(g, 5 * g.tm, 7 * g.tn, 32, same, keep, std::ldexp(1.0, -23));
}

TEST_CASE("f16 and bf16 tiles accumulate in f32") {
  Gemm g;
  g.ta = "f16";
  g.tm = 32;
  g.tn = 16;
  g.tk = 8;
  g.threads = 64;
  if (runsHere(g.text(), {"f16.storage"}))
    checkFloatGemm<uint16_t>(g, 64, 32, 40, toHalf, fromHalf, std::ldexp(1.0, -23));
  g.ta = "bf16";
  if (runsHere(g.text(), {"bf16.storage"}))
    checkFloatGemm<uint16_t>(g, 64, 32, 40, toBf16, fromBf16, std::ldexp(1.0, -23));
}

TEST_CASE("f16 and bf16 tiles in warp-sized steps: the mma.sync tier where there is one") {
  Gemm g;
  g.tm = 32;
  g.tn = 32;
  g.tk = 16;
  g.threads = 64;
  for (const char *t : {"f16", "bf16"}) {
    g.ta = t;
    INFO(t);
    if (!runsHere(g.text(), {std::string(t) == "f16" ? "f16.storage" : "bf16.storage"}))
      continue;
    if (g.ta == "f16")
      checkFloatGemm<uint16_t>(g, 64, 96, 48, toHalf, fromHalf, std::ldexp(1.0, -23));
    else
      checkFloatGemm<uint16_t>(g, 64, 96, 48, toBf16, fromBf16, std::ldexp(1.0, -23));
    std::string note = gemmNote(g.text());
    MESSAGE(std::string(t) << " tier: " << note);
    if (target().backend == XPU_BACKEND_CUDA && !nvidiaTier(g).empty())
      CHECK(note.rfind(nvidiaTier(g) + " (", 0) == 0);
    if (!emulatedTierOf(g).empty())
      CHECK(note.rfind(emulatedTierOf(g) + " (", 0) == 0);
    if (!vulkanCoopTier(g).empty())
      CHECK(note.rfind(vulkanCoopTier(g) + " (", 0) == 0);
  }
}

namespace {

/// An f16/bf16 GEMM shape of the tensor-core tests: block, invocations,
/// layouts, the epilogue (sums scaled by 2 and added to themselves),
/// shifts of A and C, and the problem size.
struct HalfGemm {
  int tm, tn, tk, threads;
  bool aColMajor, bColMajor, epilogue;
  int aShift, cShift;
  int m, n, k;
};

/// Runs `v` with f16 and with bf16 operands, checking every element; on
/// CUDA, also the tier it must take (nvidiaTier). Elsewhere it takes the
/// tier it fits; the software tile keeps the sums in shared memory, so a
/// refusal for the device's shared memory limit is a skip there.
void checkHalfGemm(const HalfGemm &v) {
  for (const char *t : {"f16", "bf16"}) {
    Gemm g;
    g.ta = t;
    g.tm = v.tm;
    g.tn = v.tn;
    g.tk = v.tk;
    g.threads = v.threads;
    g.aColMajor = v.aColMajor;
    g.bColMajor = v.bColMajor;
    g.aShift = v.aShift;
    g.cShift = v.cShift;
    std::string acc = Gemm::tile(v.tm, v.tn, "f32");
    if (v.epilogue)
      g.epilogue = "  %two = arith.constant 2.0 : f32\n"
                   "  %s = xpu.tile_scale %acc, %two : " + acc + "\n"
                   "  %outTile = xpu.tile_add %s, %acc : " + acc + "\n";
    INFO(std::string(t) << " " << v.tm << "x" << v.tn << "x" << v.tk << " tiles, " << v.threads
           << " invocations, A/B column-major " << v.aColMajor << "/" << v.bColMajor
           << ", shifts " << v.aShift << "/" << v.cShift);
    if (!runsHere(g.text(), {std::string(t) == "f16" ? "f16.storage" : "bf16.storage"}))
      continue;
    bool tensorTier = target().backend == XPU_BACKEND_CUDA && !nvidiaTier(g).empty();
    if (!tensorTier && refusedForSharedMemory(g.text()))
      continue;
    bool half = std::string(t) == "f16";
    checkFloatGemm<uint16_t>(g, v.m, v.n, v.k, half ? toHalf : toBf16,
                             half ? fromHalf : fromBf16, std::ldexp(1.0, -23),
                             v.epilogue ? 3 : 1);
    std::string note = gemmNote(g.text());
    MESSAGE(std::string(t) << " tier: " << note);
    if (tensorTier)
      CHECK(note.rfind(nvidiaTier(g) + " (", 0) == 0);
    if (!emulatedTierOf(g).empty())
      CHECK(note.rfind(emulatedTierOf(g) + " (", 0) == 0);
    if (!vulkanCoopTier(g).empty())
      CHECK(note.rfind(vulkanCoopTier(g) + " (", 0) == 0);
  }
}

} // namespace

TEST_CASE("workgroup-scope tier: K loops read straight or copied in slices of K") {
  // Where every tile of a K loop lies in its buffer 16-byte aligned, the
  // workgroup-scope tier runs a copy of the loop that reads them straight
  // from the buffers; A one or three elements off alignment takes the loop
  // that copies both operands into shared memory, 32 deep (K 64: two
  // slices) or 16 deep (K 48: three) at a time. Elsewhere the kernels take
  // whatever tier they fit and are checked the same way.
  for (const HalfGemm &v : {HalfGemm{64, 64, 64, 128, false, false, false, 0, 0, 128, 128, 192},
                            HalfGemm{64, 64, 64, 128, false, false, false, 1, 0, 128, 128, 192},
                            HalfGemm{64, 32, 48, 64, false, false, true, 3, 1, 128, 64, 144}})
    checkHalfGemm(v);
}

TEST_CASE("mma.sync tier shapes: warp grids, layouts, epilogues, unaligned operands") {
  // The warp grids the tier picks (2x4 warps of 64x32, 1x2, 2x2 with B
  // column-major, one warp of four holding a 16x8 tile), the sums scaled
  // and added after the K loop (on the fragments), and A and C one element
  // off vector alignment (the element-wise copies and stores). On a device
  // with more than 48 KiB per block, 128x128x64 stages its operands in
  // the dynamic window (3 stages of 35 KiB on the H200).
  for (const HalfGemm &v : {HalfGemm{128, 128, 32, 256, false, false, false, 0, 0, 256, 256, 96},
                            HalfGemm{32, 32, 16, 64, false, false, false, 0, 0, 64, 96, 48},
                            HalfGemm{64, 64, 32, 128, false, true, false, 0, 0, 128, 192, 64},
                            HalfGemm{16, 8, 16, 128, false, false, false, 0, 0, 32, 24, 32},
                            HalfGemm{64, 32, 16, 64, false, false, true, 0, 0, 128, 64, 32},
                            HalfGemm{32, 32, 32, 128, false, false, false, 1, 1, 64, 64, 64},
                            HalfGemm{32, 64, 16, 128, false, true, true, 3, 1, 64, 128, 48},
                            HalfGemm{128, 128, 64, 256, false, true, true, 0, 0, 256, 256, 192}})
    checkHalfGemm(v);
}

TEST_CASE("wgmma tier shapes: warpgroup grids, swizzles, transposed operands, epilogues") {
  // One warpgroup (64x64, K steps of 16, 32 and 64: the 32-, 64- and
  // 128-byte swizzles), two warpgroups over 128 rows and over 256 columns,
  // four over a 128x128 block with an 8-byte-unaligned A and C, B
  // row-major (read transposed) and column-major, A column-major (read
  // transposed), a holder 48 columns wide (B's swizzle atoms of 16), and
  // the sums scaled and added after the K loop. The operands of the
  // kernels whose stages fit are copied in 2 to 4 stages (K loops of one
  // and of two steps, fewer than the stages; an unaligned A copied element
  // by element). On the H200 (227 KiB a block) 128x64x64, 128x128x32 on
  // 512 invocations and 128x256x64 (4 stages of 48 KiB) stage theirs past
  // 48 KiB, in the dynamic window; 128x128x256 has room for one stage
  // only, so its operands (128 KiB) go one step ahead through registers.
  // (Stages take a block's share of the SM when its registers let two
  // blocks share one: xpu-lower-tiles' stageBudget.)
  // On other devices the kernels take whatever tier they fit and are
  // checked the same way.
  for (const HalfGemm &v : {HalfGemm{64, 64, 16, 128, false, false, false, 0, 0, 128, 128, 64},
                            HalfGemm{64, 64, 16, 128, false, true, false, 0, 0, 64, 64, 32},
                            HalfGemm{128, 128, 16, 128, false, false, false, 0, 0, 128, 256, 16},
                            HalfGemm{64, 64, 32, 128, false, true, false, 0, 0, 128, 192, 96},
                            HalfGemm{64, 64, 64, 128, true, false, false, 0, 0, 192, 64, 128},
                            HalfGemm{128, 64, 64, 256, false, false, true, 0, 0, 256, 128, 128},
                            HalfGemm{64, 256, 32, 256, true, true, false, 0, 0, 128, 256, 64},
                            HalfGemm{128, 128, 32, 512, false, false, false, 1, 3, 256, 256, 96},
                            HalfGemm{64, 96, 32, 256, false, false, true, 0, 0, 128, 192, 64},
                            HalfGemm{128, 256, 64, 256, false, false, true, 0, 0, 256, 512, 320},
                            HalfGemm{128, 128, 256, 256, false, true, false, 0, 0, 128, 256, 512}})
    checkHalfGemm(v);
}

namespace {

/// What the note of an f16 kernel the cooperative-matrix tiers can do must
/// say on Vulkan: the tier the device facts permit (vulkanCoopTier), else
/// the reason the facts give (the extension missing, the feature disabled).
void checkCoopMatrixNote(const std::string &note, const Gemm &g) {
  if (target().backend != XPU_BACKEND_VULKAN)
    return;
  std::string evidence = capabilityEvidence("tile.cooperative-matrix"),
              workgroup = capabilityEvidence("tile.cooperative-matrix-workgroup");
  INFO(note << "\nevidence: " << evidence << "\nworkgroup evidence: " << workgroup);
  if (!vulkanCoopTier(g).empty()) {
    CHECK(note.rfind(vulkanCoopTier(g) + " (", 0) == 0);
    return;
  }
  const char *off = std::getenv("XPU_VULKAN_DISABLE_FEATURES");
  std::string disabled = "," + std::string(off ? off : "") + ",";
  auto isDisabled = [&](const char *f) {
    return disabled.find("," + std::string(f) + ",") != std::string::npos;
  };
  CHECK(note.find("not cooperative-matrix: ") != std::string::npos);
  if (tierOff("cooperative-matrix"))
    CHECK(note.find("not cooperative-matrix: turned off by XPU_TILE_TIERS_OFF") !=
          std::string::npos);
  else if (evidence.find("VK_KHR_cooperative_matrix not listed") != std::string::npos)
    CHECK(note.find("not cooperative-matrix: the device does not offer "
                    "VK_KHR_cooperative_matrix") != std::string::npos);
  else if (isDisabled("cooperativeMatrix") &&
           evidence.find("cooperativeMatrix=true") != std::string::npos)
    CHECK(note.find("not cooperative-matrix: the device supports cooperativeMatrix, but "
                    "it was not enabled") != std::string::npos);
  if (!fitsWorkgroupMatrices(g) || tierOff("cooperative-matrix-workgroup"))
    return;
  CHECK(note.find("not cooperative-matrix-workgroup: ") != std::string::npos);
  if (workgroup.find("VK_NV_cooperative_matrix2 not listed") != std::string::npos)
    CHECK(note.find("not cooperative-matrix-workgroup: the device does not offer "
                    "VK_NV_cooperative_matrix2") != std::string::npos);
  if (isDisabled("cooperativeMatrixWorkgroupScope") && !isDisabled("cooperativeMatrix") &&
      workgroup.find("cooperativeMatrixWorkgroupScope=true") != std::string::npos)
    CHECK(note.find("not cooperative-matrix-workgroup: the device supports "
                    "cooperativeMatrixWorkgroupScope, but it was not enabled") !=
          std::string::npos);
}

} // namespace

TEST_CASE("f16 tiles in 16x16x16 steps: the cooperative-matrix tier where there is one") {
  struct Variant {
    int tm, tn, tk, threads;
    bool bColMajor, epilogue;
    int m, n, k;
  };
  // One subgroup, one block; 2 subgroups for 8 blocks with B column-major;
  // 4 subgroups for 8 blocks with an epilogue (3 * acc) on the sums. All but
  // the first fit workgroup-scope matrices too, as do the last three: the
  // benchmark's blocks (a K loop of 3 steps; B column-major; 256 columns).
  for (const Variant &v : {Variant{16, 16, 16, 32, false, false, 32, 48, 64},
                           Variant{64, 32, 32, 64, true, false, 128, 64, 96},
                           Variant{32, 64, 16, 128, false, true, 64, 128, 48},
                           Variant{128, 128, 64, 256, false, false, 256, 256, 192},
                           Variant{64, 128, 32, 128, true, false, 128, 256, 64},
                           Variant{128, 256, 32, 256, false, false, 128, 512, 96}}) {
    Gemm g;
    g.ta = "f16";
    g.tm = v.tm;
    g.tn = v.tn;
    g.tk = v.tk;
    g.threads = v.threads;
    g.bColMajor = v.bColMajor;
    std::string acc = Gemm::tile(v.tm, v.tn, "f32");
    if (v.epilogue)
      g.epilogue = "  %two = arith.constant 2.0 : f32\n"
                   "  %s = xpu.tile_scale %acc, %two : " + acc + "\n"
                   "  %outTile = xpu.tile_add %s, %acc : " + acc + "\n";
    INFO(v.tm << "x" << v.tn << "x" << v.tk << " tiles, " << v.threads << " invocations");
    if (!runsHere(g.text(), {"f16.storage"}))
      return;
    // The software tile keeps these sums in shared memory, which a device
    // may not have room for (lavapipe: 32 KiB).
    if (vulkanCoopTier(g).empty() && emulatedTierOf(g).empty() &&
        refusedForSharedMemory(g.text()))
      continue;
    checkFloatGemm<uint16_t>(g, v.m, v.n, v.k, toHalf, fromHalf, std::ldexp(1.0, -23),
                             v.epilogue ? 3 : 1);
    std::string note = gemmNote(g.text());
    MESSAGE("tier: " << note);
    checkCoopMatrixNote(note, g);
    if (!emulatedTierOf(g).empty())
      CHECK(note.rfind(emulatedTierOf(g) + " (", 0) == 0);
  }
}

TEST_CASE("f64 tiles where the device has f64") {
  Gemm g;
  g.ta = g.tc = "f64";
  g.tm = g.tn = 8;
  g.tk = 4;
  g.threads = 16;
  if (!runsHere(g.text(), {"f64.arith"}))
    return;
  int m = 16, n = 24, k = 20;
  std::vector<float> fa = randomFloats(size_t(m) * k), fb = randomFloats(size_t(k) * n);
  std::vector<double> a(fa.begin(), fa.end()), b(fb.begin(), fb.end());
  for (auto &x : a)
    x += std::ldexp(double(x), -30); // bits below f32's
  std::vector<double> c = runGemm<double, double>(g, m, n, k, a, b);
  size_t bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long double ref = 0, mag = 0;
      for (int kk = 0; kk < k; ++kk) {
        long double p = (long double)a[size_t(i) * k + kk] * b[size_t(kk) * n + j];
        ref += p;
        mag += std::fabs(p);
      }
      if (!(std::fabs((long double)c[size_t(i) * n + j] - ref) <=
            k * std::ldexp(1.0L, -52) * mag + 1e-300L))
        ++bad;
    }
  CHECK(bad == 0);
}

TEST_CASE("i8 tiles accumulate exactly in i32, with an i32 epilogue converted to f32") {
  Gemm g;
  g.ta = "i8";
  g.tc = "i32";
  g.tm = g.tn = 16;
  g.tk = 16;
  g.threads = 32;
  g.outType = "f32";
  // out = f32(3 * acc): scale by 2, add the accumulator, convert.
  g.epilogue = "  %two = arith.constant 2 : i32\n"
               "  %s = xpu.tile_scale %acc, %two : !xpu.tile<16x16xi32>\n"
               "  %t = xpu.tile_add %s, %acc : !xpu.tile<16x16xi32>\n"
               "  %outTile = xpu.tile_convert %t : !xpu.tile<16x16xi32> -> "
               "!xpu.tile<16x16xf32>\n";
  if (!runsHere(g.text(), {"i8.storage"}))
    return;
  int m = 32, n = 48, k = 64;
  auto a = randomInts<int8_t>(size_t(m) * k, -128, 127);
  auto b = randomInts<int8_t>(size_t(k) * n, -128, 127);
  std::string notes;
  std::vector<float> c = runGemm<int8_t, float>(g, m, n, k, a, b, &notes);
  size_t bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int32_t ref = 0;
      for (int kk = 0; kk < k; ++kk)
        ref += int32_t(a[size_t(i) * k + kk]) * int32_t(b[size_t(kk) * n + j]);
      if (c[size_t(i) * n + j] != float(3 * ref) && bad++ < 5)
        MESSAGE("C[" << i << "][" << j << "] = " << c[size_t(i) * n + j] << ", expected "
                     << 3 * ref);
    }
  CHECK(bad == 0);
  MESSAGE("tier: " << tierNote(notes, "gemm"));
}

TEST_CASE("the [mma-tiering] note names the tier and each demotion") {
  Gemm g;
  g.ta = "i8";
  g.tc = "i32";
  g.tm = g.tn = 8;
  g.tk = 8;
  g.threads = 8;
  if (!capabilityAvailable("i8.storage"))
    return;
  std::string note = gemmNote(g.text());
  INFO(note);
  bool dot = capabilityAvailable("tile.dot-int8");
  switch (target().backend) {
  case XPU_BACKEND_CPU:
    // The CPU has no faster tier to demote from, but an emulated one
    // (XPU_TILE_EMULATE), which takes no i8.
    CHECK(note.rfind("software (", 0) == 0);
    if (emulatedTier().empty())
      CHECK(note.find("; not ") == std::string::npos);
    else
      CHECK(note.find("; not " + emulatedTier() + ": the 8x8x8 i8 mac at") != std::string::npos);
    break;
  case XPU_BACKEND_VULKAN:
    // Cooperative matrices are not lowered (and lavapipe has none); the
    // integer dot product is taken where it is enabled.
    CHECK(note.find("not cooperative-matrix: ") != std::string::npos);
    CHECK(note.rfind(dot ? "dot4 (" : "software (", 0) == 0);
    if (const char *off = std::getenv("XPU_VULKAN_DISABLE_FEATURES");
        off && std::string(off).find("shaderIntegerDotProduct") != std::string::npos &&
        capabilityEvidence("tile.dot-int8").find("shaderIntegerDotProduct=true") !=
            std::string::npos)
      CHECK(note.find("not dot4: the device supports shaderIntegerDotProduct, but it was "
                      "not enabled") != std::string::npos);
    break;
  default:
    CHECK(note.rfind(dot ? "dot4 (" : "software (", 0) == 0);
    break;
  }

  // A shape the dot tier cannot do (K = 6) demotes the whole kernel.
  g.tk = 6;
  std::string small = gemmNote(g.text());
  INFO(small);
  CHECK(small.rfind("software (", 0) == 0);
  if (dot)
    CHECK(small.find("not dot4: the 8x8x6 i8 mac at") != std::string::npos);

  // A kernel without int8 is never given the int8 tier.
  Gemm f;
  std::string fnote = gemmNote(f.text());
  CHECK(fnote.rfind("software (", 0) == 0);
}

TEST_CASE("the K = 6 int8 kernel the dot tier refuses still computes exactly") {
  Gemm g;
  g.ta = "i8";
  g.tc = "i32";
  g.tm = g.tn = 8;
  g.tk = 6;
  g.threads = 8;
  if (!runsHere(g.text(), {"i8.storage"}))
    return;
  int m = 16, n = 8, k = 18;
  auto a = randomInts<int8_t>(size_t(m) * k, -128, 127);
  auto b = randomInts<int8_t>(size_t(k) * n, -128, 127);
  std::vector<int32_t> c = runGemm<int8_t, int32_t>(g, m, n, k, a, b);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int32_t ref = 0;
      for (int kk = 0; kk < k; ++kk)
        ref += int32_t(a[size_t(i) * k + kk]) * int32_t(b[size_t(kk) * n + j]);
      REQUIRE(c[size_t(i) * n + j] == ref);
    }
}

TEST_CASE("a tile load past the end of its buffer reads zeros and is reported") {
  Module mod(R"(
    xpu.kernel @k(%A: !xpu.buffer<f32, ro>, %C: !xpu.buffer<f32>, %off: i32)
        attributes {workgroup_size = array<i64: 8, 1, 1>} {
      %o = arith.index_castui %off : i32 to index
      %c0 = arith.constant 0 : index
      %ld = arith.constant 4 : index
      %t = xpu.tile_load %A[%o], %ld : !xpu.buffer<f32, ro> -> !xpu.tile<4x4xf32>
      xpu.tile_store %t, %C[%c0], %ld : !xpu.tile<4x4xf32>, !xpu.buffer<f32>
      xpu.return
    })");
  auto a = randomFloats(16, 1, 2);
  Buffer ba = Buffer::from(a);
  Buffer bc = Buffer::from(std::vector<float>(16, -1));
  uint32_t grid[3] = {1, 1, 1}, block[3] = {8, 1, 1};
  xpu_arg args[3] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bc.handle), xpu_arg_i32(8)};
  XPU_OK(xpu_launch(mod.kernel("k"), nullptr, grid, block, args, 3));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  std::string said = xpu_last_error_message();
  INFO(said);
  CHECK(said.find("tile load from 'A'") != std::string::npos);
  std::vector<float> c = bc.read<float>();
  for (int e = 0; e < 16; ++e)
    CHECK(c[e] == (e < 8 ? a[8 + e] : 0.0f));
}

TEST_CASE("a tile store of mac sums past the end of its buffer stores what fits and is reported") {
  // An f16 mac, so the tensor-core tiers hold the sums (as fragments, or as
  // cooperative matrices: whole when the tile fits the buffer, else through
  // a scratch per subgroup, element by element; as one workgroup-scope
  // matrix, each invocation's elements where the matrix says they lie).
  // Small integers keep every sum exact.
  const std::string text = R"(
    xpu.kernel @k(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>,
                  %off: i32, %ldc: i32) attributes {workgroup_size = array<i64: 64, 1, 1>} {
      %o = arith.index_castui %off : i32 to index
      %ld = arith.index_castui %ldc : i32 to index
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %z = arith.constant 0.0 : f32
      %a = xpu.tile_load %A[%c0], %c16 : !xpu.buffer<f16, ro> -> !xpu.tile<32x16xf16>
      %b = xpu.tile_load %B[%c0], %c32 : !xpu.buffer<f16, ro> -> !xpu.tile<16x32xf16>
      %c = xpu.tile_fill %z : !xpu.tile<32x32xf32>
      %r = xpu.mac %c, %a, %b : !xpu.tile<32x32xf32>, !xpu.tile<32x16xf16>, !xpu.tile<16x32xf16>
      xpu.tile_store %r, %C[%o], %ld : !xpu.tile<32x32xf32>, !xpu.buffer<f32>
      xpu.return
    })";
  checkWorkgroupTierWhereFits(text, 32, 32, 64);
  Module mod(text);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<float> a(32 * 16), b(16 * 32);
  std::vector<uint16_t> ah, bh;
  for (float &v : a)
    ah.push_back(toHalf(v = float(small(rng()))));
  for (float &v : b)
    bh.push_back(toHalf(v = float(small(rng()))));
  Buffer ba = Buffer::from(ah), bb = Buffer::from(bh);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  auto run = [&](Buffer &bc, int off, int ldc, bool fits = false) {
    xpu_arg args[5] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
                       xpu_arg_buffer(bc.handle), xpu_arg_i32(off), xpu_arg_i32(ldc)};
    XPU_OK(xpu_launch(mod.kernel("k"), nullptr, grid, block, args, 5));
    if (fits) {
      XPU_OK(xpu_stream_synchronize(defaultStream()));
      return;
    }
    CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
    std::string said = xpu_last_error_message();
    INFO(said);
    CHECK(said.find("tile store to 'C'") != std::string::npos);
  };
  auto sum = [&](int i, int j) {
    float s = 0;
    for (int k = 0; k < 16; ++k)
      s += a[i * 16 + k] * b[k * 32 + j];
    return s;
  };
  // C seen from element `off` on with rows `ldc` apart: where each tile
  // element lands, all else untouched. The software tile moves rows four
  // elements at a time and drops a group of four that crosses C's end
  // whole (docs/tiles.md): those elements may keep their -1.
  auto expect = [&](Buffer &bc, int off, int ldc) {
    std::vector<float> c = bc.read<float>();
    for (int e = 0; e < int(c.size()); ++e) {
      int rel = e - off, i = rel / ldc, j = rel % ldc;
      bool mine = rel >= 0 && i < 32 && j < 32;
      float want = mine ? sum(i, j) : -1;
      bool crossing = mine && off + i * ldc + j / 4 * 4 + 3 >= int(c.size());
      INFO(e << " (off " << off << ", ldc " << ldc << ")");
      CHECK((c[size_t(e)] == want || (crossing && c[size_t(e)] == -1)));
    }
  };
  // Rows 16 to 31 of the tile fall past the end of C: rows 0 to 15 land in
  // C's last 16 rows, the rest of C is untouched.
  Buffer bc = Buffer::from(std::vector<float>(32 * 32, -1));
  run(bc, 16 * 32, 32);
  expect(bc, 16 * 32, 32); // no group of four crosses C's end here
  // Off 16-byte alignment and past the end in the middle of a row: rows 0
  // to 14 of the tile fit whole, row 15 up to C's last element (27 of its
  // 32).
  Buffer mid = Buffer::from(std::vector<float>(32 * 32, -1));
  run(mid, 16 * 32 + 5, 32);
  expect(mid, 16 * 32 + 5, 32);
  // Off 16-byte alignment (offset and stride) but inside: every element
  // lands, nothing is reported.
  Buffer odd = Buffer::from(std::vector<float>(3 + 33 * 32 + 2, -1));
  run(odd, 3, 33, /*fits=*/true);
  expect(odd, 3, 33);
  // A stride below the tile's width stores nothing.
  Buffer narrow = Buffer::from(std::vector<float>(32 * 32, -1));
  run(narrow, 0, 16);
  for (float v : narrow.read<float>())
    CHECK(v == -1);
}

TEST_CASE("a tile store whose end wraps around the index space is still checked") {
  // 15 strides of this 64-bit stride come to 2^64 + 29: the end of the
  // 16-row tile wraps around to element 45 of C, inside it, while rows 1 to
  // 14 lie far past its end. A test of the tile's end alone would store it
  // whole, unchecked (the cooperative-matrix tier's straight store). Index
  // arithmetic wraps, so row 15 lands at C[29 ..]; rows 1 to 14 must be
  // dropped and reported, and the rest of C left as it was.
  Module mod(R"(
    xpu.kernel @k(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>,
                  %ldc: i64) attributes {workgroup_size = array<i64: 32, 1, 1>} {
      %ld = arith.index_castui %ldc : i64 to index
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %z = arith.constant 0.0 : f32
      %a = xpu.tile_load %A[%c0], %c16 : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
      %b = xpu.tile_load %B[%c0], %c16 : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
      %c = xpu.tile_fill %z : !xpu.tile<16x16xf32>
      %r = xpu.mac %c, %a, %b : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
      xpu.tile_store %r, %C[%c0], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
      xpu.return
    })");
  const uint64_t stride = 1229782938247303443ull; // (2^64 + 29) / 15
  REQUIRE(stride * 15 == 29);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<float> a(16 * 16), b(16 * 16);
  std::vector<uint16_t> ah, bh;
  for (float &v : a)
    ah.push_back(toHalf(v = float(small(rng()))));
  for (float &v : b)
    bh.push_back(toHalf(v = float(small(rng()))));
  Buffer ba = Buffer::from(ah), bb = Buffer::from(bh);
  Buffer bc = Buffer::from(std::vector<float>(16 * 16, -1));
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  xpu_arg args[4] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
                     xpu_arg_buffer(bc.handle), xpu_arg_i64(int64_t(stride))};
  XPU_OK(xpu_launch(mod.kernel("k"), nullptr, grid, block, args, 4));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  std::string said = xpu_last_error_message();
  INFO(said);
  CHECK(said.find("tile store to 'C'") != std::string::npos);
  auto row = [&](int i, int j) {
    float sum = 0;
    for (int k = 0; k < 16; ++k)
      sum += a[i * 16 + k] * b[k * 16 + j];
    return sum;
  };
  std::vector<float> c = bc.read<float>();
  for (int e = 0; e < 16 * 16; ++e) {
    float want = e < 16 ? row(0, e) : e >= 29 && e < 45 ? row(15, e - 29) : -1.0f;
    INFO(e);
    CHECK(c[size_t(e)] == want);
  }
}

TEST_CASE("a staged K loop entered again by an outer loop reads its own stages") {
  // The K loop runs once per 64-column block of C: on CUDA its bf16
  // operands are staged, and a warpgroup that finishes one block starts
  // the next block's copies into stages the other may still be reading,
  // unless the loop's entry waits for it.
  const char *text = R"(
    xpu.kernel @gemm(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>,
                     %m: i32, %n: i32, %k: i32)
        attributes {workgroup_size = array<i64: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %N = arith.index_castui %n : i32 to index
      %K = arith.index_castui %k : i32 to index
      %z = arith.constant 0.0 : f32
      scf.for %cb = %c0 to %N step %c64 {
        %init = xpu.tile_fill %z : !xpu.tile<128x64xf32>
        %acc = scf.for %kk = %c0 to %K step %c16 iter_args(%c = %init) -> (!xpu.tile<128x64xf32>) {
          %a = xpu.tile_load %A[%kk], %K : !xpu.buffer<bf16, ro> -> !xpu.tile<128x16xbf16>
          %br = arith.muli %kk, %N : index
          %boff = arith.addi %br, %cb : index
          %b = xpu.tile_load %B[%boff], %N : !xpu.buffer<bf16, ro> -> !xpu.tile<16x64xbf16>
          %r = xpu.mac %c, %a, %b : !xpu.tile<128x64xf32>, !xpu.tile<128x16xbf16>, !xpu.tile<16x64xbf16>
          scf.yield %r : !xpu.tile<128x64xf32>
        }
        xpu.tile_store %acc, %C[%cb], %N : !xpu.tile<128x64xf32>, !xpu.buffer<f32>
      }
      xpu.return
    })";
  if (!runsHere(text, {"bf16.storage"}))
    return;
  const int m = 128, n = 256, k = 64;
  std::vector<float> fa = randomFloats(size_t(m) * k), fb = randomFloats(size_t(k) * n);
  std::vector<uint16_t> a(fa.size()), b(fb.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = toBf16(fa[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = toBf16(fb[i]);
  Module mod(text);
  Buffer ba = Buffer::from(a), bb = Buffer::from(b);
  Buffer bc = Buffer::from(std::vector<float>(size_t(m) * n, -1.0f));
  run(mod.kernel("gemm"), {1, 1}, {256},
      {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle), xpu_arg_buffer(bc.handle),
       xpu_arg_i32(m), xpu_arg_i32(n), xpu_arg_i32(k)});
  CHECK(wrongElements(
            m, n, k, [&](int i, int kk) { return double(fromBf16(a[size_t(i) * k + kk])); },
            [&](int kk, int j) { return double(fromBf16(b[size_t(kk) * n + j])); },
            bc.read<float>(), std::ldexp(1.0, -23)) == 0);
  if (target().backend == XPU_BACKEND_CUDA) {
    bool wgmma = capabilityAvailable("tile.wgmma") && !tierTurnedOff("wgmma");
    CHECK(gemmNote(text).rfind(wgmma ? "wgmma (" : "mma.sync (", 0) == 0);
  }
}

TEST_CASE("a staged operand copy past the end of its buffer reads zeros and is reported") {
  // On CUDA the operands of this K loop are copied in stages with cp.async;
  // on the cooperative-matrix tier (f16) a K step ahead in 16x16 blocks. A's
  // buffer ends 4 elements short, so its last 16-byte chunk (8 elements) is
  // read element by element, checked (the cooperative-matrix tier reads that
  // whole tile so). Every backend must report the load and compute with zeros
  // there. (Four: the software tile reads rows in groups of four, zeros as a
  // whole where one crosses the end; see docs/tiles.md.)
  for (const char *type : {"bf16", "f16"}) {
    INFO(type);
    bool half = std::string(type) == "f16";
    Gemm g;
    g.ta = type;
    g.tm = 64;
    g.tn = 64;
    g.tk = 16;
    g.threads = 128;
    if (!runsHere(g.text(), {half ? "f16.storage" : "bf16.storage"}))
      continue;
    auto to = half ? toHalf : toBf16;
    auto from = half ? fromHalf : fromBf16;
    const int m = 64, n = 64, k = 32, missing = 4;
    std::vector<float> fa = randomFloats(size_t(m) * k - missing),
                       fb = randomFloats(size_t(k) * n);
    std::vector<uint16_t> a(fa.size()), b(fb.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = to(fa[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = to(fb[i]);
    xpu_module mod = nullptr;
    xpu_status st;
    std::string notes = compileNotes(g.text(), mod, st);
    INFO(notes);
    REQUIRE(st == XPU_SUCCESS);
    xpu_kernel kernel = nullptr;
    XPU_OK(xpu_module_kernel(mod, "gemm", &kernel));
    Buffer ba = Buffer::from(a), bb = Buffer::from(b);
    Buffer bc = Buffer::from(std::vector<float>(size_t(m) * n, -1.0f));
    uint32_t grid[3] = {1, 1, 1}, block[3] = {uint32_t(g.threads), 1, 1};
    xpu_arg args[6] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
                       xpu_arg_buffer(bc.handle), xpu_arg_i32(m), xpu_arg_i32(n), xpu_arg_i32(k)};
    XPU_OK(xpu_launch(kernel, nullptr, grid, block, args, 6));
    CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
    std::string said = xpu_last_error_message();
    INFO(said);
    CHECK(said.find("tile load from 'A'") != std::string::npos);
    // The elements past A's end read as zeros.
    auto aAt = [&](int i, int kk) {
      size_t at = size_t(i) * k + kk;
      return at < a.size() ? double(from(a[at])) : 0.0;
    };
    CHECK(wrongElements(
              m, n, k, aAt, [&](int kk, int j) { return double(from(b[size_t(kk) * n + j])); },
              bc.read<float>(), std::ldexp(1.0, -23)) == 0);
    xpu_module_release(mod);
  }
}

TEST_CASE("a staged operand tile whose rows wrap around the index space is still checked") {
  // 64-bit strides whose multiples wrap around the index space, so that a
  // test of where a tile or a 16-byte chunk ends, alone, would pass while
  // rows lie outside A (the staged cp.async copies, the cooperative-matrix
  // read-ahead). Index arithmetic wraps: an element's index is taken mod
  // 2^64, and every one outside A must read as zero and be reported.
  const std::string text = R"(
    xpu.kernel @k(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>,
                  %s64: i64)
        attributes {workgroup_size = array<i64: 128, 1, 1>} {
      %s = arith.index_castui %s64 : i64 to index
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %z = arith.constant 0.0 : f32
      %init = xpu.tile_fill %z : !xpu.tile<16x16xf32>
      %acc = scf.for %kk = %c0 to %c32 step %c16 iter_args(%c = %init) -> (!xpu.tile<16x16xf32>) {
        %a = xpu.tile_load %A[%kk], %s : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
        %bo = arith.muli %kk, %c16 : index
        %b = xpu.tile_load %B[%bo], %c16 : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
        %r = xpu.mac %c, %a, %b : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
        scf.yield %r : !xpu.tile<16x16xf32>
      }
      xpu.tile_store %acc, %C[%c0], %c16 : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
      xpu.return
    })";
  if (!runsHere(text, {"f16.storage"}))
    return;
  std::vector<float> fa = randomFloats(64), fb = randomFloats(32 * 16);
  std::vector<uint16_t> a(fa.size()), b(fb.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = toHalf(fa[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = toHalf(fb[i]);
  Module mod(text);
  Buffer ba = Buffer::from(a), bb = Buffer::from(b);
  // `aAt(i, kk)`: element (i, kk) of A as the tiles read it.
  auto run = [&](uint64_t stride, const std::function<double(int, int)> &aAt) {
    Buffer bc = Buffer::from(std::vector<float>(16 * 16, -1.0f));
    uint32_t grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
    xpu_arg args[4] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
                       xpu_arg_buffer(bc.handle), xpu_arg_i64(int64_t(stride))};
    XPU_OK(xpu_launch(mod.kernel("k"), nullptr, grid, block, args, 4));
    CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
    std::string said = xpu_last_error_message();
    INFO(said);
    CHECK(said.find("tile load from 'A'") != std::string::npos);
    CHECK(wrongElements(
              16, 16, 32, aAt,
              [&](int kk, int j) { return double(fromHalf(b[size_t(kk) * 16 + j])); },
              bc.read<float>(), std::ldexp(1.0, -23)) == 0);
  };
  SUBCASE("15 strides come to 2^64 + 14") {
    // The end of the 16-row tile wraps around to element 30 (+ the K
    // step), inside A, while rows 1 to 14 lie far past its end.
    const uint64_t stride = 1229782938247303442ull; // (2^64 + 14) / 15
    REQUIRE(stride * 15 == 14);
    // Row 0 of each K step's A tile is A[kk .. kk + 15], row 15 A[kk + 14 ..];
    // the others are zeros.
    run(stride, [&](int i, int kk) {
      return i == 0 ? double(fromHalf(a[size_t(kk)]))
                    : i == 15 ? double(fromHalf(a[size_t(kk) + 14])) : 0.0;
    });
  }
  SUBCASE("a stride of 2^64 - 8: row r starts 8 r elements before the step's column") {
    // A 16-byte chunk of row 1 then starts at element 2^64 - 8, whose end
    // (+ 8) wraps around to 0: a chunk test of its end alone would copy the
    // 8 elements before A. Elements before A read as zeros.
    run(~uint64_t(7), [&](int i, int kk) {
      int at = kk - 8 * i;
      return at >= 0 ? double(fromHalf(a[size_t(at)])) : 0.0;
    });
  }
}

/// A 64-bit tile offset or stride for the random bounds test: ordinary
/// ones, ones that put the tile across the end of a buffer of `size`
/// elements, and ones whose multiples wrap around the index space.
uint64_t edgyValue(uint64_t size, bool stride) {
  std::uniform_int_distribution<int> kind(0, 7);
  std::uniform_int_distribution<uint64_t> any;
  auto in = [](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng());
  };
  switch (kind(rng())) {
  case 0: case 1: case 2:
    return stride ? in(16, 48) : in(0, size);                      // ordinary
  case 3:
    return stride ? in(0, 20) : size - in(0, 16 * 48);             // near or past the end
  case 4:
    return ~uint64_t(0) - in(0, 2 * size);                         // just below 2^64
  case 5: {
    uint64_t n = in(1, 15), x = in(0, size); // n multiples come to 2^64 + x
    return (~uint64_t(0) / n) + 1 + x / n;
  }
  case 6:
    return any(rng());
  default:
    return ~uint64_t(0) - 8 * in(0, 8);                            // -8 k
  }
}

TEST_CASE("tile loads and stores at random edge offsets and strides follow the element definition") {
  // One K loop of two 16-deep f16 steps (so the tiers' read-ahead and staged
  // copies run) times B = [I I ...; I I ...]: element (r, c) of C's T x T
  // tile is A's (r, c mod 16) of the two steps summed, exactly. T = 16 and
  // T = 32 (which workgroup-scope matrices take). Every element is defined by its index taken mod 2^64:
  // inside its buffer it is read or written, outside it reads zero or is
  // dropped, and the launch reports it. A row group of four that lies
  // partly outside may read as zeros or be dropped as a whole (the software
  // tile's vectors; docs/tiles.md), so such elements accept either; a
  // stride below the tile's width may store nothing (and reports).
  for (int T : {16, 32}) {
  INFO("T " << T);
  const std::string t = std::to_string(T);
  std::string text = R"(
    xpu.kernel @k(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>,
                  %off64: i64, %ld64: i64, %coff64: i64, %ldc64: i64)
        attributes {workgroup_size = array<i64: 64, 1, 1>} {
      %off = arith.index_castui %off64 : i64 to index
      %ld = arith.index_castui %ld64 : i64 to index
      %coff = arith.index_castui %coff64 : i64 to index
      %ldc = arith.index_castui %ldc64 : i64 to index
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %z = arith.constant 0.0 : f32
      %cT = arith.constant @T : index
      %init = xpu.tile_fill %z : !xpu.tile<@Tx@Txf32>
      %acc = scf.for %kk = %c0 to %c32 step %c16 iter_args(%c = %init) -> (!xpu.tile<@Tx@Txf32>) {
        %ao = arith.addi %off, %kk : index
        %a = xpu.tile_load %A[%ao], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<@Tx16xf16>
        %bo = arith.muli %kk, %cT : index
        %b = xpu.tile_load %B[%bo], %cT : !xpu.buffer<f16, ro> -> !xpu.tile<16x@Txf16>
        %r = xpu.mac %c, %a, %b : !xpu.tile<@Tx@Txf32>, !xpu.tile<@Tx16xf16>, !xpu.tile<16x@Txf16>
        scf.yield %r : !xpu.tile<@Tx@Txf32>
      }
      xpu.tile_store %acc, %C[%coff], %ldc : !xpu.tile<@Tx@Txf32>, !xpu.buffer<f32>
      xpu.return
    })";
  for (size_t at; (at = text.find("@T")) != std::string::npos;)
    text.replace(at, 2, t);
  if (!runsHere(text, {"f16.storage"}))
    return;
  checkWorkgroupTierWhereFits(text, T, T, 64);
  Module mod(text);
  const uint64_t na = 1024, nc = 1024;
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<int> a(na);
  std::vector<uint16_t> ah(na), bh(size_t(32) * T, 0);
  for (uint64_t i = 0; i < na; ++i)
    ah[i] = toHalf(float(a[i] = small(rng())));
  for (int kk = 0; kk < 32; ++kk)
    for (int j = kk % 16; j < T; j += 16)
      bh[size_t(kk) * T + j] = toHalf(1.0f);
  Buffer ba = Buffer::from(ah), bb = Buffer::from(bh);
  const float untouched = 1000.0f;
  for (int trial = 0; trial < 120; ++trial) {
    uint64_t off = edgyValue(na, false), ld = edgyValue(na, true);
    uint64_t coff = edgyValue(nc, false), ldc = edgyValue(nc, true);
    if (trial % 3 == 0 && trial % 2) // a third keeps one side ordinary
      coff = 0, ldc = uint64_t(T);
    else if (trial % 3 == 0)
      off = 0, ld = 16;
    INFO("trial " << trial << ": off " << off << " ld " << ld << " coff " << coff << " ldc "
                  << ldc);
    // The values tile element (r, c) may have: the sum over the two K
    // steps of A's element (r, c mod 16), or zero where it lies outside A,
    // or either where its row group of four lies partly outside.
    bool outside = false;
    std::vector<std::vector<float>> allowed(size_t(T) * T, std::vector<float>{0.0f});
    for (int r = 0; r < T; ++r)
      for (int c = 0; c < T; ++c)
        for (uint64_t step = 0; step < 32; step += 16) {
          auto at = [&](int cc) { return off + step + uint64_t(r) * ld + uint64_t(cc); };
          int ac = c % 16;
          uint64_t i = at(ac);
          outside |= i >= na;
          bool partial = false;
          for (int g = ac / 4 * 4; g < ac / 4 * 4 + 4; ++g)
            partial |= at(g) >= na;
          if (i >= na)
            continue;
          std::vector<float> &sums = allowed[size_t(r) * T + c], next;
          for (float v : sums) {
            next.push_back(v + float(a[i]));
            if (partial)
              next.push_back(v);
          }
          sums = next;
        }
    // Where each element of the tile is stored (several may land on one).
    std::vector<int> writers(nc, 0);
    std::vector<bool> maybe(nc, false);
    for (int r = 0; r < T; ++r)
      for (int c = 0; c < T; ++c) {
        auto at = [&](int cc) { return coff + uint64_t(r) * ldc + uint64_t(cc); };
        uint64_t i = at(c);
        outside |= i >= nc;
        bool partial = false;
        for (int g = c / 4 * 4; g < c / 4 * 4 + 4; ++g)
          partial |= at(g) >= nc;
        if (i < nc) {
          ++writers[i];
          maybe[i] = maybe[i] || partial;
        }
      }
    Buffer bc = Buffer::from(std::vector<float>(nc, untouched));
    xpu_arg args[7] = {xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
                       xpu_arg_buffer(bc.handle), xpu_arg_i64(int64_t(off)),
                       xpu_arg_i64(int64_t(ld)), xpu_arg_i64(int64_t(coff)),
                       xpu_arg_i64(int64_t(ldc))};
    uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
    XPU_OK(xpu_launch(mod.kernel("k"), nullptr, grid, block, args, 7));
    xpu_status st = xpu_stream_synchronize(defaultStream());
    // A narrow stride (below the tile's width) may store nothing at all,
    // and reports; otherwise exactly an access outside reports.
    bool narrow = ldc < uint64_t(T);
    CHECK(st == (outside || narrow ? XPU_ERROR_OUT_OF_BOUNDS : XPU_SUCCESS));
    std::vector<float> c = bc.read<float>();
    size_t bad = 0;
    for (uint64_t i = 0; i < nc; ++i) {
      float got = c[i];
      bool ok;
      if (!writers[i]) {
        ok = got == untouched;
      } else if (writers[i] > 1 || narrow) {
        ok = true; // which of several writes lands is not defined; narrow may drop
      } else {
        int r = -1, cc = -1;
        for (int rr = 0; rr < T && r < 0; ++rr)
          for (int c2 = 0; c2 < T; ++c2)
            if (coff + uint64_t(rr) * ldc + uint64_t(c2) == i) {
              r = rr, cc = c2;
              break;
            }
        const std::vector<float> &w = allowed[size_t(r) * T + cc];
        ok = std::find(w.begin(), w.end(), got) != w.end() || (maybe[i] && got == untouched);
      }
      if (!ok && bad++ < 4)
        MESSAGE("C[" << i << "] = " << got);
    }
    CHECK(bad == 0);
  }
  }
}

TEST_CASE("a tile offset that differs between invocations is refused (XPU-TILE001)") {
  std::string text = R"(
    xpu.kernel @k(%A: !xpu.buffer<f32, ro>) {
      %t = xpu.thread_id x
      %ld = arith.constant 4 : index
      %a = xpu.tile_load %A[%t], %ld : !xpu.buffer<f32, ro> -> !xpu.tile<4x4xf32>
      xpu.return
    })";
  xpu_status st;
  std::string said = diagnosticsOf(text, st);
  INFO(said);
  CHECK(st == XPU_ERROR_REFUSED);
  CHECK(said.find("XPU-TILE001") != std::string::npos);
  CHECK(said.find("xpu.thread_id") != std::string::npos);
}

TEST_CASE("a tile op under divergent control flow is refused (XPU-UC001)") {
  std::string text = R"(
    xpu.kernel @k(%A: !xpu.buffer<f32>) {
      %t = xpu.thread_id x
      %c0 = arith.constant 0 : index
      %ld = arith.constant 4 : index
      %z = arith.constant 0.0 : f32
      %p = arith.cmpi eq, %t, %c0 : index
      scf.if %p {
        %f = xpu.tile_fill %z : !xpu.tile<4x4xf32>
        xpu.tile_store %f, %A[%c0], %ld : !xpu.tile<4x4xf32>, !xpu.buffer<f32>
      }
      xpu.return
    })";
  xpu_status st;
  std::string said = diagnosticsOf(text, st);
  INFO(said);
  CHECK(st == XPU_ERROR_REFUSED);
  CHECK(said.find("XPU-UC001") != std::string::npos);
}
