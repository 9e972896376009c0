// Types of the xpu dialect.
#ifndef XPU_TYPES_TD
#define XPU_TYPES_TD

include "xpu/Dialect/XPU/IR/XPUBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def XPU_BufferType : TypeDef<XPU_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "a one-dimensional buffer of scalars in one address space";
  let description = [{
    A buffer of `elementType` scalars. `space` is where it lives (global
    device memory, workgroup-shared memory, or per-invocation private
    memory); `access` is how a kernel parameter holds it. `size` is the
    element count when it is known statically (required for shared and
    private buffers), or dynamic for global buffers whose length arrives
    with the launch.

    ```mlir
    !xpu.buffer<f32>                   // global, read-write, length at launch
    !xpu.buffer<i32, ro>               // global, read-only
    !xpu.buffer<1024xi32, global, ro>  // global with a static element count
    !xpu.buffer<256xf32, shared>       // workgroup-shared scratch
    ```
  }];
  let parameters = (ins "::mlir::Type":$elementType, "::xpu::Space":$space,
                        "::xpu::Access":$access, "int64_t":$size);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasStaticSize() const { return getSize() >= 0; }
    static constexpr int64_t kDynamic = -1;
  }];
}

#endif // XPU_TYPES_TD
