/* Launch hooks, module reports and the observers' error paths, through the
 * C API only: hooks see every checked launch with its kernel, grid and
 * arguments, a removed hook sees none, and an observed launch computes the
 * same result as an unobserved one (every element checked). */
#include "xpu_c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__, __LINE__,   \
              #cond, xpu_last_error_message());                                \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static const char kSaxpy[] =
    "xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>,\n"
    "                  %a: f32, %n: i32) {\n"
    "  %i = xpu.global_id x\n"
    "  %n_idx = arith.index_castui %n : i32 to index\n"
    "  %in = arith.cmpi ult, %i, %n_idx : index\n"
    "  scf.if %in {\n"
    "    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>\n"
    "    %yi = xpu.load %y[%i] : !xpu.buffer<f32>\n"
    "    %ax = arith.mulf %a, %xi : f32\n"
    "    %r = arith.addf %ax, %yi : f32\n"
    "    xpu.store %r, %y[%i] : !xpu.buffer<f32>\n"
    "  }\n"
    "  xpu.return\n"
    "}\n";

typedef struct Seen {
  int enters, exits;
  uint64_t lastSequence;
  int orderOk; /* every exit follows its own enter */
  uint32_t grid0, block0;
  float a;
  char kernel[32], source[64];
  xpu_status lastStatus;
} Seen;

static void onEnter(const xpu_launch_info *info, void *user) {
  Seen *s = (Seen *)user;
  if (info->sequence <= s->lastSequence)
    s->orderOk = 0;
  s->lastSequence = info->sequence;
  s->enters++;
  s->grid0 = info->grid[0];
  s->block0 = info->block[0];
  s->a = info->arg_count == 4 ? info->args[2].v.f32 : -1.0f;
  snprintf(s->kernel, sizeof s->kernel, "%s", info->kernel_name);
  snprintf(s->source, sizeof s->source, "%s", info->source_name);
}

static void onExit(const xpu_launch_info *info, xpu_status status, void *user) {
  Seen *s = (Seen *)user;
  if (info->sequence != s->lastSequence)
    s->orderOk = 0;
  s->exits++;
  s->lastStatus = status;
}

static float frand(void) { return (float)rand() / (float)RAND_MAX * 2.0f - 1.0f; }

/* Runs saxpy over fresh random data and checks every element. */
static void saxpyOnce(xpu_device dev, xpu_kernel k, uint32_t n, float a) {
  float *x = malloc(n * 4), *y = malloc(n * 4), *out = malloc(n * 4);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = frand();
    y[i] = frand();
  }
  xpu_buffer bx, by;
  CHECK(xpu_buffer_create(dev, n * 4, &bx) == XPU_SUCCESS);
  CHECK(xpu_buffer_create(dev, n * 4, &by) == XPU_SUCCESS);
  CHECK(xpu_buffer_upload(bx, 0, x, n * 4) == XPU_SUCCESS);
  CHECK(xpu_buffer_upload(by, 0, y, n * 4) == XPU_SUCCESS);
  xpu_arg args[4] = {xpu_arg_buffer(by), xpu_arg_buffer(bx), xpu_arg_f32(a),
                     xpu_arg_u32(n)};
  uint32_t grid[3] = {(n + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  CHECK(xpu_launch(k, NULL, grid, block, args, 4) == XPU_SUCCESS);
  CHECK(xpu_device_synchronize(dev) == XPU_SUCCESS);
  CHECK(xpu_buffer_download(by, 0, out, n * 4) == XPU_SUCCESS);
  int wrong = 0;
  for (uint32_t i = 0; i < n; ++i) {
    volatile float ax = a * x[i]; /* no contraction: the kernel has none */
    if (out[i] != ax + y[i])
      ++wrong;
  }
  CHECK(wrong == 0);
  xpu_buffer_free(bx);
  xpu_buffer_free(by);
  free(x);
  free(y);
  free(out);
}

int main(void) {
  srand(12345u ^ (unsigned)(size_t)&failures);
  xpu_context ctx;
  xpu_device dev;
  if (xpu_context_create(NULL, &ctx) || xpu_device_default(ctx, &dev)) {
    fprintf(stderr, "no context or device: %s\n", xpu_last_error_message());
    return 1;
  }
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = "hooks_test.mlir";
  xpu_module mod;
  xpu_kernel k;
  CHECK(xpu_module_create(ctx, dev, kSaxpy, sizeof kSaxpy - 1, &opts, &mod, NULL) ==
        XPU_SUCCESS);
  CHECK(xpu_module_kernel(mod, "saxpy", &k) == XPU_SUCCESS);

  /* Bad hook structs are refused; NULL removes (a no-op now). */
  xpu_launch_hooks bad = {0, onEnter, onExit, NULL};
  CHECK(xpu_launch_hooks_set(&bad) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_launch_hooks_set(NULL) == XPU_SUCCESS);

  Seen seen;
  memset(&seen, 0, sizeof seen);
  seen.orderOk = 1;
  xpu_launch_hooks hooks = XPU_LAUNCH_HOOKS_INIT;
  hooks.enter = onEnter;
  hooks.exit = onExit;
  hooks.user = &seen;
  CHECK(xpu_launch_hooks_set(&hooks) == XPU_SUCCESS);
  saxpyOnce(dev, k, 1000, 2.5f);
  saxpyOnce(dev, k, 4097, -0.75f);
  CHECK(seen.enters == 2 && seen.exits == 2);
  CHECK(seen.orderOk);
  CHECK(seen.grid0 == (4097 + 63) / 64 && seen.block0 == 64);
  CHECK(seen.a == -0.75f);
  CHECK(strcmp(seen.kernel, "saxpy") == 0);
  CHECK(strcmp(seen.source, "hooks_test.mlir") == 0);
  CHECK(seen.lastStatus == XPU_SUCCESS);

  /* A launch refused by argument checks enqueues nothing: no hook runs. */
  xpu_arg wrong[1] = {xpu_arg_i32(1)};
  uint32_t one[3] = {1, 1, 1};
  CHECK(xpu_launch(k, NULL, one, one, wrong, 1) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(seen.enters == 2);

  /* Removed hooks see nothing; the unobserved path computes the same. */
  CHECK(xpu_launch_hooks_set(NULL) == XPU_SUCCESS);
  saxpyOnce(dev, k, 333, 1.25f);
  CHECK(seen.enters == 2 && seen.exits == 2);

  /* The module report: JSON of the versioned schema, naming the device. */
  const char *json = NULL, *again = NULL;
  CHECK(xpu_module_report(mod, &json) == XPU_SUCCESS);
  CHECK(json && strstr(json, "\"schema\": \"xpujit.module-report\""));
  CHECK(json && strstr(json, "\"hooks_test.mlir\""));
  CHECK(xpu_module_report(mod, &again) == XPU_SUCCESS && again == json);
  CHECK(xpu_module_report(mod, NULL) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_module_report(NULL, &json) == XPU_ERROR_INVALID_HANDLE);

  /* Traces and dispatch reports: bad paths and double starts are errors. */
  CHECK(xpu_trace_start(NULL) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_trace_start("/nonexistent-dir/t.json") == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_trace_stop() == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_dispatch_report_start("/nonexistent-dir/d.jsonl") ==
        XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_dispatch_report_stop() == XPU_ERROR_INVALID_ARGUMENT);

  xpu_module_release(mod);
  xpu_context_release(ctx);
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("hooks_test: all checks passed\n");
  return 0;
}
