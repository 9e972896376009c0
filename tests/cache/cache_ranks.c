/* Many processes ("ranks") on one host sharing one kernel cache directory,
 * as an MPI job's ranks do: every rank compiles the same kernels and some
 * of its own at the same moment, runs them, and checks every element; a
 * second wave of ranks then finds everything on disk. Fails on any wrong
 * element, any bad entry found, or any kernel the second wave had to
 * compile. Forks its ranks itself, so it needs no MPI to run anywhere.
 *
 *   cache_ranks [--ranks 64] [--shared 8]     (XPU_CACHE_DIR: the shared directory)
 */
#include "xpu_c.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 4099 }; /* not a multiple of the block: the guard matters */

static int kernelText(char *out, size_t size, int c) {
  return snprintf(out, size,
                  "xpu.kernel @scale(%%y: !xpu.buffer<i32>, %%x: !xpu.buffer<i32, ro>, %%n: i32) {\n"
                  "  %%i = xpu.global_id x\n"
                  "  %%n_idx = arith.index_castui %%n : i32 to index\n"
                  "  %%in = arith.cmpi ult, %%i, %%n_idx : index\n"
                  "  scf.if %%in {\n"
                  "    %%v = xpu.load %%x[%%i] : !xpu.buffer<i32, ro>\n"
                  "    %%c = arith.constant %d : i32\n"
                  "    %%r = arith.muli %%v, %%c : i32\n"
                  "    %%s = arith.addi %%r, %%c : i32\n"
                  "    xpu.store %%s, %%y[%%i] : !xpu.buffer<i32>\n"
                  "  }\n"
                  "  xpu.return\n"
                  "}\n",
                  c);
}

/* Runs kernel `c` and checks it; returns the number of wrong elements, or
 * -1 when a call failed. */
static long runKernel(xpu_context ctx, xpu_device dev, int c, int rank) {
  char text[1024];
  int len = kernelText(text, sizeof text, c);
  xpu_module mod;
  xpu_kernel k;
  xpu_buffer bx, by;
  static int32_t x[N], y[N];
  for (int i = 0; i < N; ++i)
    x[i] = (int32_t)((uint32_t)(rank * 7919 + i * 104729 + c) % 2000003) - 1000000;
  if (xpu_module_create(ctx, dev, text, (size_t)len, NULL, &mod, NULL) ||
      xpu_module_kernel(mod, "scale", &k) || xpu_buffer_create(dev, N * 4, &bx) ||
      xpu_buffer_create(dev, N * 4, &by) || xpu_buffer_upload(bx, 0, x, N * 4)) {
    fprintf(stderr, "rank %d kernel %d: %s\n", rank, c, xpu_last_error_message());
    return -1;
  }
  uint32_t grid[3] = {(N + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  xpu_arg args[3] = {xpu_arg_buffer(by), xpu_arg_buffer(bx), xpu_arg_i32(N)};
  if (xpu_launch(k, NULL, grid, block, args, 3) || xpu_device_synchronize(dev) ||
      xpu_buffer_download(by, 0, y, N * 4)) {
    fprintf(stderr, "rank %d kernel %d: %s\n", rank, c, xpu_last_error_message());
    return -1;
  }
  long wrong = 0;
  for (int i = 0; i < N; ++i)
    wrong += y[i] != (int32_t)((uint32_t)x[i] * (uint32_t)c + (uint32_t)c);
  xpu_buffer_free(bx);
  xpu_buffer_free(by);
  xpu_module_release(mod);
  return wrong;
}

/* One rank: the shared kernels, then its own, in an order of its own.
 * Exit status: 0 right, 1 wrong results, 2 a failed call, 3 bad entries,
 * 4 compiled although `expectCached`. */
static int rankMain(int rank, int shared, int expectCached) {
  xpu_context ctx;
  xpu_device dev;
  if (xpu_context_create(NULL, &ctx) || xpu_device_default(ctx, &dev)) {
    fprintf(stderr, "rank %d: %s\n", rank, xpu_last_error_message());
    return 2;
  }
  long wrong = 0;
  for (int j = 0; j < shared; ++j) {
    long w = runKernel(ctx, dev, 1 + (j + rank) % shared, rank);
    if (w < 0)
      return 2;
    wrong += w;
  }
  long w = runKernel(ctx, dev, 1000 + rank, rank);
  if (w < 0)
    return 2;
  wrong += w;
  xpu_cache_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = sizeof stats;
  xpu_cache_stats_get(&stats);
  xpu_context_release(ctx);
  if (wrong) {
    fprintf(stderr, "rank %d: %ld wrong elements\n", rank, wrong);
    return 1;
  }
  if (stats.bad_entries) {
    fprintf(stderr, "rank %d: %llu bad cache entries\n", rank,
            (unsigned long long)stats.bad_entries);
    return 3;
  }
  if (stats.mode != XPU_CACHE_MODE_ON) {
    fprintf(stderr, "rank %d: the cache is not on disk (%s)\n", rank, stats.note);
    return 2;
  }
  if (expectCached && stats.compiles) {
    fprintf(stderr, "rank %d: compiled %llu kernels the first wave had stored\n", rank,
            (unsigned long long)stats.compiles);
    return 4;
  }
  return 0;
}

/* Starts `ranks` processes at once and waits for all; returns how many failed. */
static int wave(int ranks, int shared, int expectCached, const char *name) {
  pid_t *pids = calloc((size_t)ranks, sizeof *pids);
  for (int r = 0; r < ranks; ++r) {
    pids[r] = fork();
    if (pids[r] == 0)
      _exit(rankMain(r, shared, expectCached));
    if (pids[r] < 0) {
      perror("fork");
      return ranks;
    }
  }
  int failed = 0;
  for (int r = 0; r < ranks; ++r) {
    int status = 0;
    waitpid(pids[r], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
      ++failed;
      fprintf(stderr, "%s: rank %d %s %d\n", name, r,
              WIFEXITED(status) ? "exited with" : "died of signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
  }
  free(pids);
  printf("%s: %d ranks, %d failed\n", name, ranks, failed);
  return failed;
}

int main(int argc, char **argv) {
  int ranks = 64, shared = 8;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--ranks"))
      ranks = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--shared"))
      shared = atoi(argv[a + 1]);
  }
  if (!getenv("XPU_CACHE_DIR")) {
    fprintf(stderr, "cache_ranks: set XPU_CACHE_DIR to the directory the ranks share\n");
    return 2;
  }
  fflush(stdout);
  int failed = wave(ranks, shared, 0, "first wave (empty cache, compiling at once)");
  failed += wave(ranks, shared, 1, "second wave (everything from disk)");
  uint64_t checked = 0, removed = 0;
  if (xpu_cache_verify(NULL, NULL, &checked, &removed) || removed) {
    fprintf(stderr, "cache verify: %llu of %llu entries bad: %s\n",
            (unsigned long long)removed, (unsigned long long)checked,
            xpu_last_error_message());
    ++failed;
  }
  printf("cache_ranks: %d ranks x %d shared + 1 own kernels; %llu entries verified; %s\n",
         ranks, shared, (unsigned long long)checked, failed ? "FAILED" : "all right");
  return failed != 0;
}
