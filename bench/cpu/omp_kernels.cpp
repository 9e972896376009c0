// The CPU benchmark's reference: each kernel as plain C++ with OpenMP,
// built with clang -O3 -march=native -fopenmp -ffp-contract=off (see
// CMakeLists.txt), doing the same arithmetic in the same order.
#include "omp_kernels.h"

#include <omp.h>

#include <algorithm>
#include <vector>

namespace cpubench::omp {

void triad(float *a, const float *b, const float *c, float s, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

void triad(double *a, const double *b, const double *c, double s, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

void compute(float *out, const float *in, float p, float q, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float x = in[i];
    for (int k = 0; k < 64; ++k)
      x = x * p + q;
    out[i] = x;
  }
}

void chunkSums(int *out, const int *in, size_t groups) {
#pragma omp parallel for schedule(static)
  for (size_t g = 0; g < groups; ++g) {
    unsigned acc = 0;
#pragma omp simd reduction(+ : acc)
    for (size_t k = 0; k < 256; ++k)
      acc += unsigned(in[g * 256 + k]);
    out[g] = int(acc);
  }
}

void matmulNaive(float *c, const float *a, const float *b, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      float acc = 0;
      for (size_t k = 0; k < n; ++k)
        acc = acc + a[i * n + k] * b[k * n + j];
      c[i * n + j] = acc;
    }
}

void matmulTiled(float *c, const float *a, const float *b, size_t n) {
  // Rows of 16 x n strips; each element sums its k in the same order as
  // the kernel (tile by tile, then j within a tile), so the results match.
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    std::vector<float> acc(n, 0.f);
    for (size_t k = 0; k < n; ++k) {
      float x = a[i * n + k];
#pragma omp simd
      for (size_t j = 0; j < n; ++j)
        acc[j] = acc[j] + x * b[k * n + j];
    }
    std::copy(acc.begin(), acc.end(), c + i * n);
  }
}

void stencil(float *out, const float *in, size_t w, size_t h) {
#pragma omp parallel for schedule(static)
  for (size_t y = 1; y < h - 1; ++y)
#pragma omp simd
    for (size_t x = 1; x < w - 1; ++x) {
      size_t i = y * w + x;
      out[i] = ((in[i - 1] + in[i + 1]) + (in[i - w] + in[i + w])) * 0.25f - in[i];
    }
}

void transpose(float *out, const float *in, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t y0 = 0; y0 < n; y0 += 16)
    for (size_t x0 = 0; x0 < n; x0 += 16)
      for (size_t y = y0; y < y0 + 16; ++y)
        for (size_t x = x0; x < x0 + 16; ++x)
          out[x * n + y] = in[y * n + x];
}

void scan(int *data, size_t n) {
  // Two passes over one chunk per thread: chunk totals, then prefixes.
  int threads = omp_get_max_threads();
  std::vector<unsigned> totals(threads + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    size_t begin = n * t / nt, end = n * (t + 1) / nt;
    unsigned run = 0;
    for (size_t i = begin; i < end; ++i)
      data[i] = int(run += unsigned(data[i]));
    totals[t + 1] = run;
#pragma omp barrier
#pragma omp single
    for (int k = 1; k <= nt; ++k)
      totals[k] += totals[k - 1];
    unsigned offset = totals[t];
#pragma omp simd
    for (size_t i = begin; i < end; ++i)
      data[i] = int(unsigned(data[i]) + offset);
  }
}

void emptyRegion() {
  // Each thread touches its own slot: clang removes a parallel region with
  // an empty body altogether.
  static volatile int seen[256];
#pragma omp parallel
  { seen[omp_get_thread_num() & 255] = 1; }
}

int threads() { return omp_get_max_threads(); }

} // namespace cpubench::omp
