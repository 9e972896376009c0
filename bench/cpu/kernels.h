// The CPU benchmark's kernels, each written twice: as xpujit kernel IR and
// as OpenCL C for pocl. The OpenMP versions are in omp_kernels.cpp. Every
// version does the same arithmetic in the same order, without contraction.
#pragma once

namespace cpubench {

constexpr unsigned kTile = 16;      ///< tiles of the matrix kernels
constexpr unsigned kGroup = 256;    ///< workgroup of the 1-D kernels
constexpr unsigned kComputeSteps = 64;

inline const char *const kXpuKernels = R"(
xpu.kernel @triad_f32(%a: !xpu.buffer<f32>, %b: !xpu.buffer<f32, ro>, %c: !xpu.buffer<f32, ro>,
                      %s: f32, %n: i32) {
  %i = xpu.global_id x
  %ni = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %x = xpu.load %b[%i] : !xpu.buffer<f32, ro>
    %y = xpu.load %c[%i] : !xpu.buffer<f32, ro>
    %sy = arith.mulf %s, %y : f32
    %r = arith.addf %x, %sy : f32
    xpu.store %r, %a[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

xpu.kernel @triad_f64(%a: !xpu.buffer<f64>, %b: !xpu.buffer<f64, ro>, %c: !xpu.buffer<f64, ro>,
                      %s: f64, %n: i32) {
  %i = xpu.global_id x
  %ni = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %ni : index
  scf.if %in {
    %x = xpu.load %b[%i] : !xpu.buffer<f64, ro>
    %y = xpu.load %c[%i] : !xpu.buffer<f64, ro>
    %sy = arith.mulf %s, %y : f64
    %r = arith.addf %x, %sy : f64
    xpu.store %r, %a[%i] : !xpu.buffer<f64>
  }
  xpu.return
}

// 64 steps of x = x * p + q per element: compute-bound.
xpu.kernel @compute(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %p: f32, %q: f32,
                    %n: i32) {
  %i = xpu.global_id x
  %ni = arith.index_castui %n : i32 to index
  %ok = arith.cmpi ult, %i, %ni : index
  scf.if %ok {
    %x0 = xpu.load %in[%i] : !xpu.buffer<f32, ro>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 64 : index
    %x = scf.for %k = %c0 to %steps step %c1 iter_args(%v = %x0) -> (f32) {
      %m = arith.mulf %v, %p : f32
      %v2 = arith.addf %m, %q : f32
      scf.yield %v2 : f32
    }
    xpu.store %x, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// Each workgroup of 256 sums its elements by a tree in shared memory.
xpu.kernel @block_sum(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %s = xpu.alloc : !xpu.buffer<256xi32, shared>
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  xpu.store %v, %s[%t] : !xpu.buffer<256xi32, shared>
  xpu.barrier
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %stride = arith.shrui %c128, %k : index
    %active = arith.cmpi ult, %t, %stride : index
    scf.if %active {
      %o = arith.addi %t, %stride : index
      %a = xpu.load %s[%t] : !xpu.buffer<256xi32, shared>
      %b = xpu.load %s[%o] : !xpu.buffer<256xi32, shared>
      %sum = arith.addi %a, %b : i32
      xpu.store %sum, %s[%t] : !xpu.buffer<256xi32, shared>
    }
    xpu.barrier
  }
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %r = xpu.load %s[%c0] : !xpu.buffer<256xi32, shared>
    xpu.store %r, %out[%wg] : !xpu.buffer<i32>
  }
  xpu.return
}

// The same sums with xpu.reduce.
xpu.kernel @block_reduce(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
  %r = xpu.reduce add %v tree : i32
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    xpu.store %r, %out[%wg] : !xpu.buffer<i32>
  }
  xpu.return
}

// The same sums without barriers: invocation i adds in[256 i .. 256 i + 255].
xpu.kernel @chunk_sum(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %groups: i32) {
  %i = xpu.global_id x
  %gi = arith.index_castui %groups : i32 to index
  %ok = arith.cmpi ult, %i, %gi : index
  scf.if %ok {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %base = arith.muli %i, %c256 : index
    %z = arith.constant 0 : i32
    %sum = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %z) -> (i32) {
      %at = arith.addi %base, %k : index
      %v = xpu.load %in[%at] : !xpu.buffer<i32, ro>
      %a2 = arith.addi %acc, %v : i32
      scf.yield %a2 : i32
    }
    xpu.store %sum, %out[%i] : !xpu.buffer<i32>
  }
  xpu.return
}

// C = A B, n x n, through 16 x 16 tiles in shared memory.
xpu.kernel @matmul_tiled(%c: !xpu.buffer<f32>, %a: !xpu.buffer<f32, ro>, %b: !xpu.buffer<f32, ro>,
                         %n: i32) attributes {workgroup_size = array<i64: 16, 16, 1>} {
  %tx = xpu.thread_id x
  %ty = xpu.thread_id y
  %col = xpu.global_id x
  %row = xpu.global_id y
  %sa = xpu.alloc : !xpu.buffer<256xf32, shared>
  %sb = xpu.alloc : !xpu.buffer<256xf32, shared>
  %ni = arith.index_castui %n : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %tiles = arith.divui %ni, %c16 : index
  %zero = arith.constant 0.0 : f32
  %slot0 = arith.muli %ty, %c16 : index
  %slot = arith.addi %slot0, %tx : index
  %arow = arith.muli %row, %ni : index
  %acc = scf.for %tile = %c0 to %tiles step %c1 iter_args(%s = %zero) -> (f32) {
    %kk = arith.muli %tile, %c16 : index
    %ac = arith.addi %kk, %tx : index
    %ia = arith.addi %arow, %ac : index
    %x = xpu.load %a[%ia] : !xpu.buffer<f32, ro>
    xpu.store %x, %sa[%slot] : !xpu.buffer<256xf32, shared>
    %br = arith.addi %kk, %ty : index
    %ib0 = arith.muli %br, %ni : index
    %ib = arith.addi %ib0, %col : index
    %y = xpu.load %b[%ib] : !xpu.buffer<f32, ro>
    xpu.store %y, %sb[%slot] : !xpu.buffer<256xf32, shared>
    xpu.barrier
    %s2 = scf.for %j = %c0 to %c16 step %c1 iter_args(%p = %s) -> (f32) {
      %ja = arith.addi %slot0, %j : index
      %jb0 = arith.muli %j, %c16 : index
      %jb = arith.addi %jb0, %tx : index
      %u = xpu.load %sa[%ja] : !xpu.buffer<256xf32, shared>
      %v = xpu.load %sb[%jb] : !xpu.buffer<256xf32, shared>
      %uv = arith.mulf %u, %v : f32
      %p2 = arith.addf %p, %uv : f32
      scf.yield %p2 : f32
    }
    xpu.barrier
    scf.yield %s2 : f32
  }
  %ic = arith.addi %arow, %col : index
  xpu.store %acc, %c[%ic] : !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @matmul_naive(%c: !xpu.buffer<f32>, %a: !xpu.buffer<f32, ro>, %b: !xpu.buffer<f32, ro>,
                         %n: i32) {
  %col = xpu.global_id x
  %row = xpu.global_id y
  %ni = arith.index_castui %n : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %arow = arith.muli %row, %ni : index
  %acc = scf.for %k = %c0 to %ni step %c1 iter_args(%s = %zero) -> (f32) {
    %ia = arith.addi %arow, %k : index
    %ib0 = arith.muli %k, %ni : index
    %ib = arith.addi %ib0, %col : index
    %u = xpu.load %a[%ia] : !xpu.buffer<f32, ro>
    %v = xpu.load %b[%ib] : !xpu.buffer<f32, ro>
    %uv = arith.mulf %u, %v : f32
    %s2 = arith.addf %s, %uv : f32
    scf.yield %s2 : f32
  }
  %ic = arith.addi %arow, %col : index
  xpu.store %acc, %c[%ic] : !xpu.buffer<f32>
  xpu.return
}

// A 5-point stencil guarded by its own w, h.
xpu.kernel @stencil(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %w: i32, %h: i32) {
  %x = xpu.global_id x
  %y = xpu.global_id y
  %wi = arith.index_castui %w : i32 to index
  %hi = arith.index_castui %h : i32 to index
  %c1 = arith.constant 1 : index
  %wm = arith.subi %wi, %c1 : index
  %hm = arith.subi %hi, %c1 : index
  %a = arith.cmpi uge, %x, %c1 : index
  %b = arith.cmpi ult, %x, %wm : index
  %c = arith.cmpi uge, %y, %c1 : index
  %d = arith.cmpi ult, %y, %hm : index
  %ab = arith.andi %a, %b : i1
  %cd = arith.andi %c, %d : i1
  %ok = arith.andi %ab, %cd : i1
  scf.if %ok {
    %row = arith.muli %y, %wi : index
    %i = arith.addi %row, %x : index
    %il = arith.subi %i, %c1 : index
    %ir = arith.addi %i, %c1 : index
    %iu = arith.subi %i, %wi : index
    %id = arith.addi %i, %wi : index
    %vc = xpu.load %in[%i] : !xpu.buffer<f32, ro>
    %vl = xpu.load %in[%il] : !xpu.buffer<f32, ro>
    %vr = xpu.load %in[%ir] : !xpu.buffer<f32, ro>
    %vu = xpu.load %in[%iu] : !xpu.buffer<f32, ro>
    %vd = xpu.load %in[%id] : !xpu.buffer<f32, ro>
    %s1 = arith.addf %vl, %vr : f32
    %s2 = arith.addf %vu, %vd : f32
    %s3 = arith.addf %s1, %s2 : f32
    %q = arith.constant 0.25 : f32
    %m = arith.mulf %s3, %q : f32
    %r = arith.subf %m, %vc : f32
    xpu.store %r, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}

// out = transpose(in), n x n (n a multiple of 16), through a padded tile.
xpu.kernel @transpose(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %n: i32)
    attributes {workgroup_size = array<i64: 16, 16, 1>} {
  %tx = xpu.thread_id x
  %ty = xpu.thread_id y
  %wx = xpu.workgroup_id x
  %wy = xpu.workgroup_id y
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %ni = arith.index_castui %n : i32 to index
  %tile = xpu.alloc : !xpu.buffer<272xf32, shared>
  %x0 = arith.muli %wx, %c16 : index
  %y0 = arith.muli %wy, %c16 : index
  %x = arith.addi %x0, %tx : index
  %y = arith.addi %y0, %ty : index
  %r = arith.muli %y, %ni : index
  %i = arith.addi %r, %x : index
  %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
  %slot0 = arith.muli %ty, %c17 : index
  %slot = arith.addi %slot0, %tx : index
  xpu.store %v, %tile[%slot] : !xpu.buffer<272xf32, shared>
  xpu.barrier
  %ox = arith.addi %y0, %tx : index
  %oy = arith.addi %x0, %ty : index
  %t0 = arith.muli %tx, %c17 : index
  %t = arith.addi %t0, %ty : index
  %w = xpu.load %tile[%t] : !xpu.buffer<272xf32, shared>
  %orow = arith.muli %oy, %ni : index
  %o = arith.addi %orow, %ox : index
  xpu.store %w, %out[%o] : !xpu.buffer<f32>
  xpu.return
}

// Inclusive scan, step 1: each workgroup of 256 scans its elements
// (Hillis-Steele in shared memory) and writes its total.
xpu.kernel @scan_block(%data: !xpu.buffer<i32>, %totals: !xpu.buffer<i32>)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %s = xpu.alloc : !xpu.buffer<256xi32, shared>
  %v0 = xpu.load %data[%g] : !xpu.buffer<i32>
  xpu.store %v0, %s[%t] : !xpu.buffer<256xi32, shared>
  xpu.barrier
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = scf.for %k = %c0 to %c8 step %c1 iter_args(%x = %v0) -> (i32) {
    %d = arith.shli %c1, %k : index
    %has = arith.cmpi uge, %t, %d : index
    %y = scf.if %has -> (i32) {
      %j = arith.subi %t, %d : index
      %o = xpu.load %s[%j] : !xpu.buffer<256xi32, shared>
      %x2 = arith.addi %x, %o : i32
      scf.yield %x2 : i32
    } else {
      scf.yield %x : i32
    }
    xpu.barrier
    xpu.store %y, %s[%t] : !xpu.buffer<256xi32, shared>
    xpu.barrier
    scf.yield %y : i32
  }
  xpu.store %v, %data[%g] : !xpu.buffer<i32>
  %c255 = arith.constant 255 : index
  %last = arith.cmpi eq, %t, %c255 : index
  scf.if %last {
    xpu.store %v, %totals[%wg] : !xpu.buffer<i32>
  }
  xpu.return
}

// Step 2: one workgroup of 1024 scans the totals (4 each, exclusive).
xpu.kernel @scan_totals(%totals: !xpu.buffer<i32>, %count: i32)
    attributes {workgroup_size = array<i64: 1024, 1, 1>} {
  %t = xpu.thread_id x
  %s = xpu.alloc : !xpu.buffer<1024xi32, shared>
  %n = arith.index_castui %count : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %base = arith.muli %t, %c4 : index
  %z = arith.constant 0 : i32
  %mine = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (i32) {
    %at = arith.addi %base, %k : index
    %ok = arith.cmpi ult, %at, %n : index
    %v = scf.if %ok -> (i32) {
      %x = xpu.load %totals[%at] : !xpu.buffer<i32>
      scf.yield %x : i32
    } else {
      scf.yield %z : i32
    }
    %a2 = arith.addi %acc, %v : i32
    scf.yield %a2 : i32
  }
  xpu.store %mine, %s[%t] : !xpu.buffer<1024xi32, shared>
  xpu.barrier
  %incl = scf.for %k = %c0 to %c10 step %c1 iter_args(%x = %mine) -> (i32) {
    %d = arith.shli %c1, %k : index
    %has = arith.cmpi uge, %t, %d : index
    %y = scf.if %has -> (i32) {
      %j = arith.subi %t, %d : index
      %o = xpu.load %s[%j] : !xpu.buffer<1024xi32, shared>
      %x2 = arith.addi %x, %o : i32
      scf.yield %x2 : i32
    } else {
      scf.yield %x : i32
    }
    xpu.barrier
    xpu.store %y, %s[%t] : !xpu.buffer<1024xi32, shared>
    xpu.barrier
    scf.yield %y : i32
  }
  %run0 = arith.subi %incl, %mine : i32
  %end = scf.for %k = %c0 to %c4 step %c1 iter_args(%run = %run0) -> (i32) {
    %at = arith.addi %base, %k : index
    %ok = arith.cmpi ult, %at, %n : index
    %next = scf.if %ok -> (i32) {
      %x = xpu.load %totals[%at] : !xpu.buffer<i32>
      xpu.store %run, %totals[%at] : !xpu.buffer<i32>
      %r2 = arith.addi %run, %x : i32
      scf.yield %r2 : i32
    } else {
      scf.yield %run : i32
    }
    scf.yield %next : i32
  }
  xpu.return
}

// Step 3: add each workgroup's offset.
xpu.kernel @scan_add(%data: !xpu.buffer<i32>, %totals: !xpu.buffer<i32, ro>) {
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %o = xpu.load %totals[%wg] : !xpu.buffer<i32, ro>
  %v = xpu.load %data[%g] : !xpu.buffer<i32>
  %r = arith.addi %v, %o : i32
  xpu.store %r, %data[%g] : !xpu.buffer<i32>
  xpu.return
}

xpu.kernel @empty() {
  xpu.return
}
)";

inline const char *const kOpenCLKernels = R"(
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void triad_f32(__global float *a, __global const float *b, __global const float *c,
                        float s, uint n) {
  size_t i = get_global_id(0);
  if (i < n) a[i] = b[i] + s * c[i];
}
__kernel void triad_f64(__global double *a, __global const double *b, __global const double *c,
                        double s, uint n) {
  size_t i = get_global_id(0);
  if (i < n) a[i] = b[i] + s * c[i];
}
__kernel void compute(__global float *out, __global const float *in, float p, float q, uint n) {
  size_t i = get_global_id(0);
  if (i < n) {
    float x = in[i];
    for (int k = 0; k < 64; ++k) x = x * p + q;
    out[i] = x;
  }
}
__kernel void block_sum(__global int *out, __global const int *in) {
  __local int s[256];
  size_t t = get_local_id(0);
  s[t] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] = s[t] + s[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = s[0];
}
__kernel void chunk_sum(__global int *out, __global const int *in, uint groups) {
  size_t i = get_global_id(0);
  if (i < groups) {
    int acc = 0;
    for (int k = 0; k < 256; ++k) acc += in[i * 256 + k];
    out[i] = acc;
  }
}
__kernel void matmul_tiled(__global float *c, __global const float *a, __global const float *b,
                           uint n) {
  __local float sa[256], sb[256];
  size_t tx = get_local_id(0), ty = get_local_id(1);
  size_t col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint tile = 0; tile < n / 16; ++tile) {
    sa[ty * 16 + tx] = a[row * n + tile * 16 + tx];
    sb[ty * 16 + tx] = b[(tile * 16 + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < 16; ++j) acc = acc + sa[ty * 16 + j] * sb[j * 16 + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}
__kernel void matmul_naive(__global float *c, __global const float *a, __global const float *b,
                           uint n) {
  size_t col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (uint k = 0; k < n; ++k) acc = acc + a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
__kernel void stencil(__global float *out, __global const float *in, uint w, uint h) {
  size_t x = get_global_id(0), y = get_global_id(1);
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) {
    size_t i = y * w + x;
    out[i] = ((in[i - 1] + in[i + 1]) + (in[i - w] + in[i + w])) * 0.25f - in[i];
  }
}
__kernel void transpose(__global float *out, __global const float *in, uint n) {
  __local float tile[272];
  size_t tx = get_local_id(0), ty = get_local_id(1);
  size_t x0 = get_group_id(0) * 16, y0 = get_group_id(1) * 16;
  tile[ty * 17 + tx] = in[(y0 + ty) * n + x0 + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(x0 + ty) * n + y0 + tx] = tile[tx * 17 + ty];
}
__kernel void scan_block(__global int *data, __global int *totals) {
  __local int s[256];
  size_t t = get_local_id(0), g = get_global_id(0);
  int x = data[g];
  s[t] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < 256; d <<= 1) {
    int y = t >= d ? x + s[t - d] : x;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[t] = y;
    barrier(CLK_LOCAL_MEM_FENCE);
    x = y;
  }
  data[g] = x;
  if (t == 255) totals[get_group_id(0)] = x;
}
__kernel void scan_totals(__global int *totals, uint n) {
  __local int s[1024];
  size_t t = get_local_id(0);
  int mine = 0;
  for (uint k = 0; k < 4; ++k) mine += t * 4 + k < n ? totals[t * 4 + k] : 0;
  s[t] = mine;
  barrier(CLK_LOCAL_MEM_FENCE);
  int x = mine;
  for (uint d = 1; d < 1024; d <<= 1) {
    int y = t >= d ? x + s[t - d] : x;
    barrier(CLK_LOCAL_MEM_FENCE);
    s[t] = y;
    barrier(CLK_LOCAL_MEM_FENCE);
    x = y;
  }
  int run = x - mine;
  for (uint k = 0; k < 4; ++k)
    if (t * 4 + k < n) {
      int v = totals[t * 4 + k];
      totals[t * 4 + k] = run;
      run += v;
    }
}
__kernel void scan_add(__global int *data, __global const int *totals) {
  data[get_global_id(0)] += totals[get_group_id(0)];
}
__kernel void empty(void) {}
)";

} // namespace cpubench
