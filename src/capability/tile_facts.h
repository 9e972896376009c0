// The hardware facts the tile tiers rest on (issue 15) that follow from a
// chip's name: NVIDIA compute capability, AMD gfx architecture. Backends add
// them to their device facts; offline compilation (xpu_compile_for_target)
// takes them from the chip it is given.
#pragma once

#include "capability/capability.h"
#include "runtime/backend.h"

namespace xpu::cap {

/// tileMmaSync (sm_80), tileWgmma (sm_90 exactly: its sm_90a target),
/// tileDotInt8 (dp4a, sm_61), each naming `evidence` (the query that gave
/// the compute capability).
std::vector<Fact> nvidiaTileFacts(int major, int minor, const std::string &evidence);

/// The shared memory a block of an NVIDIA chip (sm_90: 90) may have when
/// its kernel opts in (227 KiB on sm_90), for offline compilation; 48 KiB
/// for a chip the table does not know. A device reports its own.
uint64_t nvidiaSharedPerBlockOptin(int sm);

/// tileMfma (gfx908, gfx90a, gfx94x), tileWmma (gfx11xx), tileDotInt8
/// (gfx906 and later, the 9-series and RDNA2+) for `chip` ("gfx942").
std::vector<Fact> amdTileFacts(const std::string &chip, const std::string &evidence);

/// The SPIR-V "chip" of offline compilation that stands for a Vulkan 1.3
/// device with VK_KHR_cooperative_matrix as xpujit's tier needs it (16x16x16
/// f16*f16+f32->f32 at subgroup scope, subgroups of 32; NVIDIA's driver).
inline constexpr const char *kSpirvCoopMatrixChip = "cooperative-matrix";
/// The same device with VK_NV_cooperative_matrix2's workgroup-scope matrices
/// too, with NVIDIA's 48 KiB of shared memory less the 8 KiB its driver
/// reserves beside them (the H200's answers, bench/results).
inline constexpr const char *kSpirvCoopMatrixWorkgroupChip = "cooperative-matrix-workgroup";
inline constexpr uint64_t kNvidiaWorkgroupMatrixShared = 49152 - 8192;

/// The same facts for a target given by name only (offline compilation):
/// what its chip implies (on NVIDIA with its shared memory per block), or
/// nothing for targets whose facts need a device.
std::vector<Fact> tileFactsOfChip(const rt::TargetDesc &target);

} // namespace xpu::cap
