/* Loads libxpujit.so with dlopen (as an FFI host would), resolves the API by
 * name, and runs a kernel that fills a buffer with its indices.
 * Usage: dlopen_smoke /path/to/libxpujit.so */
#include "xpu_c.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define LOAD(name)                                                             \
  name##_fn name = (name##_fn)dlsym(lib, #name);                               \
  if (!name) {                                                                 \
    fprintf(stderr, "missing symbol %s\n", #name);                             \
    return 1;                                                                  \
  }

typedef uint32_t (*xpu_version_fn)(void);
typedef xpu_status (*xpu_context_create_fn)(const xpu_context_options *, xpu_context *);
typedef xpu_status (*xpu_device_default_fn)(xpu_context, xpu_device *);
typedef xpu_status (*xpu_module_create_fn)(xpu_context, xpu_device, const char *,
                                           size_t, const xpu_module_options *,
                                           xpu_module *, xpu_diagnostics *);
typedef xpu_status (*xpu_module_kernel_fn)(xpu_module, const char *, xpu_kernel *);
typedef xpu_status (*xpu_buffer_create_fn)(xpu_device, size_t, xpu_buffer *);
typedef xpu_status (*xpu_buffer_download_fn)(xpu_buffer, size_t, void *, size_t);
typedef xpu_arg (*xpu_arg_buffer_fn)(xpu_buffer);
typedef xpu_status (*xpu_launch_fn)(xpu_kernel, xpu_stream, const uint32_t *,
                                    const uint32_t *, const xpu_arg *, size_t);
typedef xpu_status (*xpu_device_synchronize_fn)(xpu_device);
typedef void (*xpu_context_release_fn)(xpu_context);
typedef const char *(*xpu_last_error_message_fn)(void);

static const char kIota[] =
    "xpu.kernel @iota(%out: !xpu.buffer<i32>) {\n"
    "  %i = xpu.global_id x\n"
    "  %v = arith.index_cast %i : index to i32\n"
    "  xpu.store %v, %out[%i] : !xpu.buffer<i32>\n"
    "  xpu.return\n"
    "}\n";

int main(int argc, char **argv) {
  void *lib;
  xpu_context ctx;
  xpu_device dev;
  xpu_module mod;
  xpu_kernel k;
  xpu_buffer b;
  xpu_arg arg;
  int32_t out[256];
  uint32_t grid[3] = {4, 1, 1}, block[3] = {64, 1, 1};
  int i;
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen_smoke libxpujit.so\n");
    return 2;
  }
  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  {
    LOAD(xpu_version)
    LOAD(xpu_context_create)
    LOAD(xpu_device_default)
    LOAD(xpu_module_create)
    LOAD(xpu_module_kernel)
    LOAD(xpu_buffer_create)
    LOAD(xpu_buffer_download)
    LOAD(xpu_arg_buffer)
    LOAD(xpu_launch)
    LOAD(xpu_device_synchronize)
    LOAD(xpu_context_release)
    LOAD(xpu_last_error_message)
    if (xpu_version() != XPU_VERSION ||
        xpu_context_create(NULL, &ctx) || xpu_device_default(ctx, &dev) ||
        xpu_module_create(ctx, dev, kIota, sizeof kIota - 1, NULL, &mod, NULL) ||
        xpu_module_kernel(mod, "iota", &k) ||
        xpu_buffer_create(dev, sizeof out, &b)) {
      fprintf(stderr, "setup failed: %s\n", xpu_last_error_message());
      return 1;
    }
    arg = xpu_arg_buffer(b);
    memset(out, 0xff, sizeof out);
    if (xpu_launch(k, NULL, grid, block, &arg, 1) || xpu_device_synchronize(dev) ||
        xpu_buffer_download(b, 0, out, sizeof out)) {
      fprintf(stderr, "run failed: %s\n", xpu_last_error_message());
      return 1;
    }
    for (i = 0; i < 256; ++i)
      if (out[i] != i) {
        fprintf(stderr, "out[%d] = %d\n", i, out[i]);
        return 1;
      }
    xpu_context_release(ctx);
  }
  dlclose(lib);
  printf("dlopen: 256 elements correct\n");
  return 0;
}
