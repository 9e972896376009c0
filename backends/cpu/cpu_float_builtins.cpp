// f16/bf16 conversions for CPU kernels; see cpu_float_builtins.h. Each
// rounds once, to nearest even, from the exact value (f64 -> f16 directly,
// not through f32), as the IEEE conversions do.
#include "cpu_float_builtins.h"

#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace xpu::cpu {
namespace {

/// A binary format with `mantissa` stored bits and exponent bias `bias`.
struct Format {
  int mantissa, bias;
  uint16_t infinity, quietNaN;
};
constexpr Format kHalf{10, 15, 0x7c00, 0x7e00};
constexpr Format kBFloat{7, 127, 0x7f80, 0x7fc0};

/// The bits of `d` rounded to `f` (round to nearest, ties to even).
uint16_t roundTo(double d, const Format &f) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  uint16_t sign = uint16_t((bits >> 48) & 0x8000);
  double a = std::fabs(d);
  if (std::isnan(d)) // quiet, with the payload's top bits
    return sign | f.quietNaN | uint16_t((bits & 0x000fffffffffffffull) >> (52 - f.mantissa));
  const int minExponent = 1 - f.bias, maxExponent = f.bias;
  // At or above the midpoint between the largest finite value and 2^(max+1)
  // rounds to infinity (the largest finite mantissa is odd).
  if (a >= std::ldexp(2.0 - std::ldexp(1.0, -f.mantissa - 1), maxExponent))
    return sign | f.infinity;
  if (a < std::ldexp(1.0, minExponent)) // subnormal (or zero): units of 2^(min - m)
    return sign | uint16_t(std::nearbyint(std::ldexp(a, f.mantissa - minExponent)));
  int e;
  std::frexp(a, &e); // a = [0.5, 1) * 2^e
  int exponent = e - 1;
  // In [2^m, 2^(m+1)]; 2^(m+1) carries into the exponent field by itself.
  uint32_t m = uint32_t(std::nearbyint(std::ldexp(a, f.mantissa - exponent)));
  return sign | uint16_t((uint32_t(exponent + f.bias) << f.mantissa) + m - (1u << f.mantissa));
}

extern "C" _Float16 xpuTruncDoubleToHalf(double d) {
  return __builtin_bit_cast(_Float16, roundTo(d, kHalf));
}
extern "C" _Float16 xpuTruncFloatToHalf(float f) {
  return __builtin_bit_cast(_Float16, roundTo(f, kHalf));
}
extern "C" __bf16 xpuTruncDoubleToBFloat(double d) {
  return __builtin_bit_cast(__bf16, roundTo(d, kBFloat));
}
extern "C" __bf16 xpuTruncFloatToBFloat(float f) {
  return __builtin_bit_cast(__bf16, roundTo(f, kBFloat));
}
extern "C" float xpuExtendHalfToFloat(_Float16 h) {
  uint16_t bits = __builtin_bit_cast(uint16_t, h);
  float sign = bits & 0x8000 ? -1.0f : 1.0f;
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f) {
    if (!mantissa)
      return sign * INFINITY;
    uint32_t nan = (uint32_t(bits & 0x8000) << 16) | 0x7fc00000u | (uint32_t(mantissa) << 13);
    return __builtin_bit_cast(float, nan);
  }
  if (exponent == 0)
    return sign * std::ldexp(float(mantissa), -24);
  return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

} // namespace

void defineFloatBuiltins(llvm::orc::LLJIT &jit) {
  auto entry = [&](const char *name, auto *fn) {
    return std::pair(jit.mangleAndIntern(name),
                     llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(fn),
                                                  llvm::JITSymbolFlags::Exported));
  };
  llvm::orc::SymbolMap symbols;
  symbols.insert(entry("__truncdfhf2", &xpuTruncDoubleToHalf));
  symbols.insert(entry("__truncsfhf2", &xpuTruncFloatToHalf));
  symbols.insert(entry("__extendhfsf2", &xpuExtendHalfToFloat));
  symbols.insert(entry("__truncdfbf2", &xpuTruncDoubleToBFloat));
  symbols.insert(entry("__truncsfbf2", &xpuTruncFloatToBFloat));
  llvm::consumeError(jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))));
}

} // namespace xpu::cpu
