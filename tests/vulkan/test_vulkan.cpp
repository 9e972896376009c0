// Vulkan-specific behavior, through the C API on the Vulkan device (the
// conformance harness with XPU_TEST_BACKEND=vulkan; no device: skipped):
// the argument block in push constants and its uniform-buffer fallback,
// narrow scalar parameters, subgroup coordinates, resource lifetimes, and
// refusals of kernels the device cannot run.
#include "../conformance/harness.h"

#include <cstdlib>

using namespace conf;

namespace {

std::string lastMessage() { return xpu_last_error_message(); }

/// Compiles `text` on the device under test; returns the status and keeps
/// the message.
xpu_status tryCompile(const std::string &text) {
  xpu_module mod = nullptr;
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(),
                                    text.size(), nullptr, &mod, nullptr);
  xpu_module_release(mod);
  return st;
}

xpu_arg scalar(xpu_type type, const void *value, size_t bytes, uint32_t lanes = 1) {
  xpu_arg a{};
  a.kind = XPU_PARAM_SCALAR;
  a.type = type;
  a.lanes = lanes;
  std::memcpy(a.v.bytes, value, bytes);
  return a;
}

} // namespace

TEST_CASE("scalar arguments past maxPushConstantsSize go through a uniform buffer") {
  // 80 f32 scalars and a buffer's count: 324 bytes, beyond the push-constant
  // room of lavapipe (128) and of NVIDIA (256), so the block is a uniform
  // buffer at binding B + 1.
  const int n = 80;
  std::string params, body;
  for (int k = 0; k < n; ++k) {
    params += ", %s" + std::to_string(k) + ": f32";
    body += "  %c" + std::to_string(k) + " = arith.constant " + std::to_string(k) +
            " : index\n  xpu.store %s" + std::to_string(k) + ", %out[%c" +
            std::to_string(k) + "] : !xpu.buffer<f32>\n";
  }
  Module m("xpu.kernel @many(%out: !xpu.buffer<f32>" + params + ") {\n" + body +
           "  xpu.return\n}\n");
  // Two launches in flight at once, each with its own block.
  std::vector<float> values[2] = {randomFloats(n), randomFloats(n)};
  Buffer outs[2] = {Buffer(n * 4), Buffer(n * 4)};
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  for (int r = 0; r < 2; ++r) {
    std::vector<xpu_arg> args{xpu_arg_buffer(outs[r].handle)};
    for (float v : values[r])
      args.push_back(xpu_arg_f32(v));
    XPU_OK(xpu_launch(m.kernel("many"), nullptr, grid, block, args.data(), args.size()));
  }
  XPU_OK(xpu_stream_synchronize(defaultStream()));
  CHECK(outs[0].read<float>() == values[0]);
  CHECK(outs[1].read<float>() == values[1]);
}

TEST_CASE("8- and 16-bit, bool and f16 scalars arrive widened and come back exact") {
  Module m(R"(
    xpu.kernel @narrow(%o8: !xpu.buffer<i8>, %o16: !xpu.buffer<i16>,
                       %ob: !xpu.buffer<i1>, %oh: !xpu.buffer<f16>,
                       %ov: !xpu.buffer<i16>,
                       %a: i8, %b: i16, %c: i1, %h: f16, %v: vector<3xi16>) {
      %c0 = arith.constant 0 : index
      xpu.store %a, %o8[%c0] : !xpu.buffer<i8>
      xpu.store %b, %o16[%c0] : !xpu.buffer<i16>
      xpu.store %c, %ob[%c0] : !xpu.buffer<i1>
      xpu.store %h, %oh[%c0] : !xpu.buffer<f16>
      %v0 = vector.extract %v[0] : i16 from vector<3xi16>
      %v1 = vector.extract %v[1] : i16 from vector<3xi16>
      %v2 = vector.extract %v[2] : i16 from vector<3xi16>
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      xpu.store %v0, %ov[%c0] : !xpu.buffer<i16>
      xpu.store %v1, %ov[%c1] : !xpu.buffer<i16>
      xpu.store %v2, %ov[%c2] : !xpu.buffer<i16>
      xpu.return
    })");
  Buffer o8(1), o16(2), ob(1), oh(2), ov(6);
  int8_t a = -77;
  int16_t b = -31000;
  uint8_t c = 1;
  uint16_t h = 0xBC00; // -1.0 in f16
  int16_t v[3] = {-1, 12345, -32768};
  run(m.kernel("narrow"), {1}, {1},
      {xpu_arg_buffer(o8.handle), xpu_arg_buffer(o16.handle), xpu_arg_buffer(ob.handle),
       xpu_arg_buffer(oh.handle), xpu_arg_buffer(ov.handle), scalar(XPU_TYPE_I8, &a, 1),
       scalar(XPU_TYPE_I16, &b, 2), scalar(XPU_TYPE_BOOL, &c, 1),
       scalar(XPU_TYPE_F16, &h, 2), scalar(XPU_TYPE_I16, v, 6, 3)});
  CHECK(o8.read<int8_t>()[0] == a);
  CHECK(o16.read<int16_t>()[0] == b);
  CHECK(ob.read<uint8_t>()[0] == 1);
  CHECK(oh.read<uint16_t>()[0] == h);
  CHECK(ov.read<int16_t>() == std::vector<int16_t>(v, v + 3));
}

TEST_CASE("wave width and lane id come from the subgroup") {
  Module m(R"(
    xpu.kernel @waves(%w: !xpu.buffer<i32>, %l: !xpu.buffer<i32>) {
      %i = xpu.global_id x
      %ww = xpu.wave_width
      %lane = xpu.lane_id
      %wi = arith.index_cast %ww : index to i32
      %li = arith.index_cast %lane : index to i32
      xpu.store %wi, %w[%i] : !xpu.buffer<i32>
      xpu.store %li, %l[%i] : !xpu.buffer<i32>
      xpu.return
    })");
  const uint32_t n = 256;
  Buffer w(n * 4), l(n * 4);
  run(m.kernel("waves"), {n / 64}, {64}, {xpu_arg_buffer(w.handle), xpu_arg_buffer(l.handle)});
  auto ws = w.read<int32_t>(), ls = l.read<int32_t>();
  xpu_device_info info = {sizeof info};
  XPU_OK(xpu_device_info_get(target().dev, &info));
  for (uint32_t i = 0; i < n; ++i) {
    // Vulkan 1.3 may vary the subgroup size per pipeline; it is a power of
    // two, and the device reports the one it uses by default.
    REQUIRE(ws[i] > 0);
    REQUIRE((ws[i] & (ws[i] - 1)) == 0);
    REQUIRE(ls[i] < ws[i]);
  }
  CHECK(ws[0] == int32_t(info.wave_width));
}

TEST_CASE("a module released with launches in flight stays alive until they finish") {
  auto in = randomInts<int32_t>(4096, -100, 100);
  Buffer bin = Buffer::from(in), bout(4096 * 4);
  xpu_stream s;
  XPU_OK(xpu_stream_create(target().dev, &s));
  {
    Module m(R"(
      xpu.kernel @neg(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
        %i = xpu.global_id x
        %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
        %z = arith.constant 0 : i32
        %r = arith.subi %z, %v : i32
        xpu.store %r, %out[%i] : !xpu.buffer<i32>
        xpu.return
      })");
    uint32_t grid[3] = {64, 1, 1}, block[3] = {64, 1, 1};
    xpu_arg args[2] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)};
    for (int r = 0; r < 5; ++r)
      XPU_OK(xpu_launch(m.kernel("neg"), s, grid, block, args, 2));
  } // the module is released here, its launches not yet run
  XPU_OK(xpu_stream_synchronize(s));
  auto out = bout.read<int32_t>();
  for (size_t i = 0; i < in.size(); ++i)
    REQUIRE(out[i] == -in[i]);
  xpu_stream_release(s);
}

TEST_CASE("launches with ever new buffers, freed as they go, stay correct") {
  // Descriptor sets are cached per set of buffers and dropped with them.
  Module m(R"(
    xpu.kernel @twice(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %r = arith.addi %v, %v : i32
      xpu.store %r, %out[%i] : !xpu.buffer<i32>
      xpu.return
    })");
  for (int r = 0; r < 40; ++r) {
    auto in = randomInts<int32_t>(64, -1000, 1000);
    Buffer bin = Buffer::from(in), bout(64 * 4);
    run(m.kernel("twice"), {1}, {64}, {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
    auto out = bout.read<int32_t>();
    for (int i = 0; i < 64; ++i)
      REQUIRE(out[i] == 2 * in[i]);
  }
}

TEST_CASE("a workgroup beyond maxComputeWorkGroupSize is refused at launch") {
  Module m(R"(
    xpu.kernel @k(%out: !xpu.buffer<i32>) {
      xpu.return
    })");
  Buffer out(4);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1024};
  xpu_arg arg = xpu_arg_buffer(out.handle);
  // Every Vulkan device limits z to 64 or more, but none above 1024 in
  // xpujit; lavapipe and NVIDIA allow 64 along z.
  xpu_status st = xpu_launch(m.kernel("k"), nullptr, grid, block, &arg, 1);
  if (st != XPU_SUCCESS) {
    CHECK(st == XPU_ERROR_INVALID_ARGUMENT);
    CHECK(lastMessage().find("maxComputeWorkGroupSize[2]") != std::string::npos);
  }
  XPU_OK(xpu_stream_synchronize(defaultStream()));
}

TEST_CASE("bf16 is refused with the reason, not miscompiled") {
  CHECK(tryCompile(R"(
    xpu.kernel @k(%out: !xpu.buffer<bf16>, %v: bf16) {
      %c0 = arith.constant 0 : index
      xpu.store %v, %out[%c0] : !xpu.buffer<bf16>
      xpu.return
    })") == XPU_ERROR_UNSUPPORTED);
  CHECK(lastMessage().find("kernel 'k' uses bf16") != std::string::npos);
}

TEST_CASE("a feature the device lacks or did not enable refuses the kernel, naming it") {
  const char *f64Add = R"(
    xpu.kernel @k(%out: !xpu.buffer<f64>, %v: f64) {
      %c0 = arith.constant 0 : index
      %o = xpu.atomic_rmw fadd %v, %out[%c0] relaxed device : !xpu.buffer<f64>
      xpu.return
    })";
  const char *disabled = std::getenv("XPU_VULKAN_DISABLE_FEATURES");
  bool f64Disabled = disabled && std::string(disabled).find("shaderFloat64") != std::string::npos;
  if (!f64Disabled) {
    xpu_status st = tryCompile(f64Add);
    if (st != XPU_SUCCESS) {
      // lavapipe: VK_EXT_shader_atomic_float without f64 adds.
      CHECK(st == XPU_ERROR_UNSUPPORTED);
      CHECK(lastMessage().find("shaderBufferFloat64AtomicAdd=false") != std::string::npos);
      CHECK(lastMessage().find("vkGetPhysicalDeviceFeatures2") != std::string::npos);
    }
    return;
  }
  // The second gate: supported, but not enabled when the device was made.
  CHECK(tryCompile(R"(
    xpu.kernel @k(%out: !xpu.buffer<f64>, %v: f64) {
      %c0 = arith.constant 0 : index
      %w = arith.mulf %v, %v : f64
      xpu.store %w, %out[%c0] : !xpu.buffer<f64>
      xpu.return
    })") == XPU_ERROR_UNSUPPORTED);
  CHECK(lastMessage().find("kernel 'k' uses f64 values") != std::string::npos);
  CHECK(lastMessage().find("supports shaderFloat64, but it was not enabled") !=
        std::string::npos);
}
