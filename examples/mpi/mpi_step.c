/* A data-parallel step over MPI: every rank runs xpujit kernels on its
 * shard, then the ranks combine their partial results with MPI_Allreduce on
 * the buffer's own memory (xpu_buffer_address: on the CPU backend a host
 * address, on CUDA a device pointer for CUDA-aware MPI), and apply the
 * combined update. Integer arithmetic, so every rank can check the result
 * exactly against the closed form.
 *
 *   mpirun -np 4 mpi_step [--steps N] [--device-buffers]
 *
 * The device is the default one (XPU_BACKEND / XPU_DEVICE choose it).
 * Exit status 0 only when every rank's every element was right. */
#include "xpu_c.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* histogram[b] += 1 for each element of the shard whose value % BINS == b;
 * then w[i] += total[i % BINS] (the all-reduced histogram). */
static const char kKernels[] =
    "xpu.kernel @count(%hist: !xpu.buffer<i32>, %x: !xpu.buffer<i32, ro>, %n: i32) {\n"
    "  %i = xpu.global_id x\n"
    "  %n_idx = arith.index_castui %n : i32 to index\n"
    "  %in = arith.cmpi ult, %i, %n_idx : index\n"
    "  scf.if %in {\n"
    "    %v = xpu.load %x[%i] : !xpu.buffer<i32, ro>\n"
    "    %bins = arith.constant 64 : i32\n"
    "    %b = arith.remui %v, %bins : i32\n"
    "    %bi = arith.index_castui %b : i32 to index\n"
    "    %one = arith.constant 1 : i32\n"
    "    %old = xpu.atomic_rmw add %one, %hist[%bi] relaxed device : !xpu.buffer<i32>\n"
    "  }\n"
    "  xpu.return\n"
    "}\n"
    "xpu.kernel @apply(%w: !xpu.buffer<i32>, %total: !xpu.buffer<i32, ro>, %n: i32) {\n"
    "  %i = xpu.global_id x\n"
    "  %n_idx = arith.index_castui %n : i32 to index\n"
    "  %in = arith.cmpi ult, %i, %n_idx : index\n"
    "  scf.if %in {\n"
    "    %c64 = arith.constant 64 : index\n"
    "    %b = arith.remui %i, %c64 : index\n"
    "    %t = xpu.load %total[%b] : !xpu.buffer<i32, ro>\n"
    "    %wi = xpu.load %w[%i] : !xpu.buffer<i32>\n"
    "    %r = arith.addi %wi, %t : i32\n"
    "    xpu.store %r, %w[%i] : !xpu.buffer<i32>\n"
    "  }\n"
    "  xpu.return\n"
    "}\n";

enum { BINS = 64, SHARD = 1 << 16, BLOCK = 256 };

#define CHECK(call)                                                            \
  do {                                                                         \
    xpu_status st_ = (call);                                                   \
    if (st_ != XPU_SUCCESS) {                                                  \
      fprintf(stderr, "rank %d: %s failed: %s: %s\n", rank, #call,            \
              xpu_status_name(st_), xpu_last_error_message());                 \
      MPI_Abort(MPI_COMM_WORLD, 2);                                            \
    }                                                                          \
  } while (0)

/* The shard of rank r: a fixed pseudo-random sequence, the same on every run. */
static uint32_t value(int r, uint32_t i) {
  uint32_t h = (uint32_t)r * 0x9E3779B9u ^ (i * 0x85EBCA6Bu);
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  return (h ^ (h >> 16)) & 0x7FFFFFFF;
}

int main(int argc, char **argv) {
  int rank = 0, size = 1, steps = 3, deviceBuffers = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "--steps") && a + 1 < argc)
      steps = atoi(argv[++a]);
    else if (!strcmp(argv[a], "--device-buffers"))
      deviceBuffers = 1;
  }

  xpu_context ctx;
  xpu_device dev;
  xpu_module mod;
  xpu_kernel count, apply;
  xpu_buffer bx, bhist, bw;
  CHECK(xpu_context_create(NULL, &ctx));
  CHECK(xpu_device_default(ctx, &dev));
  CHECK(xpu_module_create(ctx, dev, kKernels, sizeof kKernels - 1, NULL, &mod, NULL));
  CHECK(xpu_module_kernel(mod, "count", &count));
  CHECK(xpu_module_kernel(mod, "apply", &apply));
  CHECK(xpu_buffer_create(dev, SHARD * 4, &bx));
  CHECK(xpu_buffer_create(dev, BINS * 4, &bhist));
  CHECK(xpu_buffer_create(dev, SHARD * 4, &bw));

  int32_t *x = malloc(SHARD * 4), *w = calloc(SHARD, 4);
  int32_t hist[BINS], total[BINS], expect[BINS] = {0};
  for (uint32_t i = 0; i < SHARD; ++i)
    x[i] = (int32_t)value(rank, i);
  for (int r = 0; r < size; ++r)
    for (uint32_t i = 0; i < SHARD; ++i)
      expect[value(r, i) % BINS] += 1;
  CHECK(xpu_buffer_upload(bx, 0, x, SHARD * 4));
  CHECK(xpu_buffer_upload(bw, 0, w, SHARD * 4));

  uint32_t grid[3] = {SHARD / BLOCK, 1, 1}, block[3] = {BLOCK, 1, 1};
  int bad = 0;
  for (int s = 0; s < steps; ++s) {
    memset(hist, 0, sizeof hist);
    CHECK(xpu_buffer_upload(bhist, 0, hist, sizeof hist));
    xpu_arg ca[3] = {xpu_arg_buffer(bhist), xpu_arg_buffer(bx), xpu_arg_u32(SHARD)};
    CHECK(xpu_launch(count, NULL, grid, block, ca, 3));
    CHECK(xpu_device_synchronize(dev));
    uint64_t address = 0;
    if (deviceBuffers && xpu_buffer_address(bhist, &address) == XPU_SUCCESS) {
      /* The all-reduce reads and writes the buffer's memory in place. */
      MPI_Allreduce(MPI_IN_PLACE, (void *)(uintptr_t)address, BINS, MPI_INT32_T, MPI_SUM,
                    MPI_COMM_WORLD);
      CHECK(xpu_buffer_download(bhist, 0, total, sizeof total));
    } else {
      CHECK(xpu_buffer_download(bhist, 0, hist, sizeof hist));
      MPI_Allreduce(hist, total, BINS, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
      CHECK(xpu_buffer_upload(bhist, 0, total, sizeof total));
    }
    for (int b = 0; b < BINS; ++b)
      bad += total[b] != expect[b];
    xpu_arg aa[3] = {xpu_arg_buffer(bw), xpu_arg_buffer(bhist), xpu_arg_u32(SHARD)};
    CHECK(xpu_launch(apply, NULL, grid, block, aa, 3));
  }
  CHECK(xpu_device_synchronize(dev));
  CHECK(xpu_buffer_download(bw, 0, w, SHARD * 4));
  for (uint32_t i = 0; i < SHARD; ++i)
    bad += w[i] != steps * expect[i % BINS];

  int allBad = 0;
  MPI_Allreduce(&bad, &allBad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    xpu_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    xpu_device_info_get(dev, &info);
    printf("mpi_step: %d ranks on %s device '%s', %d steps%s: %s (%d wrong values)\n", size,
           xpu_backend_name(info.backend), info.name, steps,
           deviceBuffers ? ", all-reduce on the buffers' memory" : "",
           allBad ? "WRONG" : "every element right", allBad);
  }
  free(x);
  free(w);
  xpu_context_release(ctx);
  MPI_Finalize();
  return allBad != 0;
}
