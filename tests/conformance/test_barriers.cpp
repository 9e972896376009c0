// Conformance: barriers inside uniform control flow, values of every type
// live across barriers, shared-memory tiles, reductions of every kind and
// order, on many workgroup shapes; fresh random inputs, every element
// checked. (On the CPU these exercise region formation: work-item loops
// split at barriers, see mlir/lib/Conversion/CPUWorkItemLoops.cpp.)
#include "harness.h"
#include "surface.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

using namespace conf;

namespace {

/// Replaces every `$NAME` in `text` by its value. (Templates are written
/// R"tmpl(...)tmpl" so that tests/unit/test_amdgpu.cpp, which compiles
/// every R"(...)" kernel of this suite for AMD, skips them.)
std::string fill(std::string text, std::initializer_list<std::pair<const char *, std::string>> subs) {
  for (auto &[name, value] : subs) {
    std::string key = std::string("$") + name;
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
      text.replace(at, key.size(), value);
  }
  return text;
}

std::string shapeAttr(uint32_t x, uint32_t y, uint32_t z) {
  return "attributes {workgroup_size = array<i64: " + std::to_string(x) + ", " +
         std::to_string(y) + ", " + std::to_string(z) + ">}";
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

// C = A * B through T x T tiles of A and B in shared memory: a loop over the
// tiles with two barriers per trip and an accumulator carried across them.
const char *kTiledMatmul = R"tmpl(
xpu.kernel @matmul(%c: !xpu.buffer<f32>, %a: !xpu.buffer<f32, ro>, %b: !xpu.buffer<f32, ro>,
                   %m: i32, %n: i32, %k: i32) $SHAPE {
  %tx = xpu.thread_id x
  %ty = xpu.thread_id y
  %t = xpu.workgroup_size x
  %col = xpu.global_id x
  %row = xpu.global_id y
  %sa = xpu.alloc : !xpu.buffer<256xf32, shared>
  %sb = xpu.alloc : !xpu.buffer<256xf32, shared>
  %mi = arith.index_castui %m : i32 to index
  %ni = arith.index_castui %n : i32 to index
  %ki = arith.index_castui %k : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tm1 = arith.subi %t, %c1 : index
  %kr = arith.addi %ki, %tm1 : index
  %tiles = arith.divui %kr, %t : index
  %zero = arith.constant 0.0 : f32
  %slot0 = arith.muli %ty, %t : index
  %slot = arith.addi %slot0, %tx : index
  %rowok = arith.cmpi ult, %row, %mi : index
  %colok = arith.cmpi ult, %col, %ni : index
  %acc = scf.for %tile = %c0 to %tiles step %c1 iter_args(%s = %zero) -> (f32) {
    %kk = arith.muli %tile, %t : index
    %ac = arith.addi %kk, %tx : index
    %acok = arith.cmpi ult, %ac, %ki : index
    %oka = arith.andi %rowok, %acok : i1
    %va = scf.if %oka -> (f32) {
      %ia0 = arith.muli %row, %ki : index
      %ia = arith.addi %ia0, %ac : index
      %x = xpu.load %a[%ia] : !xpu.buffer<f32, ro>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    xpu.store %va, %sa[%slot] : !xpu.buffer<256xf32, shared>
    %br = arith.addi %kk, %ty : index
    %brok = arith.cmpi ult, %br, %ki : index
    %okb = arith.andi %brok, %colok : i1
    %vb = scf.if %okb -> (f32) {
      %ib0 = arith.muli %br, %ni : index
      %ib = arith.addi %ib0, %col : index
      %y = xpu.load %b[%ib] : !xpu.buffer<f32, ro>
      scf.yield %y : f32
    } else {
      scf.yield %zero : f32
    }
    xpu.store %vb, %sb[%slot] : !xpu.buffer<256xf32, shared>
    xpu.barrier
    %s2 = scf.for %j = %c0 to %t step %c1 iter_args(%p = %s) -> (f32) {
      %ja = arith.addi %slot0, %j : index
      %jb0 = arith.muli %j, %t : index
      %jb = arith.addi %jb0, %tx : index
      %x = xpu.load %sa[%ja] : !xpu.buffer<256xf32, shared>
      %y = xpu.load %sb[%jb] : !xpu.buffer<256xf32, shared>
      %xy = arith.mulf %x, %y : f32
      %p2 = arith.addf %p, %xy : f32
      scf.yield %p2 : f32
    }
    xpu.barrier
    scf.yield %s2 : f32
  }
  %ok = arith.andi %rowok, %colok : i1
  scf.if %ok {
    %ic0 = arith.muli %row, %ni : index
    %ic = arith.addi %ic0, %col : index
    xpu.store %acc, %c[%ic] : !xpu.buffer<f32>
  }
  xpu.return
})tmpl";

} // namespace

TEST_CASE("tiled matrix multiply: a uniform loop of barriers carries each invocation's sum") {
  for (uint32_t t : {4u, 8u, 16u})
    for (bool fixed : {false, true}) {
      uint32_t m = uint32_t(randomInts<int>(1, 20, 70)[0]);
      uint32_t n = uint32_t(randomInts<int>(1, 20, 70)[0]);
      uint32_t k = uint32_t(randomInts<int>(1, 1, 90)[0]);
      INFO("tile " << t << (fixed ? " (fixed shape)" : "") << ", " << m << "x" << n
                   << "x" << k);
      Module mod(fill(kTiledMatmul, {{"SHAPE", fixed ? shapeAttr(t, t, 1) : ""}}));
      auto a = randomFloats(m * k), b = randomFloats(k * n);
      Buffer ba = Buffer::from(a), bb = Buffer::from(b), bc(m * n * 4);
      run(mod.kernel("matmul"), {(n + t - 1) / t, (m + t - 1) / t}, {t, t},
          {xpu_arg_buffer(bc.handle), xpu_arg_buffer(ba.handle), xpu_arg_buffer(bb.handle),
           xpu_arg_u32(m), xpu_arg_u32(n), xpu_arg_u32(k)});
      auto c = bc.read<float>();
      uint32_t tiles = (k + t - 1) / t;
      for (uint32_t i = 0; i < m; ++i)
        for (uint32_t j = 0; j < n; ++j) {
          float acc = 0;
          for (uint32_t kk = 0; kk < tiles * t; ++kk) {
            float x = kk < k ? a[i * k + kk] : 0.f, y = kk < k ? b[kk * n + j] : 0.f;
            acc = acc + x * y;
          }
          INFO("c[" << i << "][" << j << "] = " << c[i * n + j] << ", want " << acc);
          REQUIRE(sameBits(c[i * n + j], acc));
        }
    }
}

TEST_CASE("barriers under a uniform if, with values live across them") {
  // Even workgroups rotate their values by one through shared memory, odd
  // ones by two, in two barrier steps; the branch yields a value (carried
  // per invocation) and a value from before the branch is used after it.
  Module m(R"(
    xpu.kernel @rotate(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %bias: i32) {
      %t = xpu.thread_id x
      %n = xpu.workgroup_size x
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %s = xpu.alloc : !xpu.buffer<1024xi32, shared>
      %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
      %before = arith.addi %v, %bias : i32
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %par = arith.remui %wg, %c2 : index
      %c0 = arith.constant 0 : index
      %even = arith.cmpi eq, %par, %c0 : index
      %r = scf.if %even -> (i32) {
        xpu.store %v, %s[%t] : !xpu.buffer<1024xi32, shared>
        xpu.barrier
        %p = arith.addi %t, %c1 : index
        %q = arith.remui %p, %n : index
        %w = xpu.load %s[%q] : !xpu.buffer<1024xi32, shared>
        scf.yield %w : i32
      } else {
        xpu.store %v, %s[%t] : !xpu.buffer<1024xi32, shared>
        xpu.barrier
        %p = arith.addi %t, %c1 : index
        %q = arith.remui %p, %n : index
        %w = xpu.load %s[%q] : !xpu.buffer<1024xi32, shared>
        xpu.barrier
        xpu.store %w, %s[%t] : !xpu.buffer<1024xi32, shared>
        xpu.barrier
        %w2 = xpu.load %s[%q] : !xpu.buffer<1024xi32, shared>
        scf.yield %w2 : i32
      }
      %sum = arith.addi %r, %before : i32
      xpu.store %sum, %out[%g] : !xpu.buffer<i32>
      xpu.return
    })");
  for (uint32_t block : {1u, 5u, 64u, 255u}) {
    const uint32_t groups = 5;
    auto in = randomInts<int32_t>(groups * block, -1 << 20, 1 << 20);
    int32_t bias = randomInts<int32_t>(1, -100, 100)[0];
    Buffer bin = Buffer::from(in), bout(groups * block * 4);
    run(m.kernel("rotate"), {groups}, {block},
        {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_i32(bias)});
    auto out = bout.read<int32_t>();
    for (uint32_t g = 0; g < groups; ++g)
      for (uint32_t t = 0; t < block; ++t) {
        uint32_t shift = g % 2 == 0 ? 1 : 2;
        int32_t want = in[g * block + (t + shift) % block] + in[g * block + t] + bias;
        INFO("block " << block << " group " << g << " invocation " << t);
        REQUIRE(out[g * block + t] == want);
      }
  }
}

TEST_CASE("barriers in a uniform while loop and in nested uniform loops") {
  // `rounds` times: every invocation adds its right neighbour's value (read
  // through shared memory, between two barriers); an inner loop of `inner`
  // trips does the same with the left neighbour.
  Module m(R"(
    xpu.kernel @rounds(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>,
                       %rounds: i32, %inner: i32) {
      %t = xpu.thread_id x
      %n = xpu.workgroup_size x
      %g = xpu.global_id x
      %s = xpu.alloc : !xpu.buffer<1024xi32, shared>
      %v0 = xpu.load %in[%g] : !xpu.buffer<i32, ro>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %right = arith.addi %t, %c1 : index
      %r = arith.remui %right, %n : index
      %nm1 = arith.subi %n, %c1 : index
      %left0 = arith.addi %t, %nm1 : index
      %l = arith.remui %left0, %n : index
      %ii = arith.index_castui %inner : i32 to index
      %res:2 = scf.while (%i = %zero, %v = %v0) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi slt, %i, %rounds : i32
        scf.condition(%more) %i, %v : i32, i32
      } do {
      ^bb0(%i2: i32, %v2: i32):
        xpu.store %v2, %s[%t] : !xpu.buffer<1024xi32, shared>
        xpu.barrier
        %w = xpu.load %s[%r] : !xpu.buffer<1024xi32, shared>
        xpu.barrier
        %v3 = arith.addi %v2, %w : i32
        %v4 = scf.for %j = %c0 to %ii step %c1 iter_args(%x = %v3) -> (i32) {
          xpu.store %x, %s[%t] : !xpu.buffer<1024xi32, shared>
          xpu.barrier
          %y = xpu.load %s[%l] : !xpu.buffer<1024xi32, shared>
          xpu.barrier
          %x2 = arith.subi %x, %y : i32
          scf.yield %x2 : i32
        }
        %i3 = arith.addi %i2, %one : i32
        scf.yield %i3, %v4 : i32, i32
      }
      xpu.store %res#1, %out[%g] : !xpu.buffer<i32>
      xpu.return
    })");
  for (uint32_t block : {1u, 3u, 32u, 100u})
    for (int32_t rounds : {0, 1, 3})
      for (int32_t inner : {0, 2}) {
        const uint32_t groups = 3;
        auto in = randomInts<int32_t>(groups * block, -1000, 1000);
        Buffer bin = Buffer::from(in), bout(groups * block * 4);
        run(m.kernel("rounds"), {groups}, {block},
            {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
             xpu_arg_i32(rounds), xpu_arg_i32(inner)});
        auto out = bout.read<int32_t>();
        for (uint32_t g = 0; g < groups; ++g) {
          std::vector<int32_t> v(in.begin() + g * block, in.begin() + (g + 1) * block);
          for (int32_t i = 0; i < rounds; ++i) {
            std::vector<int32_t> w = v;
            for (uint32_t t = 0; t < block; ++t)
              w[t] = int32_t(uint32_t(v[t]) + uint32_t(v[(t + 1) % block]));
            for (int32_t j = 0; j < inner; ++j) {
              std::vector<int32_t> x = w;
              for (uint32_t t = 0; t < block; ++t)
                x[t] = int32_t(uint32_t(w[t]) - uint32_t(w[(t + block - 1) % block]));
              w = x;
            }
            v = w;
          }
          for (uint32_t t = 0; t < block; ++t) {
            INFO("block " << block << " rounds " << rounds << " inner " << inner
                          << " group " << g << " invocation " << t);
            REQUIRE(out[g * block + t] == v[t]);
          }
        }
      }
}

namespace {

/// One type for the live-value test: how it is stored, its lanes, and how
/// the kernel makes a value of it from what it loads.
struct LiveType {
  const char *value;   ///< the type of the live value
  const char *element; ///< the buffer element type
  unsigned lanes;
  const char *combine; ///< "addi" / "addf" / "xori"
};

// Each invocation loads a value of the type, combines it with itself in a
// loop of two trips that has a barrier in each (the value is carried across
// barriers), and after a last barrier stores it. The invocation also writes
// its index to shared memory and reads its neighbour's after the barrier,
// so that the barrier orders something.
const char *kLiveValue = R"tmpl(
xpu.kernel @live(%out: !xpu.buffer<$ELEM>, %in: !xpu.buffer<$ELEM, ro>,
                 %tag: !xpu.buffer<i32>) {
  %t = xpu.thread_id x
  %n = xpu.workgroup_size x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<1024xi32, shared>
  %lanes = arith.constant $LANES : index
  %at = arith.muli %g, %lanes : index
  %v = xpu.load %in[%at] : !xpu.buffer<$ELEM, ro> $ARROW
  %idx = arith.muli %g, %lanes : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %v) -> ($TYPE) {
    %ti = arith.index_cast %t : index to i32
    xpu.store %ti, %s[%t] : !xpu.buffer<1024xi32, shared>
    xpu.barrier
    %x2 = arith.$COMBINE %x, %v : $TYPE
    xpu.barrier
    scf.yield %x2 : $TYPE
  }
  %p = arith.addi %t, %c1 : index
  %q = arith.remui %p, %n : index
  %w = xpu.load %s[%q] : !xpu.buffer<1024xi32, shared>
  xpu.store %w, %tag[%g] : !xpu.buffer<i32>
  xpu.store %r, %out[%idx] : !xpu.buffer<$ELEM> $ARROW
  xpu.return
})tmpl";

template <typename T> std::vector<T> randomOf(size_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> d(-100, 100);
    std::vector<T> v(n);
    for (auto &x : v)
      x = d(rng());
    return v;
  } else {
    return randomInts<T>(n, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  }
}

template <typename T>
void checkLive(const LiveType &lt, uint32_t block) {
  std::string ty = lt.lanes == 1 ? lt.element
                                 : "vector<" + std::to_string(lt.lanes) + "x" + lt.element + ">";
  std::string arrow = lt.lanes == 1 ? "" : "-> " + ty;
  Module m(fill(kLiveValue, {{"ELEM", lt.element},
                             {"TYPE", ty},
                             {"LANES", std::to_string(lt.lanes)},
                             {"ARROW", arrow},
                             {"COMBINE", lt.combine}}));
  const uint32_t groups = 3, n = groups * block * lt.lanes;
  std::vector<T> in = randomOf<T>(n);
  Buffer bin = Buffer::from(in), bout(n * sizeof(T)), btag(groups * block * 4);
  run(m.kernel("live"), {groups}, {block},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_buffer(btag.handle)});
  auto out = bout.read<T>();
  auto tag = btag.read<int32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    T x = in[i], want = x;
    for (int k = 0; k < 2; ++k) {
      if constexpr (std::is_floating_point_v<T>)
        want = want + x;
      else if (std::string(lt.combine) == "xori")
        want = T(want ^ x);
      else
        want = T(std::make_unsigned_t<T>(want) + std::make_unsigned_t<T>(x));
    }
    INFO(ty << ", block " << block << ", element " << i);
    REQUIRE(std::memcmp(&out[i], &want, sizeof(T)) == 0);
  }
  for (uint32_t i = 0; i < groups * block; ++i)
    REQUIRE(tag[i] == int32_t((i % block + 1) % block));
}

} // namespace

TEST_CASE("values of every type, and vectors of them, live across barriers") {
  for (uint32_t block : {1u, 7u, 128u}) {
    checkLive<int8_t>({"i8", "i8", 1, "addi"}, block);
    checkLive<int16_t>({"i16", "i16", 1, "addi"}, block);
    checkLive<int32_t>({"i32", "i32", 1, "addi"}, block);
    checkLive<int64_t>({"i64", "i64", 1, "addi"}, block);
    checkLive<float>({"f32", "f32", 1, "addf"}, block);
    checkLive<double>({"f64", "f64", 1, "addf"}, block);
    checkLive<int32_t>({"vector<2xi32>", "i32", 2, "addi"}, block);
    checkLive<float>({"vector<3xf32>", "f32", 3, "addf"}, block);
    checkLive<float>({"vector<4xf32>", "f32", 4, "addf"}, block);
    checkLive<int16_t>({"vector<4xi16>", "i16", 4, "xori"}, block);
  }
}

TEST_CASE("bools, indices and private arrays live across barriers") {
  // A bool, an index and a private array of four values are made before a
  // barrier and used after it.
  Module m(R"(
    xpu.kernel @mixed(%out: !xpu.buffer<i64>, %flags: !xpu.buffer<i1>,
                      %in: !xpu.buffer<i32, ro>) attributes {workgroup_size = array<i64: 16, 4, 1>} {
      %tx = xpu.thread_id x
      %ty = xpu.thread_id y
      %g = xpu.global_id x
      %gy = xpu.global_id y
      %w = xpu.global_size x
      %row = arith.muli %gy, %w : index
      %lin = arith.addi %row, %g : index
      %c4 = arith.constant 4 : index
      %base = arith.muli %lin, %c4 : index
      %p = xpu.alloc : !xpu.buffer<4xi32, private>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %at = arith.addi %base, %i : index
        %v = xpu.load %in[%at] : !xpu.buffer<i32, ro>
        xpu.store %v, %p[%i] : !xpu.buffer<4xi32, private>
      }
      %first = xpu.load %p[%c0] : !xpu.buffer<4xi32, private>
      %z = arith.constant 0 : i32
      %neg = arith.cmpi slt, %first, %z : i32
      %c3 = arith.constant 3 : index
      %k = arith.muli %lin, %c3 : index
      xpu.barrier
      %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (i32) {
        %v = xpu.load %p[%i] : !xpu.buffer<4xi32, private>
        %ii = arith.index_cast %i : index to i32
        %vi = arith.muli %v, %ii : i32
        %a2 = arith.addi %acc, %vi : i32
        scf.yield %a2 : i32
      }
      %s64 = arith.extsi %sum : i32 to i64
      %k64 = arith.index_cast %k : index to i64
      %r = arith.addi %s64, %k64 : i64
      xpu.store %r, %out[%lin] : !xpu.buffer<i64>
      xpu.store %neg, %flags[%lin] : !xpu.buffer<i1>
      xpu.return
    })");
  const uint32_t gx = 3, gy = 2, n = gx * 16 * gy * 4;
  auto in = randomInts<int32_t>(n * 4, -1 << 24, 1 << 24);
  Buffer bin = Buffer::from(in), bout(n * 8), bflags(n);
  run(m.kernel("mixed"), {gx, gy}, {16, 4},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bflags.handle), xpu_arg_buffer(bin.handle)});
  auto out = bout.read<int64_t>();
  auto flags = bflags.read<uint8_t>();
  for (uint32_t i = 0; i < n; ++i) {
    int32_t sum = 0;
    for (int j = 0; j < 4; ++j)
      sum = int32_t(uint32_t(sum) + uint32_t(in[i * 4 + j]) * uint32_t(j));
    INFO("invocation " << i);
    REQUIRE(out[i] == int64_t(sum) + int64_t(i) * 3);
    REQUIRE(flags[i] == (in[i * 4] < 0 ? 1 : 0));
  }
}

TEST_CASE("many workgroup shapes: a workgroup reverses its values through shared memory") {
  Module m(R"(
    xpu.kernel @reverse(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
      %tx = xpu.thread_id x
      %ty = xpu.thread_id y
      %tz = xpu.thread_id z
      %sx = xpu.workgroup_size x
      %sy = xpu.workgroup_size y
      %sz = xpu.workgroup_size z
      %wx = xpu.workgroup_id x
      %wy = xpu.workgroup_id y
      %wz = xpu.workgroup_id z
      %gx = xpu.grid_size x
      %gy = xpu.grid_size y
      %sxy = arith.muli %sx, %sy : index
      %size = arith.muli %sxy, %sz : index
      %l0 = arith.muli %tz, %sy : index
      %l1 = arith.addi %l0, %ty : index
      %l2 = arith.muli %l1, %sx : index
      %lin = arith.addi %l2, %tx : index
      %w0 = arith.muli %wz, %gy : index
      %w1 = arith.addi %w0, %wy : index
      %w2 = arith.muli %w1, %gx : index
      %group = arith.addi %w2, %wx : index
      %base = arith.muli %group, %size : index
      %at = arith.addi %base, %lin : index
      %s = xpu.alloc : !xpu.buffer<1024xf32, shared>
      %v = xpu.load %in[%at] : !xpu.buffer<f32, ro>
      xpu.store %v, %s[%lin] : !xpu.buffer<1024xf32, shared>
      xpu.barrier
      %c1 = arith.constant 1 : index
      %last = arith.subi %size, %c1 : index
      %mirror = arith.subi %last, %lin : index
      %w = xpu.load %s[%mirror] : !xpu.buffer<1024xf32, shared>
      xpu.store %w, %out[%at] : !xpu.buffer<f32>
      xpu.return
    })");
  const uint32_t shapes[][3] = {{1, 1, 1},  {3, 1, 1}, {7, 5, 1},  {4, 3, 2},   {32, 32, 1},
                                {1024, 1, 1}, {1, 1, 64}, {2, 2, 2}, {1, 16, 4}, {9, 1, 11}};
  const uint32_t grid[3] = {2, 3, 2}, groups = grid[0] * grid[1] * grid[2];
  for (auto &b : shapes) {
    uint32_t size = b[0] * b[1] * b[2];
    auto in = randomFloats(groups * size);
    Buffer bin = Buffer::from(in), bout(groups * size * 4);
    run(m.kernel("reverse"), {grid[0], grid[1], grid[2]}, {b[0], b[1], b[2]},
        {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
    auto out = bout.read<float>();
    for (uint32_t g = 0; g < groups; ++g)
      for (uint32_t i = 0; i < size; ++i) {
        INFO("shape " << b[0] << "x" << b[1] << "x" << b[2] << " group " << g << " item " << i);
        REQUIRE(sameBits(out[g * size + i], in[g * size + size - 1 - i]));
      }
  }
}

TEST_CASE("a shared-tile transpose") {
  Module m(R"(
    xpu.kernel @transpose(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
                          %w: i32, %h: i32) attributes {workgroup_size = array<i64: 16, 16, 1>} {
      %tx = xpu.thread_id x
      %ty = xpu.thread_id y
      %wx = xpu.workgroup_id x
      %wy = xpu.workgroup_id y
      %c16 = arith.constant 16 : index
      %wi = arith.index_castui %w : i32 to index
      %hi = arith.index_castui %h : i32 to index
      %tile = xpu.alloc : !xpu.buffer<272xf32, shared>
      %c17 = arith.constant 17 : index
      %x0 = arith.muli %wx, %c16 : index
      %y0 = arith.muli %wy, %c16 : index
      %x = arith.addi %x0, %tx : index
      %y = arith.addi %y0, %ty : index
      %okx = arith.cmpi ult, %x, %wi : index
      %oky = arith.cmpi ult, %y, %hi : index
      %ok = arith.andi %okx, %oky : i1
      %slot0 = arith.muli %ty, %c17 : index
      %slot = arith.addi %slot0, %tx : index
      scf.if %ok {
        %r = arith.muli %y, %wi : index
        %i = arith.addi %r, %x : index
        %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
        xpu.store %v, %tile[%slot] : !xpu.buffer<272xf32, shared>
      }
      xpu.barrier
      %ox = arith.addi %y0, %tx : index
      %oy = arith.addi %x0, %ty : index
      %okox = arith.cmpi ult, %ox, %hi : index
      %okoy = arith.cmpi ult, %oy, %wi : index
      %ok2 = arith.andi %okox, %okoy : i1
      scf.if %ok2 {
        %t0 = arith.muli %tx, %c17 : index
        %t = arith.addi %t0, %ty : index
        %v = xpu.load %tile[%t] : !xpu.buffer<272xf32, shared>
        %r = arith.muli %oy, %hi : index
        %o = arith.addi %r, %ox : index
        xpu.store %v, %out[%o] : !xpu.buffer<f32>
      }
      xpu.return
    })");
  for (int rep = 0; rep < 3; ++rep) {
    uint32_t w = uint32_t(randomInts<int>(1, 1, 100)[0]), h = uint32_t(randomInts<int>(1, 1, 100)[0]);
    auto in = randomFloats(w * h);
    Buffer bin = Buffer::from(in), bout(w * h * 4);
    run(m.kernel("transpose"), {(w + 15) / 16, (h + 15) / 16}, {16, 16},
        {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(w),
         xpu_arg_u32(h)});
    auto out = bout.read<float>();
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        INFO(w << "x" << h << " at " << x << "," << y);
        REQUIRE(sameBits(out[x * h + y], in[y * w + x]));
      }
  }
}

namespace {

/// The pairwise order of `tree` (and, today, `unspecified`) on every
/// backend: stride = the next power of two >= n, halved each round; slot i
/// combines with slot i + stride when that one exists.
template <typename T, typename F> T pairwise(std::vector<T> v, F op) {
  size_t n = v.size(), p = 1;
  while (p < n)
    p <<= 1;
  for (size_t s = p / 2; s > 0; s /= 2)
    for (size_t i = 0; i < s && i + s < n; ++i)
      v[i] = op(v[i], v[i + s]);
  return v[0];
}

template <typename T, typename F> T leftToRight(const std::vector<T> &v, F op) {
  T acc = v[0];
  for (size_t i = 1; i < v.size(); ++i)
    acc = op(acc, v[i]);
  return acc;
}

const char *kReduce = R"tmpl(
xpu.kernel @reduce(%out: !xpu.buffer<$T>, %in: !xpu.buffer<$T, ro>) {
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %v = xpu.load %in[%g] : !xpu.buffer<$T, ro>
  %r = xpu.reduce $KIND %v $ORDER : $T
  %t = xpu.thread_id x
  %n = xpu.workgroup_size x
  %ng = xpu.grid_size x
  %row = arith.muli %t, %ng : index
  %at = arith.addi %row, %wg : index
  xpu.store %r, %out[%at] : !xpu.buffer<$T>
  xpu.return
})tmpl";

template <typename T, typename F>
void checkReduce(const char *type, const char *kind, F op, bool exact) {
  for (const char *order : {"sequential", "tree", "unspecified"}) {
    Module m(fill(kReduce, {{"T", type}, {"KIND", kind}, {"ORDER", order}}));
    for (uint32_t block : {1u, 2u, 3u, 37u, 64u, 100u, 1024u}) {
      const uint32_t groups = 3;
      std::vector<T> in;
      if constexpr (std::is_floating_point_v<T>) {
        // Products stay finite: factors near one.
        bool mul = std::string(kind) == "mul";
        std::uniform_real_distribution<T> d(mul ? T(0.9) : T(-10), mul ? T(1.1) : T(10));
        for (uint32_t i = 0; i < groups * block; ++i)
          in.push_back(d(rng()));
      } else if (std::string(kind) == "mul") {
        in = randomInts<T>(groups * block, -3, 3);
      } else {
        in = randomInts<T>(groups * block, std::numeric_limits<T>::min(),
                           std::numeric_limits<T>::max());
      }
      Buffer bin = Buffer::from(in), bout(groups * block * sizeof(T));
      run(m.kernel("reduce"), {groups}, {block},
          {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
      auto out = bout.read<T>();
      for (uint32_t g = 0; g < groups; ++g) {
        std::vector<T> part(in.begin() + g * block, in.begin() + (g + 1) * block);
        T want = std::string(order) == "sequential" || exact ? leftToRight(part, op)
                                                              : pairwise(part, op);
        for (uint32_t t = 0; t < block; ++t) {
          T got = out[t * groups + g];
          INFO(std::string(kind) << " " << std::string(order) << " " << std::string(type) << ", block " << block << ", group "
                    << g << ", invocation " << t << ": " << +got << ", want " << +want);
          if (std::string(order) == "unspecified" && !exact) {
            // Any order: within the rounding of a sum of |values|.
            T bound = 0;
            for (T x : part)
              bound += std::fabs(x);
            REQUIRE(std::fabs(double(got) - double(want)) <=
                    double(bound) * 64 * std::numeric_limits<T>::epsilon());
          } else {
            REQUIRE(std::memcmp(&got, &want, sizeof(T)) == 0);
          }
        }
      }
    }
  }
}

} // namespace

TEST_CASE("reductions of every kind and order, on many workgroup sizes") {
  auto wrapAdd = [](auto a, auto b) {
    using U = std::make_unsigned_t<decltype(a)>;
    return decltype(a)(U(a) + U(b));
  };
  auto wrapMul = [](auto a, auto b) {
    using U = std::make_unsigned_t<decltype(a)>;
    return decltype(a)(U(a) * U(b));
  };
  checkReduce<int32_t>("i32", "add", wrapAdd, true);
  checkReduce<int64_t>("i64", "add", wrapAdd, true);
  checkReduce<int32_t>("i32", "mul", wrapMul, true);
  checkReduce<int32_t>("i32", "smin", [](int32_t a, int32_t b) { return std::min(a, b); }, true);
  checkReduce<int64_t>("i64", "smax", [](int64_t a, int64_t b) { return std::max(a, b); }, true);
  checkReduce<int32_t>("i32", "umin",
                       [](int32_t a, int32_t b) { return int32_t(std::min(uint32_t(a), uint32_t(b))); },
                       true);
  checkReduce<int32_t>("i32", "umax",
                       [](int32_t a, int32_t b) { return int32_t(std::max(uint32_t(a), uint32_t(b))); },
                       true);
  checkReduce<int32_t>("i32", "and", [](int32_t a, int32_t b) { return a & b; }, true);
  checkReduce<int32_t>("i32", "or", [](int32_t a, int32_t b) { return a | b; }, true);
  checkReduce<int64_t>("i64", "xor", [](int64_t a, int64_t b) { return a ^ b; }, true);
  checkReduce<float>("f32", "add", [](float a, float b) { return a + b; }, false);
  checkReduce<double>("f64", "add", [](double a, double b) { return a + b; }, false);
  checkReduce<float>("f32", "mul", [](float a, float b) { return a * b; }, false);
  checkReduce<float>("f32", "fmin", [](float a, float b) { return std::fmin(a, b); }, true);
  checkReduce<double>("f64", "fmax", [](double a, double b) { return std::fmax(a, b); }, true);
}

TEST_CASE("a barrier that only some invocations reach is refused with its location") {
  // Admission refuses it (XPU-UC001); the CPU's region formation would too
  // (XPU-CPU001), were it to get that far.
  std::string text = R"(xpu.kernel @divergent(%out: !xpu.buffer<i32>) {
  %t = xpu.thread_id x
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %t, %c0 : index
  scf.if %z {
    xpu.barrier
  }
  xpu.return
})";
  xpu_module mod = nullptr;
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                                    nullptr, &mod, &diags);
  std::string said = xpu_diagnostics_text(diags);
  xpu_diagnostics_release(diags);
  INFO(said);
  CHECK(st != XPU_SUCCESS);
  CHECK(mod == nullptr);
  CHECK((said.find("XPU-UC001") != std::string::npos ||
         said.find("XPU-CPU001") != std::string::npos));
  CHECK(said.find(":6:5") != std::string::npos);
}

TEST_CASE("shared memory past 48 KiB, and dynamic shared memory after it") {
  // 80 KiB of the kernel's own (a CUDA block has 48 KiB of static shared
  // memory: past it the kernel's buffers are placed in the dynamic window,
  // xpu-place-shared-memory) and 1 KiB the launch gives, which must follow
  // them. Each element read back was written by another invocation.
  const uint32_t own = 16384 * 4 + 4096 * 4, dynamic = 256 * 4, groups = 3;
  std::string text = fill(R"tmpl(
    xpu.kernel @big(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
                    %bytes: i64 {xpu.role = "dynamic_shared_bytes"}) $shape {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %c4096 = arith.constant 4096 : index
      %c16384 = arith.constant 16384 : index
      %last = arith.constant 16383 : index
      %tx = xpu.thread_id x
      %wg = xpu.workgroup_id x
      %base = arith.muli %wg, %c16384 : index
      %a = xpu.alloc : !xpu.buffer<16384xf32, shared>
      %b = xpu.alloc : !xpu.buffer<4096xi32, shared>
      %n = arith.index_castui %bytes : i64 to index
      %d = xpu.dynamic_shared %n : !xpu.buffer<f32, shared>
      scf.for %i = %tx to %c16384 step %c256 {
        %at = arith.addi %base, %i : index
        %v = xpu.load %in[%at] : !xpu.buffer<f32, ro>
        xpu.store %v, %a[%i] : !xpu.buffer<16384xf32, shared>
      }
      scf.for %i = %tx to %c4096 step %c256 {
        %i32 = arith.index_castui %i : index to i32
        %three = arith.constant 3 : i32
        %v = arith.muli %i32, %three : i32
        xpu.store %v, %b[%i] : !xpu.buffer<4096xi32, shared>
      }
      %txf = arith.index_castui %tx : index to i32
      %txv = arith.uitofp %txf : i32 to f32
      xpu.store %txv, %d[%tx] : !xpu.buffer<f32, shared>
      xpu.barrier
      scf.for %i = %tx to %c16384 step %c256 {
        %mirror = arith.subi %last, %i : index
        %x = xpu.load %a[%mirror] : !xpu.buffer<16384xf32, shared>
        %j = arith.remui %i, %c4096 : index
        %y = xpu.load %b[%j] : !xpu.buffer<4096xi32, shared>
        %yf = arith.sitofp %y : i32 to f32
        %k = arith.remui %i, %c256 : index
        %z = xpu.load %d[%k] : !xpu.buffer<f32, shared>
        %s0 = arith.addf %x, %yf : f32
        %s = arith.addf %s0, %z : f32
        %at = arith.addi %base, %i : index
        xpu.store %s, %out[%at] : !xpu.buffer<f32>
      }
      xpu.return
    })tmpl",
                          {{"shape", shapeAttr(256, 1, 1)}});
  const uint64_t limit = capabilityLimit("shared.memory");
  if (limit < own + dynamic) {
    xpu_status st;
    std::string said = diagnosticsOf(text, st);
    INFO(said);
    CHECK(st == XPU_ERROR_REFUSED);
    CHECK(said.find("shared memory") != std::string::npos);
    MESSAGE("SKIP on " << target().name << ": shared.memory is " << limit
                       << " bytes (refused as it must be)");
    return;
  }
  // On CUDA this is the dynamic window: the whole 80 KiB on every H100/H200.
  Module m(text);
  xpu_kernel k = m.kernel("big");
  auto in = randomFloats(groups * 16384);
  Buffer bin = Buffer::from(in), bout(groups * 16384 * 4);
  const uint32_t grid[3] = {groups, 1, 1}, block[3] = {256, 1, 1};
  xpu_arg args[] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)};
  xpu_launch_options options = XPU_LAUNCH_OPTIONS_INIT;
  options.dynamic_shared_bytes = dynamic;
  XPU_OK(xpu_launch_with_options(k, nullptr, grid, block, args, 2, &options));
  XPU_OK(xpu_stream_synchronize(defaultStream()));
  auto out = bout.read<float>();
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t i = 0; i < 16384; ++i) {
      float want = in[g * 16384 + 16383 - i] + float(int32_t(i % 4096) * 3) + float(i % 256);
      INFO("group " << g << " element " << i);
      REQUIRE(sameBits(out[g * 16384 + i], want));
    }
  // The manifest counts the kernel's own 80 KiB, wherever the code keeps it.
  xpu_kernel_manifest man = {sizeof man};
  XPU_OK(xpu_kernel_manifest_get(k, &man));
  INFO(man.shared_bytes.source);
  if (man.shared_bytes.known)
    CHECK(man.shared_bytes.value >= own);
  // More dynamic shared memory than the device leaves is refused.
  options.dynamic_shared_bytes = uint32_t(std::min<uint64_t>(limit, UINT32_MAX));
  CHECK(xpu_launch_with_options(k, nullptr, grid, block, args, 2, &options) ==
        XPU_ERROR_INVALID_ARGUMENT);
}
