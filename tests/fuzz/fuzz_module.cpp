// Fuzz target: kernel text through the front end (parse, verify, admit) and,
// when it is admitted, code generation and loading on the CPU device. Nothing
// is launched: an admitted kernel may loop for as long as its input says.
#include "fuzz_common.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz::session(); // the context before the first input, not during it
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Session &s = fuzz::session();
  const char *text = reinterpret_cast<const char *>(data);
  xpu_diagnostics diags = nullptr;
  xpu_status checked = xpu_module_check(s.ctx, text, size, nullptr, &diags);
  // Reading every diagnostic exercises their location and JSON rendering.
  for (size_t i = 0, n = xpu_diagnostics_count(diags); i < n; ++i) {
    xpu_diagnostic d;
    (void)xpu_diagnostics_get(diags, i, &d);
  }
  (void)xpu_diagnostics_json(diags);
  xpu_diagnostics_release(diags);

  const char *formatted = nullptr;
  (void)xpu_module_format(s.ctx, text, size, nullptr, &formatted, nullptr);

  if (checked == XPU_SUCCESS) {
    xpu_module module = nullptr;
    if (xpu_module_create(s.ctx, s.cpu, text, size, nullptr, &module, nullptr) ==
        XPU_SUCCESS) {
      uint32_t kernels = 0;
      (void)xpu_module_kernel_count(module, &kernels);
      for (uint32_t k = 0; k < kernels; ++k) {
        xpu_kernel kernel;
        uint32_t params = 0;
        if (xpu_module_kernel_at(module, k, &kernel) == XPU_SUCCESS &&
            xpu_kernel_param_count(kernel, &params) == XPU_SUCCESS)
          for (uint32_t p = 0; p < params; ++p) {
            xpu_param_info info;
            (void)xpu_kernel_param(kernel, p, &info);
          }
      }
      xpu_module_release(module);
    }
  }
  return 0;
}
