// The reference for reduce_bench.cpp: cub::DeviceReduce::Sum over the same
// 2^log2n floats (the same values: (i * 2654435761) >> 29, small integers),
// timed with CUDA events around each call (temporary storage allocated
// once), median of the iterations, printed as the same JSON line.
//
//   nvcc -O3 -arch=sm_90 -o reduce_cub reduce_cub.cu
//   ./reduce_cub [--log2n 28] [--iterations 100]
#include <cub/device/device_reduce.cuh>
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

static float value(size_t i) { return float((uint32_t(i) * 2654435761u) >> 29); }

int main(int argc, char **argv) {
  int log2n = 28, iterations = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--log2n"))
      log2n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--iterations"))
      iterations = std::atoi(argv[i + 1]);
  }
  const size_t n = size_t(1) << log2n;
  std::vector<float> host(n);
  double want = 0;
  for (size_t i = 0; i < n; ++i)
    want += host[i] = value(i);
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  size_t tempBytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, tempBytes, in, out, int(n)));
  void *temp;
  CHECK(cudaMalloc(&temp, tempBytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int it = 0; it < iterations; ++it) {
    CHECK(cudaEventRecord(start));
    CHECK(cub::DeviceReduce::Sum(temp, tempBytes, in, out, int(n)));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  float got;
  CHECK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
  std::sort(ms.begin(), ms.end());
  double median = ms.size() % 2 ? ms[ms.size() / 2]
                                : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  double bytes = double(n) * sizeof(float);
  bool ok = std::fabs(got - want) <= 1e-5 * want;
  std::printf("{\"impl\": \"cub\", \"kernel\": \"sum\", \"n\": %zu, \"bytes\": %.0f, "
              "\"median_ms\": %.6f, \"gbps\": %.1f, \"sum\": %.9g, \"expected\": %.17g, "
              "\"check\": \"%s\"}\n",
              n, bytes, median, bytes / (median * 1e-3) / 1e9, got, want, ok ? "pass" : "FAIL");
  return ok ? 0 : 1;
}
