// Atomic kernels as text, one element type at a time: the conformance
// suite runs them (test_atomics.cpp) and the unit tests compile them for
// NVPTX and AMDGPU (test_surface_codegen.cpp).
#pragma once

#include <string>
#include <vector>

namespace conf::atomics {

/// The integer type of a value type's bits ("f32" -> "i32").
inline std::string bitsOf(const std::string &t) { return t == "f32" || t == "i32" ? "i32" : "i64"; }
inline bool isFloat(const std::string &t) { return t[0] == 'f'; }

/// A compare-exchange loop adding %v to %buf[%j] (BUF its type): the add of
/// the element last seen, until the element was what the exchange expected.
/// Defines %SSA (the element before this invocation's add).
inline std::string casAdd(const std::string &ssa, const std::string &buf, const std::string &bufType,
                          const std::string &t, const std::string &order,
                          const std::string &scope) {
  std::string add = isFloat(t) ? "arith.addf" : "arith.addi", b = bitsOf(t);
  std::string s = "  %" + ssa + "_guess = xpu.load " + buf + "[%j] : " + bufType + "\n"
                  "  %" + ssa + " = scf.while (%old = %" + ssa + "_guess) : (" + t + ") -> " + t +
                  " {\n"
                  "    %new = " + add + " %old, %v : " + t + "\n"
                  "    %seen = xpu.atomic_rmw cmpxchg %new, " + buf + "[%j] expected %old " + order +
                  " " + scope + " : " + bufType + "\n";
  if (isFloat(t))
    s += "    %seen_bits = arith.bitcast %seen : " + t + " to " + b + "\n"
         "    %old_bits = arith.bitcast %old : " + t + " to " + b + "\n"
         "    %again = arith.cmpi ne, %seen_bits, %old_bits : " + b + "\n";
  else
    s += "    %again = arith.cmpi ne, %seen, %old : " + t + "\n";
  return s + "    scf.condition(%again) %seen : " + t + "\n"
             "  } do {\n"
             "  ^bb0(%s: " + t + "):\n"
             "    scf.yield %s : " + t + "\n"
             "  }\n";
}

/// casKernel's shared part: workgroup 0 adds in[i] to tile[t % 64].
inline std::string sharedCas(const std::string &t) {
  std::string buf = "!xpu.buffer<" + t + ">";
  std::string sh = "!xpu.buffer<64x" + t + ", shared>";
  return "  %c0 = arith.constant 0 : index\n"
         "  %c64 = arith.constant 64 : index\n"
         "  %tile = xpu.alloc : " + sh + "\n"
         "  %low = arith.cmpi ult, %t, %c64 : index\n"
         "  scf.if %low {\n"
         "    %init = xpu.load %shared_out[%t] : " + buf + "\n"
         "    xpu.store %init, %tile[%t] : " + sh + "\n"
         "  }\n"
         "  xpu.barrier\n"
         "  %first = arith.cmpi eq, %wg, %c0 : index\n"
         "  scf.if %first {\n"
         "    %k = arith.remui %t, %c64 : index\n" +
         [&] {
           std::string body = casAdd("local", "%tile", sh, t, "relaxed", "workgroup");
           // In the shared loop the slot is %k.
           size_t at;
           while ((at = body.find("[%j]")) != std::string::npos)
             body.replace(at, 4, "[%k]");
           return body;
         }() +
         "  }\n"
         "  xpu.barrier\n"
         "  %both = arith.andi %first, %low : i1\n"
         "  scf.if %both {\n"
         "    %r = xpu.load %tile[%t] : " + sh + "\n"
         "    xpu.store %r, %shared_out[%t] : " + buf + "\n"
         "  }\n";
}

/// Every invocation i adds in[i] to acc[i % m] with a compare-exchange loop
/// on global memory ordered `order`; with `shared`, then the same on a
/// shared copy of shared_out[0 .. 63] that workgroup 0 writes back.
inline std::string casKernel(const std::string &name, const std::string &t, bool shared,
                             const std::string &order = "acq_rel") {
  std::string buf = "!xpu.buffer<" + t + ">", ro = "!xpu.buffer<" + t + ", ro>";
  return "xpu.kernel @" + name + "(%acc: " + buf + ", %shared_out: " + buf + ", %in: " + ro +
         ", %m: i32) attributes {workgroup_size = array<i64: 128>} {\n"
         "  %i = xpu.global_id x\n"
         "  %t = xpu.thread_id x\n"
         "  %wg = xpu.workgroup_id x\n"
         "  %m_idx = arith.index_castui %m : i32 to index\n"
         "  %j = arith.remui %i, %m_idx : index\n"
         "  %v = xpu.load %in[%i] : " + ro + "\n" +
         casAdd("global", "%acc", buf, t, order, "device") +
         (shared ? sharedCas(t) : std::string()) +
         "  xpu.return\n}\n";
}

/// out_old[i] = the exchange of in[i] into slot[i % m] (global), and for
/// workgroup 0 the same on a shared slot array written back to slot_shared.
inline std::string xchgKernel(const std::string &name, const std::string &t) {
  std::string buf = "!xpu.buffer<" + t + ">", ro = "!xpu.buffer<" + t + ", ro>";
  std::string sh = "!xpu.buffer<16x" + t + ", shared>";
  return "xpu.kernel @" + name + "(%slot: " + buf + ", %old: " + buf + ", %slot_shared: " + buf +
         ", %old_shared: " + buf + ", %in: " + ro +
         ", %m: i32) attributes {workgroup_size = array<i64: 64>} {\n"
         "  %i = xpu.global_id x\n"
         "  %t = xpu.thread_id x\n"
         "  %wg = xpu.workgroup_id x\n"
         "  %m_idx = arith.index_castui %m : i32 to index\n"
         "  %j = arith.remui %i, %m_idx : index\n"
         "  %v = xpu.load %in[%i] : " + ro + "\n"
         "  %o = xpu.atomic_rmw xchg %v, %slot[%j] seq_cst device : " + buf + "\n"
         "  xpu.store %o, %old[%i] : " + buf + "\n"
         "  %c0 = arith.constant 0 : index\n"
         "  %c16 = arith.constant 16 : index\n"
         "  %tile = xpu.alloc : " + sh + "\n"
         "  %low = arith.cmpi ult, %t, %c16 : index\n"
         "  scf.if %low {\n"
         "    %init = xpu.load %slot_shared[%t] : " + buf + "\n"
         "    xpu.store %init, %tile[%t] : " + sh + "\n"
         "  }\n"
         "  xpu.barrier\n"
         "  %first = arith.cmpi eq, %wg, %c0 : index\n"
         "  scf.if %first {\n"
         "    %k = arith.remui %t, %c16 : index\n"
         "    %os = xpu.atomic_rmw xchg %v, %tile[%k] acq_rel workgroup : " + sh + "\n"
         "    xpu.store %os, %old_shared[%t] : " + buf + "\n"
         "  }\n"
         "  xpu.barrier\n"
         "  %both = arith.andi %first, %low : i1\n"
         "  scf.if %both {\n"
         "    %r = xpu.load %tile[%t] : " + sh + "\n"
         "    xpu.store %r, %slot_shared[%t] : " + buf + "\n"
         "  }\n"
         "  xpu.return\n}\n";
}

/// acc[i % m] = fmin/fmax with in[i] (global, KIND), and the same for
/// workgroup 0 on a shared copy of the first 32 slots (`shared` set).
inline std::string minMaxKernel(const std::string &name, const std::string &t, bool shared) {
  std::string buf = "!xpu.buffer<" + t + ">", ro = "!xpu.buffer<" + t + ", ro>";
  std::string sh = "!xpu.buffer<32x" + t + ", shared>";
  std::string s = "xpu.kernel @" + name + "(%lo: " + buf + ", %hi: " + buf + ", %in: " + ro +
                  ", %m: i32) attributes {workgroup_size = array<i64: 64>} {\n"
                  "  %i = xpu.global_id x\n"
                  "  %t = xpu.thread_id x\n"
                  "  %wg = xpu.workgroup_id x\n"
                  "  %m_idx = arith.index_castui %m : i32 to index\n"
                  "  %j = arith.remui %i, %m_idx : index\n"
                  "  %v = xpu.load %in[%i] : " + ro + "\n"
                  "  %a = xpu.atomic_rmw fmin %v, %lo[%j] relaxed device : " + buf + "\n"
                  "  %b = xpu.atomic_rmw fmax %v, %hi[%j] acquire device : " + buf + "\n";
  if (shared)
    s += "  %tile = xpu.alloc : " + sh + "\n"
         "  %c0 = arith.constant 0 : index\n"
         "  %c32 = arith.constant 32 : index\n"
         "  %low = arith.cmpi ult, %t, %c32 : index\n"
         "  %first = arith.cmpi eq, %wg, %c0 : index\n"
         "  %both = arith.andi %first, %low : i1\n"
         "  xpu.barrier\n"
         "  scf.if %low {\n"
         "    %p = xpu.load %in[%t] : " + ro + "\n"
         "    xpu.store %p, %tile[%t] : " + sh + "\n"
         "  }\n"
         "  xpu.barrier\n"
         "  scf.if %first {\n"
         "    %k = arith.remui %t, %c32 : index\n"
         "    %c = xpu.atomic_rmw fmin %v, %tile[%k] relaxed workgroup : " + sh + "\n"
         "  }\n"
         "  xpu.barrier\n"
         "  scf.if %both {\n"
         "    %r = xpu.load %tile[%t] : " + sh + "\n"
         "    %n = arith.index_castui %m : i32 to index\n"
         "    %at = arith.addi %n, %t : index\n"
         "    xpu.store %r, %lo[%at] : " + buf + "\n"
         "  }\n";
  return s + "  xpu.return\n}\n";
}

/// Every kernel of these generators, for code generation tests.
inline std::vector<std::string> allKernels() {
  std::vector<std::string> out;
  for (const char *t : {"i32", "i64", "f32", "f64"}) {
    out.push_back(casKernel(std::string("cas_") + t, t, true));
    out.push_back(xchgKernel(std::string("xchg_") + t, t));
  }
  for (const char *t : {"f32", "f64"})
    out.push_back(minMaxKernel(std::string("minmax_") + t, t, true));
  return out;
}

} // namespace conf::atomics
