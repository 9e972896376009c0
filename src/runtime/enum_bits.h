// Reading enum arguments of the C API safely. A C caller may pass any
// 32-bit value for an enum parameter (a negative one, one past the last
// enumerator); in C++, loading an enum object that holds a value outside
// its range is undefined behaviour, so the C API reads the bits first and
// checks them against the enumerators before treating them as the enum.
#pragma once

#include <cstdint>
#include <cstring>

namespace xpu::rt {

/// The bits of an enum argument, read without an enum-typed load.
template <typename E> uint32_t enumBits(const E &value) {
  static_assert(sizeof(E) == sizeof(uint32_t), "C API enums are 32-bit");
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The largest value a C API enum can represent: their enumerators run
/// from 0 to 0x7FFFFFFF (the FORCE32 member), so their range is
/// [0, 2^31 - 1] and a negative value is outside it. Whether a value in the
/// range is a known enumerator is checked where it is used.
constexpr uint32_t kMaxEnumBits = 0x7FFFFFFFu;

} // namespace xpu::rt
