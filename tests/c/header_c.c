/* The public header compiles as strict C (see tests/CMakeLists.txt flags). */
#include "xpu_c.h"

int main(void) {
  xpu_context_options c = XPU_CONTEXT_OPTIONS_INIT;
  xpu_module_options m = XPU_MODULE_OPTIONS_INIT;
  xpu_kernel_attributes k = XPU_KERNEL_ATTRIBUTES_INIT;
  return (int)(c.struct_size == 0 || m.struct_size == 0 || k.struct_size == 0);
}
