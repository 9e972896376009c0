// The OpenMP reference kernels of the CPU benchmark (omp_kernels.cpp).
#pragma once

#include <cstddef>

namespace cpubench::omp {

void triad(float *a, const float *b, const float *c, float s, size_t n);
void triad(double *a, const double *b, const double *c, double s, size_t n);
void compute(float *out, const float *in, float p, float q, size_t n);
/// out[g] = the sum of in[256 g .. 256 g + 255].
void chunkSums(int *out, const int *in, size_t groups);
void matmulNaive(float *c, const float *a, const float *b, size_t n);
/// The same sums as matmulNaive, in the cache-friendly i-k-j order.
void matmulTiled(float *c, const float *a, const float *b, size_t n);
void stencil(float *out, const float *in, size_t w, size_t h);
void transpose(float *out, const float *in, size_t n);
/// Inclusive prefix sums in place.
void scan(int *data, size_t n);
void emptyRegion();
int threads();

} // namespace cpubench::omp
