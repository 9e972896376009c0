// Passes of the xpu compiler, in the order a kernel meets them.
#ifndef XPU_PASSES_TD
#define XPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ImportGPU : Pass<"xpu-import-gpu", "mlir::ModuleOp"> {
  let summary = "Turn upstream gpu.module kernels over memrefs into xpu kernels";
  let description = [{
    The gpu dialect front end (mlir/lib/FrontEnd/GPU): each `gpu.func`
    (`kernel`: an `xpu.kernel`, else an `xpu.func`) and `func.func` of a
    `gpu.module` becomes its xpu counterpart, so it goes through the same
    admission, gates and lowering as kernels written in xpu.

    A memref becomes the buffer its elements live in plus its layout as
    index arithmetic: a kernel's memref parameter is a buffer parameter
    (marked with its `xpu.memref` type) followed by an i64 parameter for
    each offset, size and stride its type leaves dynamic (marked
    `xpu.role`), which the launch fills from the view argument; index
    parameters become i64. Workgroup and private attributions and
    allocations become `xpu.alloc` in their address space; subviews, casts,
    reshapes and views change only the arithmetic. Collectives map onto xpu
    ops (`gpu.all_reduce` onto `xpu.reduce`, `memref.atomic_rmw` onto
    `xpu.atomic_rmw`). What is not imported is refused with an
    `XPU-UNSUPPORTED` diagnostic naming the op and what to use instead;
    docs/interop.md lists what is accepted.

    ```mlir
    gpu.module @m { gpu.func @k(%a: memref<?x?xf32>) kernel {
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %v = memref.load %a[%i, %j] : memref<?x?xf32>
      gpu.return } }
    // becomes
    xpu.kernel @k(%a: !xpu.buffer<f32> {xpu.memref = memref<?x?xf32>},
                  %a.size0: i64 {xpu.role = "size0"},
                  %a.size1: i64 {xpu.role = "size1"}) {
      %n1 = arith.index_cast %a.size1 : i64 to index
      %i = xpu.thread_id x
      %j = xpu.thread_id y
      %r = arith.muli %i, %n1 : index
      %e = arith.addi %r, %j : index
      %v = xpu.load %a[%e] : !xpu.buffer<f32>
      xpu.return }
    ```
  }];
  let dependentDialects = ["::xpu::XPUDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect", "::mlir::ub::UBDialect"];
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
    Option<"device", "device", "std::string", /*default=*/"\"\"",
           "the device the module is created for, as BACKEND:INDEX (empty: "
           "none, so a kernel's `device` is only checked for its form)">,
    Option<"runtimeChecks", "runtime-checks", "bool", /*default=*/"true",
           "mark unproven accesses of portable kernels `checked` (off: unsafe)">,
  ];
}

//===----------------------------------------------------------------------===//
// Defined integer semantics (issue 13; docs/profiles.md "Integer semantics")
//===----------------------------------------------------------------------===//

def PoisonToZero : Pass<"xpu-poison-to-zero", "mlir::ModuleOp"> {
  let summary = "Replace ub.poison by zero, before admission";
  let description = [{
    `ub.poison` is defined as zero in both profiles. The rewrite runs right
    after parsing, before anything folds: MLIR 22's folder of
    `arith.addui_extended` crashes (SIGSEGV in TypedAttr::getType) on a
    poison operand, and admission's range analysis folds
    (`ub.poison : i32` fed to `addui_extended`; found by tests/differential).

    ```mlir
    %p = ub.poison : vector<2xi8>
    // becomes
    %p = arith.constant dense<0> : vector<2xi8>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ZeroScratch : Pass<"xpu-zero-scratch", "mlir::ModuleOp"> {
  let summary = "Start every scratch allocation as zeros";
  let description = [{
    A read of scratch memory that nothing wrote returns zero on every backend.
    Private scratch is filled where it is allocated; shared scratch moves to
    the kernel's entry, where the workgroup fills it cooperatively and then
    meets at one barrier (so it runs before `describeKernels` decides which
    kernels have barriers).

    ```mlir
    %t = xpu.alloc : !xpu.buffer<64xi32, shared>
    // becomes, at the kernel's entry
    %t = xpu.alloc : !xpu.buffer<64xi32, shared>
    scf.for %j = %linear_id to %c64 step %workgroup_invocations {
      xpu.store %c0_i32, %t[%j] : !xpu.buffer<64xi32, shared> }
    xpu.barrier
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def DefineIntegerSemantics : Pass<"xpu-define-integer-semantics", "mlir::ModuleOp"> {
  let summary = "Give division, remainder and shifts one result on every input";
  let description = [{
    Runs for every target before its lowering. Where hardware and LLVM leave
    a result undefined (or trap), the result becomes the one the table in
    docs/profiles.md defines: x / 0 = x, x rem 0 = 0, MIN / -1 = MIN,
    MIN rem -1 = 0 (the divisor becomes 1 in those lanes), floordiv and
    ceildiv are rebuilt on that division, and shift amounts are taken modulo
    the width. A divisor that is a constant without 0 (and, for signed
    division, without -1) and a constant shift amount below the width need
    no guard and get none. Overflow and `exact` flags are dropped.

    ```mlir
    %q = arith.divsi %a, %b : i32
    // becomes
    %z = arith.cmpi eq, %b, %c0 : i32
    %m = arith.cmpi eq, %a, %cMIN : i32
    %n = arith.cmpi eq, %b, %cm1 : i32
    %bad = arith.ori %z, (arith.andi %m, %n)
    %d = arith.select %bad, %c1, %b : i32
    %q = arith.divsi %a, %d : i32
    %s = arith.shli %x, %y : i32     // becomes
    %s = arith.shli %x, (arith.andi %y, %c31) : i32
    ```
  }];
  let options = [
    Option<"indexBits", "index-bits", "unsigned", /*default=*/"64",
           "the target's width of `index` (32 or 64)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AvoidMiscompiles : Pass<"xpu-avoid-miscompiles", "mlir::ModuleOp"> {
  let summary = "Rewrite IR shapes a code generator is known to miscompile";
  let description = [{
    Runs last before the conversion to a target. Each rewrite keeps the
    meaning and names, in a comment, the code generator version and the
    reproducer that showed the miscompile. `llvm` (cpu, nvvm, rocdl; LLVM
    22): a truncation to i1 becomes `(x & 1) != 0`, an integer
    `vector.reduction <mul>` multiplies lane by lane, `mulsi_extended` and
    `mului_extended` form their high halves without i128. `spirv` (lavapipe,
    Mesa 22.3.6 / LLVM 15; MLIR 22's SCF conversion): `arith.extsi`, and
    an `arith.index_cast` that widens, becomes a zero extension and two
    shifts, an `scf.while` carries vectors as their lanes, and one whose
    header holds a loop or an if, or computes a value it passes on, has its
    header's first run peeled so the loop's header only forwards values;
    (NVIDIA's Vulkan driver 580) loops carry booleans as i32,
    element-wise arith and math ops on integer vectors go lane by lane, and
    64-bit division and remainder by a non-constant divisor are computed
    by xpujit's own code (32-bit when the operands fit, else restoring
    division).

    ```mlir
    %b = arith.trunci %x : i64 to i1
    // llvm: becomes
    %l = arith.andi %x, %c1 : i64
    %b = arith.cmpi ne, %l, %c0 : i64
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"llvm\"",
           "llvm | spirv">,
    Option<"indexBits", "index-bits", "unsigned", /*default=*/"32",
           "bits of index in the SPIR-V lowering (for index_cast widths)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

//===----------------------------------------------------------------------===//
// The kernel surface (issue 14): struct parameters, function values, async
// copies, printf
//===----------------------------------------------------------------------===//

def FlattenStructs : Pass<"xpu-flatten-structs", "mlir::ModuleOp"> {
  let summary = "One kernel parameter per field of each struct parameter";
  let description = [{
    A struct parameter (spec 17.4) becomes its fields, in order, named
    `param.field` and marked with their C offset (`xpu.struct_field`) so
    that the runtime passes the host's struct as one argument;
    `xpu.struct_get` becomes the field's parameter. Every backend then sees
    scalars and vectors (Vulkan puts them in its push constants or uniform
    block as any other).

    ```mlir
    xpu.kernel @k(%p: !xpu.struct<"params", a: f32, n: i32>) {
      %n = xpu.struct_get %p["n"] : !xpu.struct<"params", a: f32, n: i32> -> i32
    // becomes
    xpu.kernel @k(%p.a: f32 {xpu.struct_field = {struct = "p", offset = 0, ...}},
                  %p.n: i32 {xpu.struct_field = {struct = "p", offset = 4, ...}}) {
    ```
  }];
}

def LowerFunctionValues : Pass<"xpu-lower-function-values", "mlir::ModuleOp"> {
  let summary = "Bounded function values as direct calls";
  let description = [{
    A function value is its function's position in the set; a call through
    it becomes a chain of comparisons, each making one direct call, and an
    index outside the set yields zeros (spec 17.1: a defined no-op):

    ```mlir
    %f = xpu.fn_value @b of [@a, @b] : i32
    %r = xpu.fn_call %f of [@a, @b](%x) : (i32) -> i32
    // becomes
    %f = arith.constant 1 : i32
    %r = scf.if (%f == 0) { xpu.call @a(%x) } else {
           scf.if (%f == 1) { xpu.call @b(%x) } else { 0 } }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def ExpandAsyncCopies : Pass<"xpu-expand-async-copies", "mlir::ModuleOp"> {
  let summary = "Spread asynchronous copies over the workgroup's invocations";
  let description = [{
    Invocation t of a workgroup of n copies elements t, t + n, ... of each
    `xpu.async_copy`; an element inside both buffers is an
    `xpu.async_copy_element`, one outside either becomes the checked load
    and store a plain copy would make (so the launch reports it, as any
    out-of-bounds access). Each `xpu.async_wait` is followed by the
    workgroup barrier it implies.

    ```mlir
    %t = xpu.async_copy %in[%s] to %tile[%d], %n : !xpu.buffer<f32, ro> to !xpu.buffer<256xf32, shared>
    xpu.async_wait %t
    // becomes
    scf.for %j = %linear to %n step %invocations {
      scf.if (%s + %j, %d + %j in bounds) { xpu.async_copy_element %in[..] to %tile[..] }
      else { checked xpu.load, xpu.store } }
    xpu.async_wait
    xpu.barrier
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def LowerPrintf : Pass<"xpu-lower-printf", "mlir::ModuleOp"> {
  let summary = "Turn xpu.printf into records appended to a print buffer";
  let description = [{
    Each kernel that prints (itself or through the device functions it
    calls) gains a last parameter, the print buffer the launch supplies
    (`xpu.print_buffer`; PrintFormat.h has its layout); the functions on the
    way pass theirs on. Each printf reserves room for its record with a
    compare-exchange loop on the buffer's cursor that never moves it past the
    end, writes the record (1 + site index, then each value as one or two
    32-bit words), or counts it as dropped. The sites (format, value types,
    location) are listed on the module (`xpu.print_sites`) for the runtime,
    which formats the records when the stream synchronizes.

    ```mlir
    xpu.printf "%d\n"(%v) : i32
    // becomes, in a kernel with %__xpu_print: !xpu.buffer<i32> {xpu.print_buffer}
    %cursor = scf.while ... xpu.atomic_rmw cmpxchg ... %__xpu_print[%c0] ...
    scf.if %fits { xpu.store %site, %__xpu_print[%base] ...  } else {
      xpu.atomic_rmw add %c1_i32, %__xpu_print[%c1] relaxed device ... }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
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

def InlineHelpers : Pass<"xpu-inline-helpers", "mlir::ModuleOp"> {
  let summary = "Inline device helper functions into the kernels that call them";
  let description = [{
    For SPIR-V, where a logical-addressing module cannot pass buffers to
    functions: every `xpu.call` reached from a kernel is replaced by a copy of
    the callee's body, then the `xpu.func` ops are removed. Recursion is
    refused with a diagnostic.

    ```mlir
    xpu.func @twice(%v: i32) -> i32 {
      %r = arith.addi %v, %v : i32
      xpu.return %r : i32 }
    xpu.kernel @k(%x: i32) { %y = xpu.call @twice(%x) : (i32) -> i32 ... }
    // becomes
    xpu.kernel @k(%x: i32) { %y = arith.addi %x, %x : i32 ... }
    ```
    With `only-barriers`, only helpers that reach a barrier or a reduction
    are inlined (the CPU splits kernels at barriers; other calls stay).
  }];
  let options = [
    Option<"onlyBarriers", "only-barriers", "bool", /*default=*/"false",
           "inline only the helpers that synchronize the workgroup">,
  ];
}

def LowerExecutionModel : Pass<"xpu-lower-execution-model", "mlir::ModuleOp"> {
  let summary = "Replace the ops whose meaning depends on how a target runs invocations";
  let description = [{
    Coordinates, wave width and lane id, and on the CPU also workgroup-shared
    scratch. NVVM and ROCDL read special
    registers (`nvvm.read.ptx.sreg.tid.x`, `rocdl.workitem.id.x`); on AMD
    the workgroup and grid sizes come from the HSA dispatch packet, which
    code object v5 still provides and which needs no device library
    (`workgroup_size_x` at byte 4, `grid_size_x` in work-items at byte 12).
    The wave width is the option's, taken from the target. The CPU
    has no registers: after `xpu-cpu-work-item-loops` a kernel runs once
    per workgroup with thread ids as loop variables; every kernel gains
    trailing parameters (the launch record and the workgroup's shared
    block) and every helper the launch record; the workgroup's coordinates
    are read from the record, shared scratch is a slice of the shared block
    (variance: CPU coordinate source).

    ```mlir
    %w = xpu.workgroup_id y
    // cpu: kernel gains (%launch: !llvm.ptr, %shared: !llvm.ptr)
    %p = llvm.getelementptr %launch[4] : (!llvm.ptr) -> !llvm.ptr, i8
    %w32 = llvm.load %p invariant : !llvm.ptr -> i32
    %w = arith.index_castui %w32 : i32 to index
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

def CPUWorkItemLoops : Pass<"xpu-cpu-work-item-loops", "mlir::ModuleOp"> {
  let summary = "Run each CPU kernel once per workgroup, as loops over its invocations";
  let description = [{
    Region formation (the approach of pocl's work-item loops and of
    AdaptiveCpp's continuation-based synchronization, on structured IR): the
    kernel body is split at its barriers and reductions into regions, and
    each region becomes a loop nest over the workgroup's invocations (z, y,
    x; thread ids are the loop variables, so LLVM vectorizes across
    invocations). An `scf.if`, `scf.for` or `scf.while` around a barrier
    stays outside the loops and runs once per workgroup; its condition or
    bounds must be uniform (`XPU-CPU001` otherwise, with the location).
    What such a construct carries, and any value used on the far side of a
    barrier, is kept per invocation in a context array (a private buffer of
    one slot per invocation and vector lane), unless it reads no memory and
    is cheap to recompute there. Private buffers used on both sides of a
    barrier get one slice per invocation. `xpu.reduce` becomes a store per
    invocation and one fold per workgroup, with no barrier: integer kinds
    and float min/max left to right (any order gives the same bits), float
    sums and products left to right for `sequential` and in the pairwise
    order of `xpu-expand-reductions` for `tree` and `unspecified` (the bits
    of the GPU backends). Device functions that read thread or global ids
    take the thread id as three trailing index parameters.

    ```mlir
    %t = xpu.thread_id x
    xpu.store %v, %s[%t] : !xpu.buffer<64xi32, shared>
    xpu.barrier
    %w = xpu.load %s[%u] : !xpu.buffer<64xi32, shared>
    // becomes
    scf.for %tx = %c0 to %sx step %c1 {       // xpu.work_item_dim = 0
      xpu.store %v, %s[%tx] : !xpu.buffer<64xi32, shared> }
    scf.for %tx = %c0 to %sx step %c1 {
      %w = xpu.load %s[%u] : !xpu.buffer<64xi32, shared> }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def LowerWaveIds : Pass<"xpu-lower-wave-ids", "mlir::ModuleOp"> {
  let summary = "Express wave ids through the linear invocation index";
  let description = [{
    For the LLVM-based targets, where waves are formed from consecutive
    linear invocation indices (CUDA warps, AMD wavefronts, the CPU's waves
    of one); runs before `xpu-lower-execution-model`, which lowers the
    coordinates it uses (on the CPU, before `xpu-cpu-work-item-loops`,
    which replaces them). SPIR-V reads its SubgroupId and NumSubgroups
    builtins instead (the driver decides which invocations share a
    subgroup).

    ```mlir
    %w = xpu.wave_id
    // becomes
    %lin = tx + ty * sx + tz * sx * sy     (xpu.thread_id, xpu.workgroup_size)
    %w = arith.divui %lin, %width : index  (%width = xpu.wave_width)
    %n = xpu.wave_count
    // becomes ceil(sx * sy * sz / width)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def LowerWaveOps : Pass<"xpu-lower-wave-ops", "mlir::ModuleOp"> {
  let summary = "Lower wave operations to the target's cross-lane instructions";
  let description = [{
    For the LLVM-based targets (SPIR-V has subgroup instructions and lowers
    wave operations in `xpu-to-spirv`). Runs before
    `xpu-lower-execution-model`, whose coordinates it uses. On NVIDIA every
    exchange is `shfl.sync` with the wave's live lanes as its member mask
    (computed from the linear invocation index, so partial warps are
    right), ballots and votes are `vote.sync`, and 32-bit integer
    reductions are `redux.sync` on sm_80 and later. On AMD an exchange is
    `ds_bpermute` (`ds_swizzle` for butterfly steps inside 32 lanes), a
    ballot `llvm.amdgcn.ballot` of the wave's width. Reductions elsewhere
    are a butterfly toward lane 0 over the live lanes, then a broadcast;
    scans are a Hillis-Steele sweep upward. 64-bit values travel as two
    32-bit halves. On the CPU (waves of one invocation) every operation is
    its one-lane result.

    ```mlir
    %s = xpu.wave_shuffle xor %v, %k : f32
    // nvvm: source = lane ^ k when it is a live lane, else the lane itself
    %src = arith.select %valid, %x, %lane : i32
    %r = nvvm.shfl.sync idx %live, %vbits, %src, %c31 : i32 -> i32
    // cpu:
    %s = %v
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu | nvvm | rocdl">,
    Option<"waveWidth", "wave-width", "unsigned", /*default=*/"1",
           "the target's wave width (32 on NVIDIA, 32 or 64 on AMD, 1 on CPU)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "the GPU (sm_90, gfx942): NVIDIA's redux.sync needs sm_80">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::spirv::SPIRVDialect"];
}

def SPIRVFloatAtomics : Pass<"xpu-spirv-float-atomics", "mlir::ModuleOp"> {
  let summary = "Float compare-exchange and min/max atomics as integer loops for SPIR-V";
  let description = [{
    SPIR-V compare-exchanges integers only, and MLIR's SPIR-V dialect has no
    float min/max atomic. On a global buffer both become integer atomics on
    the buffer's bits (`xpu.bits_view`, lowered to a second variable on the
    same binding); `fmin` / `fmax` a compare-exchange loop that starts from
    the operand's own bits as its guess:

    ```mlir
    %old = xpu.atomic_rmw fmin %v, %buf[%i] relaxed device : !xpu.buffer<f32>
    // becomes
    %bits = xpu.bits_view %buf : !xpu.buffer<f32> -> !xpu.buffer<i32>
    %guess = arith.bitcast %v : f32 to i32
    %found = scf.while (%e = %guess) : (i32) -> i32 {
      %m = exact min of (bitcast %e), %v : f32
      %seen = xpu.atomic_rmw cmpxchg (bitcast %m), %bits[%i] expected %e relaxed device
      scf.condition(%seen != %e) %seen : i32
    } do { ... }
    %old = arith.bitcast %found : i32 to f32
    ```
    Min and max are computed exactly (floats compared as integers that order
    like them: MLIR's own SPIR-V lowering of `arith.minimumf` leaves the
    order of -0 and +0 to the driver). Shared buffers are left alone (the
    Vulkan backend refuses those); a private one's min/max is a plain read,
    exact min/max and write.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def LowerAsyncCopies : Pass<"xpu-lower-async-copies", "mlir::ModuleOp"> {
  let summary = "Asynchronous copy elements and waits for the target";
  let description = [{
    On NVIDIA sm_80 and later an element of 4 or 8 bytes is marked
    `cp_async` (xpu-to-llvm makes it `cp.async.ca.shared.global`) and a wait
    commits and waits for the invocation's copies
    (`cp.async.commit.group`, `cp.async.wait.group 0`) before its barrier;
    elsewhere (AMD, Vulkan, the CPU, other NVIDIA chips) an element is a load
    and a store and the wait is only its barrier.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu | nvvm | rocdl | spirv">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "the GPU (sm_90): cp.async needs sm_80">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def PlaceSharedMemory : Pass<"xpu-place-shared-memory", "mlir::ModuleOp"> {
  let summary = "Shared memory over a CUDA block's static limit goes in the dynamic window";
  let description = [{
    A CUDA block has at most 48 KiB of static shared memory; more (up to
    the device's `MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`, 227 KiB on sm_90) is
    dynamic shared memory that the launch sizes. A kernel whose shared
    allocations (`xpu.alloc`, after tiles and reductions are expanded) take
    more than `static-limit` bytes gets all of them as views at fixed
    offsets of the dynamic window, whose base is rounded up at run time to
    the largest `xpu.alignment` they ask for; its `xpu.dynamic_shared`
    follows them. The module's `xpu.launch_shared_bytes` dictionary gives
    each such kernel's bytes, which the runtime adds to every launch's
    dynamic shared memory. Kernels within the limit are left alone.
  }];
  let options = [
    Option<"staticLimit", "static-limit", "uint64_t", /*default=*/"49152",
           "the most static shared memory a kernel may have">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PrepareLowering : Pass<"xpu-prepare-lowering", "mlir::ModuleOp"> {
  let summary = "Make the status word, run-time checks and fast-math explicit";
  let description = [{
    Every kernel and device function gains a trailing parameter, the status
    word through which kernels report failed run-time checks (marked
    `xpu.status`): an `!llvm.ptr` for LLVM-based targets, or with
    `status-type=buffer` an `!xpu.buffer<2xi32>` (SPIR-V binds it like any
    other buffer). Each access that admission marked `checked` is wrapped in
    a bounds test whose failing branch reports its site (`xpu.site`) and
    suppresses the access (a read yields zero):

    ```mlir
    %v = xpu.load %x[%i] {checked, xpu.site = 3} : !xpu.buffer<f32>
    // becomes
    %n = xpu.buffer_size %x : !xpu.buffer<f32>
    %ok = arith.cmpi ult, %i, %n : index
    %v = scf.if %ok -> f32 { xpu.load ... } else {
      xpu.report_out_of_bounds %status site 3 : !llvm.ptr
      zero }
    ```
    Float arithmetic in kernels marked `fastmath` gets the `contract` flag;
    elsewhere no fused multiply-add is formed. With `skip-work-item-loops`
    the checked accesses inside CPU work-item loops are left to
    `xpu-cpu-checks`.
  }];
  let options = [
    Option<"statusType", "status-type", "std::string", /*default=*/"\"ptr\"",
           "ptr (LLVM-based targets) | buffer (SPIR-V)">,
    Option<"skipWorkItemLoops", "skip-work-item-loops", "bool", /*default=*/"false",
           "leave the checks inside CPU work-item loops (xpu.work_item_dim)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def ExpandMath : Pass<"xpu-expand-math", "mlir::ModuleOp"> {
  let summary = "Lower math functions a target has no lowering for into ones it has";
  let description = [{
    Every `math` op runs on every backend (capability model §5.1: a correct
    lowering that exists is not a missing capability). Before a target's
    lowering, the ops it lacks are rewritten:

    - on every target: f16 and bf16 transcendental functions compute in f32;
      `clampf`, `ipowi` (square-and-multiply), `isinf` and `isnormal`
      become arithmetic;
    - `spirv` (GLSL.std.450): `cbrt`, `erf`, `erfc` and `atan2` become
      MLIR's polynomial approximations (so are atan, asin, acos, tanh,
      log, log2, log1p, exp and expm1, which Vulkan holds only to formulas),
      sinh, asinh, atanh and log10 stable formulas, `exp2` and `fpowi`
      expansions, `trunc` and `cttz` arithmetic (`ctpop` is `OpBitCount`),
      `sincos` a sin and a cos;
    - `cpu`, `nvvm`, `rocdl`: the functions without an LLVM instruction are
      calls to the host's libm (cpu) or the device library
      (`xpu-math-to-libcalls`).

    ```mlir
    %t = math.trunc %x : f32
    // spirv:
    %a = math.absf %x : f32
    %f = math.floor %a : f32
    %t = math.copysign %f, %x : f32
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu | nvvm | rocdl | spirv">,
    Option<"loopsOnly", "loops-only", "bool", /*default=*/"false",
           "expand only the ops that become loops (ipowi), so that a device's "
           "loop guard (xpu-guard-loop-limit), run next, sees their loops">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::math::MathDialect"];
}

def UnrollVectorsForSPIRV : Pass<"xpu-unroll-vectors-for-spirv", "mlir::ModuleOp"> {
  let summary = "Split vectors wider than four lanes for SPIR-V";
  let description = [{
    Vulkan's SPIR-V has vectors of 2 to 4 lanes. Elementwise ops, reductions
    and transposes on wider vectors (`vector<8xf32>` is common in front-end
    output) become ops on vectors of 4, 3 or 2 lanes (MLIR's
    `spirv::unrollVectorsInFuncBodies`), with extract/insert of strided
    slices between them.

    ```mlir
    %s = arith.addf %a, %b : vector<8xf32>
    // becomes two arith.addf of vector<4xf32> and slices
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def MathToLibCalls : Pass<"xpu-math-to-libcalls", "mlir::ModuleOp"> {
  let summary = "Call the math library for functions targets have no instruction for";
  let description = [{
    NVPTX and AMDGPU have no instruction for exp, log, sin, pow and the
    like; they come from libdevice (`__nv_expf`) or the AMD device libraries
    (`__ocml_sin_f32`). Only those functions are rewritten to calls, so a
    kernel that uses just sqrt, fabs or fma needs no library; on AMDGPU f32
    exp and log stay LLVM intrinsics, which the back end expands. On the CPU
    the functions LLVM has no intrinsic for (acosh, asinh, atanh, cbrt, erf,
    erfc) are calls to the host's libm (`erff`), which the JIT resolves:

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
           "cpu | nvvm | rocdl">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect"];
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

def ConvertXPUToSPIRV : Pass<"xpu-to-spirv", "mlir::ModuleOp"> {
  let summary = "Lower xpu kernels and their bodies to a spirv.module for Vulkan";
  let description = [{
    The SPIR-V sibling of `xpu-to-llvm`, for a module that went through
    `xpu-inline-helpers` and `xpu-prepare-lowering{status-type=buffer}`. The
    target environment (version, capabilities, extensions, limits) is the
    `spirv.target_env` attribute of the module. The kernel's parameters are
    bound as in abi::vulkanArgLayout: each global buffer becomes a
    StorageBuffer block variable with its own binding in set 0, every
    buffer's element count and every scalar go into one push-constant block
    (a uniform block at binding B + 1 when larger than
    `max-push-constant-bytes`); the status word is one more binding. The
    count comes with the launch, as on every backend (MLIR 22's SPIR-V
    dialect has no OpArrayLength). Math functions GLSL.std.450 lacks are
    rewritten before, by `xpu-expand-math{target=spirv}`.
    Coordinates read compute builtins (SPIR-V has them directly, so no
    `xpu-lower-execution-model` step), the workgroup size is three
    specialization constants set per launch shape, shared scratch is
    Workgroup storage, private scratch Function storage, barriers are
    `spirv.ControlBarrier` at workgroup scope with acquire-release semantics,
    atomics keep their order and scope. Float arithmetic is decorated
    `NoContraction` unless the kernel is `fastmath`; with `preserve-floats`
    every entry point asks for IEEE f32 denormals, zeros, infinities and NaNs
    (Vulkan may otherwise flush or ignore them).

    ```mlir
    xpu.kernel @k(%y: !xpu.buffer<f32>, %a: f32) {
      %i = xpu.global_id x
      xpu.store %a, %y[%i] : !xpu.buffer<f32>
      xpu.return }
    // becomes
    spirv.module Logical GLSL450 {
      spirv.GlobalVariable @__xpu_k_args : !spirv.ptr<!spirv.struct<(i32 [0], f32 [4])>, PushConstant>
      spirv.GlobalVariable @__xpu_k_binding0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
      spirv.func @k() "None" {
        ... spirv.Load "PushConstant" ...   // %a
        ... spirv.Load "Input" %__builtin_GlobalInvocationId ...
        spirv.Store "StorageBuffer" %p, %a : f32
        spirv.Return }
      spirv.EntryPoint "GLCompute" @k, ...
      spirv.ExecutionMode @k "LocalSize", 1, 1, 1 }
    ```
  }];
  let options = [
    Option<"indexBits", "index-bits", "unsigned", /*default=*/"32",
           "width of `index` in kernels (64 where the device has shaderInt64)">,
    Option<"maxPushConstantBytes", "max-push-constant-bytes", "unsigned",
           /*default=*/"128", "the device's maxPushConstantsSize">,
    Option<"preserveFloats", "preserve-floats", "bool", /*default=*/"false",
           "request IEEE denormals, signed zeros, infinities and NaNs for f32 "
           "(DenormPreserve, SignedZeroInfNanPreserve; needs both capabilities)">,
  ];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def CPUChecks : Pass<"xpu-cpu-checks", "mlir::ModuleOp"> {
  let summary = "Bounds checks in CPU work-item loops that keep them vectorizable";
  let description = [{
    Runs after `xpu-prepare-lowering{skip-work-item-loops}`, on the checked
    accesses inside the loops of `xpu-cpu-work-item-loops`. Loop
    versioning: the accesses whose index is affine in the thread ids (and
    in variables of inner loops with workgroup-level bounds) are checked
    once per workgroup for their whole range, in exact i128 arithmetic, as
    are the loop's own guards of that form (`if (gid < n)`); when all hold,
    a copy of the nest without those checks, with the guards folded, runs.
    Every other check is branch-free: the access happens only when in
    bounds (a read yields zero otherwise) and the failure is counted in the
    workgroup's counters, added to the status word when the workgroup ends.

    ```mlir
    scf.for %tx = %c0 to %sx step %c1 {        // xpu.work_item_dim = 0
      %i = arith.addi %base, %tx : index
      %v = xpu.load %x[%i] {checked, xpu.site = 0} : !xpu.buffer<f32> ... }
    // becomes
    %ok = ... base >= 0 && base + sx - 1 < size(x), in i128 ...
    scf.if %ok { scf.for %tx ... { %v = xpu.load %x[%i] ... } }
    else { scf.for %tx ... { %in = arith.cmpi ult, %i, %n : index
                             %v = scf.if %in -> f32 { xpu.load ... } else { 0.0 }
                             counters[0] += !%in ... } }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def CPUWrappers : Pass<"xpu-cpu-wrappers", "mlir::ModuleOp"> {
  let summary = "Add the CPU entry points that run ranges of whole workgroups";
  let description = [{
    For each lowered kernel `@k` (which runs one workgroup, see
    `xpu-cpu-work-item-loops`), adds `@k.xpu_group(ptr args, ptr launch)`,
    which unpacks the argument block and runs one workgroup, and the entry
    point `@k.xpu_wg(ptr args, ptr launch, i64 begin, i64 end)`, a loop
    over workgroups [begin, end) of the grid (x fastest) that writes each
    one's id into the launch record and calls `@k.xpu_group`; beside them
    the constants `@k.xpu_shared_bytes`, `@k.xpu_stack_bytes` and
    `@k.xpu_any_shape`. The kernel's buffer pointers and shared block are
    `noalias`; when two buffers could overlap with one of them written, a
    copy of the body without `noalias` (`@k.may_alias`) runs instead unless
    the launch record says the buffers are distinct (abi::kCpuBuffersDistinct).
    A static shared block of at most 16 KiB is an array in `@k.xpu_group`'s
    frame rather than the thread's block (which keeps the dynamic shared
    memory): LLVM forwards what one region stores to the next region's
    loads and drops the stores (the CPU pipeline ends with GVN and DSE for
    that, then inlines `@k.xpu_group`, marked `xpu-inline-late`, into the
    loop).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Tiles (issue 15)
//===----------------------------------------------------------------------===//

def PrepareTiles : Pass<"xpu-prepare-tiles", "mlir::ModuleOp"> {
  let summary = "Check tile operands for uniformity and mark tile accesses checked";
  let description = [{
    Runs after admission. A tile is held by the whole workgroup, so the
    offset, stride, fill value and scale of every tile op must be the same
    in every invocation (uniformity analysis); one that is not is refused
    with XPU-TILE001, pointing at what makes it differ. With
    `runtime-checks`, every `xpu.tile_load` and `xpu.tile_store` is marked
    `checked`, so that it is numbered as a check site and its lowering
    guards each element.
  }];
  let options = [
    Option<"runtimeChecks", "runtime-checks", "bool", /*default=*/"true",
           "guard tile loads and stores at run time (portable profile)">,
  ];
}

def LowerTiles : Pass<"xpu-lower-tiles", "mlir::ModuleOp"> {
  let summary = "Lower tile ops for the tier each kernel was given";
  let description = [{
    Each kernel's `xpu.mma_tier` attribute (set by the runtime's tier
    selection; `software` when absent) says how its tiles are realized. The
    tiers lowered here work on any target:

    - `software`: every tile value is a workgroup-shared buffer of its
      elements, row-major; each tile op is a loop over the elements (a mac:
      over 4 x 8 blocks of the result with vector<4> multiply-adds) shared
      among the workgroup's invocations, between barriers. Loads and stores
      marked `checked` become checked element accesses.
    - `dot4`: as `software`, but an i8 mac multiplies four k at a time with
      `xpu.dot4_i8` (dp4a, OpSDot, v_dot4), which each target lowers.

    The tensor-core tiers are lowered for their targets: `mma.sync` and
    `wgmma` on nvvm, `cooperative-matrix` on spirv, `mfma` and `wmma` on
    rocdl (16x16x16 matrix-core steps, sums held per wave); a kernel marked
    `xpu.mma_emulated` (XPU_TILE_EMULATE) takes `mfma` or `wmma` on any
    target, each matrix-core step computed from the instruction's
    definition through shared memory, so the tier's lowering can be run and
    checked without the hardware.

    On the `cooperative-matrix-workgroup` tier a K loop whose tiles may
    need copying runs in two versions behind a scan of its iterations; a
    kernel with one such loop, before which nothing writes outside the
    workgroup, is split in two kernels, one per version
    (abi::kCopyingCompanionSuffix), which every launch runs in turn, so
    that the direct version's pipeline declares no shared memory of the
    copying one's (NVIDIA's driver stages the loads in what is left).

    ```mlir
    %t = xpu.tile_load %A[%o], %ld : !xpu.buffer<f32, ro> -> !xpu.tile<16x16xf32>
    // becomes
    %s = xpu.alloc : !xpu.buffer<256xf32, shared>
    xpu.barrier
    scf.for %i = ... { scf.for %j = ... {
      %v = xpu.load %A[%o + %i * %ld + %j] {checked} ...
      xpu.store %v, %s[%i * 16 + %j] ... } }
    xpu.barrier
    ```

    Tile values may be carried by scf.for and yielded by scf.if; other
    region ops (scf.while, ...) that carry tiles are refused.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "cpu, nvvm, rocdl or spirv">,
    Option<"specialize", "specialize", "std::string", /*default=*/"\"workgroup\"",
           "on spirv, the tile kernels whose stride arguments the pipelines are "
           "specialized on (abi::kSpecializeAttr): workgroup (the "
           "cooperative-matrix-workgroup tier's), all or off">,
    Option<"splitCopying", "split-copying", "bool", /*default=*/"true",
           "split a workgroup-scope tile kernel whose K loop has a copying "
           "version into itself with the direct version and a companion "
           "with the copying one (splitCopyingVersions)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::vector::VectorDialect",
                           "::mlir::ub::UBDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::ROCDL::ROCDLDialect"];
}

//===----------------------------------------------------------------------===//
// Work-arounds for measured device facts (src/calibration)
//===----------------------------------------------------------------------===//

def GuardLoopLimit : Pass<"xpu-guard-loop-limit", "mlir::ModuleOp"> {
  let summary = "Report a loop the device stopped before it finished";
  let description = [{
    For devices whose driver stops loops after a budget of passes, silently
    (lavapipe: 65,535 passes per group of invocations run together, shared
    by all their loops; measured by src/calibration/loop_probe.cpp). Runs
    after `xpu-prepare-lowering` on loops that `assignLoopSites` numbered
    (`xpu.site`), and on the loops lowerings made of tile ops, `xpu.reduce`
    and `math.ipowi` before it (each takes its op's `xpu.loop_site`: a
    budget spent by the kernel's own loops can run out in one of those); it
    runs again after `xpu-spirv-float-atomics` for its exchange loops (a
    loop it guarded no longer has a site).
    Each such loop, as an `scf.while` (an `scf.for` is
    rewritten into one first), also yields its condition, exclusive-ored
    with a value the driver's compiler cannot know is false
    (`grid_size x == 0`): had the condition simply been yielded, the
    driver's compiler would know it is false after the loop and delete the
    check. A loop that ends normally yields false; one the device stopped
    yields true, and its site is reported through the status word, so the
    launch fails naming the limit instead of returning a truncated result:

    ```mlir
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (i32) {...} {xpu.site = 4}
    // becomes
    %g = xpu.grid_size x
    %never = arith.cmpi eq, %g, %c0 : index
    %w:3 = scf.while (%i = %c0, %a = %z) : (index, i32) -> (index, i32, i1) {
      %c = arith.cmpi slt, %i, %n : index
      %stopped = arith.xori %c, %never : i1
      scf.condition(%c) %i, %a, %stopped : index, i32, i1
    } do { ... }
    scf.if %w#2 { xpu.report_out_of_bounds %status site 4 : !xpu.buffer<2xi32> }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def SoftwareFMA : Pass<"xpu-software-fma", "mlir::ModuleOp"> {
  let summary = "Compute math.fma exactly through the wider float type";
  let description = [{
    For devices whose driver does not fuse `math.fma` (measured: lavapipe
    rounds the product, up to 13,023 ULP from a fused result). The product
    of two values is exact in the type of twice the precision (f16 in f32,
    f32 in f64); the sum with the addend is rounded there to odd (the
    rounding error, from an exact two-sum, decides the last bit), and one
    rounding to the narrow type then gives the correctly rounded fused
    result (Boldo and Melquiond: the wide type has at least 2p + 2 bits).

    ```mlir
    %r = math.fma %a, %b, %c : f32
    // becomes, with A, B, C = arith.extf of %a, %b, %c to f64
    %p = arith.mulf %A, %B : f64          // exact
    %s = arith.addf %p, %C : f64          // rounded to nearest
    // pv = s - C; e = (p - pv) + (C - (s - pv)): s + e == p + C exactly
    // s' = s with its last bit forced to 1 toward e when e != 0
    %r = arith.truncf %s' : f64 to f32
    ```
  }];
  let options = [
    Option<"f16", "f16", "bool", /*default=*/"false", "rewrite f16 math.fma (through f32)">,
    Option<"f32", "f32", "bool", /*default=*/"true", "rewrite f32 math.fma (through f64)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SubnormalExp : Pass<"xpu-subnormal-exp", "mlir::ModuleOp"> {
  let summary = "Compute f32 exp and exp2 with subnormal results through a square";
  let description = [{
    For devices whose exponential flushes subnormal results to zero while
    their multiplication keeps them (measured: lavapipe returns 0 for
    `exp(-90)`, 8.194e-40). Below the normal range the result is the square
    of the exponential of half the argument, which is a normal number; the
    multiplication rounds once into the subnormal range:

    ```mlir
    %r = math.exp %x : f32
    // becomes
    %e = math.exp %x : f32
    %h = arith.mulf %x, %half : f32
    %eh = math.exp %h : f32
    %sq = arith.mulf %eh, %eh : f32
    %low = arith.cmpf olt, %x, %lnMinNormal : f32   // ln(2^-126)
    %r = arith.select %low, %sq, %e : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // XPU_PASSES_TD
