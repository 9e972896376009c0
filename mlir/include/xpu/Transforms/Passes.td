// Passes of the xpu compiler, in the order a kernel meets them.
#ifndef XPU_PASSES_TD
#define XPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ImportGPU : Pass<"xpu-import-gpu", "mlir::ModuleOp"> {
  let summary = "Turn upstream gpu.module kernels over memrefs into xpu kernels";
  let description = [{
    Interop: a `gpu.func ... kernel` over one-dimensional memrefs becomes an
    `xpu.kernel`, so it goes through the same admission, gating and lowering.

    ```mlir
    gpu.module @m { gpu.func @k(%a: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<?xf32>
      gpu.return } }
    // becomes
    xpu.kernel @k(%a: !xpu.buffer<f32>) {
      %i = xpu.thread_id x
      %v = xpu.load %a[%i] : !xpu.buffer<f32>
      xpu.return }
    ```
    Memrefs of higher rank must have static shapes and are linearized.
  }];
  let dependentDialects = ["::xpu::XPUDialect"];
}

def Admit : Pass<"xpu-admit", "mlir::ModuleOp"> {
  let summary = "Admit each kernel against its profile, or refuse it";
  let description = [{
    `deterministic-v1` kernels are checked against RFC 0005 in its precedence
    order (effects, device capability, parameter count, parameter types,
    buffer capacity, parameter modes, shape bounds, aliasing, then body
    operations in order); the first failing rule refuses the kernel with one
    located `XPU-GC0NN` error. Admitted kernels, and all `portable` ones,
    then have every access that no proof puts in bounds marked `checked`:

    ```mlir
    %v = xpu.load %x[%i] : !xpu.buffer<f32>          // %i unbounded
    // becomes
    %v = xpu.load %x[%i] {checked} : !xpu.buffer<f32>
    ```
  }];
  let options = [
    Option<"explicitDevice", "explicit-device", "bool", /*default=*/"true",
           "the module was created for a device the caller named">,
    Option<"runtimeChecks", "runtime-checks", "bool", /*default=*/"true",
           "mark unproven accesses of portable kernels `checked` (off: unsafe)">,
  ];
}

def ExpandReductions : Pass<"xpu-expand-reductions", "mlir::ModuleOp"> {
  let summary = "Expand xpu.reduce into shared memory, barriers and loops";
  let description = [{
    Every invocation stores its operand to a shared scratch slot; after a
    barrier the combination runs in the order the op names (`sequential`:
    invocation 0 folds slots 0..n-1 left to right; `tree` and `unspecified`:
    pairwise halving); after a second barrier every invocation reads the
    result. The same expansion serves every backend, so a sequential
    reduction gives the same bits everywhere.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def LowerExecutionModel : Pass<"xpu-lower-execution-model", "mlir::ModuleOp"> {
  let summary = "Replace the ops whose meaning depends on how a target runs invocations";
  let description = [{
    Coordinates, wave width and lane id, and on the CPU also workgroup
    barriers and workgroup-shared scratch. NVVM and ROCDL read special
    registers (`nvvm.read.ptx.sreg.tid.x`, `rocdl.workitem.id.x`); on AMD
    the workgroup and grid sizes come from the HSA dispatch packet, which
    code object v5 still provides and which needs no device library
    (`workgroup_size_x` at byte 4, `grid_size_x` in work-items at byte 12).
    The wave width is the option's, taken from the target. The CPU
    has none: every kernel and device function gains trailing parameters
    (the launch record and the invocation's thread id), coordinates are
    computed from them, shared scratch is a slice of the launch's shared
    block, and a barrier is a call into the runtime's fiber scheduler
    (variance: CPU coordinate source).

    ```mlir
    %i = xpu.thread_id x
    // cpu: kernel gains (%launch: !llvm.ptr, %tx: i32, %ty: i32, %tz: i32)
    %i = arith.index_castui %tx : i32 to index
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu | nvvm | rocdl">,
    Option<"waveWidth", "wave-width", "unsigned", /*default=*/"1",
           "the target's wave width (32 on NVIDIA, 32 or 64 on AMD, 1 on CPU)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

def PrepareLowering : Pass<"xpu-prepare-lowering", "mlir::ModuleOp"> {
  let summary = "Make the status word, run-time checks and fast-math explicit";
  let description = [{
    Every kernel and device function gains a trailing `!llvm.ptr` parameter,
    the status word through which kernels report failed run-time checks.
    Each access that admission marked `checked` is wrapped in a bounds test
    whose failing branch counts the violation, records its site (`xpu.site`)
    and suppresses the access (a read yields zero):

    ```mlir
    %v = xpu.load %x[%i] {checked, xpu.site = 3} : !xpu.buffer<f32>
    // becomes
    %n = xpu.buffer_size %x : !xpu.buffer<f32>
    %ok = arith.cmpi ult, %i, %n : index
    %v = scf.if %ok -> f32 { xpu.load ... } else { <report site 3>; zero }
    ```
    Float arithmetic in kernels marked `fastmath` gets the `contract` flag;
    elsewhere no fused multiply-add is formed.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def MathToLibCalls : Pass<"xpu-math-to-libcalls", "mlir::ModuleOp"> {
  let summary = "Call the device math library for functions GPUs lack";
  let description = [{
    NVPTX and AMDGPU have no instruction for exp, log, sin, pow and the
    like; they come from libdevice (`__nv_expf`) or the AMD device libraries
    (`__ocml_sin_f32`). Only those functions are rewritten to calls, so a
    kernel that uses just sqrt, fabs or fma needs no library; on AMDGPU f32
    exp and log stay LLVM intrinsics, which the back end expands:

    ```mlir
    %e = math.exp %x : f32
    // nvvm:
    %e = llvm.call @__nv_expf(%x) : (f32) -> f32
    // rocdl: unchanged (llvm.intr.exp later); math.sin becomes
    %s = llvm.call @__ocml_sin_f32(%x) : (f32) -> f32
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"nvvm\"",
           "nvvm | rocdl">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertXPUToLLVM : Pass<"xpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower xpu kernels and their bodies to the LLVM dialect";
  let description = [{
    Buffers become `{ptr, i64 length}` values, loads and stores become
    address computations (with a guard and an out-of-bounds report where
    admission marked the access `checked`), shared scratch becomes a
    workgroup global (GPU) or a slice of the launch's shared block (CPU), and
    each kernel becomes an `llvm.func` whose parameters follow the kernel ABI
    in KernelABI.h: a buffer is a pointer and an i64 element count, a scalar
    is passed by value, and a status-word pointer comes last.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu | nvvm | rocdl">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUWrappers : Pass<"xpu-cpu-wrappers", "mlir::ModuleOp"> {
  let summary = "Add the CPU entry points that run a whole workgroup";
  let description = [{
    For each lowered kernel `@k`, adds `@k.xpu_wg(ptr args, ptr launch)`,
    which unpacks the argument block and runs every invocation of one
    workgroup in a loop, or, when the kernel has barriers,
    `@k.xpu_item(ptr args, ptr launch, i32 tx, i32 ty, i32 tz)`, which runs one
    invocation and is scheduled as a fiber by the runtime.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // XPU_PASSES_TD
