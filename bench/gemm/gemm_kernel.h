// The tiled GEMM kernel of the benchmark and of the tile conformance tests
// (issue 15): each workgroup computes one tm x tn block of C = A·B over a K
// loop of tk-deep tiles, with xpu.tile_load / xpu.mac / xpu.tile_store.
// Every main parameter (element types, tile shape, workgroup size, layout of
// B) is an argument, so one program tries several variants.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace gemm {

struct Kernel {
  std::string ta = "f32", tc = "f32"; ///< operand and accumulator types
  int tm = 16, tn = 16, tk = 16;      ///< the workgroup's block and K step
  int threads = 32;                   ///< invocations per workgroup
  bool aColMajor = false;             ///< A stored K x M (A transposed)
  bool bColMajor = false;             ///< B stored N x K (B transposed)
  /// Ops after the K loop, from "%acc" to "%outTile" (stored when set).
  std::string epilogue;
  std::string outType; ///< element type of C (tc when empty)
  /// Elements before A's and C's first element (0: none), so the tiles'
  /// offsets are not aligned to vector accesses.
  int aShift = 0, cShift = 0;
  /// 0: workgroup (x, y) computes block column x of block row y. G > 0:
  /// the workgroups in launch order take G block rows at a time, column by
  /// column within them, so the blocks running together share their A
  /// rows and B columns in the cache (the grouped order of Triton's matmul).
  int group = 0;

  static std::string tile(int r, int c, const std::string &t) {
    return "!xpu.tile<" + std::to_string(r) + "x" + std::to_string(c) + "x" + t + ">";
  }

  /// %bx, %by: the block column and row this workgroup computes.
  std::string blockOrder() const {
    if (group <= 0)
      return "  %bx = xpu.workgroup_id x\n"
             "  %by = xpu.workgroup_id y\n";
    return "  %wx = xpu.workgroup_id x\n"
           "  %wy = xpu.workgroup_id y\n"
           "  %gx = arith.divui %N, %tn : index\n"
           "  %gy = arith.divui %M, %tm : index\n"
           "  %pr = arith.muli %wy, %gx : index\n"
           "  %pid = arith.addi %pr, %wx : index\n"
           "  %G = arith.constant " + std::to_string(group) + " : index\n"
           "  %inGroup = arith.muli %G, %gx : index\n"
           "  %gid = arith.divui %pid, %inGroup : index\n"
           "  %first = arith.muli %gid, %G : index\n"
           "  %left = arith.subi %gy, %first : index\n"
           "  %rows = arith.minui %left, %G : index\n"
           "  %at = arith.remui %pid, %inGroup : index\n"
           "  %within = arith.remui %at, %rows : index\n"
           "  %by = arith.addi %first, %within : index\n"
           "  %bx = arith.divui %at, %rows : index\n";
  }

  /// The kernel @gemm(A, B, C, m, n, k): grid (n / tn, m / tm), block
  /// `threads`; m, n, k multiples of tm, tn, tk.
  std::string text() const {
    std::string acc = tile(tm, tn, tc), at = tile(tm, tk, ta), bt = tile(tk, tn, ta);
    std::string out = outType.empty() ? tc : outType;
    std::string zero = tc == "i32" ? "0 : i32" : "0.0 : " + tc;
    auto n = [](int v) { return std::to_string(v); };
    std::string s =
        "xpu.kernel @gemm(%A: !xpu.buffer<" + ta + ", ro>, %B: !xpu.buffer<" + ta +
        ", ro>, %C: !xpu.buffer<" + out + ">, %m: i32, %n: i32, %k: i32)\n"
        "    attributes {workgroup_size = array<i64: " + n(threads) + ", 1, 1>} {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %tk = arith.constant " + n(tk) + " : index\n"
        "  %tm = arith.constant " + n(tm) + " : index\n"
        "  %tn = arith.constant " + n(tn) + " : index\n"
        "  %N = arith.index_castui %n : i32 to index\n"
        "  %K = arith.index_castui %k : i32 to index\n"
        "  %M = arith.index_castui %m : i32 to index\n"
        + blockOrder() +
        "  %row0 = arith.muli %by, %tm : index\n"
        "  %col0 = arith.muli %bx, %tn : index\n"
        "  %zero = arith.constant " + zero + "\n"
        "  %init = xpu.tile_fill %zero : " + acc + "\n"
        "  %acc = scf.for %kk = %c0 to %K step %tk iter_args(%c = %init) -> (" + acc + ") {\n"
        "    %ash = arith.constant " + n(aShift) + " : index\n";
    if (aColMajor)
      s += "    %ar = arith.muli %kk, %M : index\n"
           "    %aoff0 = arith.addi %ar, %row0 : index\n"
           "    %aoff = arith.addi %aoff0, %ash : index\n"
           "    %a = xpu.tile_load %A[%aoff], %M col_major : !xpu.buffer<" + ta + ", ro> -> " +
           at + "\n";
    else
      s += "    %ar = arith.muli %row0, %K : index\n"
           "    %aoff0 = arith.addi %ar, %kk : index\n"
           "    %aoff = arith.addi %aoff0, %ash : index\n"
           "    %a = xpu.tile_load %A[%aoff], %K : !xpu.buffer<" + ta + ", ro> -> " + at + "\n";
    if (bColMajor)
      s += "    %bc = arith.muli %col0, %K : index\n"
           "    %boff = arith.addi %bc, %kk : index\n"
           "    %b = xpu.tile_load %B[%boff], %K col_major : !xpu.buffer<" + ta +
           ", ro> -> " + bt + "\n";
    else
      s += "    %br = arith.muli %kk, %N : index\n"
           "    %boff = arith.addi %br, %col0 : index\n"
           "    %b = xpu.tile_load %B[%boff], %N : !xpu.buffer<" + ta + ", ro> -> " + bt + "\n";
    s += "    %r = xpu.mac %c, %a, %b : " + acc + ", " + at + ", " + bt + "\n"
         "    scf.yield %r : " + acc + "\n"
         "  }\n" +
         epilogue +
         "  %cr = arith.muli %row0, %N : index\n"
         "  %coff0 = arith.addi %cr, %col0 : index\n"
         "  %csh = arith.constant " + n(cShift) + " : index\n"
         "  %coff = arith.addi %coff0, %csh : index\n"
         "  xpu.tile_store " + std::string(epilogue.empty() ? "%acc" : "%outTile") +
         ", %C[%coff], %N : " + tile(tm, tn, out) + ", !xpu.buffer<" + out + ">\n"
         "  xpu.return\n"
         "}\n";
    return s;
  }
};

/// f16 and bf16 bits from a float (round to nearest even; values below the
/// normal f16 range flush to zero, which the callers' inputs never are) and
/// back.
inline uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp <= 0) { // the test's values are normal halves; flush the rest
    return uint16_t(sign);
  }
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(h);
}
inline float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t x = exp == 0 ? sign : sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
inline uint16_t toBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t rest = x & 0xffff, h = x >> 16;
  if (rest > 0x8000 || (rest == 0x8000 && (h & 1)))
    ++h;
  return uint16_t(h);
}
inline float fromBf16(uint16_t h) {
  uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

} // namespace gemm
