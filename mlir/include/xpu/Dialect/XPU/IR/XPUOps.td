// Operations of the xpu dialect.
//
// Every op has an example in docs/dialect.md (scripts/gen-dialect-doc.py,
// test docs.dialect). Examples not already in a description are under
// XPU_DOC_EXAMPLES, which only the doc generator defines: the generated
// C++ keeps its doc comments, so adding one rebuilds nothing.
#ifndef XPU_OPS_TD
#define XPU_OPS_TD

include "xpu/Dialect/XPU/IR/XPUBase.td"
include "xpu/Dialect/XPU/IR/XPUTypes.td"
include "xpu/Dialect/XPU/IR/XPUTraits.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class XPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<XPU_Dialect, mnemonic, traits>;

def XPU_AnyBuffer : Type<CPred<"::llvm::isa<::xpu::BufferType>($_self)">,
                         "xpu buffer", "::xpu::BufferType">;

//===----------------------------------------------------------------------===//
// Kernels and device functions
//===----------------------------------------------------------------------===//

// Both print their parameters under their source names (`xpu.name`).
def XPU_KernelOp : XPU_Op<"kernel", [
    FunctionOpInterface, IsolatedFromAbove, AutomaticAllocationScope,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a data-parallel kernel entry point";
  let description = [{
    A kernel runs once per invocation of a launch's grid. It returns nothing;
    its outputs are the buffers it stores to. Optional attributes:

    - `profile`: `"portable"` (the default) or `"deterministic-v1"`;
    - `effects`: the device effects the kernel declares (deterministic profile
      vocabulary: DeviceAlloc, DeviceCopyIn, DeviceCopyOut, DeviceDispatch,
      DeviceSynchronize, DeviceRelease);
    - `device`: the explicit device capability a DeviceDispatch names;
    - `workgroup_size` / `grid_size`: the launch shape when it is fixed, used
      by bounds proofs and checked again at launch;
    - `fastmath`: permits floating-point contraction (fused multiply-add).

    ```mlir
    xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>,
                      %a: f32, %n: i32) {
      %i = xpu.global_id x
      ...
      xpu.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<StrAttr>:$profile,
                       OptionalAttr<StrArrayAttr>:$effects,
                       OptionalAttr<StrAttr>:$device,
                       OptionalAttr<DenseI64ArrayAttr>:$workgroup_size,
                       OptionalAttr<DenseI64ArrayAttr>:$grid_size,
                       UnitAttr:$fastmath);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                "::mlir::FunctionType":$type), [{
    $_state.addAttribute(getSymNameAttrName($_state.name),
                         $_builder.getStringAttr(name));
    $_state.addAttribute(getFunctionTypeAttrName($_state.name),
                         ::mlir::TypeAttr::get(type));
    $_state.addRegion();
  }]>];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The profile name, "portable" when none is written.
    ::llvm::StringRef getProfileName() {
      return getProfile() ? *getProfile() : "portable";
    }
  }];
}

def XPU_FuncOp : XPU_Op<"func", [
    FunctionOpInterface, IsolatedFromAbove, AutomaticAllocationScope,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a device helper function callable from kernels";
  let description = [{
    ```mlir
    xpu.func @clamp(%v: i32, %hi: i32) -> i32 {
      %r = arith.minsi %v, %hi : i32
      xpu.return %r : i32
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                "::mlir::FunctionType":$type), [{
    $_state.addAttribute(getSymNameAttrName($_state.name),
                         $_builder.getStringAttr(name));
    $_state.addAttribute(getFunctionTypeAttrName($_state.name),
                         ::mlir::TypeAttr::get(type));
    $_state.addRegion();
  }]>];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def XPU_CallOp : XPU_Op<"call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a device helper function";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %r = xpu.call @helper(%n) : (i32) -> i32
    ```
  }];
#endif
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

def XPU_ReturnOp : XPU_Op<"return", [
    Pure, ReturnLike, Terminator, ParentOneOf<["KernelOp", "FuncOp"]>]> {
  let summary = "return from a kernel or device function";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    xpu.return            // a kernel returns nothing
    xpu.return %r : i32   // a device function returns its results
    ```
  }];
#endif
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

class XPU_DimOp<string mnemonic, string what> : XPU_Op<mnemonic, [
    Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = what;
#ifdef XPU_DOC_EXAMPLES
  let description = "```mlir\n%v = xpu." # mnemonic # " x   // axis x, y or z: an index\n```";
#endif
  let arguments = (ins EnumProp<XPU_Dim>:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let builders = [OpBuilder<(ins "::xpu::Dim":$dim), [{
    build($_builder, $_state, $_builder.getIndexType(), dim);
  }]>];
}

def XPU_ThreadIdOp : XPU_DimOp<"thread_id",
    "the invocation's index inside its workgroup along an axis">;
def XPU_WorkgroupIdOp : XPU_DimOp<"workgroup_id",
    "the workgroup's index inside the grid along an axis">;
def XPU_GlobalIdOp : XPU_DimOp<"global_id",
    "workgroup_id * workgroup_size + thread_id along an axis">;
def XPU_WorkgroupSizeOp : XPU_DimOp<"workgroup_size",
    "invocations per workgroup along an axis">;
def XPU_GridSizeOp : XPU_DimOp<"grid_size",
    "workgroups in the grid along an axis">;
def XPU_GlobalSizeOp : XPU_DimOp<"global_size",
    "grid_size * workgroup_size along an axis (the grid-stride step)">;

def XPU_WaveWidthOp : XPU_Op<"wave_width", [
    Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "invocations per wave (warp, wavefront, subgroup) on the target";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    A per-target constant (32 on NVIDIA, 32 or 64 on AMD, the subgroup size
    on Vulkan, 1 on CPU); never assume 32.
    ```mlir
    %w = xpu.wave_width
    ```
  }];
#else
  let description = [{
    A per-target constant (32 on NVIDIA, 32 or 64 on AMD, the subgroup size
    on Vulkan, 1 on CPU); never assume 32.
  }];
#endif
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, $_builder.getIndexType());
  }]>];
}

def XPU_LaneIdOp : XPU_Op<"lane_id", [
    Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "the invocation's index inside its wave";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %lane = xpu.lane_id   // 0 .. xpu.wave_width - 1
    ```
  }];
#endif
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, $_builder.getIndexType());
  }]>];
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def XPU_LoadOp : XPU_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "read one element (or a short vector of them) from a buffer";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    `%v = xpu.load %buf[%i] : !xpu.buffer<f32>` reads element `%i`. With a
    vector result (`-> vector<4xf32>`) it reads elements `%i .. %i+3`.
    `checked` is set by admission when the index is not proven in bounds: the
    backend then guards the access at run time and reports a violation to
    the host instead of reading outside the buffer.
    ```mlir
    %x  = xpu.load %buf[%i] : !xpu.buffer<f32, ro>
    %x4 = xpu.load %buf[%i] : !xpu.buffer<f32, ro> -> vector<4xf32>
    ```
  }];
#else
  let description = [{
    `%v = xpu.load %buf[%i] : !xpu.buffer<f32>` reads element `%i`. With a
    vector result (`-> vector<4xf32>`) it reads elements `%i .. %i+3`.
    `checked` is set by admission when the index is not proven in bounds: the
    backend then guards the access at run time and reports a violation to
    the host instead of reading outside the buffer.
  }];
#endif
  let arguments = (ins XPU_AnyBuffer:$buffer, Index:$index, UnitAttr:$checked);
  let results = (outs AnyType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::xpu::BufferType getBufferType() {
      return ::llvm::cast<::xpu::BufferType>(getBuffer().getType());
    }
    /// Elements touched: 1, or the vector length.
    int64_t getWidth();
  }];
}

def XPU_StoreOp : XPU_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write one element (or a short vector of them) to a buffer";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    xpu.store %v, %buf[%i] : !xpu.buffer<f32>
    xpu.store %v4, %buf[%i] : !xpu.buffer<f32> -> vector<4xf32>
    ```
  }];
#endif
  let arguments = (ins AnyType:$value, XPU_AnyBuffer:$buffer, Index:$index,
                       UnitAttr:$checked);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::xpu::BufferType getBufferType() {
      return ::llvm::cast<::xpu::BufferType>(getBuffer().getType());
    }
    int64_t getWidth();
  }];
}

def XPU_BufferSizeOp : XPU_Op<"buffer_size", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "the buffer's length in elements";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    ```mlir
    %n = xpu.buffer_size %buf : !xpu.buffer<f32>
    ```
  }];
#endif
  let arguments = (ins XPU_AnyBuffer:$buffer);
  let results = (outs Index:$result);
  let assemblyFormat = "$buffer attr-dict `:` qualified(type($buffer))";
  let builders = [OpBuilder<(ins "::mlir::Value":$buffer), [{
    build($_builder, $_state, $_builder.getIndexType(), buffer);
  }]>];
}

def XPU_AllocOp : XPU_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "workgroup-shared or private scratch with a static size";
  let description = [{
    ```mlir
    %tile = xpu.alloc : !xpu.buffer<256xf32, shared>   // one per workgroup
    %acc  = xpu.alloc : !xpu.buffer<4xi32, private>    // one per invocation
    ```
    Contents start undefined.
  }];
  let results = (outs XPU_AnyBuffer:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def XPU_ViewOp : XPU_Op<"view", [XPU_LoweringOnly, Pure]> {
  let summary = "a statically sized buffer over a raw pointer (lowering only)";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    Made by target lowering when scratch memory is a slice of a block the
    runtime provides (CPU shared memory). Not accepted in kernel source.
    ```mlir
    %tile = xpu.view %p : !llvm.ptr -> !xpu.buffer<256xf32, shared>
    ```
  }];
#else
  let description = [{
    Made by target lowering when scratch memory is a slice of a block the
    runtime provides (CPU shared memory). Not accepted in kernel source.
  }];
#endif
  let arguments = (ins AnyType:$pointer);
  let results = (outs XPU_AnyBuffer:$result);
  let assemblyFormat = "$pointer attr-dict `:` type($pointer) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronization, atomics, reductions
//===----------------------------------------------------------------------===//

def XPU_BarrierOp : XPU_Op<"barrier", [XPU_RequiresWorkgroupUniformControl]> {
  let summary = "wait until every invocation of the workgroup arrives";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    Orders the workgroup's shared-memory (and global-memory) accesses before
    the barrier ahead of those after it. Every invocation of the workgroup
    must reach the same barrier: one under control flow that is not uniform
    across the workgroup is refused (XPU-UC001).
    ```mlir
    xpu.store %v, %tile[%t] : !xpu.buffer<256xf32, shared>
    xpu.barrier
    %w = xpu.load %tile[%other] : !xpu.buffer<256xf32, shared>
    ```
  }];
#else
  let description = [{
    Orders the workgroup's shared-memory (and global-memory) accesses before
    the barrier ahead of those after it. Every invocation of the workgroup
    must reach the same barrier: one under control flow that is not uniform
    across the workgroup is refused (XPU-UC001).
  }];
#endif
  let assemblyFormat = "attr-dict";
}

def XPU_AtomicRMWOp : XPU_Op<"atomic_rmw", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"value is the buffer's element type", "buffer", "value",
                   "::llvm::cast<::xpu::BufferType>($_self).getElementType()">,
    TypesMatchWith<"result is the buffer's element type", "buffer", "result",
                   "::llvm::cast<::xpu::BufferType>($_self).getElementType()">,
    OptionalTypesMatchWith<"expected is the buffer's element type", "buffer", "expected",
                   "::llvm::cast<::xpu::BufferType>($_self).getElementType()">]> {
  let summary = "atomic read-modify-write of one buffer element";
  let description = [{
    ```mlir
    %old = xpu.atomic_rmw add %v, %buf[%i] seq_cst device : !xpu.buffer<i32>
    %was = xpu.atomic_rmw cmpxchg %new, %buf[%i] expected %old acq_rel workgroup
             : !xpu.buffer<256xf32, shared>
    ```
    Returns the element's previous value. The scope uses Vulkan's set.
    `cmpxchg` stores `%value` only when the element equals `expected` bit for
    bit (floats too), and returns the element it found: the exchange
    happened when that equals `expected`. A failed compare-exchange orders
    like a load of the same order (acq_rel and seq_cst: acquire; release:
    relaxed). `fmin` and `fmax` follow `arith.minimumf` / `arith.maximumf`
    (a NaN wins, -0 is below +0) on every backend.
  }];
  let arguments = (ins EnumProp<XPU_AtomicKind>:$kind, AnyType:$value,
                       XPU_AnyBuffer:$buffer, Index:$index,
                       Optional<AnyType>:$expected,
                       EnumProp<XPU_MemoryOrder>:$order, EnumProp<XPU_Scope>:$scope,
                       UnitAttr:$checked);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $kind $value `,` $buffer `[` $index `]` (`expected` $expected^)? $order $scope attr-dict `:` qualified(type($buffer))
  }];
  let builders = [OpBuilder<(ins "::mlir::Type":$result, "::xpu::AtomicKind":$kind,
      "::mlir::Value":$value, "::mlir::Value":$buffer, "::mlir::Value":$index,
      "::xpu::MemoryOrder":$order, "::xpu::Scope":$scope), [{
    build($_builder, $_state, result, kind, value, buffer, index, ::mlir::Value(),
          order, scope);
  }]>];
  let hasVerifier = 1;
}

def XPU_ReduceOp : XPU_Op<"reduce", [AllTypesMatch<["value", "result"]>,
    XPU_RequiresWorkgroupUniformControl, XPU_WorkgroupUniformResults]> {
  let summary = "combine one value from every invocation of the workgroup";
  let description = [{
    Every invocation of the workgroup contributes `%v`; every invocation gets
    the combined result. `order` names how operands are combined:
    `sequential` folds left to right in linear invocation order (the same
    result for any device and schedule), `tree` combines pairwise, and
    `unspecified` leaves the order to the target. Acts as a workgroup
    barrier.

    ```mlir
    %sum = xpu.reduce add %v sequential : i32
    ```
  }];
  let arguments = (ins EnumProp<XPU_ReduceKind>:$kind, AnyType:$value,
                       EnumProp<XPU_ReduceOrder>:$order);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind $value $order attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def XPU_ReportOutOfBoundsOp : XPU_Op<"report_out_of_bounds"> {
  let summary = "count a suppressed out-of-bounds access in the status word";
  let description = [{
    Made by `xpu-prepare-lowering` in the failing branch of a run-time check:
    adds one to word 0 of the launch's status word and, when word 1 is still
    0, sets it to `site + 1` (see abi::kStatusWords). `status` is the status
    word the function received: an `!llvm.ptr` on LLVM-based targets, an
    `!xpu.buffer<2xi32>` on SPIR-V. Each target lowers it to its atomics.

    ```mlir
    xpu.report_out_of_bounds %status site 3 : !llvm.ptr
    ```
  }];
  let arguments = (ins AnyType:$status, I64Attr:$site);
  let assemblyFormat = "$status `site` $site attr-dict `:` type($status)";
}

def XPU_HostEffectOp : XPU_Op<"host_effect", [XPU_HostEffect]> {
  let summary = "an effect on the host (printing, files, clocks) from a kernel";
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    Names a host effect such as `"print"`. No backend executes it; it exists
    so that a kernel which asks for one is refused with a diagnostic.
    ```mlir
    xpu.host_effect "print" %n : i32   // refused: XPU-GC012 (deterministic-v1)
    ```
  }];
#else
  let description = [{
    Names a host effect such as `"print"`. No backend executes it; it exists
    so that a kernel which asks for one is refused with a diagnostic.
  }];
#endif
  let arguments = (ins StrAttr:$effect, Variadic<AnyType>:$operands);
  let assemblyFormat = "$effect ($operands^ `:` type($operands))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Kernel surface (issue 14): wave operations, in their own file
//===----------------------------------------------------------------------===//

include "xpu/Dialect/XPU/IR/XPUSurfaceOps.td"

//===----------------------------------------------------------------------===//
// Interop (issue 21): what imported gpu.func kernels need, in its own file
//===----------------------------------------------------------------------===//

include "xpu/Dialect/XPU/IR/XPUInteropOps.td"

//===----------------------------------------------------------------------===//
// Tiles and mac (issue 15), in their own file
//===----------------------------------------------------------------------===//

include "xpu/Dialect/XPU/IR/XPUTileOps.td"

#endif // XPU_OPS_TD
