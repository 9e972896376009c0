// Vulkan-specific behavior, through the C API on the Vulkan device (the
// conformance harness with XPU_TEST_BACKEND=vulkan; no device: skipped):
// the argument block in push constants and its uniform-buffer fallback,
// narrow scalar parameters, subgroup coordinates, resource lifetimes, and
// refusals of kernels the device cannot run.
#include "../conformance/harness.h"
#include "../conformance/kernels.h"

#include <cmath>
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
    })") == XPU_ERROR_REFUSED);
  CHECK(lastMessage().find("kernel 'k' needs bf16") != std::string::npos);
  CHECK(lastMessage().find("spirv cannot express it") != std::string::npos);
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
    // The capability model's device gate, from the device's facts.
    xpu_status st = tryCompile(f64Add);
    if (st != XPU_SUCCESS) {
      // lavapipe: VK_EXT_shader_atomic_float without f64 adds.
      CHECK(st == XPU_ERROR_REFUSED);
      CHECK(lastMessage().find("shaderBufferFloat64AtomicAdd=false") != std::string::npos);
      CHECK(lastMessage().find("vkGetPhysicalDeviceFeatures2") != std::string::npos);
    }
    // What only the backend tells apart: float exchanges need the float
    // atomic features, not the integer ones of the same width.
    st = tryCompile(R"(
      xpu.kernel @k(%out: !xpu.buffer<f64>, %v: f64) {
        %c0 = arith.constant 0 : index
        %o = xpu.atomic_rmw xchg %v, %out[%c0] relaxed device : !xpu.buffer<f64>
        xpu.return
      })");
    if (st != XPU_SUCCESS) {
      CHECK(st == XPU_ERROR_REFUSED);
      CHECK(lastMessage().find("atomic exchanges of f64 on buffers") != std::string::npos);
      CHECK(lastMessage().find("shaderBufferFloat64Atomics=false") != std::string::npos);
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
    })") == XPU_ERROR_REFUSED);
  CHECK(lastMessage().find("kernel 'k' needs f64") != std::string::npos);
  CHECK(lastMessage().find("supports shaderFloat64, but it was not enabled") !=
        std::string::npos);
}

namespace {

/// The CPU device of the test's context: the reference for the Vulkan one.
xpu_device cpuDevice() {
  uint32_t n = 0;
  xpu_device_count(target().ctx, &n);
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    xpu_device_get(target().ctx, i, &d);
    xpu_device_info_get(d, &info);
    if (info.backend == XPU_BACKEND_CPU)
      return d;
  }
  return nullptr;
}

/// Runs kernel `name` of `text` on `dev` over `inputs` (one buffer each)
/// and `outputs` zeroed buffers of the given byte sizes; returns the outputs.
std::vector<std::vector<uint8_t>> runOn(xpu_device dev, const std::string &text,
                                        const char *name, uint32_t groups,
                                        uint32_t block,
                                        const std::vector<std::vector<uint8_t>> &inputs,
                                        const std::vector<size_t> &outputs) {
  Module m(text, dev);
  std::vector<xpu_buffer> buffers;
  std::vector<xpu_arg> args;
  for (size_t bytes : outputs) {
    xpu_buffer b;
    XPU_OK(xpu_buffer_create(dev, bytes, &b));
    std::vector<uint8_t> zero(bytes, 0);
    XPU_OK(xpu_buffer_upload(b, 0, zero.data(), bytes));
    buffers.push_back(b);
  }
  for (const auto &in : inputs) {
    xpu_buffer b;
    XPU_OK(xpu_buffer_create(dev, in.size(), &b));
    XPU_OK(xpu_buffer_upload(b, 0, in.data(), in.size()));
    buffers.push_back(b);
  }
  for (xpu_buffer b : buffers)
    args.push_back(xpu_arg_buffer(b));
  uint32_t grid[3] = {groups, 1, 1}, blk[3] = {block, 1, 1};
  XPU_OK(xpu_launch(m.kernel(name), nullptr, grid, blk, args.data(), args.size()));
  XPU_OK(xpu_device_synchronize(dev));
  std::vector<std::vector<uint8_t>> results;
  for (size_t i = 0; i < outputs.size(); ++i) {
    results.emplace_back(outputs[i]);
    XPU_OK(xpu_buffer_download(buffers[i], 0, results.back().data(), outputs[i]));
  }
  for (xpu_buffer b : buffers)
    XPU_OK(xpu_buffer_free(b));
  return results;
}

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

/// The kernel gives the CPU backend's bits on Vulkan.
void sameAsCpu(const std::string &text, const char *name, uint32_t groups,
               uint32_t block, const std::vector<std::vector<uint8_t>> &inputs,
               const std::vector<size_t> &outputs) {
  xpu_device cpu = cpuDevice();
  REQUIRE(cpu);
  auto want = runOn(cpu, text, name, groups, block, inputs, outputs);
  auto got = runOn(target().dev, text, name, groups, block, inputs, outputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    INFO("output " << i);
    CHECK(got[i] == want[i]);
  }
}

} // namespace

TEST_CASE("integer conversions, division and selection match the CPU bit for bit") {
  const uint32_t n = 512;
  auto a = randomInts<int64_t>(n, INT64_MIN + 1, INT64_MAX);
  auto b = randomInts<int32_t>(n, INT32_MIN + 1, INT32_MAX);
  sameAsCpu(R"(
    xpu.kernel @ints(%o64: !xpu.buffer<i64>, %o32: !xpu.buffer<i32>, %o16: !xpu.buffer<i16>,
                     %a: !xpu.buffer<i64, ro>, %b: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %av = xpu.load %a[%i] : !xpu.buffer<i64, ro>
      %bv = xpu.load %b[%i] : !xpu.buffer<i32, ro>
      %one = arith.constant 1 : i32
      %bo = arith.ori %bv, %one : i32
      %c4 = arith.constant 4 : index
      %base = arith.muli %i, %c4 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %p1 = arith.addi %base, %c1 : index
      %p2 = arith.addi %base, %c2 : index
      %p3 = arith.addi %base, %c3 : index
      %bx = arith.extsi %bv : i32 to i64
      %bu = arith.extui %bv : i32 to i64
      %q = arith.floordivsi %bv, %bo : i32
      %cd = arith.ceildivsi %bv, %bo : i32
      %du = arith.divui %bv, %bo : i32
      %ru = arith.remui %bv, %bo : i32
      %t = arith.trunci %av : i64 to i32
      %lt = arith.cmpi slt, %av, %bx : i64
      %sel = arith.select %lt, %av, %bu : i64
      %mx = arith.maxsi %av, %bx : i64
      %sh = arith.shrui %av, %bu : i64
      %t16 = arith.trunci %bv : i32 to i16
      %m16 = arith.muli %t16, %t16 : i16
      xpu.store %sel, %o64[%base] : !xpu.buffer<i64>
      xpu.store %mx, %o64[%p1] : !xpu.buffer<i64>
      xpu.store %bx, %o64[%p2] : !xpu.buffer<i64>
      xpu.store %bu, %o64[%p3] : !xpu.buffer<i64>
      xpu.store %q, %o32[%base] : !xpu.buffer<i32>
      xpu.store %cd, %o32[%p1] : !xpu.buffer<i32>
      xpu.store %du, %o32[%p2] : !xpu.buffer<i32>
      %x = arith.xori %ru, %t : i32
      xpu.store %x, %o32[%p3] : !xpu.buffer<i32>
      xpu.store %m16, %o16[%i] : !xpu.buffer<i16>
      xpu.return
    })",
            "ints", n / 64, 64, {bytesOf(a), bytesOf(b)}, {n * 32, n * 16, n * 2});
}

// Only operations Vulkan rounds correctly (add, sub, mul, conversions);
// division and transcendentals may differ by a few ULP there.
TEST_CASE("float conversions and comparisons match the CPU bit for bit") {
  const uint32_t n = 512;
  auto f = randomFloats(n, -1e6f, 1e6f);
  auto d = randomInts<int32_t>(n, -1000000, 1000000);
  sameAsCpu(R"(
    xpu.kernel @floats(%of: !xpu.buffer<f32>, %od: !xpu.buffer<f64>, %oi: !xpu.buffer<i32>,
                       %f: !xpu.buffer<f32, ro>, %d: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %fv = xpu.load %f[%i] : !xpu.buffer<f32, ro>
      %dv = xpu.load %d[%i] : !xpu.buffer<i32, ro>
      %c3 = arith.constant 3 : index
      %base = arith.muli %i, %c3 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %p1 = arith.addi %base, %c1 : index
      %p2 = arith.addi %base, %c2 : index
      %df = arith.sitofp %dv : i32 to f32
      %neg = arith.negf %fv : f32
      %mn = arith.minimumf %df, %neg : f32
      %sum = arith.addf %fv, %df : f32
      %prod = arith.mulf %sum, %fv : f32
      %ext = arith.extf %fv : f32 to f64
      %dd = arith.sitofp %dv : i32 to f64
      %fi = arith.fptosi %fv : f32 to i32
      %gt = arith.cmpf ogt, %fv, %df : f32
      %gi = arith.extui %gt : i1 to i32
      %x = arith.xori %fi, %gi : i32
      xpu.store %mn, %of[%base] : !xpu.buffer<f32>
      xpu.store %prod, %of[%p1] : !xpu.buffer<f32>
      %a = math.absf %neg : f32
      xpu.store %a, %of[%p2] : !xpu.buffer<f32>
      xpu.store %ext, %od[%base] : !xpu.buffer<f64>
      xpu.store %dd, %od[%p1] : !xpu.buffer<f64>
      %s = arith.subf %ext, %dd : f64
      xpu.store %s, %od[%p2] : !xpu.buffer<f64>
      xpu.store %x, %oi[%i] : !xpu.buffer<i32>
      xpu.return
    })",
            "floats", n / 64, 64, {bytesOf(f), bytesOf(d)}, {n * 12, n * 24, n * 4});
}

TEST_CASE("loops, private scratch and helpers taking buffers match the CPU") {
  const uint32_t n = 256;
  auto in = randomInts<int32_t>(n, 0, 20);
  sameAsCpu(R"(
    xpu.func @sum_to(%buf: !xpu.buffer<i32, ro>, %i: index, %k: index) -> i32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0 : i32
      %r = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %z) -> (i32) {
        %at = arith.addi %i, %j : index
        %n = xpu.buffer_size %buf : !xpu.buffer<i32, ro>
        %w = arith.remui %at, %n : index
        %v = xpu.load %buf[%w] : !xpu.buffer<i32, ro>
        %s = arith.addi %acc, %v : i32
        scf.yield %s : i32
      }
      xpu.return %r : i32
    }
    xpu.kernel @loops(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %k = arith.index_castui %v : i32 to index
      %p = xpu.alloc : !xpu.buffer<4xi32, private>
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %s = xpu.call @sum_to(%in, %i, %k) : (!xpu.buffer<i32, ro>, index, index) -> i32
      xpu.store %s, %p[%c3] : !xpu.buffer<4xi32, private>
      // Collatz steps of v: a while loop that may not run at all.
      %one = arith.constant 1 : i32
      %r:2 = scf.while (%x = %v, %steps = %one) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi ugt, %x, %one : i32
        scf.condition(%more) %x, %steps : i32, i32
      } do {
      ^bb0(%x: i32, %steps: i32):
        %two = arith.constant 2 : i32
        %odd = arith.remui %x, %two : i32
        %isodd = arith.cmpi ne, %odd, %one : i32
        %half = arith.divui %x, %two : i32
        %three = arith.constant 3 : i32
        %t = arith.muli %x, %three : i32
        %t1 = arith.addi %t, %one : i32
        %nx = arith.select %isodd, %half, %t1 : i32
        %ns = arith.addi %steps, %one : i32
        scf.yield %nx, %ns : i32, i32
      }
      %saved = xpu.load %p[%c3] : !xpu.buffer<4xi32, private>
      %c2 = arith.constant 2 : index
      %base = arith.muli %i, %c2 : index
      %c1 = arith.constant 1 : index
      %b1 = arith.addi %base, %c1 : index
      xpu.store %saved, %out[%base] : !xpu.buffer<i32>
      xpu.store %r#1, %out[%b1] : !xpu.buffer<i32>
      xpu.return
    })",
            "loops", n / 32, 32, {bytesOf(in)}, {n * 8});
}

TEST_CASE("atomics of every kind match the CPU's final values") {
  // Commutative updates only, so the final value is the same in any order.
  const uint32_t n = 1024;
  auto in = randomInts<int32_t>(n, INT32_MIN, INT32_MAX);
  auto wide = randomInts<int64_t>(n, INT64_MIN, INT64_MAX);
  sameAsCpu(R"(
    xpu.kernel @atomics(%o: !xpu.buffer<i32>, %o64: !xpu.buffer<i64>,
                        %in: !xpu.buffer<i32, ro>, %wide: !xpu.buffer<i64, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %w = xpu.load %wide[%i] : !xpu.buffer<i64, ro>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %a0 = xpu.atomic_rmw add %v, %o[%c0] relaxed device : !xpu.buffer<i32>
      %a1 = xpu.atomic_rmw sub %v, %o[%c1] acquire device : !xpu.buffer<i32>
      %a2 = xpu.atomic_rmw smin %v, %o[%c2] release device : !xpu.buffer<i32>
      %a3 = xpu.atomic_rmw smax %v, %o[%c3] acq_rel queue_family : !xpu.buffer<i32>
      %a4 = xpu.atomic_rmw umin %v, %o[%c4] seq_cst device : !xpu.buffer<i32>
      %a5 = xpu.atomic_rmw umax %v, %o[%c5] relaxed workgroup : !xpu.buffer<i32>
      %a6 = xpu.atomic_rmw xor %v, %o[%c6] relaxed subgroup : !xpu.buffer<i32>
      %a7 = xpu.atomic_rmw or %v, %o[%c7] relaxed invocation : !xpu.buffer<i32>
      %b0 = xpu.atomic_rmw add %w, %o64[%c0] relaxed device : !xpu.buffer<i64>
      %b1 = xpu.atomic_rmw umax %w, %o64[%c1] relaxed device : !xpu.buffer<i64>
      %b2 = xpu.atomic_rmw and %w, %o64[%c2] relaxed device : !xpu.buffer<i64>
      xpu.return
    })",
            "atomics", n / 128, 128, {bytesOf(in), bytesOf(wide)}, {8 * 4, 3 * 8});
}

TEST_CASE("several kernels of one module each have their entry point") {
  const std::string text = R"(
    xpu.kernel @first(%o: !xpu.buffer<i32>) attributes {workgroup_size = array<i64: 32>} {
      %i = xpu.global_id x
      %s = xpu.workgroup_size x
      %v = arith.index_cast %s : index to i32
      xpu.store %v, %o[%i] : !xpu.buffer<i32>
      xpu.return
    }
    xpu.kernel @second(%o: !xpu.buffer<i32>) {
      %i = xpu.global_id x
      %g = xpu.global_size x
      %v = arith.index_cast %g : index to i32
      xpu.store %v, %o[%i] : !xpu.buffer<i32>
      xpu.return
    })";
  sameAsCpu(text, "first", 4, 32, {}, {128 * 4});
  sameAsCpu(text, "second", 3, 16, {}, {48 * 4});
}

TEST_CASE("float atomic adds on buffers and shared memory match the CPU") {
  // Whole numbers, so the sums are exact in any order.
  const uint32_t n = 512;
  auto ints = randomInts<int32_t>(n, -100, 100);
  std::vector<float> in(ints.begin(), ints.end());
  sameAsCpu(R"(
    xpu.kernel @fadds(%o: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>)
        attributes {workgroup_size = array<i64: 64>} {
      %i = xpu.global_id x
      %t = xpu.thread_id x
      %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
      %c0 = arith.constant 0 : index
      %s = xpu.alloc : !xpu.buffer<1xf32, shared>
      %zero = arith.constant 0.0 : f32
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        xpu.store %zero, %s[%c0] : !xpu.buffer<1xf32, shared>
      }
      xpu.barrier
      %a = xpu.atomic_rmw fadd %v, %s[%c0] relaxed workgroup : !xpu.buffer<1xf32, shared>
      xpu.barrier
      %g = xpu.atomic_rmw fadd %v, %o[%c0] relaxed device : !xpu.buffer<f32>
      scf.if %first {
        %total = xpu.load %s[%c0] : !xpu.buffer<1xf32, shared>
        %c1 = arith.constant 1 : index
        %wg = xpu.workgroup_id x
        %at = arith.addi %wg, %c1 : index
        xpu.store %total, %o[%at] : !xpu.buffer<f32>
      }
      xpu.return
    })",
            "fadds", n / 64, 64, {bytesOf(in)}, {(1 + n / 64) * 4});
}

TEST_CASE("math functions GLSL.std.450 lacks are expanded or approximated") {
  // Vulkan's own transcendental functions are accurate to a few ULP (atan2
  // to 4096), so these are checked to a tolerance, not to the bit.
  Module m(R"(
    xpu.kernel @lacking(%o: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
      %c4 = arith.constant 4 : index
      %base = arith.muli %i, %c4 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %p1 = arith.addi %base, %c1 : index
      %p2 = arith.addi %base, %c2 : index
      %p3 = arith.addi %base, %c3 : index
      %e = math.erf %v : f32
      %x = math.exp2 %v : f32
      %c = math.cbrt %v : f32
      %one = arith.constant 1.0 : f32
      %a = math.atan2 %v, %one : f32
      xpu.store %e, %o[%base] : !xpu.buffer<f32>
      xpu.store %x, %o[%p1] : !xpu.buffer<f32>
      xpu.store %c, %o[%p2] : !xpu.buffer<f32>
      xpu.store %a, %o[%p3] : !xpu.buffer<f32>
      xpu.return
    })");
  const uint32_t n = 256;
  auto in = randomFloats(n, -4, 4);
  Buffer bin = Buffer::from(in), bout(n * 16);
  run(m.kernel("lacking"), {n / 64}, {64}, {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
  auto out = bout.read<float>();
  for (uint32_t i = 0; i < n; ++i) {
    double want[4] = {std::erf(in[i]), std::exp2(in[i]), std::cbrt(in[i]),
                      std::atan2(in[i], 1.0)};
    for (int k = 0; k < 4; ++k) {
      INFO("function " << k << " of " << in[i]);
      REQUIRE(std::fabs(out[i * 4 + k] - want[k]) <= 1e-5 * std::max(1.0, std::fabs(want[k])));
    }
  }
}

TEST_CASE("without shaderInt8, bools are admitted and 8-bit arithmetic is refused") {
  // Bool comparisons, selects and bool parameters are not 8-bit integers:
  // saxpy's `arith.cmpi` must run without shaderInt8.
  Module saxpy(kSaxpy);
  const uint32_t n = 1000;
  auto x = randomFloats(n), y = randomFloats(n);
  float a = randomFloats(1)[0];
  Buffer by = Buffer::from(y), bx = Buffer::from(x);
  run(saxpy.kernel("saxpy"), {(n + 63) / 64}, {64},
      {xpu_arg_buffer(by.handle), xpu_arg_buffer(bx.handle), xpu_arg_f32(a),
       xpu_arg_u32(n)});
  auto out = by.read<float>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == a * x[i] + y[i]);

  Module pick(R"(
    xpu.kernel @pick(%out: !xpu.buffer<i32>, %flip: i1, %a: i32, %b: i32) {
      %c0 = arith.constant 0 : index
      %lt = arith.cmpi slt, %a, %b : i32
      %c = arith.xori %lt, %flip : i1
      %v = arith.select %c, %a, %b : i32
      xpu.store %v, %out[%c0] : !xpu.buffer<i32>
      xpu.return
    })");
  auto ab = randomInts<int32_t>(2, INT32_MIN, INT32_MAX);
  bool flip = randomInts<int>(1, 0, 1)[0] != 0;
  Buffer picked(4);
  run(pick.kernel("pick"), {1}, {1},
      {xpu_arg_buffer(picked.handle), scalar(XPU_TYPE_BOOL, &flip, 1),
       xpu_arg_i32(ab[0]), xpu_arg_i32(ab[1])});
  CHECK(picked.read<int32_t>()[0] == (((ab[0] < ab[1]) != flip) ? ab[0] : ab[1]));

  const char *disabled = std::getenv("XPU_VULKAN_DISABLE_FEATURES");
  if (!disabled || std::string(disabled).find("shaderInt8") == std::string::npos)
    return;
  // What does compute on 8-bit integers is refused, naming the feature.
  CHECK(tryCompile(R"(
    xpu.kernel @k(%out: !xpu.buffer<i32>, %v: i8) {
      %c0 = arith.constant 0 : index
      %w = arith.muli %v, %v : i8
      %e = arith.extsi %w : i8 to i32
      xpu.store %e, %out[%c0] : !xpu.buffer<i32>
      xpu.return
    })") == XPU_ERROR_REFUSED);
  CHECK(lastMessage().find("needs 8-bit integer") != std::string::npos);
  CHECK(lastMessage().find("shaderInt8") != std::string::npos);
}
