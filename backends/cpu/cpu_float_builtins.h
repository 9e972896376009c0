// The f16/bf16 conversion routines LLVM's code for the host calls where the
// CPU has no instruction for them, defined in the CPU JIT itself.
#pragma once

namespace llvm::orc {
class LLJIT;
}

namespace xpu::cpu {

/// Defines __truncdfhf2, __truncsfhf2, __extendhfsf2, __truncdfbf2 and
/// __truncsfbf2 in `jit`'s main JITDylib. Kernels otherwise take them from
/// the process (libgcc_s), which python3 does not load: the f16 probes then
/// failed to link, with "JIT session error" printed on stderr.
void defineFloatBuiltins(llvm::orc::LLJIT &jit);

} // namespace xpu::cpu
