// Tile-tier hardware facts from chip names; see tile_facts.h.
#include "capability/tile_facts.h"

namespace xpu::cap {

using C = Capability;

namespace {

Fact fact(C c, bool has, const std::string &why, const std::string &evidence) {
  if (has)
    return {c, Kind::deviceOptional, Available{}, evidence};
  return {c, Kind::deviceOptional, Unavailable{Kind::deviceOptional, why}, evidence};
}

bool startsWith(const std::string &s, const char *prefix) {
  return s.rfind(prefix, 0) == 0;
}

} // namespace

std::vector<Fact> nvidiaTileFacts(int major, int minor, const std::string &evidence) {
  int sm = major * 10 + minor;
  std::string is = "; the device is sm_" + std::to_string(sm);
  return {
      fact(C::tileMmaSync, sm >= 80, "mma.sync for f16, bf16 and tf32 needs sm_80" + is,
           evidence),
      // wgmma belongs to sm_90a, whose code runs on compute capability 9.0
      // only (not on later architectures).
      fact(C::tileWgmma, sm == 90, "wgmma needs compute capability 9.0 (sm_90a)" + is,
           evidence),
      fact(C::tileDotInt8, sm >= 61, "dp4a needs sm_61" + is, evidence),
  };
}

uint64_t nvidiaSharedPerBlockOptin(int sm) {
  // The CUDA C++ Programming Guide's table of compute capabilities.
  switch (sm) {
  case 80:
  case 87: return 163 * 1024;
  case 86:
  case 89:
  case 120:
  case 121: return 99 * 1024;
  case 90:
  case 100:
  case 103: return 227 * 1024;
  default: return 48 * 1024;
  }
}

std::vector<Fact> amdTileFacts(const std::string &chip, const std::string &evidence) {
  bool mfma = chip == "gfx908" || chip == "gfx90a" || startsWith(chip, "gfx94") ||
              startsWith(chip, "gfx95");
  bool wmma = startsWith(chip, "gfx11") || startsWith(chip, "gfx12");
  // v_dot4_i32_i8 (gfx906, gfx908, gfx90a, gfx94x) and v_dot4_i32_iu8
  // (gfx11, gfx12); gfx10.3 has v_dot4_i32_i8 too.
  bool dot = chip == "gfx906" || mfma || wmma || startsWith(chip, "gfx103");
  std::string is = "; the device is " + chip;
  return {
      fact(C::tileMfma, mfma, "MFMA needs gfx908, gfx90a or gfx94x" + is, evidence),
      fact(C::tileWmma, wmma, "WMMA needs gfx11 or gfx12" + is, evidence),
      fact(C::tileDotInt8, dot, "packed 8-bit dot products need gfx906, gfx908, "
                                "gfx90a, gfx94x, gfx103x or gfx11" + is,
           evidence),
  };
}

std::vector<Fact> tileFactsOfChip(const rt::TargetDesc &target) {
  std::string evidence = "the target chip " + target.chip + " (offline compilation)";
  if (target.kind == rt::TargetDesc::Kind::nvptx && startsWith(target.chip, "sm_")) {
    int sm = std::atoi(target.chip.c_str() + 3);
    std::vector<Fact> facts = nvidiaTileFacts(sm / 10, sm % 10, evidence);
    facts.push_back({C::sharedMemory, Kind::deviceOptional, Available{},
                     evidence + ": NVIDIA's shared memory per block with opt-in",
                     nvidiaSharedPerBlockOptin(sm)});
    return facts;
  }
  if (target.kind == rt::TargetDesc::Kind::amdgcn)
    return amdTileFacts(target.chip, evidence);
  if (target.kind == rt::TargetDesc::Kind::spirv && target.chip == kSpirvCoopMatrixChip)
    return {fact(C::tileCoopMatrix, true, "", evidence)};
  if (target.kind == rt::TargetDesc::Kind::spirv && target.chip == kSpirvCoopMatrixWorkgroupChip) {
    Fact workgroup = fact(C::tileCoopMatrixWorkgroup, true, "", evidence);
    workgroup.limit = kNvidiaWorkgroupMatrixShared;
    return {fact(C::tileCoopMatrix, true, "", evidence), workgroup};
  }
  return {};
}

} // namespace xpu::cap
