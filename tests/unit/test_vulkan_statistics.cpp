// Manifest facts from Vulkan pipeline statistics without a driver that
// offers them (Debian 12's lavapipe does not list the extension): the
// statistic sets RADV and ANV report for a compute pipeline, and names a
// driver could use, mapped to the footprint: what plainly denotes a fact is
// taken with its name as the source; sizes per subgroup or per hardware
// thread, counts of spilled registers and everything else are ignored.
#include "../../backends/vulkan/vulkan_statistics.h"

#include <doctest/doctest.h>

#include <random>

using xpu::vk::PipelineStatistic;

namespace {

PipelineStatistic stat(const char *name, const char *description, uint64_t value) {
  return {name, description, true, value};
}

std::string source(const xpu::abi::CodeFact &f) { return f.source; }

} // namespace

TEST_CASE("vulkan statistics: RADV's compute statistics") {
  std::mt19937 rng(std::random_device{}());
  uint64_t vgprs = rng() % 256 + 1, lds = rng() % 65536, any = rng();
  std::vector<PipelineStatistic> radv = {
      stat("Driver pipeline hash", "Driver pipeline hash used by RGP", any),
      stat("SGPRs", "Number of SGPR registers allocated per subgroup", any),
      stat("VGPRs", "Number of VGPR registers allocated per subgroup", vgprs),
      stat("Spilled SGPRs", "Number of SGPR registers spilled per subgroup", any),
      stat("Spilled VGPRs", "Number of VGPR registers spilled per subgroup", any),
      stat("PrivMem VGPRs", "Number of VGPRs stored in private memory per subgroup", any),
      stat("Code size", "Code size in bytes", any),
      stat("LDS size", "LDS size in bytes per workgroup", lds),
      stat("Scratch size", "Private memory in bytes per subgroup", any),
      stat("Subgroups per SIMD", "The maximum number of subgroups in flight on a SIMD unit",
           any),
      stat("Pre-Sched VGPRs", "VGPR usage before scheduling", any),
  };
  xpu::abi::Footprint f;
  xpu::vk::mapStatistics(radv, "the pipeline for workgroup 64x1x1", f);
  REQUIRE(f.registers.known);
  CHECK(f.registers.value == vgprs);
  CHECK(source(f.registers) ==
        "vkGetPipelineExecutableStatisticsKHR(\"VGPRs\"), the pipeline for workgroup 64x1x1");
  REQUIRE(f.sharedBytes.known);
  CHECK(f.sharedBytes.value == lds);
  CHECK(source(f.sharedBytes).find("\"LDS size\"") != std::string::npos);
  // Spilled registers are counted, not bytes; scratch is per subgroup.
  CHECK(!f.spillBytes.known);
  CHECK(!f.localBytes.known);
  CHECK(source(f.localBytes).find("none of the driver's pipeline statistics") != std::string::npos);
  CHECK(!f.maxWorkgroupSize.known);
  CHECK(f.maxWorkgroupSize.source.empty()); // not the statistics' to say
}

TEST_CASE("vulkan statistics: ANV's compute statistics give shared memory only") {
  std::vector<PipelineStatistic> anv = {
      stat("Instruction Count", "Number of GEN instructions in the final generated shader "
                                "executable.", 120),
      stat("SEND Count", "Number of instructions in the final generated shader executable "
                         "which access external units such as the constant cache or the "
                         "sampler.", 6),
      stat("Loop Count", "Number of loops (not unrolled) in the final generated shader "
                         "executable.", 1),
      stat("Cycle Count", "Estimate of the number of EU cycles required to execute the "
                          "final generated executable.", 900),
      stat("Spill Count", "Number of scratch spill operations.", 4),
      stat("Fill Count", "Number of scratch fill operations.", 4),
      stat("Scratch Memory Size", "Number of bytes of scratch memory required by the "
                                  "generated shader executable.", 1024),
      stat("Workgroup Memory Size", "Number of bytes of workgroup shared memory used by "
                                    "this shader including any padding.", 4096),
      stat("GRF registers", "Number of GRF registers required by the shader.", 128),
      stat("Max live registers", "Maximum number of registers used across the entire "
                                 "shader.", 90),
  };
  xpu::abi::Footprint f;
  xpu::vk::mapStatistics(anv, "w", f);
  CHECK(f.sharedBytes.known);
  CHECK(f.sharedBytes.value == 4096);
  // Scratch per hardware thread, GRFs per hardware thread, spill counts.
  CHECK(!f.registers.known);
  CHECK(!f.spillBytes.known);
  CHECK(!f.localBytes.known);
}

TEST_CASE("vulkan statistics: plain names map, the rest is never guessed") {
  using xpu::abi::Footprint;
  auto mapsTo = [](PipelineStatistic s) -> const char * {
    Footprint f;
    xpu::abi::CodeFact *fact = xpu::vk::footprintFactFor(s, f);
    if (fact == &f.registers)
      return "registers";
    if (fact == &f.spillBytes)
      return "spill";
    if (fact == &f.sharedBytes)
      return "shared";
    if (fact == &f.localBytes)
      return "local";
    return "none";
  };
  CHECK(std::string(mapsTo(stat("Registers", "Registers per thread", 1))) == "registers");
  CHECK(std::string(mapsTo(stat("Register Count", "", 1))) == "registers");
  CHECK(std::string(mapsTo(stat("Spilled Bytes", "Bytes spilled per invocation", 1))) ==
        "spill");
  CHECK(std::string(mapsTo(stat("Shared Memory", "Shared memory in bytes", 1))) == "shared");
  CHECK(std::string(mapsTo(stat("Local Memory Size", "Bytes of local memory per thread", 1))) ==
        "local");
  CHECK(std::string(mapsTo(stat("Stack size", "Stack bytes per invocation", 1))) == "local");
  // Without bytes said, per-group sizes, counts, limits and other names: ignored.
  CHECK(std::string(mapsTo(stat("Shared Memory", "Shared memory used", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Local Memory Size", "local memory", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Stack size", "Stack bytes per subgroup", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Spilled registers", "Registers spilled", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Max registers", "The register limit", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Uniform registers", "", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Register bytes", "in bytes", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Instructions", "Registers read", 1))) == "none");
  CHECK(std::string(mapsTo(stat("Binary size", "Size in bytes", 1))) == "none");
  CHECK(std::string(mapsTo({"Registers", "as text", false, 0})) == "none");
}

TEST_CASE("vulkan statistics: two statistics that disagree give no fact") {
  xpu::abi::Footprint f;
  xpu::vk::mapStatistics({stat("Registers", "", 32), stat("Register Count", "", 40),
                          stat("Registers", "", 32)},
                         "w", f);
  CHECK(!f.registers.known);
  CHECK(f.registers.source.find("disagree") != std::string::npos);
  xpu::abi::Footprint same;
  xpu::vk::mapStatistics({stat("Registers", "", 32), stat("Register Count", "", 32)}, "w",
                         same);
  CHECK(same.registers.known);
  CHECK(same.registers.value == 32);
  // A fact the code generator already gave is kept.
  xpu::abi::Footprint given;
  given.sharedBytes = {true, 256, "xpujit's layout"};
  xpu::vk::mapStatistics({stat("LDS size", "LDS size in bytes per workgroup", 512)}, "w",
                         given);
  CHECK(given.sharedBytes.value == 256);
}
