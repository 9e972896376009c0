// Conformance: workgroup-shared memory, barriers, reductions and atomics.
#include "harness.h"
#include "kernels.h"

#include <numeric>

using namespace conf;

TEST_CASE("shared-memory tree reduction with barriers") {
  Module m(kBlockSum);
  const uint32_t groups = 37;
  auto in = randomInts<int32_t>(groups * 256, -100000, 100000);
  Buffer bin = Buffer::from(in), bout(groups * 4);
  run(m.kernel("block_sum"), {groups}, {256},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
  auto out = bout.read<int32_t>();
  for (uint32_t g = 0; g < groups; ++g)
    REQUIRE(out[g] == std::accumulate(in.begin() + g * 256, in.begin() + (g + 1) * 256, 0));
}

TEST_CASE("a barrier orders shared memory across a workgroup") {
  // Each invocation writes its slot, then reads its neighbour's: wrong
  // without the barrier on any backend that runs invocations out of step.
  Module m(R"(
    xpu.kernel @rotate(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
      %t = xpu.thread_id x
      %n = xpu.workgroup_size x
      %g = xpu.global_id x
      %s = xpu.alloc : !xpu.buffer<1024xi32, shared>
      %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
      xpu.store %v, %s[%t] : !xpu.buffer<1024xi32, shared>
      xpu.barrier
      %c1 = arith.constant 1 : index
      %next = arith.addi %t, %c1 : index
      %wrap = arith.remui %next, %n : index
      %w = xpu.load %s[%wrap] : !xpu.buffer<1024xi32, shared>
      xpu.store %w, %out[%g] : !xpu.buffer<i32>
      xpu.return
    })");
  for (uint32_t block : {1u, 7u, 64u, 1024u}) {
    const uint32_t groups = 3;
    auto in = randomInts<int32_t>(groups * block, INT32_MIN, INT32_MAX);
    Buffer bin = Buffer::from(in), bout(groups * block * 4);
    run(m.kernel("rotate"), {groups}, {block},
        {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
    auto out = bout.read<int32_t>();
    for (uint32_t g = 0; g < groups; ++g)
      for (uint32_t t = 0; t < block; ++t)
        REQUIRE(out[g * block + t] == in[g * block + (t + 1) % block]);
  }
}

TEST_CASE("sequential reductions give the host's left-to-right result") {
  Module m(R"(
    xpu.kernel @sums(%fout: !xpu.buffer<f32>, %iout: !xpu.buffer<i32>,
                     %mout: !xpu.buffer<i32>, %f: !xpu.buffer<f32, ro>,
                     %i: !xpu.buffer<i32, ro>) {
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %fv = xpu.load %f[%g] : !xpu.buffer<f32, ro>
      %iv = xpu.load %i[%g] : !xpu.buffer<i32, ro>
      %fs = xpu.reduce add %fv sequential : f32
      %is = xpu.reduce add %iv tree : i32
      %mx = xpu.reduce smax %iv sequential : i32
      %t = xpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        xpu.store %fs, %fout[%wg] : !xpu.buffer<f32>
        xpu.store %is, %iout[%wg] : !xpu.buffer<i32>
        xpu.store %mx, %mout[%wg] : !xpu.buffer<i32>
      }
      xpu.return
    })");
  for (uint32_t block : {1u, 33u, 128u}) {
    const uint32_t groups = 9;
    auto f = randomFloats(groups * block, -1000, 1000);
    auto iv = randomInts<int32_t>(groups * block, -1 << 20, 1 << 20);
    Buffer bf = Buffer::from(f), bi = Buffer::from(iv);
    Buffer fo(groups * 4), io(groups * 4), mo(groups * 4);
    run(m.kernel("sums"), {groups}, {block},
        {xpu_arg_buffer(fo.handle), xpu_arg_buffer(io.handle),
         xpu_arg_buffer(mo.handle), xpu_arg_buffer(bf.handle),
         xpu_arg_buffer(bi.handle)});
    auto fs = fo.read<float>();
    auto is = io.read<int32_t>();
    auto ms = mo.read<int32_t>();
    for (uint32_t g = 0; g < groups; ++g) {
      float acc = f[g * block];
      for (uint32_t t = 1; t < block; ++t)
        acc += f[g * block + t];
      REQUIRE(std::memcmp(&fs[g], &acc, 4) == 0); // same order, same bits
      int32_t isum = 0, imax = INT32_MIN;
      for (uint32_t t = 0; t < block; ++t) {
        isum += iv[g * block + t];
        imax = std::max(imax, iv[g * block + t]);
      }
      REQUIRE(is[g] == isum);
      REQUIRE(ms[g] == imax);
    }
  }
}

TEST_CASE("atomic adds build a histogram") {
  Module m(R"(
    xpu.kernel @histogram(%bins: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      %ni = arith.index_castui %n : i32 to index
      %ok = arith.cmpi ult, %i, %ni : index
      scf.if %ok {
        %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
        %c16 = arith.constant 16 : i32
        %b = arith.remui %v, %c16 : i32
        %bi = arith.index_castui %b : i32 to index
        %one = arith.constant 1 : i32
        %old = xpu.atomic_rmw add %one, %bins[%bi] seq_cst device : !xpu.buffer<i32>
      }
      xpu.return
    })");
  const uint32_t n = 50000;
  auto in = randomInts<int32_t>(n, 0, 1 << 30);
  std::vector<int32_t> zero(16, 0);
  Buffer bins = Buffer::from(zero), bin = Buffer::from(in);
  run(m.kernel("histogram"), {(n + 127) / 128}, {128},
      {xpu_arg_buffer(bins.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(n)});
  std::vector<int32_t> want(16, 0);
  for (int32_t v : in)
    ++want[uint32_t(v) % 16];
  CHECK(bins.read<int32_t>() == want);
}
