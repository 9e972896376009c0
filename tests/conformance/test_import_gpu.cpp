// Upstream gpu.func kernels that share a tile through workgroup memory:
// the two idioms of shared/repros/interop/ (t4: a workgroup attribution
// aborted the process; t21: memref.alloca in workgroup space became private
// memory and the transpose was wrong). Both must transpose exactly.
#include "harness.h"

using namespace conf;

namespace {

/// The body both kernels share after the tile is declared: load a 16x16
/// block of `in` (rows x cols) into the tile, barrier, store it transposed.
/// TILE_STORE and TILE_LOAD index the tile as the idiom declares it.
std::string transposeKernel(const std::string &head, const std::string &tileStore,
                            const std::string &tileLoad) {
  return head + R"(
    %c16 = arith.constant 16 : index
    %c17 = arith.constant 17 : index
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %R = arith.index_cast %rows : i32 to index
    %C = arith.index_cast %cols : i32 to index
    %r0 = arith.muli %by, %c16 : index
    %c0 = arith.muli %bx, %c16 : index
    %r = arith.addi %r0, %ty : index
    %c = arith.addi %c0, %tx : index
    %rin = arith.cmpi ult, %r, %R : index
    %cin = arith.cmpi ult, %c, %C : index
    %ok = arith.andi %rin, %cin : i1
    scf.if %ok {
      %rC = arith.muli %r, %C : index
      %i = arith.addi %rC, %c : index
      %v = memref.load %in[%i] : memref<?xf32>
      )" + tileStore + R"(
    }
    gpu.barrier
    %orow = arith.addi %c0, %ty : index
    %ocol = arith.addi %r0, %tx : index
    %orin = arith.cmpi ult, %orow, %C : index
    %ocin = arith.cmpi ult, %ocol, %R : index
    %ook = arith.andi %orin, %ocin : i1
    scf.if %ook {
      )" + tileLoad + R"(
      %oR = arith.muli %orow, %R : index
      %o = arith.addi %oR, %ocol : index
      memref.store %v, %out[%o] : memref<?xf32>
    }
    gpu.return
  }
})";
}

const char *kParams = "%out: memref<?xf32>, %in: memref<?xf32>, %rows: i32, %cols: i32";

std::string attributionKernel() {
  return transposeKernel(
      std::string("gpu.module @m {\n  gpu.func @transpose(") + kParams +
          ")\n      workgroup(%tile: memref<16x17xf32, #gpu.address_space<workgroup>>) kernel {",
      "memref.store %v, %tile[%ty, %tx] : memref<16x17xf32, #gpu.address_space<workgroup>>",
      "%v = memref.load %tile[%tx, %ty] : memref<16x17xf32, #gpu.address_space<workgroup>>");
}

std::string allocaKernel() {
  return transposeKernel(
      std::string("gpu.module @m {\n  gpu.func @transpose(") + kParams + ") kernel {\n" +
          "    %tile = memref.alloca() : memref<272xf32, #gpu.address_space<workgroup>>",
      "%ty17 = arith.muli %ty, %c17 : index\n      %t = arith.addi %ty17, %tx : index\n"
      "      memref.store %v, %tile[%t] : memref<272xf32, #gpu.address_space<workgroup>>",
      "%tx17 = arith.muli %tx, %c17 : index\n      %t = arith.addi %tx17, %ty : index\n"
      "      %v = memref.load %tile[%t] : memref<272xf32, #gpu.address_space<workgroup>>");
}

void checkTranspose(const std::string &text) {
  Module m(text);
  // Sizes that are not multiples of the tile, so edge blocks are partial.
  const uint32_t rows = uint32_t(randomInts<int32_t>(1, 17, 70)[0]);
  const uint32_t cols = uint32_t(randomInts<int32_t>(1, 17, 70)[0]);
  auto in = randomFloats(rows * cols, -1000, 1000);
  Buffer bin = Buffer::from(in), bout(rows * cols * 4);
  run(m.kernel("transpose"), {(cols + 15) / 16, (rows + 15) / 16}, {16, 16},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
       xpu_arg_i32(int32_t(rows)), xpu_arg_i32(int32_t(cols))});
  auto out = bout.read<float>();
  INFO(rows << "x" << cols);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      INFO("in[" << r << "][" << c << "]");
      REQUIRE(out[c * rows + r] == in[r * cols + c]);
    }
}

} // namespace

TEST_CASE("gpu.func with a workgroup attribution shares one tile per workgroup") {
  checkTranspose(attributionKernel());
}

TEST_CASE("gpu.func with memref.alloca in workgroup memory shares one tile per workgroup") {
  checkTranspose(allocaKernel());
}
