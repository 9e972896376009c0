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
// not be moved across control flow, which unknown effects prevent.
class XPU_WaveOp<string mnemonic, list<Trait> traits = []>
    : XPU_Op<mnemonic, traits>;

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

def XPU_WaveBallotOp : XPU_WaveOp<"wave_ballot"> {
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

def XPU_WaveVoteOp : XPU_WaveOp<"wave_vote"> {
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
    [AllTypesMatch<["value", "result"]>]> {
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

#endif // XPU_SURFACE_OPS_TD
