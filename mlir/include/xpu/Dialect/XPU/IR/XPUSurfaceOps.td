// The kernel surface beyond loads, stores and barriers (issue 14): wave
// (subgroup) operations. Included at the end of XPUOps.td.
#ifndef XPU_SURFACE_OPS_TD
#define XPU_SURFACE_OPS_TD

//===----------------------------------------------------------------------===//
// Wave (subgroup) operations
//
// A wave is the target's group of invocations that run in lockstep: a warp
// of 32 on NVIDIA, a wavefront of 32 or 64 on AMD, a subgroup on Vulkan, one
// invocation on the CPU (variance row 1: the width is a per-target constant,
// read with xpu.wave_width, never assumed). Waves are formed from
// consecutive linear invocation indices of a workgroup; the last wave of a
// workgroup whose size is not a multiple of the width is partial. Its
// *live* lanes are the invocations that exist: every operation below
// combines or reads only live lanes.
//
// Every live lane of the wave must execute the operation together (uniform
// control flow per wave); a wave operation under control flow that diverges
// inside a wave is undefined on the GPUs.
//===----------------------------------------------------------------------===//

def XPU_WaveShuffleMode : XPU_I32Enum<"WaveShuffleMode",
    "which lane a wave shuffle reads", [
  I32EnumAttrCase<"xor_", 0, "xor">, I32EnumAttrCase<"up", 1>,
  I32EnumAttrCase<"down", 2>, I32EnumAttrCase<"index", 3>]>;

def XPU_WaveVoteKind : XPU_I32Enum<"WaveVoteKind", "a wave vote", [
  I32EnumAttrCase<"any", 0>, I32EnumAttrCase<"all", 1>]>;

def XPU_WaveScanKind : XPU_I32Enum<"WaveScanKind", "a wave prefix scan", [
  I32EnumAttrCase<"inclusive", 0>, I32EnumAttrCase<"exclusive", 1>]>;

// Values waves exchange: 32- and 64-bit integers and floats.
def XPU_WaveValue : AnyTypeOf<[I32, I64, F32, F64],
                              "a 32- or 64-bit integer or float">;

// The ballot mask: one bit per lane, lane L in bit L % 32 of word L / 32;
// four words hold the widest wave any target has (Vulkan allows 128).
def XPU_WaveMask : VectorOfLengthAndType<[4], [I32]>;

// No memory effects are declared and none are Pure: a wave operation must
// not be moved across control flow, which unknown effects prevent. Each
// needs control flow uniform across its wave (admission refuses it
// otherwise, XPU-UC001); those whose result is the same for the whole wave
// say so with XPU_WaveUniformResults (the uniformity analysis).
class XPU_WaveOp<string mnemonic, list<Trait> traits = []>
    : XPU_Op<mnemonic, !listconcat(traits, [XPU_RequiresWaveUniformControl])>;

def XPU_WaveShuffleOp : XPU_WaveOp<"wave_shuffle",
    [AllTypesMatch<["value", "result"]>]> {
  let summary = "read a value from another lane of the wave";
  let description = [{
    Each lane reads `%value` of a source lane computed from its own lane id
    L and `%offset` K, in 32-bit unsigned arithmetic: `xor` L ^ K, `up`
    L - K, `down` L + K, `index` K. When the source is not a live lane of
    the wave (at or past the wave width, past the last lane of a partial
    wave, or "below" lane 0 for `up`), the lane gets its own `%value`. The
    rule is the same on every backend.

    ```mlir
    %k = arith.constant 1 : i32
    %n = xpu.wave_shuffle xor %v, %k : f32   // the neighbour's value
    ```
  }];
  let arguments = (ins EnumProp<XPU_WaveShuffleMode>:$mode,
                       XPU_WaveValue:$value, I32:$offset);
  let results = (outs XPU_WaveValue:$result);
  let assemblyFormat = "$mode $value `,` $offset attr-dict `:` type($value)";
}

def XPU_WaveBroadcastOp : XPU_WaveOp<"wave_broadcast",
    [AllTypesMatch<["value", "result"]>]> {
  let summary = "every lane gets the value of one lane of the wave";
  let description = [{
    Every lane gets `%value` of lane `%lane` (read as unsigned). When that
    lane is not live, each lane keeps its own `%value`, as for
    `xpu.wave_shuffle index`, which this is with one lane for the whole wave.

    ```mlir
    %first = xpu.wave_broadcast %v, %c0 : i32
    ```
  }];
  let arguments = (ins XPU_WaveValue:$value, I32:$lane);
  let results = (outs XPU_WaveValue:$result);
  let assemblyFormat = "$value `,` $lane attr-dict `:` type($value)";
}

def XPU_WaveBallotOp : XPU_WaveOp<"wave_ballot", [XPU_WaveUniformResults]> {
  let summary = "the mask of live lanes whose predicate holds";
  let description = [{
    Returns the same `vector<4xi32>` in every lane: bit L % 32 of word
    L / 32 is set when lane L is live and its `%predicate` is true; bits of
    lanes past the wave width are 0. Four words fit the widest wave of any
    target, so the type does not depend on the device; count lanes with
    `math.ctpop` and `vector.reduction <add>`.

    ```mlir
    %mask = xpu.wave_ballot %p : vector<4xi32>
    ```
  }];
  let arguments = (ins I1:$predicate);
  let results = (outs XPU_WaveMask:$result);
  let assemblyFormat = "$predicate attr-dict `:` type($result)";
}

def XPU_WaveVoteOp : XPU_WaveOp<"wave_vote", [XPU_WaveUniformResults]> {
  let summary = "whether the predicate holds in any or in all live lanes";
  let description = [{
    ```mlir
    %some = xpu.wave_vote any %p
    %every = xpu.wave_vote all %p
    ```
  }];
  let arguments = (ins EnumProp<XPU_WaveVoteKind>:$kind, I1:$predicate);
  let results = (outs I1:$result);
  let assemblyFormat = "$kind $predicate attr-dict";
}

def XPU_WaveReduceOp : XPU_WaveOp<"wave_reduce",
    [AllTypesMatch<["value", "result"]>, XPU_WaveUniformResults]> {
  let summary = "combine the value of every live lane of the wave";
  let description = [{
    Every lane gets the combination of `%value` over the live lanes of its
    wave. Integer results are exact (every combiner is associative and
    commutative, `add` and `mul` wrap). Float `add` and `mul` combine in an
    order that is the target's (the shape depends on the wave width), so
    their rounding may differ between targets; `fmin` and `fmax` are exact
    and follow `arith.minimumf` / `arith.maximumf` (a NaN in any lane gives
    NaN; -0 is below +0).

    ```mlir
    %sum = xpu.wave_reduce add %v : f32
    ```
  }];
  let arguments = (ins EnumProp<XPU_ReduceKind>:$kind, XPU_WaveValue:$value);
  let results = (outs XPU_WaveValue:$result);
  let assemblyFormat = "$kind $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def XPU_WaveScanOp : XPU_WaveOp<"wave_scan",
    [AllTypesMatch<["value", "result"]>]> {
  let summary = "prefix combination over the lanes of the wave";
  let description = [{
    Lane L gets the combination of `%value` over lanes 0..L (`inclusive`)
    or 0..L-1 (`exclusive`; lane 0 gets the combiner's identity: 0 for
    add, or, xor, umax; 1 for mul; all ones for and, umin; the largest or
    smallest value for smin / smax; +inf / -inf for fmin / fmax; +0.0 for
    a float add). Rounding of float add and mul follows the target, as for
    `xpu.wave_reduce`.

    ```mlir
    %before = xpu.wave_scan add %v exclusive : i32
    ```
  }];
  let arguments = (ins EnumProp<XPU_ReduceKind>:$kind, XPU_WaveValue:$value,
                       EnumProp<XPU_WaveScanKind>:$scan);
  let results = (outs XPU_WaveValue:$result);
  let assemblyFormat = "$kind $value $scan attr-dict `:` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Atomics: compare-exchange and float min/max are kinds of xpu.atomic_rmw;
// SPIR-V runs float ones as integer compare-exchange loops over this view.
//===----------------------------------------------------------------------===//

def XPU_BitsViewOp : XPU_Op<"bits_view", [XPU_LoweringOnly, Pure]> {
  let summary = "a buffer's elements as integers of their width (lowering only)";
  let description = [{
    Made by `xpu-spirv-float-atomics`: the same memory, its floats read and
    written as their bits. Not accepted in kernel source.

    ```mlir
    %bits = xpu.bits_view %buf : !xpu.buffer<f32> -> !xpu.buffer<i32>
    ```
  }];
  let arguments = (ins XPU_AnyBuffer:$buffer);
  let results = (outs XPU_AnyBuffer:$result);
  let assemblyFormat = [{
    $buffer attr-dict `:` qualified(type($buffer)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Struct parameters (spec 17.4): a plain struct passed by value, read-only.
//===----------------------------------------------------------------------===//

def XPU_StructType : TypeDef<XPU_Dialect, "Struct"> {
  let mnemonic = "struct";
  let summary = "a plain struct of scalars and short vectors, passed by value";
  let description = [{
    A kernel parameter type: named fields of launch scalars (i1, i8, i16,
    i32, i64, f16, bf16, f32, f64) or vectors of 2 to 4 of them, laid out by
    C's rules (a scalar aligned to its size, a vector as an array of its
    lanes, the whole padded to its largest alignment), as a C or NumPy host
    lays the same struct out. Fields are read with `xpu.struct_get`.

    ```mlir
    !xpu.struct<"params", scale: f32, n: i32, offset: vector<3xf32>>
    ```
  }];
  let parameters = (ins StringRefParameter<"the struct's name">:$name,
                        ArrayRefParameter<"::mlir::StringAttr", "field names">:$fieldNames,
                        ArrayRefParameter<"::mlir::Type", "field types">:$fieldTypes);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The index of field `name`, if there is one.
    std::optional<unsigned> fieldIndex(::llvm::StringRef name) const;
  }];
}

def XPU_StructGetOp : XPU_Op<"struct_get", [Pure]> {
  let summary = "read one field of a struct parameter";
  let description = [{
    ```mlir
    %n = xpu.struct_get %p["n"] : !xpu.struct<"params", scale: f32, n: i32> -> i32
    ```
    Only kernel parameters are structs; `xpu-flatten-structs` turns each
    into one parameter per field before code is generated.
  }];
  let arguments = (ins AnyType:$aggregate, StrAttr:$field);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $aggregate `[` $field `]` attr-dict `:` qualified(type($aggregate)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Printing from kernels (portable profile only)
//===----------------------------------------------------------------------===//

def XPU_PrintfOp : XPU_Op<"printf"> {
  let summary = "print formatted values from a kernel";
  let description = [{
    C's `printf` conversions (`%d %i %u %x %X %o %c` for integers, `%f %F
    %e %E %g %G %a %A` for floats, flags, width and precision, `%%`), one
    operand per conversion (i1..i64, f16, bf16, f32, f64). Every backend
    appends a record to a bounded buffer the runtime gives the launch
    (`xpu-lower-printf`); the runtime formats the records in the order they
    were reserved when the launch's stream synchronizes, and prints them to
    the process's standard output. A record that does not fit is dropped
    and counted, and the synchronization prints how many were dropped:
    output is never lost silently. Refused by `deterministic-v1` (a host
    effect, XPU-GC012).

    ```mlir
    xpu.printf "lane %d of %d: %f\n"(%l, %w, %v) : i32, i32, f32
    ```
  }];
  let arguments = (ins StrAttr:$format, Variadic<AnyType>:$args);
  let assemblyFormat = "$format `(` $args `)` attr-dict (`:` type($args)^)?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Bounded function values (spec 17.1) and grid-stride loops (17.2: a builder
// helper, xpu_builder_grid_stride_begin, makes the canonical scf.for)
//===----------------------------------------------------------------------===//

def XPU_FnValueOp : XPU_Op<"fn_value", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a value naming one device function of a closed set";
  let description = [{
    The function's position in `set` (an i32). Every function of the set
    has one signature; `xpu.fn_call` calls through the value.

    ```mlir
    %f = xpu.fn_value @scale of [@offset, @scale, @clamp] : i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, SymbolRefArrayAttr:$set);
  let results = (outs I32:$result);
  let assemblyFormat = "$callee `of` $set attr-dict `:` type($result)";
}

def XPU_FnCallOp : XPU_Op<"fn_call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call the device function a bounded function value names";
  let description = [{
    Calls function `%f` of `set` (read as unsigned) with the operands. An
    index outside the set calls nothing, a defined no-op whose results are
    zero. Lowered to direct calls (a chain of comparisons) on every backend:
    device code never needs function pointers.

    ```mlir
    %r = xpu.fn_call %f of [@offset, @scale, @clamp](%x) : (f32) -> f32
    ```
  }];
  let arguments = (ins I32:$function, SymbolRefArrayAttr:$set,
                       Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $function `of` $set `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}

//===----------------------------------------------------------------------===//
// Asynchronous copies from global to shared memory (spec 17.3 AsyncCopy)
//===----------------------------------------------------------------------===//

def XPU_AsyncTokenType : TypeDef<XPU_Dialect, "AsyncToken"> {
  let mnemonic = "async_token";
  let summary = "an asynchronous copy in flight, waited for with xpu.async_wait";
}

def XPU_AsyncCopyOp : XPU_Op<"async_copy", [MemoryEffects<[MemRead, MemWrite]>,
    XPU_RequiresWorkgroupUniformControl, XPU_WorkgroupUniformResults]> {
  let summary = "start copying a block of a global buffer into shared memory";
  let description = [{
    The whole workgroup copies `count` elements from `src` at `srcIndex` to
    the shared buffer `dst` at `dstIndex`: every invocation makes the op
    with the same operands, and takes some of the elements. The copy may
    overlap what the kernel does until `xpu.async_wait`, which every
    invocation makes too; after it (it is also a workgroup barrier) `dst`
    holds the elements. Until then `dst`'s range is undefined and `src`'s
    must not change. Elements outside either buffer are checked at run time
    as a load and a store would be (portable profile). Both ops must be
    reached by every invocation of the workgroup (XPU-UC001).

    NVIDIA sm_80 and later use `cp.async` (4- and 8-byte elements); other
    targets copy with plain loads and stores.

    ```mlir
    %t = xpu.async_copy %in[%base] to %tile[%c0], %c256
           : !xpu.buffer<f32, ro> to !xpu.buffer<256xf32, shared>
    ... work that does not read %tile ...
    xpu.async_wait %t
    ```
  }];
  let arguments = (ins XPU_AnyBuffer:$src, Index:$srcIndex, XPU_AnyBuffer:$dst,
                       Index:$dstIndex, Index:$count);
  let results = (outs XPU_AsyncTokenType:$token);
  let assemblyFormat = [{
    $src `[` $srcIndex `]` `to` $dst `[` $dstIndex `]` `,` $count attr-dict `:`
    qualified(type($src)) `to` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def XPU_AsyncWaitOp : XPU_Op<"async_wait", [XPU_RequiresWorkgroupUniformControl]> {
  let summary = "wait for asynchronous copies; a workgroup barrier";
  let description = [{
    Every invocation of the workgroup waits for the copies of `tokens`
    (`xpu.async_copy`); afterwards their shared ranges hold the elements.

    ```mlir
    xpu.async_wait %t1, %t2
    ```
  }];
  let arguments = (ins Variadic<XPU_AsyncTokenType>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
}

def XPU_AsyncCopyElementOp : XPU_Op<"async_copy_element",
    [XPU_LoweringOnly, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "one element of an asynchronous copy (lowering only)";
  let description = [{
    Made by `xpu-expand-async-copies`, in bounds. With `cp_async` (NVIDIA
    sm_80 and later, set by `xpu-lower-async-copies`) it is a `cp.async` of
    the element; otherwise `xpu-lower-async-copies` makes it a load and a
    store. `bytes = 16` (made with `cp_async` by `xpu-lower-tiles` for the
    staged operand copies of NVIDIA's tiers) copies the 16 bytes from the
    element on, both ends 16-byte aligned.

    ```mlir
    xpu.async_copy_element %in[%s] to %tile[%d] {cp_async}
        : !xpu.buffer<f32, ro> to !xpu.buffer<256xf32, shared>
    ```
  }];
  let arguments = (ins XPU_AnyBuffer:$src, Index:$srcIndex, XPU_AnyBuffer:$dst,
                       Index:$dstIndex, UnitAttr:$cp_async, OptionalAttr<I64Attr>:$bytes);
  let assemblyFormat = [{
    $src `[` $srcIndex `]` `to` $dst `[` $dstIndex `]` attr-dict `:`
    qualified(type($src)) `to` qualified(type($dst))
  }];
}

#endif // XPU_SURFACE_OPS_TD
