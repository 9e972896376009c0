// Op traits of the xpu dialect (C++ side: XPUTraits.h). An op declares what
// the uniformity analysis (mlir/lib/Analysis/Uniformity.cpp) must know:
//
//   def XPU_WaveSumOp : XPU_Op<"wave_sum", [XPU_RequiresWaveUniformControl,
//                                           XPU_WaveUniformResults]> {...}
#ifndef XPU_TRAITS_TD
#define XPU_TRAITS_TD

include "mlir/IR/OpBase.td"

class XPU_ScopedTrait<string name, string scope>
    : ParamNativeOpTrait<name, "::xpu::Uniformity::" # scope> {
  let cppNamespace = "::xpu";
}

// Must be reached by every invocation of the workgroup (barriers,
// reductions) or of the wave (wave operations): refused (XPU-UC001) under
// control flow that is not uniform at that scope.
def XPU_RequiresWorkgroupUniformControl
    : XPU_ScopedTrait<"RequiresUniformControlFlow", "workgroup">;
def XPU_RequiresWaveUniformControl
    : XPU_ScopedTrait<"RequiresUniformControlFlow", "wave">;

// Results are uniform at the scope whatever the operands. Without it, the
// uniformity analysis takes an xpu op it does not know to be divergent.
def XPU_WorkgroupUniformResults : XPU_ScopedTrait<"UniformResults", "workgroup">;
def XPU_WaveUniformResults : XPU_ScopedTrait<"UniformResults", "wave">;

// Acts on the host (printing): refused by deterministic-v1 (XPU-GC012).
def XPU_HostEffect : NativeOpTrait<"HostEffect"> {
  let cppNamespace = "::xpu";
}

// Made by the compiler's lowering for its later stages, never written in
// kernel source: the front end refuses it (parseKernelSource), since its
// operands are trusted to be what the lowering made (a coop_sums_mac of
// billions of K steps unrolled for hours).
def XPU_LoweringOnly : NativeOpTrait<"LoweringOnly"> {
  let cppNamespace = "::xpu";
}

#endif // XPU_TRAITS_TD
