// The numeric correctness probes (see probes.h): contraction, fma fusion,
// subnormal results. Compiled with -ffp-contract=off, so the host
// references round as written.
#include "calibration/probe_kernel.h"
#include "calibration/probes.h"
#include "capability/target_facts.h"

#include <cmath>
#include <cstdint>
#include <random>

namespace xpu::cal {

namespace {

// Host forms of the element types, and what the probes need of each.
template <typename T> struct Host;
template <> struct Host<_Float16> {
  using Bits = uint16_t;
  static constexpr const char *name = "f16";
  static constexpr int precision = 11;
  static constexpr int leastNormalExponent = -14;
  static _Float16 unfused(_Float16 a, _Float16 b, _Float16 c) {
    // The product of two f16 is exact in f32; the sum of two f16 in f64.
    _Float16 p = _Float16(float(a) * float(b));
    return _Float16(double(p) + double(c));
  }
  static _Float16 fused(_Float16 a, _Float16 b, _Float16 c) {
    return _Float16(double(a) * double(b) + double(c));
  }
};
template <> struct Host<float> {
  using Bits = uint32_t;
  static constexpr const char *name = "f32";
  static constexpr int precision = 24;
  static constexpr int leastNormalExponent = -126;
  static float unfused(float a, float b, float c) {
    float p = a * b;
    return p + c;
  }
  static float fused(float a, float b, float c) { return std::fma(a, b, c); }
};
template <> struct Host<double> {
  using Bits = uint64_t;
  static constexpr const char *name = "f64";
  static constexpr int precision = 53;
  static constexpr int leastNormalExponent = -1022;
  static double unfused(double a, double b, double c) {
    double p = a * b;
    return p + c;
  }
  static double fused(double a, double b, double c) { return std::fma(a, b, c); }
};

template <typename T> typename Host<T>::Bits bits(T v) {
  typename Host<T>::Bits b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

/// Distance in units in the last place between two values of one type
/// (ordered bit patterns; +0 and -0 are the same place).
template <typename T> uint64_t ulpDistance(T x, T y) {
  using Bits = typename Host<T>::Bits;
  constexpr Bits sign = Bits(1) << (8 * sizeof(Bits) - 1);
  auto ordered = [&](T v) -> int64_t {
    Bits b = bits(v);
    return (b & sign) ? -int64_t(b & ~sign) : int64_t(b);
  };
  // In unsigned arithmetic: the distance between values of opposite signs
  // overflows int64_t (UBSan, the ASan job).
  int64_t a = ordered(x), b = ordered(y);
  return a >= b ? uint64_t(a) - uint64_t(b) : uint64_t(b) - uint64_t(a);
}

constexpr uint32_t kCount = 1024, kSensitive = 64;

/// For i < n: out[i] = a*b+c, out[n+i] = math.fma(a, b, c), and with
/// `exp` out[2n+i] = exp(a). The inputs past the probe's random and chosen
/// ones make subnormal results (see runType), so one kernel per type
/// answers every numeric question: compiles are what probes cost.
std::string numericsKernel(const char *t, bool fastmath, bool exp) {
  std::string b = std::string("!xpu.buffer<") + t + ">";
  std::string ro = std::string("!xpu.buffer<") + t + ", ro>";
  std::string k = "xpu.kernel @numerics_" + std::string(t) + "(%out: " + b + ", %a: " + ro +
                  ", %b: " + ro + ", %c: " + ro + ")" +
                  (fastmath ? " attributes {fastmath}" : "") + " {\n"
                  "  %i = xpu.global_id x\n"
                  "  %n = xpu.buffer_size %a : " + ro + "\n"
                  "  %in = arith.cmpi ult, %i, %n : index\n"
                  "  scf.if %in {\n"
                  "    %av = xpu.load %a[%i] : " + ro + "\n"
                  "    %bv = xpu.load %b[%i] : " + ro + "\n"
                  "    %cv = xpu.load %c[%i] : " + ro + "\n"
                  "    %p = arith.mulf %av, %bv : " + t + "\n"
                  "    %r = arith.addf %p, %cv : " + t + "\n"
                  "    %f = math.fma %av, %bv, %cv : " + t + "\n"
                  "    xpu.store %r, %out[%i] : " + b + "\n"
                  "    %j = arith.addi %i, %n : index\n"
                  "    xpu.store %f, %out[%j] : " + b + "\n";
  if (exp)
    k += "    %e = math.exp %av : " + std::string(t) + "\n"
         "    %k = arith.addi %j, %n : index\n"
         "    xpu.store %e, %out[%k] : " + b + "\n";
  return k + "  }\n  xpu.return\n}\n";
}

Measurement absent(const char *name, const char *unit, std::string why) {
  return {name, std::nullopt, unit, std::move(why), now()};
}

/// What one type's probes found.
struct TypeResult {
  std::string contraction; ///< "" when a*b+c stayed apart, else what happened
  std::string contractionCounts;
  Measurement fma, subnormal;
  std::optional<Measurement> exp; ///< f32 with the math library only
};

template <typename T>
rt::Status runType(rt::Device &device, rt::Queue &queue, ProbeProgram &program,
                   const char *fmaName, const char *subName, bool withExp,
                   const std::string &where, TypeResult &out) {
  using H = Host<T>;
  // The first kSensitive inputs make a fused multiply-add round differently:
  // with s = 1 + k 2^-h (h = p/2 rounded up, k odd), s*s = 1 + 2k 2^-h +
  // k^2 2^-2h is not representable, so adding -(1 + 2k 2^-h) leaves the
  // rounding of the product unfused and exactly k^2 2^-2h fused.
  int h = (H::precision + 1) / 2;
  // Then: x0*x0 + 0 (normal operands, a subnormal product), x2*1 + x2 (a
  // sum of subnormal operands), and -90 (exp(-90) is subnormal in f32).
  int emin = H::leastNormalExponent, half = (emin - H::precision / 4 * 2) / 2;
  T x0 = T(std::ldexp(1.0, half)), x2 = T(std::ldexp(1.0, emin - 6));
  constexpr uint32_t kMul = kCount, kAdd = kCount + 1, kExp = kCount + 2, n = kCount + 3;
  std::vector<T> a(n), b(n), c(n), result((withExp ? 3 : 2) * n, T(-1));
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> d(-2.0, 2.0);
  for (uint32_t i = 0; i < kCount; ++i) {
    if (i < kSensitive) {
      double k = double(1 + 2 * (i % 4));
      a[i] = b[i] = T(1.0 + std::ldexp(k, -h));
      c[i] = T(-(1.0 + std::ldexp(2 * k, -h)));
    } else {
      a[i] = T(d(rng));
      b[i] = T(d(rng));
      c[i] = T(d(rng));
    }
  }
  a[kMul] = b[kMul] = x0;
  c[kMul] = T(0);
  a[kAdd] = c[kAdd] = x2;
  b[kAdd] = T(1);
  a[kExp] = T(-90.0);
  b[kExp] = T(1);
  c[kExp] = T(0);
  ProbeBuffer bo, ba, bb, bc;
  XPU_RETURN_IF_ERROR(makeBuffer(device, result, bo));
  XPU_RETURN_IF_ERROR(makeBuffer(device, a, ba));
  XPU_RETURN_IF_ERROR(makeBuffer(device, b, bb));
  XPU_RETURN_IF_ERROR(makeBuffer(device, c, bc));
  XPU_RETURN_IF_ERROR(program.run(queue, std::string("numerics_") + H::name, (n + 63) / 64, 64,
                                  {ProbeArg::of(bo), ProbeArg::of(ba), ProbeArg::of(bb),
                                   ProbeArg::of(bc)}));
  XPU_RETURN_IF_ERROR(readBuffer(device, bo, result));

  uint32_t contracted = 0, sensitiveContracted = 0, fmaDiffer = 0, fmaSensitiveDiffer = 0;
  uint64_t fmaMaxUlp = 0;
  for (uint32_t i = 0; i < kCount; ++i) {
    T unfused = H::unfused(a[i], b[i], c[i]), fused = H::fused(a[i], b[i], c[i]);
    if (bits(unfused) != bits(result[i])) {
      ++contracted;
      sensitiveContracted += i < kSensitive;
    }
    if (bits(fused) != bits(result[n + i])) {
      ++fmaDiffer;
      fmaSensitiveDiffer += i < kSensitive;
      if (i >= kSensitive) // the chosen inputs cancel to near zero
        fmaMaxUlp = std::max(fmaMaxUlp, ulpDistance(fused, result[n + i]));
    }
  }
  std::string counts = std::to_string(kCount) + " " + H::name + " inputs (" +
                       std::to_string(kSensitive) + " chosen so that fusing changes the "
                       "result, the others uniform in [-2, 2])";
  out.contractionCounts = std::string(H::name) + ": " +
                          std::to_string(kCount - contracted) + " of " +
                          std::to_string(kCount) + " a*b+c bit-identical to unfused rounding";
  if (contracted)
    out.contraction = std::string(H::name) + " a*b+c is contracted: " +
                      std::to_string(contracted) + " results differ from unfused rounding (" +
                      std::to_string(sensitiveContracted) + " of the " +
                      std::to_string(kSensitive) + " chosen ones)";
  std::string fmaEvidence =
      "math.fma on " + counts + where + ": " + std::to_string(kCount - fmaDiffer) + " of " +
      std::to_string(kCount) + " bit-identical to a correctly rounded fma";
  if (fmaDiffer)
    fmaEvidence += "; " + std::to_string(fmaSensitiveDiffer) + " of the chosen ones differ, "
                   "and the random ones by up to " + std::to_string(fmaMaxUlp) + " ULP";
  out.fma = {fmaName, fmaDiffer ? 0.0 : 1.0, "bool", fmaEvidence, now()};

  T wantMul = x0 * x0, wantAdd = x2 + x2;
  bool mulOk = bits(result[kMul]) == bits(wantMul), addOk = bits(result[kAdd]) == bits(wantAdd);
  auto show = [](T v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return std::string(buf);
  };
  std::string ev = std::string(H::name) + where + ": 2^" + std::to_string(half) + " * 2^" +
                   std::to_string(half) + " = " + show(result[kMul]) +
                   " (subnormal: " + show(wantMul) + "), 2^" + std::to_string(emin - 6) +
                   " + 2^" + std::to_string(emin - 6) + " = " + show(result[kAdd]) + " (" +
                   show(wantAdd) + ")";
  out.subnormal = {subName, mulOk && addOk ? 1.0 : 0.0, "bool", ev, now()};
  if (withExp) {
    // exp(-90) = 8.194e-40 is subnormal in f32; the math functions are
    // allowed some ULP of error, not a flush to zero.
    double want = std::exp(-90.0);
    T got = result[2 * n + kExp];
    bool kept = std::fabs(double(got) - want) <= 1e-3 * want;
    out.exp = Measurement{fact::subnormalExpF32, kept ? 1.0 : 0.0, "bool",
                          std::string(H::name) + where + ": exp(-90) = " + show(got) +
                              " (subnormal: " + show(T(want)) + ")",
                          now()};
  }
  return {};
}

} // namespace

ProbeTypes probeTypes(rt::Device &device) {
  cap::FactTable facts = cap::resolveFacts(device.target(), device.probeCapabilities());
  auto has = [&](Capability c) { return cap::permits(facts[size_t(c)].verdict); };
  ProbeTypes t;
  t.f16 = has(Capability::f16Arith) && has(Capability::f16Storage);
  t.f64 = has(Capability::f64Arith) && has(Capability::f64Storage);
  t.mathLibrary = has(Capability::mathLibrary);
  return t;
}

std::vector<Measurement> measureNumerics(rt::Device &device, const ProbeTypes &types,
                                         bool permitContraction,
                                         std::shared_ptr<ProbeProgram> *loopCounting) {
  std::string t32 = numericsKernel("f32", permitContraction, types.mathLibrary) +
                    (loopCounting ? loopCountKernel() : std::string());
  std::string t16 = numericsKernel("f16", permitContraction, false);
  std::string t64 = numericsKernel("f64", permitContraction, false);
  std::string where = " on " + device.label();

  std::vector<Measurement> out;
  auto failed = [&](const std::string &why) {
    out.clear();
    std::string e =
        kProbeFailed + std::string("the numeric probes did not run") + where + ": " + why;
    for (const char *n : {fact::contraction, fact::fmaF16, fact::fmaF32, fact::fmaF64,
                          fact::subnormalF16, fact::subnormalF32, fact::subnormalF64,
                          fact::subnormalExpF32})
      out.push_back(absent(n, "bool", e));
    return out;
  };
  // One module for every type (one compile: ptxas alone costs tens of ms);
  // when it does not build, one per type, so that a type the toolchain
  // cannot compile loses only its own facts.
  auto all = std::make_shared<ProbeProgram>(), p32 = std::make_shared<ProbeProgram>();
  ProbeProgram p16, p64;
  ProbeProgram *for16 = all.get(), *for64 = all.get();
  std::shared_ptr<ProbeProgram> for32 = all;
  std::string why16 = types.f16 ? "" : "the device has no f16 arithmetic";
  std::string why64 = types.f64 ? "" : "the device has no f64 arithmetic";
  if (!all->build(device, t32 + (types.f16 ? t16 : "") + (types.f64 ? t64 : ""),
                  "<numeric probes>")
           .isOk()) {
    if (rt::Status st = p32->build(device, t32, "<f32 numeric probes>"); !st.isOk())
      return failed(st.message());
    for32 = p32;
    // A type whose probe does not build is recorded as absent, and stored:
    // it depends on the device and toolchain, so measuring again would
    // only fail again (e.g. the CPU backend in a process that lacks the
    // f16 conversion routines of libgcc_s, as python3 does).
    if (rt::Status st; types.f16 && !(st = p16.build(device, t16, "<f16 numeric probes>")).isOk())
      why16 = "the f16 probe does not build" + where + ": " + st.message();
    for16 = &p16;
    if (rt::Status st; types.f64 && !(st = p64.build(device, t64, "<f64 numeric probes>")).isOk())
      why64 = "the f64 probe does not build" + where + ": " + st.message();
    for64 = &p64;
  }
  if (loopCounting)
    *loopCounting = for32;
  std::unique_ptr<rt::Queue> queue;
  if (rt::Status st = device.createQueue(queue); !st.isOk())
    return failed(st.message());

  std::vector<TypeResult> results;
  TypeResult r32, r16, r64;
  if (rt::Status st = runType<float>(device, *queue, *for32, fact::fmaF32, fact::subnormalF32,
                                     types.mathLibrary, where, r32);
      !st.isOk())
    return failed(st.message());
  results.push_back(r32);
  out.push_back(r32.fma);
  out.push_back(r32.subnormal);
  out.push_back(r32.exp ? *r32.exp
                        : absent(fact::subnormalExpF32, "bool",
                                 "the device's toolchain has no math library"));
  if (why16.empty()) {
    if (rt::Status st = runType<_Float16>(device, *queue, *for16, fact::fmaF16,
                                          fact::subnormalF16, false, where, r16);
        !st.isOk())
      return failed(st.message());
    results.push_back(r16);
    out.push_back(r16.fma);
    out.push_back(r16.subnormal);
  } else {
    out.push_back(absent(fact::fmaF16, "bool", why16));
    out.push_back(absent(fact::subnormalF16, "bool", why16));
  }
  if (why64.empty()) {
    if (rt::Status st = runType<double>(device, *queue, *for64, fact::fmaF64,
                                        fact::subnormalF64, false, where, r64);
        !st.isOk())
      return failed(st.message());
    results.push_back(r64);
    out.push_back(r64.fma);
    out.push_back(r64.subnormal);
  } else {
    out.push_back(absent(fact::fmaF64, "bool", why64));
    out.push_back(absent(fact::subnormalF64, "bool", why64));
  }

  // One contraction fact for all types: kept apart only if kept in each.
  std::string contracted, counts;
  for (const TypeResult &r : results) {
    counts += (counts.empty() ? "" : "; ") + r.contractionCounts;
    if (!r.contraction.empty())
      contracted += (contracted.empty() ? "" : "; ") + r.contraction;
  }
  out.push_back({fact::contraction, contracted.empty() ? 1.0 : 0.0, "bool",
                 "contraction probe" + where + ": " + counts + "; " + for32->toolchain() +
                     (contracted.empty() ? "" : "; " + contracted),
                 now()});
  return out;
}

} // namespace xpu::cal
