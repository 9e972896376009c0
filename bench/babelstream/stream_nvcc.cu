// The reference for stream_bench.cpp: the same five kernels in CUDA C++,
// compiled by nvcc (-O3 -arch=sm_90), the same sizes, initial values,
// launch shapes (1024 threads; dot on 4 workgroups per SM), event timing and
// median, printed as the same JSON lines.
//
//   nvcc -O3 -arch=sm_90 -o stream_nvcc stream_nvcc.cu
//   ./stream_nvcc [--log2n 27] [--iterations 100]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));          \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int kBlock = 1024;
constexpr double kScalar = 0.4;

__global__ void copy(double *c, const double *a, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i];
}

__global__ void mul(double *b, const double *c, double scalar, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = scalar * c[i];
}

__global__ void add(double *c, const double *a, const double *b, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

__global__ void triad(double *a, const double *b, const double *c, double scalar,
                      size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + scalar * c[i];
}

__global__ void dot(double *sums, const double *a, const double *b, size_t n) {
  __shared__ double partial[kBlock];
  double s = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    s += a[i] * b[i];
  partial[threadIdx.x] = s;
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    __syncthreads();
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = partial[0];
}

int main(int argc, char **argv) {
  int log2n = 27, iterations = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--log2n"))
      log2n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--iterations"))
      iterations = std::atoi(argv[i + 1]);
  }
  const size_t n = size_t(1) << log2n;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int dotGroups = 4 * sms;
  double *a, *b, *c, *sums;
  CHECK(cudaMalloc(&a, n * 8));
  CHECK(cudaMalloc(&b, n * 8));
  CHECK(cudaMalloc(&c, n * 8));
  CHECK(cudaMalloc(&sums, dotGroups * 8));
  std::vector<double> init(n);
  for (auto [p, v] : {std::pair{a, 0.1}, {b, 0.2}, {c, 0.0}}) {
    std::fill(init.begin(), init.end(), v);
    CHECK(cudaMemcpy(p, init.data(), n * 8, cudaMemcpyHostToDevice));
  }
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const unsigned grid = unsigned((n + kBlock - 1) / kBlock);
  const char *names[] = {"copy", "mul", "add", "triad", "dot"};
  const double bytes[] = {2.0 * 8 * n, 2.0 * 8 * n, 3.0 * 8 * n, 3.0 * 8 * n, 2.0 * 8 * n};
  std::vector<double> ms[5];
  std::vector<double> partial(dotGroups);
  for (int it = 0; it < iterations; ++it)
    for (int k = 0; k < 5; ++k) {
      CHECK(cudaEventRecord(start));
      switch (k) {
      case 0: copy<<<grid, kBlock>>>(c, a, n); break;
      case 1: mul<<<grid, kBlock>>>(b, c, kScalar, n); break;
      case 2: add<<<grid, kBlock>>>(c, a, b, n); break;
      case 3: triad<<<grid, kBlock>>>(a, b, c, kScalar, n); break;
      case 4: dot<<<dotGroups, kBlock>>>(sums, a, b, n); break;
      }
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float t;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      ms[k].push_back(t);
      if (k == 4)
        CHECK(cudaMemcpy(partial.data(), sums, dotGroups * 8, cudaMemcpyDeviceToHost));
    }
  for (int k = 0; k < 5; ++k) {
    std::sort(ms[k].begin(), ms[k].end());
    double med = ms[k][ms[k].size() / 2];
    std::printf("{\"impl\": \"nvcc\", \"kernel\": \"%s\", \"n\": %zu, \"bytes\": %.0f, "
                "\"median_ms\": %.6f, \"gbps\": %.1f}\n",
                names[k], n, bytes[k], med, bytes[k] / (med * 1e-3) / 1e9);
  }
  return 0;
}
