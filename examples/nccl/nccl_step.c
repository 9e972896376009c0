/* A data-parallel step on every CUDA device of the machine: each device runs
 * an xpujit kernel on its shard, then NCCL all-reduces the results in place
 * in xpujit's own buffers (xpu_buffer_address) on xpujit's own streams
 * (xpu_stream_native), and a second kernel consumes the sum. NCCL is loaded
 * at run time (libnccl.so.2, e.g. from PyTorch's nvidia-nccl wheel: set
 * XPU_NCCL_LIBRARY to its path). Also times the all-reduce of a large
 * buffer, as bus bandwidth the way nccl-tests reports it.
 *
 *   nccl_step [--mib 256] [--iterations 20]
 *
 * Exit status 0 only when every element on every device is right; 77 (a
 * skip, for CTest) when there is no NCCL or no CUDA device. */
#include "xpu_c.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The few NCCL entry points used (nccl.h's ABI, stable since NCCL 2). */
typedef struct ncclComm *ncclComm_t;
typedef int ncclResult_t;
enum { ncclInt32 = 2, ncclFloat32 = 7, ncclSum = 0 };
static ncclResult_t (*ncclCommInitAll)(ncclComm_t *, int, const int *);
static ncclResult_t (*ncclCommDestroy)(ncclComm_t);
static ncclResult_t (*ncclAllReduce)(const void *, void *, size_t, int, int, ncclComm_t, void *);
static ncclResult_t (*ncclGroupStart)(void);
static ncclResult_t (*ncclGroupEnd)(void);
static const char *(*ncclGetErrorString)(ncclResult_t);
static ncclResult_t (*ncclGetVersion)(int *);

static int loadNccl(void) {
  const char *path = getenv("XPU_NCCL_LIBRARY");
  void *h = dlopen(path ? path : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("SKIP: cannot load NCCL: %s\n", dlerror());
    return 0;
  }
#define LOAD(name) (*(void **)&name = dlsym(h, #name)) != NULL
  return LOAD(ncclCommInitAll) && LOAD(ncclCommDestroy) && LOAD(ncclAllReduce) &&
         LOAD(ncclGroupStart) && LOAD(ncclGroupEnd) && LOAD(ncclGetErrorString) &&
         LOAD(ncclGetVersion);
#undef LOAD
}

#define XCHECK(call)                                                           \
  do {                                                                         \
    xpu_status st_ = (call);                                                   \
    if (st_ != XPU_SUCCESS) {                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, xpu_status_name(st_),     \
              xpu_last_error_message());                                       \
      return 2;                                                                \
    }                                                                          \
  } while (0)
#define NCHECK(call)                                                           \
  do {                                                                         \
    ncclResult_t r_ = (call);                                                  \
    if (r_ != 0) {                                                             \
      fprintf(stderr, "%s failed: %s\n", #call, ncclGetErrorString(r_));       \
      return 2;                                                                \
    }                                                                          \
  } while (0)

/* part[i] = (d + 1) * x[i]; after the all-reduce, out[i] = sum[i] + i. */
static const char kKernels[] =
    "xpu.kernel @part(%p: !xpu.buffer<i32>, %x: !xpu.buffer<i32, ro>, %d: i32, %n: i32) {\n"
    "  %i = xpu.global_id x\n"
    "  %n_idx = arith.index_castui %n : i32 to index\n"
    "  %in = arith.cmpi ult, %i, %n_idx : index\n"
    "  scf.if %in {\n"
    "    %v = xpu.load %x[%i] : !xpu.buffer<i32, ro>\n"
    "    %one = arith.constant 1 : i32\n"
    "    %k = arith.addi %d, %one : i32\n"
    "    %r = arith.muli %v, %k : i32\n"
    "    xpu.store %r, %p[%i] : !xpu.buffer<i32>\n"
    "  }\n"
    "  xpu.return\n"
    "}\n"
    "xpu.kernel @finish(%p: !xpu.buffer<i32>, %n: i32) {\n"
    "  %i = xpu.global_id x\n"
    "  %n_idx = arith.index_castui %n : i32 to index\n"
    "  %in = arith.cmpi ult, %i, %n_idx : index\n"
    "  scf.if %in {\n"
    "    %v = xpu.load %p[%i] : !xpu.buffer<i32>\n"
    "    %ii = arith.index_cast %i : index to i32\n"
    "    %r = arith.addi %v, %ii : i32\n"
    "    xpu.store %r, %p[%i] : !xpu.buffer<i32>\n"
    "  }\n"
    "  xpu.return\n"
    "}\n";

enum { MAXDEV = 16, N = 1 << 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int mib = 256, iterations = 20;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--mib"))
      mib = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--iterations"))
      iterations = atoi(argv[a + 1]);
  }
  if (!loadNccl())
    return 77;
  int version = 0;
  ncclGetVersion(&version);

  xpu_context ctx;
  XCHECK(xpu_context_create(NULL, &ctx));
  uint32_t count = 0;
  XCHECK(xpu_device_count(ctx, &count));
  xpu_device devs[MAXDEV];
  int ndev = 0;
  for (uint32_t i = 0; i < count && ndev < MAXDEV; ++i) {
    xpu_device d;
    xpu_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    XCHECK(xpu_device_get(ctx, i, &d));
    XCHECK(xpu_device_info_get(d, &info));
    if (info.backend == XPU_BACKEND_CUDA)
      devs[ndev++] = d;
  }
  if (!ndev) {
    printf("SKIP: no cuda device (%s)\n", xpu_context_backend_note(ctx, XPU_BACKEND_CUDA));
    return 77;
  }
  /* xpujit lists CUDA devices in CUDA's order, so NCCL's rank d is ordinal d. */
  int ordinals[MAXDEV];
  for (int d = 0; d < ndev; ++d)
    ordinals[d] = d;
  ncclComm_t comms[MAXDEV];
  NCHECK(ncclCommInitAll(comms, ndev, ordinals));

  xpu_module mods[MAXDEV];
  xpu_kernel part[MAXDEV], fin[MAXDEV];
  xpu_buffer bx[MAXDEV], bp[MAXDEV], big[MAXDEV];
  xpu_stream streams[MAXDEV];
  void *native[MAXDEV];
  static int32_t x[N], out[N];
  for (uint32_t i = 0; i < N; ++i)
    x[i] = (int32_t)(i * 2654435761u % 1000003);
  for (int d = 0; d < ndev; ++d) {
    XCHECK(xpu_module_create(ctx, devs[d], kKernels, sizeof kKernels - 1, NULL, &mods[d], NULL));
    XCHECK(xpu_module_kernel(mods[d], "part", &part[d]));
    XCHECK(xpu_module_kernel(mods[d], "finish", &fin[d]));
    XCHECK(xpu_buffer_create(devs[d], N * 4, &bx[d]));
    XCHECK(xpu_buffer_create(devs[d], N * 4, &bp[d]));
    XCHECK(xpu_buffer_create(devs[d], (size_t)mib << 20, &big[d]));
    XCHECK(xpu_buffer_upload(bx[d], 0, x, N * 4));
    XCHECK(xpu_stream_create(devs[d], &streams[d]));
    XCHECK(xpu_stream_native(streams[d], &native[d]));
  }

  uint32_t grid[3] = {N / 256, 1, 1}, block[3] = {256, 1, 1};
  for (int d = 0; d < ndev; ++d) {
    xpu_arg args[4] = {xpu_arg_buffer(bp[d]), xpu_arg_buffer(bx[d]), xpu_arg_i32(d),
                       xpu_arg_i32(N)};
    XCHECK(xpu_launch(part[d], streams[d], grid, block, args, 4));
  }
  /* NCCL works on the same streams: ordered after the kernels, before finish. */
  NCHECK(ncclGroupStart());
  for (int d = 0; d < ndev; ++d) {
    uint64_t p = 0;
    XCHECK(xpu_buffer_address(bp[d], &p));
    NCHECK(ncclAllReduce((void *)(uintptr_t)p, (void *)(uintptr_t)p, N, ncclInt32, ncclSum,
                         comms[d], native[d]));
  }
  NCHECK(ncclGroupEnd());
  for (int d = 0; d < ndev; ++d) {
    xpu_arg args[2] = {xpu_arg_buffer(bp[d]), xpu_arg_i32(N)};
    XCHECK(xpu_launch(fin[d], streams[d], grid, block, args, 2));
  }
  long wrong = 0;
  int32_t factor = ndev * (ndev + 1) / 2;
  for (int d = 0; d < ndev; ++d) {
    XCHECK(xpu_stream_synchronize(streams[d]));
    XCHECK(xpu_buffer_download(bp[d], 0, out, N * 4));
    for (uint32_t i = 0; i < N; ++i)
      wrong += out[i] != (int32_t)((uint32_t)x[i] * (uint32_t)factor + i);
  }

  /* Bandwidth of an in-place float all-reduce over xpujit buffers. */
  size_t floats = ((size_t)mib << 20) / 4;
  double best = 1e30;
  for (int it = 0; it < iterations + 2; ++it) {
    double t = now();
    NCHECK(ncclGroupStart());
    for (int d = 0; d < ndev; ++d) {
      uint64_t p = 0;
      XCHECK(xpu_buffer_address(big[d], &p));
      NCHECK(ncclAllReduce((void *)(uintptr_t)p, (void *)(uintptr_t)p, floats, ncclFloat32,
                           ncclSum, comms[d], native[d]));
    }
    NCHECK(ncclGroupEnd());
    for (int d = 0; d < ndev; ++d)
      XCHECK(xpu_stream_synchronize(streams[d]));
    t = now() - t;
    if (it >= 2 && t < best)
      best = t;
  }
  double bytes = (double)floats * 4;
  /* nccl-tests' bus bandwidth for all-reduce: algbw * 2 (n - 1) / n. */
  double algbw = bytes / best / 1e9, busbw = algbw * 2.0 * (ndev - 1) / ndev;
  printf("nccl_step: NCCL %d on %d CUDA device(s): step %s (%ld wrong); all-reduce of %d MiB "
         "in place in xpujit buffers: %.3f ms, algbw %.1f GB/s, busbw %.1f GB/s\n",
         version, ndev, wrong ? "WRONG" : "right", wrong, mib, best * 1e3, algbw, busbw);
  for (int d = 0; d < ndev; ++d)
    ncclCommDestroy(comms[d]);
  xpu_context_release(ctx);
  return wrong != 0;
}
