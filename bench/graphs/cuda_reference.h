// The hand-made reference of the graph benchmark: a CUDA graph built with
// the driver API (libcuda through dlopen, so the build needs no toolkit) on
// xpujit's own cubin, and the same launches made raw with cuLaunchKernel.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphbench {

class CudaReference {
public:
  /// Loads `image` (a cubin, or PTX for the driver's JIT) in device
  /// `ordinal`'s primary context, with its kernels `saxpy0` (bench::saxpyText(0)) and `empty`.
  /// Null with `why` when the driver or the code cannot be loaded.
  static std::unique_ptr<CudaReference> create(int ordinal, const void *image,
                                               std::string &why);
  ~CudaReference();

  /// `count` launches of saxpy(y, x, a, n) or of the empty kernel, raw.
  bool launch(bool saxpy, int count, uint64_t y, uint64_t x, float a, uint32_t n);
  /// The same launches recorded into a CUDA graph (stream capture), and
  /// instantiated; returns the CUgraphExec.
  void *graph(bool saxpy, int count, uint64_t y, uint64_t x, float a, uint32_t n);
  bool replay(void *exec);
  bool sync();
  const std::string &error() const { return error_; }

private:
  struct Api;
  CudaReference() = default;
  bool check(int result, const char *what);

  std::unique_ptr<Api> api_;
  void *stream_ = nullptr, *saxpy_ = nullptr, *empty_ = nullptr, *module_ = nullptr;
  uint64_t status_ = 0; ///< the status-word parameter xpujit's kernels take
  std::vector<void *> execs_;
  std::string error_;
};

} // namespace graphbench
