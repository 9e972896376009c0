// Manifest facts from a Vulkan driver's pipeline statistics
// (VK_KHR_pipeline_executable_properties, spec §17.8 manifests): the
// statistics whose names and descriptions plainly say registers, spills,
// shared or private memory fill the footprint, each citing the statistic
// it came from; every other statistic is ignored, never interpreted.
#pragma once

#include "xpu/KernelABI.h"

#include <string>
#include <vector>

namespace xpu::vk {

class VulkanDevice;
struct KernelProgram;

/// One statistic as the driver names it; integer statistics only.
struct PipelineStatistic {
  std::string name, description;
  bool integer = false; ///< INT64 or UINT64 (others are never mapped)
  uint64_t value = 0;
};

/// Which footprint fact a statistic denotes, or null: registers (a count
/// per invocation: "Registers", "VGPRs"), shared memory bytes per
/// workgroup, spilled and private (local, scratch, stack) bytes per
/// invocation. A size whose name or description does not say bytes, or,
/// for a per-invocation one, does not say per invocation (or thread, or
/// lane) or says per subgroup, wave or workgroup, is not mapped.
abi::CodeFact *footprintFactFor(const PipelineStatistic &s, abi::Footprint &f);

/// Fills `f` from `stats` (of the pipeline `what` names: "workgroup
/// 64x1x1"); a fact two statistics give differently stays absent. Facts no
/// statistic gives are marked absent with why.
void mapStatistics(const std::vector<PipelineStatistic> &stats, const std::string &what,
                   abi::Footprint &f);

/// The compute executable's statistics of `program`'s pipeline for its
/// declared workgroup size (when it declares none: of a shape launched
/// already, else 64x1x1), and `what` (that pipeline). False, with `why`, when the device does not capture
/// them.
bool readStatistics(VulkanDevice &device, KernelProgram &program,
                    std::vector<PipelineStatistic> &out, std::string &what,
                    std::string &why);

} // namespace xpu::vk
