// Pipeline statistics into manifest facts; see vulkan_statistics.h.
#include "vulkan_statistics.h"
#include "vulkan_kernels.h"

#include "runtime/log.h"

#include <algorithm>
#include <cctype>

namespace xpu::vk {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool has(const std::string &text, const char *word) {
  return text.find(word) != std::string::npos;
}

} // namespace

abi::CodeFact *footprintFactFor(const PipelineStatistic &s, abi::Footprint &f) {
  if (!s.integer)
    return nullptr;
  std::string n = lower(s.name), both = n + " " + lower(s.description);
  bool bytes = has(both, "byte");
  // Per subgroup, wave or workgroup is not per invocation (RADV's scratch
  // size is per subgroup; Intel's is per hardware thread and says neither).
  bool perGroup = has(both, "subgroup") || has(both, "wave") || has(both, "workgroup");
  bool perInvocation =
      has(both, "invocation") || has(both, "per thread") || has(both, "per lane");
  if (has(n, "spill"))
    return bytes && perInvocation && !perGroup ? &f.spillBytes : nullptr;
  // Scalar (per-wave) registers, Intel's GRFs (per hardware thread),
  // counts before scheduling, live or largest counts, limits and registers
  // holding private memory are not a kernel's registers per invocation.
  if (has(n, "register") || n == "vgprs" || n == "vgpr count") {
    for (const char *other : {"sgpr", "scalar", "uniform", "grf", "pre-sched", "privmem",
                              "max", "live", "limit", "available"})
      if (has(n, other))
        return nullptr;
    return bytes ? nullptr : &f.registers;
  }
  if (has(n, "shared") || n.rfind("lds", 0) == 0 || has(n, "workgroup memory"))
    return bytes && !has(both, "invocation") ? &f.sharedBytes : nullptr;
  if (has(n, "local memory") || has(n, "private memory") || has(n, "scratch") ||
      has(n, "stack"))
    return bytes && perInvocation && !perGroup ? &f.localBytes : nullptr;
  return nullptr;
}

void mapStatistics(const std::vector<PipelineStatistic> &stats, const std::string &what,
                   abi::Footprint &f) {
  abi::Footprint from;
  std::vector<abi::CodeFact *> conflicting;
  for (const PipelineStatistic &s : stats) {
    abi::CodeFact *fact = footprintFactFor(s, from);
    if (!fact || std::count(conflicting.begin(), conflicting.end(), fact))
      continue;
    std::string source = "vkGetPipelineExecutableStatisticsKHR(\"" + s.name + "\"), " + what;
    if (!fact->known) {
      *fact = {true, s.value, source};
    } else if (fact->value != s.value) {
      *fact = {false, 0,
               "the driver's pipeline statistics disagree (" + fact->source + ": " +
                   std::to_string(fact->value) + ", \"" + s.name + "\": " +
                   std::to_string(s.value) + ")"};
      conflicting.push_back(fact);
    }
  }
  abi::CodeFact abi::Footprint::*fields[] = {&abi::Footprint::registers,
                                             &abi::Footprint::spillBytes,
                                             &abi::Footprint::sharedBytes,
                                             &abi::Footprint::localBytes};
  for (auto field : fields) {
    abi::CodeFact &mapped = from.*field, &out = f.*field;
    if (mapped.known && !out.known)
      out = mapped;
    else if (!out.known && out.source.empty())
      out.source = mapped.source.empty()
                       ? "none of the driver's pipeline statistics "
                         "(VK_KHR_pipeline_executable_properties, " + what + ") names it"
                       : mapped.source;
  }
}

bool readStatistics(VulkanDevice &device, KernelProgram &program,
                    std::vector<PipelineStatistic> &out, std::string &what,
                    std::string &why) {
  if (!device.captureStatistics) {
    why = device.info.hasExecutableStatistics
              ? "the driver lacks vkGetPipelineExecutableStatisticsKHR"
              : "the driver offers no VK_KHR_pipeline_executable_properties";
    return false;
  }
  // A pipeline launched already, else the declared shape, else 64x1x1: a
  // manifest asked for before any launch costs one pipeline. A kernel
  // specialized on its arguments has no pipeline to describe before it is
  // launched with some.
  uint32_t block[3] = {64, 1, 1};
  std::vector<uint8_t> args;
  bool made = program.madePipeline(block, args);
  if (!made && !program.specialized.empty()) {
    why = "its pipelines are specialized on the values of some of its arguments (the "
          "strides of its tiles): the statistics are known once it has been launched";
    return false;
  }
  if (!made && program.info.workgroupSize)
    for (int d = 0; d < 3; ++d)
      block[d] = (*program.info.workgroupSize)[d];
  what = "the pipeline for workgroup " + std::to_string(block[0]) + "x" +
         std::to_string(block[1]) + "x" + std::to_string(block[2]);
  if (!program.specialized.empty())
    what += " specialized on the arguments of one of its launches";
  VkPipeline pipeline;
  if (rt::Status st = program.pipeline(block, args.data(), pipeline); !st.isOk()) {
    why = st.message();
    return false;
  }
  VkPipelineInfoKHR pipelineInfo{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  pipelineInfo.pipeline = pipeline;
  uint32_t count = 0;
  if (device.getExecutables(device.device, &pipelineInfo, &count, nullptr) != VK_SUCCESS) {
    why = "vkGetPipelineExecutablePropertiesKHR failed";
    return false;
  }
  std::vector<VkPipelineExecutablePropertiesKHR> executables(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  device.getExecutables(device.device, &pipelineInfo, &count, executables.data());
  for (uint32_t e = 0; e < count; ++e) {
    if (!(executables[e].stages & VK_SHADER_STAGE_COMPUTE_BIT))
      continue;
    VkPipelineExecutableInfoKHR exec{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    exec.pipeline = pipeline;
    exec.executableIndex = e;
    uint32_t n = 0;
    if (device.getStatistics(device.device, &exec, &n, nullptr) != VK_SUCCESS)
      continue;
    std::vector<VkPipelineExecutableStatisticKHR> stats(
        n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    device.getStatistics(device.device, &exec, &n, stats.data());
    rt::log(rt::LogLevel::debug, "vulkan: '" + program.info.name + "' executable \"" +
                                     executables[e].name + "\" of " + what + ": " +
                                     std::to_string(n) + " statistics");
    for (uint32_t i = 0; i < n; ++i) {
      PipelineStatistic s;
      s.name = stats[i].name;
      s.description = stats[i].description;
      switch (stats[i].format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        s.integer = stats[i].value.i64 >= 0;
        s.value = uint64_t(stats[i].value.i64);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        s.integer = true;
        s.value = stats[i].value.u64;
        break;
      default:
        break;
      }
      rt::log(rt::LogLevel::debug,
              "vulkan: '" + program.info.name + "' statistic \"" + s.name + "\" = " +
                  (s.integer ? std::to_string(s.value) : std::string("(not an integer)")) +
                  " (" + s.description + ")");
      out.push_back(std::move(s));
    }
  }
  return true;
}

} // namespace xpu::vk
