// `xpujit run --arg` specifications: parsing, buffer fills, and printing
// elements.
#include "cli.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>

namespace cli {

namespace {

std::optional<xpu_type> typeNamed(const std::string &name) {
  static const std::pair<const char *, xpu_type> names[] = {
      {"bool", XPU_TYPE_BOOL}, {"i8", XPU_TYPE_I8},     {"i16", XPU_TYPE_I16},
      {"i32", XPU_TYPE_I32},   {"u32", XPU_TYPE_I32},   {"i64", XPU_TYPE_I64},
      {"u64", XPU_TYPE_I64},   {"f16", XPU_TYPE_F16},   {"bf16", XPU_TYPE_BF16},
      {"f32", XPU_TYPE_F32},   {"f64", XPU_TYPE_F64}};
  for (auto &[n, t] : names)
    if (name == n)
      return t;
  return std::nullopt;
}

bool isFloat(xpu_type t) {
  return t == XPU_TYPE_F16 || t == XPU_TYPE_BF16 || t == XPU_TYPE_F32 ||
         t == XPU_TYPE_F64;
}

uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFF;
  if (((x >> 23) & 0xFF) == 0xFF)
    return uint16_t(sign | 0x7C00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return uint16_t(sign | 0x7C00);
  if (exp <= 0) {
    if (exp < -10)
      return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    if ((mant >> (shift - 1)) & 1)
      ++half; // round half up (good enough for test fills)
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
  if (mant & 0x1000)
    ++half;
  return uint16_t(half);
}

float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  uint32_t x;
  if (exp == 0) {
    if (!mant) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7F800000 | (mant << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t toBF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return uint16_t((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

float fromBF16(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// Stores `v` as element `i` of a buffer of `type`.
void store(xpu_type type, uint8_t *bytes, uint64_t i, double v) {
  switch (type) {
  case XPU_TYPE_BOOL: bytes[i] = v != 0; break;
  case XPU_TYPE_I8: reinterpret_cast<int8_t *>(bytes)[i] = int8_t(int64_t(v)); break;
  case XPU_TYPE_I16: reinterpret_cast<int16_t *>(bytes)[i] = int16_t(int64_t(v)); break;
  case XPU_TYPE_I32: reinterpret_cast<int32_t *>(bytes)[i] = int32_t(int64_t(v)); break;
  case XPU_TYPE_I64: // values from 2^63 on are read as unsigned
    reinterpret_cast<uint64_t *>(bytes)[i] = v >= 0x1p63 ? uint64_t(v) : uint64_t(int64_t(v));
    break;
  case XPU_TYPE_F16: reinterpret_cast<uint16_t *>(bytes)[i] = toHalf(float(v)); break;
  case XPU_TYPE_BF16: reinterpret_cast<uint16_t *>(bytes)[i] = toBF16(float(v)); break;
  case XPU_TYPE_F32: reinterpret_cast<float *>(bytes)[i] = float(v); break;
  case XPU_TYPE_F64: reinterpret_cast<double *>(bytes)[i] = v; break;
  default: break;
  }
}

} // namespace

std::optional<uint64_t> parseCount(const std::string &text, uint64_t max) {
  if (text.empty() || text.size() > 20)
    return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > (max - unsigned(c - '0')) / 10)
      return std::nullopt;
    v = v * 10 + unsigned(c - '0');
  }
  return v;
}

namespace {

/// Why `text` is not a value of `type`, or "": integers must be whole and
/// fit the width read as signed or unsigned; floats must be numbers.
std::string checkValue(xpu_type type, const std::string &text) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end)
    return "'" + text + "' is not a number";
  if (type == XPU_TYPE_F16 || type == XPU_TYPE_BF16 || type == XPU_TYPE_F32 ||
      type == XPU_TYPE_F64)
    return "";
  unsigned bits = type == XPU_TYPE_BOOL ? 1 : unsigned(xpu_type_size(type)) * 8;
  double lo = type == XPU_TYPE_BOOL ? 0 : -std::ldexp(1.0, int(bits) - 1);
  double hi = std::ldexp(1.0, int(bits)) - 1;
  bool fits = v == std::trunc(v) && v >= lo && v < std::ldexp(1.0, int(bits));
  if (fits && text.find_first_of(".eEpP") == std::string::npos) {
    // Whole numbers exactly: as a double, 2^64 would round into range.
    errno = 0;
    if (text[0] == '-') {
      long long n = std::strtoll(text.c_str(), nullptr, 0);
      fits = errno == 0 && n >= int64_t(lo);
    } else {
      unsigned long long n = std::strtoull(text.c_str(), nullptr, 0);
      fits = errno == 0 && (bits == 64 || n <= uint64_t(hi));
    }
  }
  if (!fits)
    return "'" + text + "' is not a " + std::string(xpu_type_name(type)) +
           " value (a whole number from " + std::to_string(int64_t(lo)) + " to " +
           (bits == 64 ? std::string("2^64 - 1") : std::to_string(uint64_t(hi))) + ")";
  return "";
}

} // namespace

std::string parseArgSpec(const std::string &text, ArgSpec &out) {
  out = ArgSpec();
  out.text = text;
  size_t colon = text.find(':');
  if (colon == std::string::npos)
    return "expected TYPE:VALUE, buf:TYPE[COUNT][=FILL] or view:TYPE[AxB..][=FILL], "
           "got '" + text + "'";
  std::string head = text.substr(0, colon), rest = text.substr(colon + 1);
  out.isView = head == "view";
  if (head != "buf" && head != "view") {
    auto t = typeNamed(head);
    if (!t)
      return "unknown scalar type '" + head +
             "' (bool, i8, i16, i32, u32, i64, u64, f16, bf16, f32, f64)";
    out.type = *t;
    out.scalar = rest;
    std::string bad = checkValue(out.type, rest);
    return bad.empty() ? "" : "scalar value " + bad;
  }
  out.isBuffer = true;
  size_t lb = rest.find('['), rb = rest.find(']');
  if (lb == std::string::npos || rb == std::string::npos || rb < lb)
    return "buffer spec needs an element count: buf:TYPE[COUNT], got '" + text + "'";
  auto t = typeNamed(rest.substr(0, lb));
  if (!t)
    return "unknown element type '" + rest.substr(0, lb) + "'";
  out.type = *t;
  std::string count = rest.substr(lb + 1, rb - lb - 1);
  // The buffer's bytes must fit a size_t.
  uint64_t maxCount = SIZE_MAX / xpu_type_size(out.type);
  if (out.isView) {
    // AxBxC: the view's sizes, at most XPU_VIEW_MAX_RANK of them.
    out.count = 1;
    size_t start = 0;
    while (true) {
      size_t x = count.find('x', start);
      std::string size = count.substr(start, x == std::string::npos ? x : x - start);
      auto n = parseCount(size, INT64_MAX);
      if (!n)
        return "view size '" + size + "' is not a positive number";
      out.shape.push_back(int64_t(*n));
      if (*n && out.count > maxCount / *n)
        return "view sizes '" + count + "' make more elements than a buffer can hold (" +
               std::to_string(maxCount) + ")";
      out.count *= *n;
      if (x == std::string::npos)
        break;
      start = x + 1;
    }
    if (out.shape.size() > XPU_VIEW_MAX_RANK)
      return "a view has at most " + std::to_string(XPU_VIEW_MAX_RANK) + " sizes";
  } else {
    auto n = parseCount(count, maxCount);
    if (!n)
      return "element count '" + count + "' is not a number of elements (at most " +
             std::to_string(maxCount) + ")";
    out.count = *n;
  }
  if (out.count == 0)
    return "element count must be at least 1";
  std::string tail = rest.substr(rb + 1);
  if (!tail.empty()) {
    if (tail[0] != '=')
      return "expected '=FILL' after the count, got '" + tail + "'";
    out.fill = tail.substr(1);
    if (out.fill != "zero" && out.fill != "iota" && out.fill != "rand" &&
        out.fill.rfind("value:", 0) != 0)
      return "unknown fill '" + out.fill + "' (zero, iota, rand, value:V)";
    if (out.fill.rfind("value:", 0) == 0) {
      std::string bad = checkValue(out.type, out.fill.substr(6));
      if (!bad.empty())
        return "fill value " + bad;
    }
  }
  return "";
}

std::string fillBuffer(const ArgSpec &spec, uint64_t seed,
                       std::vector<uint8_t> &bytes) {
  size_t elem = xpu_type_size(spec.type);
  try {
    bytes.assign(spec.count * elem, 0);
  } catch (const std::bad_alloc &) {
    return "cannot allocate " + std::to_string(spec.count * elem) + " bytes of host memory";
  }
  if (spec.fill == "zero")
    return "";
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < spec.count; ++i) {
    double v;
    if (spec.fill == "iota")
      v = double(i);
    else if (spec.fill == "rand")
      v = isFloat(spec.type)
              ? std::uniform_real_distribution<double>(-1.0, 1.0)(rng)
              : spec.type == XPU_TYPE_BOOL
                    ? double(rng() & 1)
                    : double(std::uniform_int_distribution<int64_t>(-100, 100)(rng));
    else
      v = std::strtod(spec.fill.c_str() + 6, nullptr);
    store(spec.type, bytes.data(), i, v);
  }
  return "";
}

std::string formatElement(xpu_type type, const uint8_t *bytes, uint64_t i) {
  char buf[64];
  switch (type) {
  case XPU_TYPE_BOOL: return bytes[i] ? "true" : "false";
  case XPU_TYPE_I8: return std::to_string(reinterpret_cast<const int8_t *>(bytes)[i]);
  case XPU_TYPE_I16: return std::to_string(reinterpret_cast<const int16_t *>(bytes)[i]);
  case XPU_TYPE_I32: return std::to_string(reinterpret_cast<const int32_t *>(bytes)[i]);
  case XPU_TYPE_I64: return std::to_string(reinterpret_cast<const int64_t *>(bytes)[i]);
  case XPU_TYPE_F16:
    std::snprintf(buf, sizeof buf, "%g", fromHalf(reinterpret_cast<const uint16_t *>(bytes)[i]));
    return buf;
  case XPU_TYPE_BF16:
    std::snprintf(buf, sizeof buf, "%g", fromBF16(reinterpret_cast<const uint16_t *>(bytes)[i]));
    return buf;
  case XPU_TYPE_F32:
    std::snprintf(buf, sizeof buf, "%.9g", reinterpret_cast<const float *>(bytes)[i]);
    return buf;
  case XPU_TYPE_F64:
    std::snprintf(buf, sizeof buf, "%.17g", reinterpret_cast<const double *>(bytes)[i]);
    return buf;
  default:
    return "?";
  }
}

/// The launch argument for a scalar spec.
xpu_arg scalarArg(const ArgSpec &spec) {
  xpu_arg a{};
  a.kind = XPU_PARAM_SCALAR;
  a.type = spec.type;
  a.lanes = 1;
  double v = std::strtod(spec.scalar.c_str(), nullptr);
  if (spec.type == XPU_TYPE_I64 && spec.scalar.find_first_of(".eE") == std::string::npos)
    a.v.i64 = spec.scalar[0] == '-'
                  ? std::strtoll(spec.scalar.c_str(), nullptr, 0)
                  : int64_t(std::strtoull(spec.scalar.c_str(), nullptr, 0));
  else
    store(spec.type, a.v.bytes, 0, v);
  return a;
}

} // namespace cli
