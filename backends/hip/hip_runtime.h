// The part of the HIP runtime API xpujit calls, declared here (no ROCm at
// build time) and resolved from libamdhip64 at run time.
#pragma once

#include "runtime/status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace xpu::hip {

// Runtime API types and constants (values from HIP 6's hip_runtime_api.h).
using hipError_t = int;
using hipDeviceptr_t = void *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;
using hipGraph_t = struct ihipGraph *;
using hipGraphNode_t = struct hipGraphNode *;
using hipGraphExec_t = struct hipGraphExec *;

/// hipKernelNodeParams (HIP 6 hip_runtime_api.h): what a graph's kernel
/// node launches. `func` takes a module's hipFunction_t.
struct HipDim3 {
  uint32_t x, y, z;
};
struct HipKernelNodeParams {
  HipDim3 blockDim;
  void **extra;
  void *func;
  HipDim3 gridDim;
  void **kernelParams;
  unsigned sharedMemBytes;
};

constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr hipError_t hipErrorNoDevice = 100;

/// Errors after which the device's state in this process is unusable: an
/// illegal address, a launch timeout, a device-side assert, a kernel
/// exception, a destroyed context.
constexpr bool isStickyError(hipError_t r) {
  return r == 700 || r == 702 || r == 709 || r == 710 || r == 719;
}

// hipDeviceAttribute_t values (the grid's y and z follow x).
enum : int {
  hipDeviceAttributeMaxGridDimX = 29,
  hipDeviceAttributeMaxGridDimY = 30,
  hipDeviceAttributeMaxGridDimZ = 31,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeWarpSize = 87,
};

/// hipDeviceProp_tR0600: xpujit reads two fields at their ABI offsets and
/// passes a buffer larger than the struct (1472 bytes in HIP 6 and 7).
constexpr size_t kPropsBufferBytes = 4096;
constexpr size_t kPropsUuidOffset = 256;         ///< hipUUID uuid
constexpr size_t kPropsGcnArchNameOffset = 1160; ///< char gcnArchName[256]

constexpr unsigned hipStreamNonBlocking = 0x1;
constexpr unsigned hipHostMallocPortable = 0x1;
constexpr unsigned hipHostMallocMapped = 0x2;
constexpr unsigned hipHostMallocCoherent = 0x40000000;

// The entry points: X(name, return type, parameters). HIP 6 and later keep
// the names unversioned, except the properties call whose struct changed.
#define XPU_HIP_ENTRY_POINTS(X)                                                \
  X(hipInit, hipError_t, (unsigned))                                           \
  X(hipDriverGetVersion, hipError_t, (int *))                                  \
  X(hipRuntimeGetVersion, hipError_t, (int *))                                 \
  X(hipGetErrorName, const char *, (hipError_t))                               \
  X(hipGetErrorString, const char *, (hipError_t))                             \
  X(hipGetDeviceCount, hipError_t, (int *))                                    \
  X(hipSetDevice, hipError_t, (int))                                           \
  X(hipDeviceGetName, hipError_t, (char *, int, int))                          \
  X(hipDeviceGetAttribute, hipError_t, (int *, int, int))                      \
  X(hipGetDevicePropertiesR0600, hipError_t, (void *, int))                    \
  X(hipDeviceTotalMem, hipError_t, (size_t *, int))                            \
  X(hipMalloc, hipError_t, (void **, size_t))                                  \
  X(hipFree, hipError_t, (void *))                                             \
  X(hipHostMalloc, hipError_t, (void **, size_t, unsigned))                    \
  X(hipHostFree, hipError_t, (void *))                                         \
  X(hipHostGetDevicePointer, hipError_t, (void **, void *, unsigned))          \
  X(hipMemcpyHtoD, hipError_t, (hipDeviceptr_t, const void *, size_t))         \
  X(hipMemcpyDtoH, hipError_t, (void *, hipDeviceptr_t, size_t))               \
  X(hipMemcpyDtoDAsync, hipError_t,                                            \
    (hipDeviceptr_t, hipDeviceptr_t, size_t, hipStream_t))                     \
  X(hipMemcpyHtoDAsync, hipError_t,                                            \
    (hipDeviceptr_t, const void *, size_t, hipStream_t))                       \
  X(hipMemcpyDtoHAsync, hipError_t,                                            \
    (void *, hipDeviceptr_t, size_t, hipStream_t))                             \
  X(hipStreamCreateWithFlags, hipError_t, (hipStream_t *, unsigned))           \
  X(hipStreamDestroy, hipError_t, (hipStream_t))                               \
  X(hipStreamSynchronize, hipError_t, (hipStream_t))                           \
  X(hipStreamWaitEvent, hipError_t, (hipStream_t, hipEvent_t, unsigned))       \
  X(hipEventCreateWithFlags, hipError_t, (hipEvent_t *, unsigned))            \
  X(hipEventDestroy, hipError_t, (hipEvent_t))                                 \
  X(hipEventRecord, hipError_t, (hipEvent_t, hipStream_t))                     \
  X(hipEventSynchronize, hipError_t, (hipEvent_t))                             \
  X(hipEventQuery, hipError_t, (hipEvent_t))                                   \
  X(hipEventElapsedTime, hipError_t, (float *, hipEvent_t, hipEvent_t))         \
  X(hipModuleLoadData, hipError_t, (hipModule_t *, const void *))              \
  X(hipModuleUnload, hipError_t, (hipModule_t))                                \
  X(hipModuleGetFunction, hipError_t,                                          \
    (hipFunction_t *, hipModule_t, const char *))                              \
  X(hipModuleLaunchKernel, hipError_t,                                         \
    (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,          \
     unsigned, unsigned, hipStream_t, void **, void **))

// Entry points a runtime may lack: graphs, and CU-masked streams (compute
// partitioning); the backend works without them and says what is missing.
#define XPU_HIP_OPTIONAL_ENTRY_POINTS(X)                                       \
  X(hipGraphCreate, hipError_t, (hipGraph_t *, unsigned))                      \
  X(hipGraphDestroy, hipError_t, (hipGraph_t))                                 \
  X(hipGraphAddKernelNode, hipError_t,                                         \
    (hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,             \
     const HipKernelNodeParams *))                                             \
  X(hipGraphInstantiate, hipError_t,                                           \
    (hipGraphExec_t *, hipGraph_t, hipGraphNode_t *, char *, size_t))          \
  X(hipGraphExecDestroy, hipError_t, (hipGraphExec_t))                         \
  X(hipGraphLaunch, hipError_t, (hipGraphExec_t, hipStream_t))                 \
  X(hipGraphExecKernelNodeSetParams, hipError_t,                               \
    (hipGraphExec_t, hipGraphNode_t, const HipKernelNodeParams *))             \
  X(hipExtStreamCreateWithCUMask, hipError_t,                                  \
    (hipStream_t *, uint32_t, const uint32_t *))

/// The resolved entry points.
struct Runtime {
#define XPU_HIP_MEMBER(name, ret, params) ret(*name) params = nullptr;
  XPU_HIP_ENTRY_POINTS(XPU_HIP_MEMBER)
  XPU_HIP_OPTIONAL_ENTRY_POINTS(XPU_HIP_MEMBER)
#undef XPU_HIP_MEMBER
  std::string library; ///< the file it came from
};

/// Loads libamdhip64 and calls hipInit once per process. Returns null, with
/// `why` set, when there is no usable runtime or no device.
const Runtime *runtime(std::string &why);

/// "hipErrorIllegalAddress: an illegal memory access was encountered"
std::string describe(const Runtime &r, hipError_t e);

/// The status for a failed runtime call: `what` and the runtime's message.
/// Sticky errors map to XPU_ERROR_DEVICE_FAULT, out of memory to
/// XPU_ERROR_OUT_OF_MEMORY, the rest to XPU_ERROR_BACKEND.
rt::Status failure(const Runtime &r, hipError_t e, const std::string &what);

/// "6.2.41134" from the runtime's encoded version (major * 10^7 +
/// minor * 10^5 + patch).
std::string versionText(int encoded);

} // namespace xpu::hip
