// The CUDA driver API reference; see cuda_reference.h.
#include "cuda_reference.h"

#include <dlfcn.h>

#include <type_traits>

namespace graphbench {

/// The driver entry points, by the names libcuda exports (a versioned name
/// first where the driver has one).
struct CudaReference::Api {
  void *lib = nullptr;
  int (*init)(unsigned);
  int (*deviceGet)(int *, int);
  int (*primaryCtxRetain)(void **, int);
  int (*ctxSetCurrent)(void *);
  int (*moduleLoadData)(void **, const void *);
  int (*moduleUnload)(void *);
  int (*moduleGetFunction)(void **, void *, const char *);
  int (*streamCreate)(void **, unsigned);
  int (*streamDestroy)(void *);
  int (*streamSynchronize)(void *);
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, void *, void **, void **);
  int (*beginCapture)(void *, int);
  int (*endCapture)(void *, void **);
  int (*instantiate)(void **, void *, unsigned long long);
  int (*graphLaunch)(void *, void *);
  int (*graphDestroy)(void *);
  int (*graphExecDestroy)(void *);
  int (*memAlloc)(uint64_t *, size_t);
  int (*memFree)(uint64_t);
  int (*errorName)(int, const char **);

  bool load(std::string &why) {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      why = "libcuda.so.1 cannot be loaded";
      return false;
    }
    bool ok = true;
    auto get = [&](auto &fn, const char *name, const char *older = nullptr) {
      void *p = dlsym(lib, name);
      if (!p && older)
        p = dlsym(lib, older);
      if (!p) {
        why += std::string(why.empty() ? "" : ", ") + name;
        ok = false;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get(init, "cuInit");
    get(deviceGet, "cuDeviceGet");
    get(primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    get(ctxSetCurrent, "cuCtxSetCurrent");
    get(moduleLoadData, "cuModuleLoadData");
    get(moduleUnload, "cuModuleUnload");
    get(moduleGetFunction, "cuModuleGetFunction");
    get(streamCreate, "cuStreamCreate");
    get(streamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy");
    get(streamSynchronize, "cuStreamSynchronize");
    get(launchKernel, "cuLaunchKernel");
    get(beginCapture, "cuStreamBeginCapture_v2", "cuStreamBeginCapture");
    get(endCapture, "cuStreamEndCapture");
    get(instantiate, "cuGraphInstantiateWithFlags");
    get(graphLaunch, "cuGraphLaunch");
    get(graphDestroy, "cuGraphDestroy");
    get(graphExecDestroy, "cuGraphExecDestroy");
    get(memAlloc, "cuMemAlloc_v2");
    get(memFree, "cuMemFree_v2");
    get(errorName, "cuGetErrorName");
    if (!ok)
      why = "libcuda lacks " + why;
    return ok;
  }
};

std::unique_ptr<CudaReference> CudaReference::create(int ordinal, const void *image,
                                                     std::string &why) {
  std::unique_ptr<CudaReference> r(new CudaReference);
  r->api_ = std::make_unique<Api>();
  if (!r->api_->load(why))
    return nullptr;
  Api &a = *r->api_;
  int device = 0;
  void *context = nullptr;
  // The primary context: the one xpujit's CUDA backend runs in too.
  if (!r->check(a.init(0), "cuInit") || !r->check(a.deviceGet(&device, ordinal), "cuDeviceGet") ||
      !r->check(a.primaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !r->check(a.ctxSetCurrent(context), "cuCtxSetCurrent") ||
      !r->check(a.moduleLoadData(&r->module_, image), "cuModuleLoadData") ||
      !r->check(a.moduleGetFunction(&r->saxpy_, r->module_, "saxpy0"), "cuModuleGetFunction") ||
      !r->check(a.moduleGetFunction(&r->empty_, r->module_, "empty"), "cuModuleGetFunction") ||
      !r->check(a.streamCreate(&r->stream_, 1 /* non-blocking */), "cuStreamCreate") ||
      !r->check(a.memAlloc(&r->status_, 64), "cuMemAlloc")) {
    why = r->error_;
    return nullptr;
  }
  return r;
}

CudaReference::~CudaReference() {
  if (!api_ || !api_->lib)
    return;
  for (void *exec : execs_)
    api_->graphExecDestroy(exec);
  if (stream_)
    api_->streamDestroy(stream_);
  if (status_)
    api_->memFree(status_);
  if (module_)
    api_->moduleUnload(module_);
}

bool CudaReference::check(int result, const char *what) {
  if (result == 0)
    return true;
  const char *name = nullptr;
  if (api_->errorName)
    api_->errorName(result, &name);
  error_ = std::string(what) + " failed: " + (name ? name : std::to_string(result));
  return false;
}

bool CudaReference::launch(bool saxpy, int count, uint64_t y, uint64_t x, float a,
                           uint32_t n) {
  // xpujit's kernel ABI: a buffer is its address and its element count, and
  // the status word's address follows the parameters.
  uint64_t elements = n;
  int32_t n32 = int32_t(n);
  void *saxpyParams[] = {&y, &elements, &x, &elements, &a, &n32, &status_};
  void *emptyParams[] = {&status_};
  unsigned grid = saxpy ? (n + 255) / 256 : 1, block = saxpy ? 256 : 32;
  for (int i = 0; i < count; ++i)
    if (!check(api_->launchKernel(saxpy ? saxpy_ : empty_, grid, 1, 1, block, 1, 1, 0, stream_,
                                  saxpy ? saxpyParams : emptyParams, nullptr),
               "cuLaunchKernel"))
      return false;
  return true;
}

void *CudaReference::graph(bool saxpy, int count, uint64_t y, uint64_t x, float a,
                           uint32_t n) {
  void *graph = nullptr, *exec = nullptr;
  if (!check(api_->beginCapture(stream_, 0 /* global mode */), "cuStreamBeginCapture") ||
      !launch(saxpy, count, y, x, a, n) ||
      !check(api_->endCapture(stream_, &graph), "cuStreamEndCapture") ||
      !check(api_->instantiate(&exec, graph, 0), "cuGraphInstantiateWithFlags"))
    return nullptr;
  api_->graphDestroy(graph); // the exec keeps what it needs
  execs_.push_back(exec);
  return exec;
}

bool CudaReference::replay(void *exec) {
  return check(api_->graphLaunch(exec, stream_), "cuGraphLaunch");
}

bool CudaReference::sync() {
  return check(api_->streamSynchronize(stream_), "cuStreamSynchronize");
}

} // namespace graphbench
