// Fuzz target: sequences of builder calls. The input is a program for a
// small interpreter: each step takes a call from one byte and its operands
// from the next bytes (values made so far, NULL or foreign values, types,
// enum values including negative and unknown ones, counts and lanes). The
// builder must refuse every misuse with a status and stay usable; a module
// it finishes is compiled for the CPU, and must not fail to parse or verify
// (the builder checks each operation as it is made).
#include "fuzz_common.h"
#include "raw_enums.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *const kTypes[] = {
    "i1", "i8", "i16", "i32", "i64", "index", "f16", "bf16", "f32", "f64",
    "vector<2xf32>", "vector<4xi32>", "vector<3xi64>", "vector<8xf64>",
    "!xpu.buffer<f32>", "!xpu.buffer<f32, ro>", "!xpu.buffer<i32>",
    "!xpu.buffer<i64, ro>", "!xpu.buffer<256xf32, shared>",
    "!xpu.buffer<4xi32, private>", "!xpu.buffer<0xf32, shared>", "f33",
    "vector<0xi32>", "", "!xpu.buffer<index>", "tensor<4xf32>"};
constexpr size_t kTypeCount = sizeof kTypes / sizeof kTypes[0];

const char *const kNames[] = {"k", "f", "g", "saxpy", "a", "x", "y", "n",
                              "", "9bad", "a b", "k$1.x"};
constexpr size_t kNameCount = sizeof kNames / sizeof kNames[0];

/// Reads the input a byte at a time; zeros once it runs out.
struct Reader {
  const uint8_t *p, *end;
  uint8_t byte() { return p < end ? *p++ : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v = v << 8 | byte();
    return v;
  }
  int64_t i64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v = v << 8 | byte();
    return int64_t(v);
  }
  bool done() const { return p >= end; }
};

/// An enum value: mostly small, sometimes negative or far out of range. It
/// stays an int: the calls that take enums go through raw_enums.c (C), as
/// a C++ enum cannot hold such values without undefined behaviour.
int32_t anEnum(Reader &r) {
  uint8_t b = r.byte();
  return b < 224 ? b % 20 : b < 240 ? -int32_t(b % 8) - 1 : int32_t(r.u32());
}

struct State {
  xpu_builder builder = nullptr, other = nullptr;
  std::vector<xpu_value> values;
  xpu_value otherValue = nullptr;

  /// A value operand: one made so far, or NULL, another builder's, or junk.
  xpu_value value(Reader &r) {
    uint8_t b = r.byte();
    if (b == 255)
      return nullptr;
    if (b == 254)
      return otherValue;
    if (b == 253)
      return reinterpret_cast<xpu_value>(uintptr_t(r.i64()));
    if (values.empty())
      return nullptr;
    return values[b % values.size()];
  }
  std::vector<xpu_value> valueList(Reader &r, size_t n) {
    std::vector<xpu_value> out;
    for (size_t i = 0; i < n; ++i)
      out.push_back(value(r));
    return out;
  }
  void made(xpu_status st, xpu_value v) {
    if (st == XPU_SUCCESS)
      values.push_back(v);
  }
};

void step(State &s, Reader &r) {
  xpu_builder b = s.builder;
  xpu_value v = nullptr;
  const char *type = kTypes[r.byte() % kTypeCount];
  switch (r.byte() % 40) {
  case 0: {
    xpu_kernel_attributes a = XPU_KERNEL_ATTRIBUTES_INIT;
    uint8_t flags = r.byte();
    const char *effects[] = {"DeviceDispatch", "DeviceCopyIn", "DeviceCopyOut", "bogus"};
    if (flags & 1)
      a.profile = (flags & 2) ? "deterministic-v1" : "portable";
    if (flags & 4)
      for (int d = 0; d < 3; ++d)
        a.workgroup_size[d] = r.byte() < 128 ? r.byte() : r.u32();
    if (flags & 8)
      for (int d = 0; d < 3; ++d)
        a.grid_size[d] = r.byte() < 128 ? r.byte() : r.u32();
    if (flags & 16) {
      a.effects = effects;
      a.effect_count = r.byte() % 5;
    }
    if (flags & 32)
      a.device = (flags & 64) ? "cpu" : "no-such-device:99";
    a.fastmath = flags >> 7;
    (void)xpu_builder_kernel_begin(b, kNames[r.byte() % kNameCount], &a);
    break;
  }
  case 1: (void)xpu_builder_func_begin(b, kNames[r.byte() % kNameCount]); break;
  case 2: s.made(xpu_builder_param(b, kNames[r.byte() % kNameCount], type, &v), v); break;
  case 3: {
    auto vals = s.valueList(r, r.byte() % 3);
    (void)xpu_builder_return(b, vals.data(), vals.size());
    break;
  }
  case 4: s.made(xpu_builder_constant_int(b, type, r.i64(), &v), v); break;
  case 5: {
    double d;
    int64_t bits = r.i64();
    std::memcpy(&d, &bits, sizeof d);
    s.made(xpu_builder_constant_float(b, type, d, &v), v);
    break;
  }
  case 6: {
    int32_t op = anEnum(r);
    xpu_value x = s.value(r), y = s.value(r);
    s.made(raw_binary(b, op, x, y, &v), v);
    break;
  }
  case 7: {
    int32_t op = anEnum(r);
    s.made(raw_unary(b, op, s.value(r), &v), v);
    break;
  }
  case 8: {
    xpu_value x = s.value(r), y = s.value(r), z = s.value(r);
    s.made(xpu_builder_fma(b, x, y, z, &v), v);
    break;
  }
  case 9: {
    int32_t op = anEnum(r);
    xpu_value x = s.value(r), y = s.value(r);
    s.made(raw_compare(b, op, x, y, &v), v);
    break;
  }
  case 10: {
    xpu_value c = s.value(r), x = s.value(r), y = s.value(r);
    s.made(xpu_builder_select(b, c, x, y, &v), v);
    break;
  }
  case 11: {
    int32_t op = anEnum(r);
    s.made(raw_cast(b, op, s.value(r), type, &v), v);
    break;
  }
  case 12: s.made(xpu_builder_broadcast(b, s.value(r), r.byte() % 70, &v), v); break;
  case 13: s.made(xpu_builder_extract(b, s.value(r), r.byte() % 9, &v), v); break;
  case 14: {
    xpu_value x = s.value(r), y = s.value(r);
    s.made(xpu_builder_insert(b, x, y, r.byte() % 9, &v), v);
    break;
  }
  case 15: {
    int32_t which = anEnum(r);
    s.made(raw_coordinate(b, which, r.byte() % 5, &v), v);
    break;
  }
  case 16: {
    xpu_value buf = s.value(r), i = s.value(r);
    s.made(xpu_builder_load(b, buf, i, r.byte() % 7, &v), v);
    break;
  }
  case 17: {
    xpu_value x = s.value(r), buf = s.value(r), i = s.value(r);
    (void)xpu_builder_store(b, x, buf, i);
    break;
  }
  case 18: s.made(xpu_builder_buffer_size(b, s.value(r), &v), v); break;
  case 19: s.made(xpu_builder_alloc(b, type, &v), v); break;
  case 20: (void)xpu_builder_barrier(b); break;
  case 21: {
    int32_t op = anEnum(r), order = anEnum(r), scope = anEnum(r);
    xpu_value x = s.value(r), buf = s.value(r), i = s.value(r);
    s.made(raw_atomic(b, op, order, scope, x, buf, i, &v), v);
    break;
  }
  case 22: {
    int32_t op = anEnum(r), order = anEnum(r);
    s.made(raw_reduce(b, op, order, s.value(r), &v), v);
    break;
  }
  case 23: {
    auto args = s.valueList(r, r.byte() % 4);
    size_t results = r.byte() % 3;
    std::vector<xpu_value> out(results);
    if (xpu_builder_call(b, kNames[r.byte() % kNameCount], args.data(), args.size(),
                         out.data(), results) == XPU_SUCCESS)
      s.values.insert(s.values.end(), out.begin(), out.end());
    break;
  }
  case 24: (void)xpu_builder_if_begin(b, s.value(r)); break;
  case 25: {
    auto y = s.valueList(r, r.byte() % 3);
    (void)xpu_builder_else(b, y.data(), y.size());
    break;
  }
  case 26: {
    auto y = s.valueList(r, r.byte() % 3);
    std::vector<xpu_value> out(y.size());
    if (xpu_builder_if_end(b, y.data(), y.size(), out.data()) == XPU_SUCCESS)
      s.values.insert(s.values.end(), out.begin(), out.end());
    break;
  }
  case 27: {
    xpu_value lo = s.value(r), hi = s.value(r), st = s.value(r);
    auto inits = s.valueList(r, r.byte() % 3);
    std::vector<xpu_value> iter(inits.size());
    xpu_value iv = nullptr;
    if (xpu_builder_for_begin(b, lo, hi, st, inits.data(), inits.size(), &iv,
                              iter.data()) == XPU_SUCCESS) {
      s.values.push_back(iv);
      s.values.insert(s.values.end(), iter.begin(), iter.end());
    }
    break;
  }
  case 28: {
    auto y = s.valueList(r, r.byte() % 3);
    std::vector<xpu_value> out(y.size());
    if (xpu_builder_for_end(b, y.data(), y.size(), out.data()) == XPU_SUCCESS)
      s.values.insert(s.values.end(), out.begin(), out.end());
    break;
  }
  case 29: {
    auto inits = s.valueList(r, r.byte() % 3);
    std::vector<xpu_value> args(inits.size());
    if (xpu_builder_while_begin(b, inits.data(), inits.size(), args.data()) ==
        XPU_SUCCESS)
      s.values.insert(s.values.end(), args.begin(), args.end());
    break;
  }
  case 30: {
    xpu_value c = s.value(r);
    auto passed = s.valueList(r, r.byte() % 3);
    std::vector<xpu_value> args(passed.size());
    if (xpu_builder_while_do(b, c, passed.data(), passed.size(), args.data()) ==
        XPU_SUCCESS)
      s.values.insert(s.values.end(), args.begin(), args.end());
    break;
  }
  case 31: {
    auto y = s.valueList(r, r.byte() % 3);
    size_t results = r.byte() % 3;
    std::vector<xpu_value> out(results);
    if (xpu_builder_while_end(b, y.data(), y.size(), out.data(), results) ==
        XPU_SUCCESS)
      s.values.insert(s.values.end(), out.begin(), out.end());
    break;
  }
  case 32: {
    const char *t = nullptr;
    (void)xpu_builder_value_type(b, s.value(r), &t);
    break;
  }
  // Wave operations (34-39; 33 stays the print call the seeds use).
  case 34: {
    int32_t mode = anEnum(r);
    xpu_value x = s.value(r), k = s.value(r);
    s.made(raw_wave_shuffle(b, mode, x, k, &v), v);
    break;
  }
  case 35: {
    xpu_value x = s.value(r), lane = s.value(r);
    s.made(xpu_builder_wave_broadcast(b, x, lane, &v), v);
    break;
  }
  case 36: s.made(xpu_builder_wave_ballot(b, s.value(r), &v), v); break;
  case 37: {
    int32_t vote = anEnum(r);
    s.made(raw_wave_vote(b, vote, s.value(r), &v), v);
    break;
  }
  case 38: {
    int32_t op = anEnum(r);
    s.made(raw_wave_reduce(b, op, s.value(r), &v), v);
    break;
  }
  case 39: {
    int32_t op = anEnum(r), scan = anEnum(r);
    s.made(raw_wave_scan(b, op, scan, s.value(r), &v), v);
    break;
  }
  default: {
    const char *text = nullptr;
    (void)xpu_builder_print(b, &text);
    break;
  }
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz::session(); // the context before the first input, not during it
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Session &session = fuzz::session();
  State s;
  if (xpu_builder_create(session.ctx, &s.builder) != XPU_SUCCESS ||
      xpu_builder_create(session.ctx, &s.other) != XPU_SUCCESS)
    std::abort();
  (void)xpu_builder_kernel_begin(s.other, "other", nullptr);
  (void)xpu_builder_coordinate(s.other, XPU_COORD_GLOBAL_ID, 0, &s.otherValue);

  Reader r{data, data + size};
  for (int steps = 0; !r.done() && steps < 256; ++steps)
    step(s, r);

  const char *text = nullptr;
  if (xpu_builder_print(s.builder, &text) != XPU_SUCCESS || !text)
    std::abort();
  std::string printed = text; // valid only until the builder's next call
  xpu_module module = nullptr;
  xpu_status st = xpu_builder_finish(s.builder, session.cpu, nullptr, &module, nullptr);
  if (st == XPU_ERROR_PARSE || st == XPU_ERROR_INTERNAL) {
    std::fprintf(stderr, "the builder made IR that does not verify: %s\n%s\n",
                 xpu_last_error_message(), printed.c_str());
    std::abort();
  }
  if (st == XPU_SUCCESS)
    xpu_module_release(module);
  xpu_builder_release(s.builder);
  xpu_builder_release(s.other);
  return 0;
}
