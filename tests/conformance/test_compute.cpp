// Conformance: arithmetic kernels on fresh random data, checked element by
// element against a host reference (integers bit for bit).
#include "harness.h"
#include "kernels.h"

#include <cmath>
#include <cstdint>

using namespace conf;

TEST_CASE("saxpy on random data") {
  Module m(kSaxpy);
  // A size that is not a multiple of the workgroup, so the guard matters.
  const uint32_t n = 100003;
  auto x = randomFloats(n), y = randomFloats(n);
  float a = randomFloats(1, -4, 4)[0];
  // One extra element past n must stay untouched.
  y.push_back(1234.5f);
  Buffer bx = Buffer::from(x), by = Buffer::from(y);
  run(m.kernel("saxpy"), {(n + 255) / 256}, {256},
      {xpu_arg_buffer(by.handle), xpu_arg_buffer(bx.handle), xpu_arg_f32(a),
       xpu_arg_u32(n)});
  auto out = by.read<float>();
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    // Without contraction a*x+y is rounded twice, exactly as on the host.
    float want = a * x[i] + y[i];
    if (std::memcmp(&out[i], &want, 4) != 0 && bad++ < 5)
      FAIL_CHECK("element " << i << ": " << out[i] << " != " << want);
  }
  CHECK(bad == 0);
  CHECK(out[n] == 1234.5f);
}

TEST_CASE("32-bit integer arithmetic is bit-identical to the host") {
  Module m(R"(
    xpu.kernel @ints(%out: !xpu.buffer<i32>, %a: !xpu.buffer<i32, ro>,
                     %b: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      %n_idx = arith.index_castui %n : i32 to index
      %in = arith.cmpi ult, %i, %n_idx : index
      scf.if %in {
        %av = xpu.load %a[%i] : !xpu.buffer<i32, ro>
        %bv = xpu.load %b[%i] : !xpu.buffer<i32, ro>
        %c31 = arith.constant 31 : i32
        %one = arith.constant 1 : i32
        %sh = arith.andi %bv, %c31 : i32
        %mul = arith.muli %av, %bv : i32
        %x = arith.xori %av, %bv : i32
        %r0 = arith.addi %mul, %x : i32
        %r1 = arith.shrsi %av, %sh : i32
        %r2 = arith.shrui %av, %sh : i32
        %bo = arith.ori %bv, %one : i32
        %r3 = arith.divsi %av, %bo : i32
        %r4 = arith.remsi %av, %bo : i32
        %r5 = arith.maxui %av, %bv : i32
        %r6 = arith.shli %av, %sh : i32
        %c7 = arith.constant 7 : index
        %base = arith.muli %i, %c7 : index
        %k1 = arith.constant 1 : index
        %k2 = arith.constant 2 : index
        %k3 = arith.constant 3 : index
        %k4 = arith.constant 4 : index
        %k5 = arith.constant 5 : index
        %k6 = arith.constant 6 : index
        %p1 = arith.addi %base, %k1 : index
        %p2 = arith.addi %base, %k2 : index
        %p3 = arith.addi %base, %k3 : index
        %p4 = arith.addi %base, %k4 : index
        %p5 = arith.addi %base, %k5 : index
        %p6 = arith.addi %base, %k6 : index
        xpu.store %r0, %out[%base] : !xpu.buffer<i32>
        xpu.store %r1, %out[%p1] : !xpu.buffer<i32>
        xpu.store %r2, %out[%p2] : !xpu.buffer<i32>
        xpu.store %r3, %out[%p3] : !xpu.buffer<i32>
        xpu.store %r4, %out[%p4] : !xpu.buffer<i32>
        xpu.store %r5, %out[%p5] : !xpu.buffer<i32>
        xpu.store %r6, %out[%p6] : !xpu.buffer<i32>
      }
      xpu.return
    })");
  const uint32_t n = 4099;
  // Full 32-bit range, except INT32_MIN (INT32_MIN / -1 overflows).
  auto a = randomInts<int32_t>(n, INT32_MIN + 1, INT32_MAX);
  auto b = randomInts<int32_t>(n, INT32_MIN + 1, INT32_MAX);
  Buffer out(n * 7 * 4), ba = Buffer::from(a), bb = Buffer::from(b);
  run(m.kernel("ints"), {(n + 63) / 64}, {64},
      {xpu_arg_buffer(out.handle), xpu_arg_buffer(ba.handle),
       xpu_arg_buffer(bb.handle), xpu_arg_u32(n)});
  auto got = out.read<int32_t>();
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t ua = uint32_t(a[i]), ub = uint32_t(b[i]), sh = ub & 31;
    int32_t bo = b[i] | 1;
    int32_t want[7] = {int32_t(ua * ub + (ua ^ ub)), a[i] >> sh, int32_t(ua >> sh),
                       a[i] / bo, a[i] % bo, int32_t(std::max(ua, ub)),
                       int32_t(ua << sh)};
    for (int k = 0; k < 7; ++k)
      if (got[i * 7 + k] != want[k] && bad++ < 5)
        FAIL_CHECK("element " << i << " op " << k << ": " << got[i * 7 + k]
                              << " != " << want[k]);
  }
  CHECK(bad == 0);
}

TEST_CASE("narrow and wide integers, and bools, keep their widths") {
  Module m(R"(
    xpu.kernel @widths(%o8: !xpu.buffer<i8>, %o16: !xpu.buffer<i16>,
                       %o64: !xpu.buffer<i64>, %ob: !xpu.buffer<i1>,
                       %a8: !xpu.buffer<i8, ro>, %a16: !xpu.buffer<i16, ro>,
                       %a64: !xpu.buffer<i64, ro>, %k: i64) {
      %i = xpu.global_id x
      %v8 = xpu.load %a8[%i] : !xpu.buffer<i8, ro>
      %s8 = arith.muli %v8, %v8 : i8
      xpu.store %s8, %o8[%i] : !xpu.buffer<i8>
      %v16 = xpu.load %a16[%i] : !xpu.buffer<i16, ro>
      %c3 = arith.constant 3 : i16
      %s16 = arith.muli %v16, %c3 : i16
      xpu.store %s16, %o16[%i] : !xpu.buffer<i16>
      %v64 = xpu.load %a64[%i] : !xpu.buffer<i64, ro>
      %s64 = arith.muli %v64, %k : i64
      xpu.store %s64, %o64[%i] : !xpu.buffer<i64>
      %z = arith.constant 0 : i64
      %neg = arith.cmpi slt, %v64, %z : i64
      xpu.store %neg, %ob[%i] : !xpu.buffer<i1>
      xpu.return
    })");
  const uint32_t n = 1024;
  auto a8 = randomInts<int8_t>(n, -128, 127);
  auto a16 = randomInts<int16_t>(n, -32768, 32767);
  auto a64 = randomInts<int64_t>(n, INT64_MIN, INT64_MAX);
  int64_t k = randomInts<int64_t>(1, INT64_MIN, INT64_MAX)[0];
  Buffer o8(n), o16(n * 2), o64(n * 8), ob(n);
  Buffer b8 = Buffer::from(a8), b16 = Buffer::from(a16), b64 = Buffer::from(a64);
  run(m.kernel("widths"), {n / 128}, {128},
      {xpu_arg_buffer(o8.handle), xpu_arg_buffer(o16.handle),
       xpu_arg_buffer(o64.handle), xpu_arg_buffer(ob.handle),
       xpu_arg_buffer(b8.handle), xpu_arg_buffer(b16.handle),
       xpu_arg_buffer(b64.handle), xpu_arg_i64(k)});
  auto g8 = o8.read<int8_t>();
  auto g16 = o16.read<int16_t>();
  auto g64 = o64.read<int64_t>();
  auto gb = ob.read<uint8_t>();
  for (uint32_t i = 0; i < n; ++i) {
    REQUIRE(g8[i] == int8_t(uint8_t(a8[i]) * uint8_t(a8[i])));
    REQUIRE(g16[i] == int16_t(uint16_t(a16[i]) * 3u));
    REQUIRE(g64[i] == int64_t(uint64_t(a64[i]) * uint64_t(k)));
    REQUIRE(gb[i] == (a64[i] < 0 ? 1 : 0));
  }
}

TEST_CASE("a 2-D grid transposes a matrix") {
  Module m(R"(
    xpu.kernel @transpose(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
                          %w: i32, %h: i32) {
      %x = xpu.global_id x
      %y = xpu.global_id y
      %wi = arith.index_castui %w : i32 to index
      %hi = arith.index_castui %h : i32 to index
      %okx = arith.cmpi ult, %x, %wi : index
      %oky = arith.cmpi ult, %y, %hi : index
      %ok = arith.andi %okx, %oky : i1
      scf.if %ok {
        %src = arith.muli %y, %wi : index
        %s = arith.addi %src, %x : index
        %v = xpu.load %in[%s] : !xpu.buffer<f32, ro>
        %dst = arith.muli %x, %hi : index
        %d = arith.addi %dst, %y : index
        xpu.store %v, %out[%d] : !xpu.buffer<f32>
      }
      xpu.return
    })");
  const uint32_t w = 77, h = 45;
  auto in = randomFloats(w * h);
  Buffer bin = Buffer::from(in), bout(w * h * 4);
  run(m.kernel("transpose"), {(w + 15) / 16, (h + 7) / 8}, {16, 8},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(w),
       xpu_arg_u32(h)});
  auto out = bout.read<float>();
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      REQUIRE(out[x * h + y] == in[y * w + x]);
}

TEST_CASE("coordinates of a 3-D launch") {
  Module m(R"(
    xpu.kernel @coords(%out: !xpu.buffer<i32>) {
      %gx = xpu.global_id x
      %gy = xpu.global_id y
      %gz = xpu.global_id z
      %sx = xpu.global_size x
      %sy = xpu.global_size y
      %row = arith.muli %gz, %sy : index
      %r2 = arith.addi %row, %gy : index
      %r3 = arith.muli %r2, %sx : index
      %lin = arith.addi %r3, %gx : index
      %tx = xpu.thread_id x
      %wy = xpu.workgroup_id y
      %bz = xpu.workgroup_size z
      %nz = xpu.grid_size z
      %c1000 = arith.constant 1000 : index
      %c100 = arith.constant 100 : index
      %c10 = arith.constant 10 : index
      %a = arith.muli %tx, %c1000 : index
      %b = arith.muli %wy, %c100 : index
      %c = arith.muli %bz, %c10 : index
      %s1 = arith.addi %a, %b : index
      %s2 = arith.addi %s1, %c : index
      %s3 = arith.addi %s2, %nz : index
      %v = arith.index_cast %s3 : index to i32
      xpu.store %v, %out[%lin] : !xpu.buffer<i32>
      xpu.return
    })");
  const uint32_t grid[3] = {3, 2, 2}, block[3] = {4, 3, 2};
  uint32_t sx = grid[0] * block[0], sy = grid[1] * block[1], sz = grid[2] * block[2];
  Buffer out(sx * sy * sz * 4);
  run(m.kernel("coords"), {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
      {xpu_arg_buffer(out.handle)});
  auto got = out.read<int32_t>();
  for (uint32_t z = 0; z < sz; ++z)
    for (uint32_t y = 0; y < sy; ++y)
      for (uint32_t x = 0; x < sx; ++x) {
        int32_t want = int32_t((x % block[0]) * 1000 + (y / block[1]) * 100 +
                               block[2] * 10 + grid[2]);
        REQUIRE(got[(z * sy + y) * sx + x] == want);
      }
}

TEST_CASE("vector loads and stores of four lanes") {
  Module m(R"(
    xpu.kernel @scale4(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %s: f32) {
      %i = xpu.global_id x
      %c4 = arith.constant 4 : index
      %base = arith.muli %i, %c4 : index
      %v = xpu.load %in[%base] : !xpu.buffer<f32, ro> -> vector<4xf32>
      %sv = vector.broadcast %s : f32 to vector<4xf32>
      %r = arith.mulf %v, %sv : vector<4xf32>
      xpu.store %r, %out[%base] : !xpu.buffer<f32> -> vector<4xf32>
      xpu.return
    })");
  const uint32_t n = 512;
  auto in = randomFloats(n * 4);
  float s = 3.25f;
  Buffer bin = Buffer::from(in), bout(n * 16);
  run(m.kernel("scale4"), {n / 64}, {64},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_f32(s)});
  auto out = bout.read<float>();
  for (uint32_t i = 0; i < n * 4; ++i)
    REQUIRE(out[i] == in[i] * s);
}

TEST_CASE("device helper functions are called from kernels") {
  Module m(R"(
    xpu.func @clamp(%v: i32, %lo: i32, %hi: i32) -> i32 {
      %a = arith.maxsi %v, %lo : i32
      %b = arith.minsi %a, %hi : i32
      xpu.return %b : i32
    }
    xpu.func @index_of() -> index {
      %i = xpu.global_id x
      xpu.return %i : index
    }
    xpu.kernel @clamp_all(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                          %lo: i32, %hi: i32) {
      %i = xpu.call @index_of() : () -> index
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %r = xpu.call @clamp(%v, %lo, %hi) : (i32, i32, i32) -> i32
      xpu.store %r, %out[%i] : !xpu.buffer<i32>
      xpu.return
    })");
  const uint32_t n = 1000;
  auto in = randomInts<int32_t>(n, -5000, 5000);
  Buffer bin = Buffer::from(in), bout(n * 4);
  run(m.kernel("clamp_all"), {n / 8}, {8},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_i32(-100),
       xpu_arg_i32(250)});
  auto out = bout.read<int32_t>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == std::min(std::max(in[i], -100), 250));
}

TEST_CASE("math functions and upstream gpu.func kernels") {
  Module m(R"(
    gpu.module @m {
      gpu.func @expsqrt(%out: memref<?xf32>, %in: memref<?xf32>) kernel {
        %i = gpu.global_id x
        %v = memref.load %in[%i] : memref<?xf32>
        %a = math.absf %v : f32
        %s = math.sqrt %a : f32
        memref.store %s, %out[%i] : memref<?xf32>
        gpu.return
      }
    })");
  const uint32_t n = 256;
  auto in = randomFloats(n, -50, 50);
  Buffer bin = Buffer::from(in), bout(n * 4);
  run(m.kernel("expsqrt"), {n / 32}, {32},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
  auto out = bout.read<float>();
  uint32_t maxUlp = sqrtMaxUlp();
  for (uint32_t i = 0; i < n; ++i) {
    float want = std::sqrt(std::fabs(in[i]));
    INFO("element " << i << ": " << out[i] << " vs " << want);
    REQUIRE(ulpDistance(out[i], want) <= maxUlp);
  }
}
