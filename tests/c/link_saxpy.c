/* A C11 program that links libxpujit and runs saxpy from a file on the
 * default device, checking every element. Usage: link_saxpy saxpy.mlir */
#include "xpu_c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    xpu_status st_ = (call);                                                   \
    if (st_ != XPU_SUCCESS) {                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, xpu_status_name(st_),     \
              xpu_last_error_message());                                       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static char *read_file(const char *path, size_t *length) {
  FILE *f = fopen(path, "rb");
  char *text;
  long n;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  text = malloc((size_t)n);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  *length = (size_t)n;
  return text;
}

int main(int argc, char **argv) {
  enum { N = 30011 };
  xpu_context ctx;
  xpu_device dev;
  xpu_module mod;
  xpu_kernel saxpy;
  xpu_buffer bx, by;
  xpu_module_options options = XPU_MODULE_OPTIONS_INIT;
  size_t length, bad = 0, i;
  char *text;
  static float x[N], y[N], r[N];
  const float a = 1.75f;
  uint32_t grid[3] = {(N + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  xpu_arg args[4];

  if (argc != 2 || !(text = read_file(argv[1], &length))) {
    fprintf(stderr, "usage: link_saxpy saxpy.mlir\n");
    return 2;
  }
  if (xpu_version() != XPU_VERSION) {
    fprintf(stderr, "header and library versions differ\n");
    return 1;
  }
  srand((unsigned)time(NULL));
  for (i = 0; i < N; ++i) {
    x[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    y[i] = (float)rand() / (float)RAND_MAX * 4.0f;
  }
  CHECK(xpu_context_create(NULL, &ctx));
  CHECK(xpu_device_default(ctx, &dev));
  options.source_name = argv[1];
  CHECK(xpu_module_create(ctx, dev, text, length, &options, &mod, NULL));
  CHECK(xpu_module_kernel(mod, "saxpy", &saxpy));
  CHECK(xpu_buffer_create(dev, sizeof x, &bx));
  CHECK(xpu_buffer_create(dev, sizeof y, &by));
  CHECK(xpu_buffer_upload(bx, 0, x, sizeof x));
  CHECK(xpu_buffer_upload(by, 0, y, sizeof y));
  args[0] = xpu_arg_buffer(by);
  args[1] = xpu_arg_buffer(bx);
  args[2] = xpu_arg_f32(a);
  args[3] = xpu_arg_u32(N);
  CHECK(xpu_launch(saxpy, NULL, grid, block, args, 4));
  CHECK(xpu_device_synchronize(dev));
  CHECK(xpu_buffer_download(by, 0, r, sizeof r));
  for (i = 0; i < N; ++i) {
    float want = a * x[i] + y[i];
    if (memcmp(&want, &r[i], sizeof want) != 0 && bad++ < 5)
      fprintf(stderr, "element %zu: %g != %g\n", i, (double)r[i], (double)want);
  }
  CHECK(xpu_buffer_free(bx));
  CHECK(xpu_buffer_free(by));
  xpu_module_release(mod);
  xpu_context_release(ctx);
  free(text);
  if (bad) {
    fprintf(stderr, "%zu wrong elements\n", bad);
    return 1;
  }
  printf("saxpy: %d elements correct\n", N);
  return 0;
}
