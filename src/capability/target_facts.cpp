// Per-target capability tables, measurements and policies; see
// target_facts.h. Every entry says who decides and on what evidence.
#include "capability/target_facts.h"

#include <glob.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

namespace xpu::cap {

using C = Capability;
using By = Rule::By;

const char *targetName(TargetKind t) {
  switch (t) {
  case TargetKind::cpu: return "cpu";
  case TargetKind::nvptx: return "nvptx";
  case TargetKind::amdgcn: return "amdgcn";
  case TargetKind::spirv: return "spirv";
  }
  return "?";
}

std::optional<TargetKind> parseTargetKind(const std::string &name) {
  for (TargetKind t : {TargetKind::cpu, TargetKind::nvptx, TargetKind::amdgcn,
                       TargetKind::spirv})
    if (name == targetName(t))
      return t;
  return std::nullopt;
}

namespace {

Rule table(std::string evidence) { return {By::table, Available{}, std::move(evidence)}; }
Rule cannot(std::string reason) {
  return {By::table, Unavailable{Kind::backendStructural, std::move(reason)},
          "xpujit's table of what the target language expresses"};
}
Rule device(std::string what) { return {By::device, Unknown{}, std::move(what)}; }
Rule toolchain(std::string what) { return {By::hostToolchain, Unknown{}, std::move(what)}; }
/// Whether a toolchain keeps multiplies and adds apart is measured once per
/// device by a probe kernel and kept in the calibration store
/// (calibration/numeric_probes.cpp).
Rule measured() {
  return {By::device, Unknown{}, "contraction probe (a*b+c against unfused rounding)"};
}
/// Whether math.fma rounds once is measured too (src/calibration).
Rule fmaMeasured() {
  return {By::device, Unknown{}, "fma probe (math.fma against a correctly rounded fma)"};
}
/// A toolchain-semantic fact: decided by a measurement of the toolchain.
bool isMeasured(C c) {
  return c == C::contractionControl || c == C::fmaF32 || c == C::fmaF64;
}

bool isTypeCap(C c) { return c <= C::f64Arith; }

/// Every target has the software tile (mlir/lib/Conversion/LowerTiles.cpp).
constexpr const char *kSoftwareTile =
    "the software tile: workgroup-shared memory and vector loops (xpu-lower-tiles)";
/// Shuffles, ballots, votes, reductions and scans of waves.
bool isWaveOperation(C c) { return c >= C::waveShuffle && c <= C::waveReduce64; }

/// LLVM's host backends express every type and atomic (soft promotion for
/// f16/bf16, compare-exchange loops for float atomics).
Rule cpuRule(C c) {
  if (isTypeCap(c) || (c >= C::atomicI32 && c <= C::atomicDeviceScope))
    return table("LLVM host target: legal or legalized on every host");
  if (isWaveOperation(c))
    return table("a one-invocation wave: each wave operation is its one-lane result");
  switch (c) {
  case C::waveOps: return table("CPU runs waves of width 1");
  case C::sharedMemory: return device("shared block per worker thread");
  case C::workgroupInvocations: return device("fiber scheduler limit");
  case C::contractionControl: return measured();
  case C::fmaF32:
  case C::fmaF64: return fmaMeasured();
  case C::mathLibrary: return table("host libm, resolved in the process");
  case C::f64Math: return table("host libm has f64 forms");
  case C::matrixTiles: return table(kSoftwareTile);
  case C::tileMmaSync: case C::tileWgmma: case C::tileMfma: case C::tileWmma:
  case C::tileCoopMatrix: case C::tileCoopMatrixWorkgroup: case C::tileDotInt8:
    return cannot("the CPU target has no matrix or packed-dot unit xpujit uses; "
                  "tiles run as vectorized loops");
  default: break;
  }
  return cannot("no rule");
}

/// LLVM NVPTX; features above the base architecture depend on the device's
/// compute capability.
Rule nvptxRule(C c) {
  if (isWaveOperation(c))
    return table("shfl.sync and vote.sync on every sm_XX (redux.sync for 32-bit "
                 "integer reductions from sm_80)");
  switch (c) {
  case C::f16Arith: return device("native f16 arithmetic needs sm_53");
  case C::bf16Arith: return device("native bf16 arithmetic needs sm_80");
  case C::atomicF64Add: return device("f64 atomic add needs sm_60");
  case C::sharedMemory: return device("shared memory per block");
  case C::workgroupInvocations: return device("threads per block");
  case C::contractionControl: return measured();
  case C::fmaF32:
  case C::fmaF64: return fmaMeasured();
  case C::mathLibrary: return toolchain("libdevice bitcode from the CUDA toolkit");
  case C::f64Math: return table("libdevice has f64 forms (__nv_exp, ...)");
  case C::matrixTiles: return table(kSoftwareTile);
  case C::tileMmaSync: return device("mma.sync with f16/bf16/tf32 operands needs sm_80");
  case C::tileWgmma: return device("wgmma needs sm_90 (the sm_90a target)");
  case C::tileDotInt8: return device("dp4a needs sm_61");
  case C::tileMfma: case C::tileWmma: case C::tileCoopMatrix: case C::tileCoopMatrixWorkgroup:
    return cannot("an AMD or Vulkan matrix unit, not an NVIDIA one");
  default: break;
  }
  return table("LLVM NVPTX expresses it on every sm_XX");
}

Rule amdgcnRule(C c) {
  if (isWaveOperation(c))
    return table("ds_bpermute, ds_swizzle and ballot on gfx8 and later");
  switch (c) {
  case C::atomicF64Add: return device("f64 atomic add needs gfx90a");
  case C::sharedMemory: return device("LDS per workgroup");
  case C::workgroupInvocations: return device("work-items per workgroup");
  case C::contractionControl: return measured();
  case C::fmaF32:
  case C::fmaF64: return fmaMeasured();
  case C::mathLibrary: return toolchain("ocml/ockl from the AMD device libraries");
  case C::f64Math: return table("ocml has f64 forms (__ocml_exp_f64, ...)");
  case C::matrixTiles: return table(kSoftwareTile);
  case C::tileMfma: return device("MFMA needs gfx908, gfx90a or gfx94x");
  case C::tileWmma: return device("WMMA needs gfx11");
  case C::tileDotInt8: return device("v_dot4_i32_i8 needs gfx906 or later");
  case C::tileMmaSync: case C::tileWgmma: case C::tileCoopMatrix: case C::tileCoopMatrixWorkgroup:
    return cannot("an NVIDIA or Vulkan matrix unit, not an AMD one");
  default: break;
  }
  return table("LLVM AMDGPU expresses it on gfx9 and later");
}

/// SPIR-V for Vulkan: the core guarantees 32-bit types and atomics; wider,
/// narrower and float atomics are device features.
Rule spirvRule(C c) {
  switch (c) {
  case C::i8Storage: return device("storageBuffer8BitAccess");
  case C::i8Arith: return device("shaderInt8");
  case C::i16Storage: return device("storageBuffer16BitAccess");
  case C::i16Arith: return device("shaderInt16");
  case C::i64Storage:
  case C::i64Arith: return device("shaderInt64");
  case C::f16Storage: return device("storageBuffer16BitAccess");
  case C::f16Arith: return device("shaderFloat16");
  case C::bf16Storage:
  case C::bf16Arith:
    return cannot("the SPIR-V environment xpujit targets for Vulkan has no bfloat16 type");
  case C::f64Storage:
  case C::f64Arith: return device("shaderFloat64");
  case C::atomicI32: return table("core SPIR-V atomics on 32-bit integers");
  case C::atomicI64: return device("shaderBufferInt64Atomics");
  case C::atomicF32Add: return device("shaderBufferFloat32AtomicAdd");
  case C::atomicF64Add: return device("shaderBufferFloat64AtomicAdd");
  case C::atomicDeviceScope: return table("Device scope is core in the Vulkan memory model");
  case C::waveOps: return device("subgroup size");
  case C::waveShuffle: return device("subgroup shuffle and ballot operations");
  case C::waveBallot: return device("subgroup ballot operations");
  case C::waveVote: return device("subgroup vote operations");
  case C::waveReduce: return device("subgroup arithmetic operations");
  case C::waveReduce64: return device("shaderSubgroupExtendedTypes");
  case C::sharedMemory: return device("maxComputeSharedMemorySize");
  case C::workgroupInvocations: return device("maxComputeWorkGroupInvocations");
  case C::contractionControl: return measured();
  case C::fmaF32:
  case C::fmaF64: return fmaMeasured();
  case C::mathLibrary: return table("GLSL.std.450 extended instructions");
  case C::f64Math:
    return cannot("GLSL.std.450's exponential, logarithmic, trigonometric, "
                  "hyperbolic and power functions take 16- and 32-bit floats only");
  case C::matrixTiles: return table(kSoftwareTile);
  case C::tileCoopMatrix: return device("VK_KHR_cooperative_matrix");
  case C::tileCoopMatrixWorkgroup:
    return device("VK_NV_cooperative_matrix2 (cooperativeMatrixWorkgroupScope)");
  case C::tileDotInt8: return device("shaderIntegerDotProduct");
  case C::tileMmaSync: case C::tileWgmma: case C::tileMfma: case C::tileWmma:
    return cannot("a vendor instruction SPIR-V does not name; Vulkan reaches "
                  "matrix units through cooperative matrices");
  default: break;
  }
  return cannot("no rule");
}

} // namespace

Rule targetRule(TargetKind target, Capability c) {
  switch (target) {
  case TargetKind::cpu: return cpuRule(c);
  case TargetKind::nvptx: return nvptxRule(c);
  case TargetKind::amdgcn: return amdgcnRule(c);
  case TargetKind::spirv: return spirvRule(c);
  }
  return cannot("unknown target");
}

//===----------------------------------------------------------------------===//
// Measurements and policies
//===----------------------------------------------------------------------===//

const std::vector<Measurement> &measurements() {
  static const std::vector<Measurement> m = {
      {"amdgcn.f16-narrowing-fused", true,
       "LLVM's AMDGPU backend fuses an f32 multiply into the f32->f16 "
       "narrowing: 620 of 63488 results differ from a correctly rounded "
       "reference (RX 7900 XTX, gfx1100, through hiprtc), as reported in the "
       "capability-model specification; not yet re-measured by xpujit"},
  };
  return m;
}

static const Measurement *measurement(const char *name) {
  for (const Measurement &m : measurements())
    if (m.name == name)
      return &m;
  return nullptr;
}

const std::vector<std::pair<TargetKind, Policy>> &policies() {
  static const std::vector<std::pair<TargetKind, Policy>> p = {
      {TargetKind::amdgcn,
       {"amdgcn.no-f16-arith", C::f16Arith, measurement("amdgcn.f16-narrowing-fused"),
        "f16 arithmetic is refused on AMD targets: its results would not "
        "match other backends"}},
  };
  return p;
}

//===----------------------------------------------------------------------===//
// Host toolchain probes
//===----------------------------------------------------------------------===//

std::string cudaToolkitRoot() {
  const char *env = std::getenv("CUDA_PATH");
  return env && *env ? env : "/usr/local/cuda";
}

std::string libdevicePath() { return cudaToolkitRoot() + "/nvvm/libdevice/libdevice.10.bc"; }

namespace {
bool readable(const std::string &path) { return ::access(path.c_str(), R_OK) == 0; }

/// The directories `pattern` names, sorted (a pattern without wildcards
/// names itself).
std::vector<std::string> expand(const std::string &pattern) {
  if (pattern.find('*') == std::string::npos)
    return {pattern};
  std::vector<std::string> dirs;
  glob_t g;
  if (::glob(pattern.c_str(), GLOB_ONLYDIR, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i)
      dirs.push_back(g.gl_pathv[i]);
  ::globfree(&g);
  if (dirs.empty())
    dirs.push_back(pattern);
  return dirs;
}
} // namespace

const AmdDeviceLibraries &amdDeviceLibraries() {
  static const AmdDeviceLibraries libs = [] {
    std::vector<std::string> patterns;
    if (const char *root = std::getenv("ROCM_PATH"); root && *root) {
      patterns = {std::string(root) + "/amdgcn/bitcode",
                  std::string(root) + "/lib/llvm/lib/clang/*/lib/amdgcn/bitcode"};
    } else {
      // The bitcode is for the GPU, so any multiarch directory will do.
      patterns = {"/usr/lib/*-linux-gnu*/amdgcn/bitcode", "/usr/lib/amdgcn/bitcode",
                  "/opt/rocm/amdgcn/bitcode",
                  "/opt/rocm/lib/llvm/lib/clang/*/lib/amdgcn/bitcode"};
    }
    AmdDeviceLibraries found;
    for (const std::string &pattern : patterns)
      for (const std::string &dir : expand(pattern)) {
        found.searched.push_back(dir + "/ocml.bc");
        if (found.dir.empty() && readable(dir + "/ocml.bc"))
          found.dir = dir;
      }
    return found;
  }();
  return libs;
}

std::optional<Fact> hostToolchainFact(TargetKind target, Capability c) {
  if (c != C::mathLibrary)
    return std::nullopt;
  if (target == TargetKind::nvptx) {
    std::string path = libdevicePath();
    if (readable(path))
      return Fact{c, Kind::hostToolchain, Available{}, "found " + path};
    return Fact{c, Kind::hostToolchain,
                Unavailable{Kind::hostToolchain,
                            "libdevice not found (looked for " + path +
                                "; set CUDA_PATH)"},
                "access(" + path + ")"};
  }
  if (target == TargetKind::amdgcn) {
    const AmdDeviceLibraries &libs = amdDeviceLibraries();
    std::string looked;
    for (const std::string &p : libs.searched)
      looked += (looked.empty() ? "" : ", ") + p;
    if (!libs.dir.empty())
      return Fact{c, Kind::hostToolchain, Available{}, "found " + libs.dir + "/ocml.bc"};
    return Fact{c, Kind::hostToolchain,
                Unavailable{Kind::hostToolchain,
                            "the AMD device libraries were not found (looked for " +
                                looked + "; install rocm-device-libs or set ROCM_PATH)"},
                "access(" + looked + ")"};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Resolution
//===----------------------------------------------------------------------===//

FactTable resolveFacts(const rt::TargetDesc &target,
                       const std::vector<Fact> &deviceFacts) {
  FactTable facts;
  for (unsigned i = 0; i < unsigned(C::count_); ++i) {
    C c = C(i);
    Rule rule = targetRule(target.kind, c);
    Fact fact{c, Kind::backendStructural, rule.verdict, rule.evidence, std::nullopt};
    if (rule.by == By::device) {
      Kind kind = isMeasured(c) ? Kind::toolchainSemantic : Kind::deviceOptional;
      fact = Fact{c, kind,
                  Unknown{"the device reported no " + rule.evidence},
                  "no query recorded (" + rule.evidence + ")", std::nullopt};
      for (const Fact &d : deviceFacts)
        if (d.capability == c)
          fact = d;
    } else if (rule.by == By::hostToolchain) {
      if (auto probed = hostToolchainFact(target.kind, c))
        fact = *probed;
      else
        fact = Fact{c, Kind::hostToolchain, Unknown{"no probe for " + rule.evidence},
                    rule.evidence, std::nullopt};
    }
    for (const auto &[t, policy] : policies())
      if (t == target.kind && policy.capability == c && permits(fact.verdict))
        fact = Fact{c, Kind::policy,
                    Unavailable{Kind::policy, policy.decision + " (policy " +
                                                  policy.name + ", resting on " +
                                                  policy.restsOn->name + ")"},
                    policy.restsOn->evidence, std::nullopt};
    facts.push_back(std::move(fact));
  }
  return facts;
}

} // namespace xpu::cap
