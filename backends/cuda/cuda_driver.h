// The part of the CUDA driver API xpujit calls, declared here (no CUDA
// toolkit at build time) and resolved from libcuda.so.1 at run time.
#pragma once

#include "runtime/status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace xpu::cuda {

// Driver API types and constants (values from the driver's ABI).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;
using CUgraph = struct CUgraph_st *;
using CUgraphNode = struct CUgraphNode_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUgreenCtx = struct CUgreenCtx_st *;
using CUdevResourceDesc = struct CUdevResourceDesc_st *;

/// CUdevResource (cuda.h of CUDA 12.4 to 13.0, RESOURCE_ABI_VERSION 1): a
/// tagged union of 144 bytes, the type, 92 bytes the driver keeps to itself,
/// then 48 bytes of which SM resources use the first 12.
struct CudaDevResource {
  int type; ///< CU_DEV_RESOURCE_TYPE_*
  unsigned char internal[92];
  union {
    struct {
      unsigned smCount;                ///< SMs in this resource
      unsigned minSmPartitionSize;     ///< the fewest SMs a split can give
      unsigned smCoscheduledAlignment; ///< a split's SM counts are multiples of it
    } sm;
    unsigned char oversize[48];
  };
};
static_assert(sizeof(CudaDevResource) == 144, "CUdevResource is 144 bytes");
constexpr int CU_DEV_RESOURCE_TYPE_SM = 1;
constexpr unsigned CU_GREEN_CTX_DEFAULT_STREAM = 0x1; ///< required before CUDA 13

/// CUDA_KERNEL_NODE_PARAMS_v2 (cuda.h, CUDA 12): what a graph's kernel node
/// launches.
struct CudaKernelNodeParams {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern;     ///< CUkernel, when func is null
  CUcontext ctx;  ///< null: the current context
};
struct CUuuid {
  char bytes[16];
};

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// Errors after which the context is unusable (illegal address, launch
// failure, misaligned address, ...): CUDA_ERROR_ILLEGAL_ADDRESS (700) to
// CUDA_ERROR_LAUNCH_FAILED (719).
constexpr bool isStickyError(CUresult r) { return r >= 700 && r <= 719; }

enum : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

// cuFuncGetAttribute: what the loaded code of a kernel occupies.
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  // cuFuncSetAttribute: how much dynamic shared memory a launch may ask for.
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 0x1;
constexpr unsigned CU_MEMHOSTALLOC_DEVICEMAP = 0x2;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;

// cuPointerGetAttribute: what an imported address is.
enum : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
};
enum : unsigned { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_MEMORYTYPE_UNIFIED = 4 };

// The entry points: X(name, symbol, return type, parameters). `symbol` is
// the versioned name libcuda exports.
#define XPU_CUDA_ENTRY_POINTS(X)                                               \
  X(cuInit, "cuInit", CUresult, (unsigned))                                    \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int *))               \
  X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char **))     \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char **)) \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *))                   \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                   \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice))     \
  X(cuDeviceGetUuid, "cuDeviceGetUuid_v2", CUresult, (CUuuid *, CUdevice))     \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult,                    \
    (int *, int, CUdevice))                                                    \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t *, CUdevice))   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult,           \
    (CUcontext *, CUdevice))                                                   \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult,       \
    (CUdevice))                                                                \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                 \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, ())                        \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))            \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                        \
  X(cuMemHostAlloc, "cuMemHostAlloc", CUresult, (void **, size_t, unsigned))   \
  X(cuMemAllocManaged, "cuMemAllocManaged", CUresult,                          \
    (CUdeviceptr *, size_t, unsigned))                                         \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", CUresult,                  \
    (void *, int, CUdeviceptr))                                                \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void *))                        \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", CUresult,       \
    (CUdeviceptr *, void *, unsigned))                                         \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult,                                 \
    (CUdeviceptr, const void *, size_t))                                       \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult, (void *, CUdeviceptr, size_t))  \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult,                       \
    (CUdeviceptr, const void *, size_t, CUstream))                             \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult,                       \
    (void *, CUdeviceptr, size_t, CUstream))                                   \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult,                       \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", CUresult,                          \
    (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))        \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *, unsigned))        \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))               \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))          \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", CUresult,                          \
    (CUstream, CUevent, unsigned))                                             \
  X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned))           \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                  \
  X(cuEventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))             \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent))             \
  X(cuEventQuery, "cuEventQuery", CUresult, (CUevent))                         \
  X(cuEventElapsedTime, "cuEventElapsedTime", CUresult,                     \
    (float *, CUevent, CUevent))                                               \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUresult,                        \
    (CUmodule *, const void *, unsigned, CUjit_option *, void **))             \
  X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                    \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult,                      \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", CUresult, (int *, int, CUfunction)) \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, int, int)) \
  X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))

// Entry points a driver may lack (graphs: CUDA 12 for the _v2 kernel node
// parameters); the backend works without them and says what is missing.
#define XPU_CUDA_OPTIONAL_ENTRY_POINTS(X)                                      \
  X(cuGraphCreate, "cuGraphCreate", CUresult, (CUgraph *, unsigned))           \
  X(cuGraphDestroy, "cuGraphDestroy", CUresult, (CUgraph))                     \
  X(cuGraphAddKernelNode, "cuGraphAddKernelNode_v2", CUresult,                 \
    (CUgraphNode *, CUgraph, const CUgraphNode *, size_t,                      \
     const CudaKernelNodeParams *))                                            \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", CUresult,      \
    (CUgraphExec *, CUgraph, unsigned long long))                              \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", CUresult, (CUgraphExec))         \
  X(cuGraphLaunch, "cuGraphLaunch", CUresult, (CUgraphExec, CUstream))         \
  X(cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2",       \
    CUresult, (CUgraphExec, CUgraphNode, const CudaKernelNodeParams *))

// Green contexts (SM partitions for compute-unit budgets): CUDA 12.4, and
// 12.5 for cuGreenCtxStreamCreate. Without them budgets are not reserved.
#define XPU_CUDA_GREEN_CONTEXT_ENTRY_POINTS(X)                                 \
  X(cuDeviceGetDevResource, "cuDeviceGetDevResource", CUresult,                \
    (CUdevice, CudaDevResource *, int))                                        \
  X(cuDevSmResourceSplitByCount, "cuDevSmResourceSplitByCount", CUresult,      \
    (CudaDevResource *, unsigned *, const CudaDevResource *, CudaDevResource *, \
     unsigned, unsigned))                                                      \
  X(cuDevResourceGenerateDesc, "cuDevResourceGenerateDesc", CUresult,          \
    (CUdevResourceDesc *, CudaDevResource *, unsigned))                        \
  X(cuGreenCtxCreate, "cuGreenCtxCreate", CUresult,                            \
    (CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned))                     \
  X(cuGreenCtxStreamCreate, "cuGreenCtxStreamCreate", CUresult,                \
    (CUstream *, CUgreenCtx, unsigned, int))                                   \
  X(cuGreenCtxDestroy, "cuGreenCtxDestroy", CUresult, (CUgreenCtx))            \
  X(cuGreenCtxRecordEvent, "cuGreenCtxRecordEvent", CUresult,                  \
    (CUgreenCtx, CUevent))

/// The resolved entry points.
struct Driver {
#define XPU_CUDA_MEMBER(name, symbol, ret, params) ret(*name) params = nullptr;
  XPU_CUDA_ENTRY_POINTS(XPU_CUDA_MEMBER)
  XPU_CUDA_OPTIONAL_ENTRY_POINTS(XPU_CUDA_MEMBER)
  XPU_CUDA_GREEN_CONTEXT_ENTRY_POINTS(XPU_CUDA_MEMBER)
#undef XPU_CUDA_MEMBER
  /// The optional entry points the driver lacks ("" when none); not the
  /// green-context ones (missingGreenContextEntryPoints).
  std::string missing;
};

/// The green-context entry points `d` lacks, by symbol ("" when none).
std::string missingGreenContextEntryPoints(const Driver &d);

/// Loads libcuda.so.1 and calls cuInit once per process. Returns null, with
/// `why` set, when there is no usable driver.
const Driver *driver(std::string &why);

/// A sticky error (an illegal address, a launch failure) leaves the CUDA
/// driver unusable for the rest of the process, in every context: the
/// driver requires the process to restart. The first one is recorded here.
void poison(const std::string &why);
/// Empty while the driver is usable, else what poisoned it.
std::string poisoned();

/// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
std::string describe(const Driver &d, CUresult r);

/// The status for a failed driver call: `what` and the driver's message.
/// Sticky errors map to XPU_ERROR_DEVICE_FAULT, out of memory to
/// XPU_ERROR_OUT_OF_MEMORY, the rest to XPU_ERROR_BACKEND.
rt::Status failure(const Driver &d, CUresult r, const std::string &what);

} // namespace xpu::cuda
