// Conformance: a kernel taking a plain struct by value (spec 17.4) — five
// fields of different types, C layout — on fresh random data, every element
// checked; the kernel's struct as the C API describes it; and a host struct
// of the wrong size or field order refused naming what differs.
#include "surface.h"
#include "surface_kernels.h"

#include <cstddef>
#include <cstring>

using namespace conf;
using namespace conf::surface;

TEST_SUITE_BEGIN("surface");

namespace {

/// The kernel's struct as a C host declares it.
struct Params {
  float scale;
  int32_t n;
  float shift[3];
  bool negate;
  int64_t seed;
};
static_assert(offsetof(Params, shift) == 8 && offsetof(Params, negate) == 20 &&
                  offsetof(Params, seed) == 24 && sizeof(Params) == 32,
              "C layout of the test struct");

const xpu_struct_field kParamsLayout[] = {
    {"scale", XPU_TYPE_F32, 1, offsetof(Params, scale)},
    {"n", XPU_TYPE_I32, 1, offsetof(Params, n)},
    {"shift", XPU_TYPE_F32, 3, offsetof(Params, shift)},
    {"negate", XPU_TYPE_BOOL, 1, offsetof(Params, negate)},
    {"seed", XPU_TYPE_I64, 1, offsetof(Params, seed)},
};


xpu_arg describedStruct(const Params &p, const xpu_struct_field *fields, uint32_t count) {
  xpu_arg a = xpu_arg_struct(&p, sizeof p);
  a.v.structure.fields = fields;
  a.v.structure.field_count = count;
  return a;
}

} // namespace

TEST_CASE("a kernel takes a 5-field struct by value, laid out as C lays it out") {
  Module m(kStructKernel);
  xpu_kernel k = m.kernel("affine");
  uint32_t count = 0;
  XPU_OK(xpu_kernel_param_count(k, &count));
  CHECK(count == 3);
  xpu_param_info info;
  XPU_OK(xpu_kernel_param(k, 2, &info));
  CHECK(info.kind == XPU_PARAM_STRUCT);
  CHECK(std::string(info.name) == "p");
  size_t bytes = 0;
  uint32_t fields = 0;
  XPU_OK(xpu_kernel_struct_layout(k, 2, &bytes, &fields));
  CHECK(bytes == sizeof(Params));
  REQUIRE(fields == 5);
  for (uint32_t f = 0; f < fields; ++f) {
    xpu_struct_field field;
    XPU_OK(xpu_kernel_struct_field(k, 2, f, &field));
    CHECK(std::string(field.name) == kParamsLayout[f].name);
    CHECK(field.type == kParamsLayout[f].type);
    CHECK(field.lanes == kParamsLayout[f].lanes);
    CHECK(field.offset == kParamsLayout[f].offset);
  }
  CHECK(xpu_kernel_struct_layout(k, 0, &bytes, &fields) == XPU_ERROR_INVALID_ARGUMENT);

  for (bool describe : {true, false}) {
    const uint32_t n = 5003;
    auto in = randomFloats(n + 1, -10, 10);
    auto r = randomFloats(4, -5, 5);
    Params p{r[0], int32_t(n), {r[1], r[2], r[3]}, randomInts<int>(1, 0, 1)[0] == 1,
             randomInts<int64_t>(1, INT64_MIN, INT64_MAX)[0]};
    std::vector<float> sentinel(n + 1, 1234.5f);
    Buffer out = Buffer::from(sentinel), bin = Buffer::from(in);
    run(k, {(n + 127) / 128}, {128},
        {xpu_arg_buffer(out.handle), xpu_arg_buffer(bin.handle),
         describe ? describedStruct(p, kParamsLayout, 5) : xpu_arg_struct(&p, sizeof p)});
    auto got = out.read<float>();
    size_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) {
      float y = in[i] * p.scale + p.shift[i % 3];
      float want = (p.negate ? -y : y) + float(uint32_t(p.seed) & 255);
      if (std::memcmp(&got[i], &want, 4) != 0 && bad++ < 5)
        FAIL_CHECK("element " << i << ": " << got[i] << " != " << want);
    }
    CHECK(bad == 0);
    CHECK(got[n] == 1234.5f);
  }
}

TEST_CASE("a struct of the wrong size or field order is an argument mismatch naming it") {
  Module m(kStructKernel);
  xpu_kernel k = m.kernel("affine");
  Buffer out(64 * 4), in(64 * 4);
  Params p{};
  auto launch = [&](xpu_arg a) {
    uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
    xpu_arg args[] = {xpu_arg_buffer(out.handle), xpu_arg_buffer(in.handle), a};
    return xpu_launch(k, nullptr, grid, block, args, 3);
  };
  // A struct without its last field.
  CHECK(launch(xpu_arg_struct(&p, offsetof(Params, seed))) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(std::string(xpu_last_error_message()).find("24 bytes") != std::string::npos);
  // The first two fields swapped in the host's declaration (same size).
  xpu_struct_field swapped[5];
  std::memcpy(swapped, kParamsLayout, sizeof swapped);
  std::swap(swapped[0].name, swapped[1].name);
  std::swap(swapped[0].type, swapped[1].type);
  CHECK(launch(describedStruct(p, swapped, 5)) == XPU_ERROR_ARGUMENT_MISMATCH);
  std::string why = xpu_last_error_message();
  INFO(why);
  CHECK(why.find("field 0 is 'scale'") != std::string::npos);
  CHECK(why.find("'n'") != std::string::npos);
  // A field at another offset, and one field too few.
  std::memcpy(swapped, kParamsLayout, sizeof swapped);
  swapped[4].offset = 28;
  CHECK(launch(describedStruct(p, swapped, 5)) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(std::string(xpu_last_error_message()).find("'seed'") != std::string::npos);
  CHECK(launch(describedStruct(p, kParamsLayout, 4)) == XPU_ERROR_ARGUMENT_MISMATCH);
  // Not a struct at all, and a NULL struct.
  CHECK(launch(xpu_arg_i32(3)) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(launch(xpu_arg_struct(nullptr, sizeof p)) == XPU_ERROR_ARGUMENT_MISMATCH);
  XPU_OK(launch(describedStruct(p, kParamsLayout, 5)));
  XPU_OK(xpu_stream_synchronize(defaultStream()));
}

TEST_CASE("deterministic-v1 refuses struct parameters (GC004: a non-buffer aggregate)") {
  std::string text = R"(
    xpu.kernel @k(%out: !xpu.buffer<64xi32>, %p: !xpu.struct<"P", a: i32, b: i32>)
        attributes {profile = "deterministic-v1", workgroup_size = array<i64: 64>,
                    grid_size = array<i64: 1>} {
      xpu.return
    })";
  checkSays(text, XPU_ERROR_REFUSED, "XPU-GC004");
}

TEST_SUITE_END();
