// The public header compiles as strict C++ (see tests/CMakeLists.txt flags).
#include "xpu_c.h"

int main() {
  xpu_context_options c = XPU_CONTEXT_OPTIONS_INIT;
  xpu_module_options m = XPU_MODULE_OPTIONS_INIT;
  xpu_kernel_attributes k = XPU_KERNEL_ATTRIBUTES_INIT;
  static_assert(sizeof(xpu_status) == 4, "enums are 32-bit");
  static_assert(sizeof(xpu_binary_op) == 4 && sizeof(xpu_scope) == 4, "enums are 32-bit");
  return int(c.struct_size == 0 || m.struct_size == 0 || k.struct_size == 0);
}
