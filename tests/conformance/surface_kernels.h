// Kernels of the kernel-surface conformance tests (struct arguments, printf,
// function values, async copies) as text: the conformance suite runs them
// and the unit tests compile them for NVPTX and AMDGPU
// (test_surface_codegen.cpp).
#pragma once

#include <string>
#include <vector>

namespace conf::surface {

/// out[i] = in[i - 1] + in[i] + in[i + 1] over each workgroup's tile of 256
/// (plus a halo of one each side) copied into shared memory asynchronously,
/// the tile's start overlapping the copy; outside [0, n) counts as 0.
inline const char *const kTiledStencil = R"(
    xpu.kernel @stencil(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %n: i32)
        attributes {workgroup_size = array<i64: 256>} {
      %t = xpu.thread_id x
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c256 = arith.constant 256 : index
      %c258 = arith.constant 258 : index
      %zero = arith.constant 0.0 : f32
      %n_idx = arith.index_castui %n : i32 to index
      %tile = xpu.alloc : !xpu.buffer<258xf32, shared>
      %first = arith.muli %wg, %c256 : index
      // Copy in[first - 1 .. min(first + 257, n)) to tile[0 ..), or from
      // in[0] to tile[1] for the first tile.
      %left = arith.cmpi eq, %first, %c0 : index
      %start = arith.select %left, %c0, %first : index
      %from = arith.subi %start, %c1 : index
      %src = arith.select %left, %c0, %from : index
      %dst = arith.select %left, %c1, %c0 : index
      %end = arith.addi %first, %c258 : index
      %endm1 = arith.subi %end, %c1 : index
      %last = arith.minui %endm1, %n_idx : index
      %count = arith.subi %last, %src : index
      // Cells the copy does not fill (past n, the left halo of the first
      // tile) stay zero.
      xpu.store %zero, %tile[%t] : !xpu.buffer<258xf32, shared>
      %is_first = arith.cmpi eq, %t, %c0 : index
      scf.if %is_first {
        %c257 = arith.constant 257 : index
        xpu.store %zero, %tile[%c256] : !xpu.buffer<258xf32, shared>
        xpu.store %zero, %tile[%c257] : !xpu.buffer<258xf32, shared>
      }
      xpu.barrier
      %tok = xpu.async_copy %in[%src] to %tile[%dst], %count : !xpu.buffer<f32, ro> to !xpu.buffer<258xf32, shared>
      %inside = arith.cmpi ult, %g, %n_idx : index
      xpu.async_wait %tok
      scf.if %inside {
        %i1 = arith.addi %t, %c1 : index
        %i2 = arith.addi %t, %c2 : index
        %a = xpu.load %tile[%t] : !xpu.buffer<258xf32, shared>
        %b = xpu.load %tile[%i1] : !xpu.buffer<258xf32, shared>
        %c = xpu.load %tile[%i2] : !xpu.buffer<258xf32, shared>
        %ab = arith.addf %a, %b : f32
        %abc = arith.addf %ab, %c : f32
        xpu.store %abc, %out[%g] : !xpu.buffer<f32>
      }
      xpu.return
    })";

/// out[i] = +-(in[i] * scale + shift[i % 3]) + (seed & 255), for i < n.
inline const char *const kStructKernel = R"(
    xpu.kernel @affine(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
        %p: !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64>) {
      %i = xpu.global_id x
      %n = xpu.struct_get %p["n"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> i32
      %n_idx = arith.index_castui %n : i32 to index
      %inside = arith.cmpi ult, %i, %n_idx : index
      scf.if %inside {
        %scale = xpu.struct_get %p["scale"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> f32
        %shift = xpu.struct_get %p["shift"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> vector<3xf32>
        %negate = xpu.struct_get %p["negate"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> i1
        %seed = xpu.struct_get %p["seed"] : !xpu.struct<"Params", scale: f32, n: i32, shift: vector<3xf32>, negate: i1, seed: i64> -> i64
        %x = xpu.load %in[%i] : !xpu.buffer<f32, ro>
        %c3 = arith.constant 3 : index
        %lane = arith.remui %i, %c3 : index
        %s = vector.extract %shift[%lane] : f32 from vector<3xf32>
        %scaled = arith.mulf %x, %scale : f32
        %y = arith.addf %scaled, %s : f32
        %neg = arith.negf %y : f32
        %signed = arith.select %negate, %neg, %y : f32
        %low = arith.trunci %seed : i64 to i32
        %c255 = arith.constant 255 : i32
        %bits = arith.andi %low, %c255 : i32
        %extra = arith.uitofp %bits : i32 to f32
        %r = arith.addf %signed, %extra : f32
        xpu.store %r, %out[%i] : !xpu.buffer<f32>
      }
      xpu.return
    })";

inline const char *const kDispatch = R"(
    xpu.func @twice(%x: i32, %y: i32) -> i32 {
      %r = arith.addi %x, %x : i32
      xpu.return %r : i32
    }
    xpu.func @plus(%x: i32, %y: i32) -> i32 {
      %r = arith.addi %x, %y : i32
      xpu.return %r : i32
    }
    xpu.func @mix(%x: i32, %y: i32) -> i32 {
      %p = arith.muli %x, %y : i32
      %r = arith.xori %p, %y : i32
      xpu.return %r : i32
    }
    xpu.kernel @dispatch(%out: !xpu.buffer<i32>, %which: !xpu.buffer<i32, ro>,
                         %a: !xpu.buffer<i32, ro>, %b: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      %n_idx = arith.index_castui %n : i32 to index
      %inside = arith.cmpi ult, %i, %n_idx : index
      scf.if %inside {
        %f = xpu.load %which[%i] : !xpu.buffer<i32, ro>
        %x = xpu.load %a[%i] : !xpu.buffer<i32, ro>
        %y = xpu.load %b[%i] : !xpu.buffer<i32, ro>
        %r = xpu.fn_call %f of [@twice, @plus, @mix](%x, %y) : (i32, i32) -> i32
        %g = xpu.fn_value @mix of [@twice, @plus, @mix] : i32
        %s = xpu.fn_call %g of [@twice, @plus, @mix](%r, %y) : (i32, i32) -> i32
        xpu.store %s, %out[%i] : !xpu.buffer<i32>
      }
      xpu.return
    })";

inline const char *const kPrinting = R"(
    xpu.func @show(%i: i32, %x: f64) {
      xpu.printf "helper %d: %.6e\n"(%i, %x) : i32, f64
      xpu.return
    }
    xpu.kernel @printing(%a: !xpu.buffer<i32, ro>, %b: !xpu.buffer<i64, ro>,
                         %f: !xpu.buffer<f32, ro>, %d: !xpu.buffer<f64, ro>, %n: i32) {
      %g = xpu.global_id x
      %n_idx = arith.index_castui %n : i32 to index
      %inside = arith.cmpi ult, %g, %n_idx : index
      scf.if %inside {
        %i = arith.index_cast %g : index to i32
        %av = xpu.load %a[%g] : !xpu.buffer<i32, ro>
        %bv = xpu.load %b[%g] : !xpu.buffer<i64, ro>
        %fv = xpu.load %f[%g] : !xpu.buffer<f32, ro>
        %dv = xpu.load %d[%g] : !xpu.buffer<f64, ro>
        %small = arith.trunci %av : i32 to i8
        %flag = arith.cmpi slt, %av, %i : i32
        xpu.printf "#%d a=%d u=%u x=%08X b=%lld s=%d bool=%d f=%.4f g=%g 100%%\n"(%i, %av, %av, %av, %bv, %small, %flag, %fv, %dv) : i32, i32, i32, i32, i64, i8, i1, f32, f64
        xpu.call @show(%i, %dv) : (i32, f64) -> ()
      }
      xpu.return
    })";

inline std::vector<std::string> allKernels() {
  return {kTiledStencil, kStructKernel, kDispatch, kPrinting};
}

} // namespace conf::surface
