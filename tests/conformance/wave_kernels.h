// Wave-operation kernels as text, made for one value type at a time: the
// conformance suite runs them (test_wave.cpp) and the unit tests compile
// them for NVPTX and AMDGPU without a GPU (test_surface_codegen.cpp).
#pragma once

#include <string>
#include <vector>

namespace conf::wave {

/// Stores invocation %i's lane id and wave width to %info[2i], [2i + 1], so
/// the host models the waves the kernel really ran in.
inline std::string infoStores() {
  return "  %ic2 = arith.constant 2 : index\n"
         "  %ic1 = arith.constant 1 : index\n"
         "  %iat = arith.muli %i, %ic2 : index\n"
         "  %iat1 = arith.addi %iat, %ic1 : index\n"
         "  %ilane = xpu.lane_id\n"
         "  %iwidth = xpu.wave_width\n"
         "  %ilane32 = arith.index_cast %ilane : index to i32\n"
         "  %iwidth32 = arith.index_cast %iwidth : index to i32\n"
         "  xpu.store %ilane32, %info[%iat] : !xpu.buffer<i32>\n"
         "  xpu.store %iwidth32, %info[%iat1] : !xpu.buffer<i32>\n";
}

/// Shuffles `in` with per-invocation offsets `off` in every mode, then
/// broadcasts from lane lanes[workgroup]: out[5i + 0..4] = xor, up, down,
/// index, broadcast. info[2i] = lane id, info[2i + 1] = wave width.
inline std::string shuffleKernel(const std::string &name, const std::string &t) {
  std::string buf = "!xpu.buffer<" + t + ">", ro = "!xpu.buffer<" + t + ", ro>";
  std::string s =
      "xpu.kernel @" + name + "(%out: " + buf + ", %in: " + ro +
      ", %off: !xpu.buffer<i32, ro>, %lanes: !xpu.buffer<i32, ro>, %info: "
      "!xpu.buffer<i32>) {\n"
      "  %i = xpu.global_id x\n"
      "  %wg = xpu.workgroup_id x\n"
      "  %v = xpu.load %in[%i] : " + ro + "\n"
      "  %k = xpu.load %off[%i] : !xpu.buffer<i32, ro>\n"
      "  %l = xpu.load %lanes[%wg] : !xpu.buffer<i32, ro>\n"
      "  %r0 = xpu.wave_shuffle xor %v, %k : " + t + "\n"
      "  %r1 = xpu.wave_shuffle up %v, %k : " + t + "\n"
      "  %r2 = xpu.wave_shuffle down %v, %k : " + t + "\n"
      "  %r3 = xpu.wave_shuffle index %v, %k : " + t + "\n"
      "  %r4 = xpu.wave_broadcast %v, %l : " + t + "\n"
      "  %c5 = arith.constant 5 : index\n"
      "  %base = arith.muli %i, %c5 : index\n";
  for (int j = 0; j < 5; ++j) {
    std::string c = std::to_string(j);
    s += "  %c" + c + "x = arith.constant " + c + " : index\n"
         "  %p" + c + " = arith.addi %base, %c" + c + "x : index\n"
         "  xpu.store %r" + c + ", %out[%p" + c + "] : " + buf + "\n";
  }
  return s + infoStores() + "  xpu.return\n}\n";
}

/// out[4i .. 4i+3] = the ballot of pred[i] != 0, out[4n + 2i] = any,
/// out[4n + 2i + 1] = all, for n invocations.
inline std::string ballotKernel() {
  return R"(
    xpu.kernel @ballot(%out: !xpu.buffer<i32>, %pred: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      %pv = xpu.load %pred[%i] : !xpu.buffer<i32, ro>
      %c0i = arith.constant 0 : i32
      %p = arith.cmpi ne, %pv, %c0i : i32
      %mask = xpu.wave_ballot %p : vector<4xi32>
      %any = xpu.wave_vote any %p
      %all = xpu.wave_vote all %p
      %c4 = arith.constant 4 : index
      %at = arith.muli %i, %c4 : index
      xpu.store %mask, %out[%at] : !xpu.buffer<i32> -> vector<4xi32>
      %nidx = arith.index_castui %n : i32 to index
      %votes = arith.muli %nidx, %c4 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %two = arith.muli %i, %c2 : index
      %va = arith.addi %votes, %two : index
      %vb = arith.addi %va, %c1 : index
      %a32 = arith.extui %any : i1 to i32
      %b32 = arith.extui %all : i1 to i32
      xpu.store %a32, %out[%va] : !xpu.buffer<i32>
      xpu.store %b32, %out[%vb] : !xpu.buffer<i32>
      xpu.return
    })";
}

/// One combiner a reduction kernel applies, and which input it reads.
struct Kind {
  std::string name;  ///< add, mul, smin, ..., fmin, fmax
  bool special;      ///< reads `special` (NaNs, zeros) instead of `in`
};

/// For each kind k (in order) and invocation i: out[3(K i + k) + 0, 1, 2] =
/// wave_reduce, inclusive scan, exclusive scan of the input the kind reads;
/// %info as infoStores.
inline std::string reduceKernel(const std::string &name, const std::string &t,
                                const std::vector<Kind> &kinds) {
  std::string buf = "!xpu.buffer<" + t + ">", ro = "!xpu.buffer<" + t + ", ro>";
  std::string s = "xpu.kernel @" + name + "(%out: " + buf + ", %in: " + ro +
                  ", %special: " + ro + ", %info: !xpu.buffer<i32>) {\n"
                  "  %i = xpu.global_id x\n"
                  "  %v = xpu.load %in[%i] : " + ro + "\n"
                  "  %w = xpu.load %special[%i] : " + ro + "\n"
                  "  %stride = arith.constant " + std::to_string(3 * kinds.size()) +
                  " : index\n"
                  "  %base = arith.muli %i, %stride : index\n";
  for (size_t k = 0; k < kinds.size(); ++k) {
    std::string id = std::to_string(k), x = kinds[k].special ? "%w" : "%v";
    const char *ops[3] = {"xpu.wave_reduce " , "xpu.wave_scan ", "xpu.wave_scan "};
    const char *tails[3] = {"", " inclusive", " exclusive"};
    for (int j = 0; j < 3; ++j) {
      std::string r = "%r" + id + "_" + std::to_string(j);
      std::string c = "%c" + id + "_" + std::to_string(j);
      std::string p = "%p" + id + "_" + std::to_string(j);
      s += "  " + r + " = " + ops[j] + kinds[k].name + " " + x + tails[j] + " : " + t + "\n"
           "  " + c + " = arith.constant " + std::to_string(3 * k + j) + " : index\n"
           "  " + p + " = arith.addi %base, " + c + " : index\n"
           "  xpu.store " + r + ", %out[" + p + "] : " + buf + "\n";
    }
  }
  return s + infoStores() + "  xpu.return\n}\n";
}

inline const std::vector<Kind> &intKinds() {
  static const std::vector<Kind> k = {{"add", false},  {"mul", false},  {"smin", false},
                                      {"smax", false}, {"umin", false}, {"umax", false},
                                      {"and", false},  {"or", false},   {"xor", false}};
  return k;
}

inline const std::vector<Kind> &floatKinds() {
  static const std::vector<Kind> k = {
      {"add", false}, {"mul", false}, {"fmin", true}, {"fmax", true}};
  return k;
}

/// Every wave kernel of the suite, for code generation tests.
inline std::vector<std::string> allKernels() {
  std::vector<std::string> out = {ballotKernel()};
  for (const char *t : {"i32", "f32", "i64", "f64"}) {
    out.push_back(shuffleKernel(std::string("shuffle_") + t, t));
    bool isFloat = t[0] == 'f';
    out.push_back(reduceKernel(std::string("reduce_") + t, t,
                               isFloat ? floatKinds() : intKinds()));
  }
  return out;
}

} // namespace conf::wave
