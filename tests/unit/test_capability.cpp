// Unit tests of the capability model: the verdict algebra, fact resolution
// with fake device probes, both gates, policies, quantities, and the
// requirement analysis that feeds them.
#include "capability/gate.h"
#include "unit.h"

#include <doctest/doctest.h>

using namespace xpu;
using namespace xpu::cap;

namespace {

rt::TargetDesc targetOf(TargetKind kind) {
  rt::TargetDesc t;
  t.kind = kind;
  return t;
}

/// What a Vulkan device's probes report about f64.
Fact f64Fact(bool supported) {
  Verdict v = supported ? Verdict(Available{})
                        : Verdict(Unavailable{Kind::deviceOptional,
                                              "reports shaderFloat64=false"});
  return {Capability::f64Arith, Kind::deviceOptional, v,
          "vkGetPhysicalDeviceFeatures: shaderFloat64=" +
              std::string(supported ? "1" : "0")};
}

const char *kF64 = R"(
  xpu.kernel @dscale(%out: !xpu.buffer<f64>, %s: f64) {
    %i = xpu.global_id x
    %v = xpu.load %out[%i] : !xpu.buffer<f64>
    %r = arith.mulf %v, %s : f64
    xpu.store %r, %out[%i] : !xpu.buffer<f64>
    xpu.return
  })";

} // namespace

TEST_CASE("permits: only available lets a kernel run") {
  CHECK(permits(Available{}));
  CHECK_FALSE(permits(Unavailable{Kind::policy, "no"}));
  CHECK_FALSE(permits(Unknown{"never probed"}));
  CHECK(std::string(verdictName(Unknown{})) == "unknown");
}

TEST_CASE("requirement analysis finds what a kernel needs") {
  unit::Compiler c;
  auto module = c.parse(R"(
    xpu.func @helper(%b: !xpu.buffer<f32>, %i: index) {
      %one = arith.constant 1.0 : f32
      %o = xpu.atomic_rmw fadd %one, %b[%i] relaxed device : !xpu.buffer<f32>
      xpu.return
    }
    xpu.kernel @k(%a: !xpu.buffer<i64>, %h: !xpu.buffer<f16, ro>, %f: !xpu.buffer<f32>)
        attributes {workgroup_size = array<i64: 64, 2, 1>} {
      %i = xpu.global_id x
      %x = xpu.load %a[%i] : !xpu.buffer<i64>
      %y = arith.muli %x, %x : i64
      xpu.store %y, %a[%i] : !xpu.buffer<i64>
      %hv = xpu.load %h[%i] : !xpu.buffer<f16, ro>
      %hf = arith.extf %hv : f16 to f32
      %e = math.exp %hf : f32
      %w = xpu.wave_width
      %s = xpu.alloc : !xpu.buffer<100xi32, shared>
      xpu.call @helper(%f, %i) : (!xpu.buffer<f32>, index) -> ()
      xpu.return
    })");
  REQUIRE(module);
  auto reqs = analyzeRequirements(*module);
  REQUIRE(reqs.size() == 1);
  const auto &n = reqs[0].needs;
  CHECK(n.count(Capability::i64Storage));
  CHECK(n.count(Capability::i64Arith));
  CHECK(n.count(Capability::f16Storage));
  CHECK_FALSE(n.count(Capability::f16Arith)); // only loaded and widened
  CHECK(n.count(Capability::atomicF32Add));   // through the helper
  CHECK(n.count(Capability::atomicDeviceScope));
  CHECK(n.count(Capability::waveOps));
  CHECK(n.count(Capability::mathLibrary));
  CHECK(n.count(Capability::contractionControl));
  CHECK(n.count(Capability::sharedMemory));
  CHECK(reqs[0].sharedBytes == 400);
  CHECK(reqs[0].workgroupInvocations == 128);
  CHECK_FALSE(n.count(Capability::f64Arith));
  CHECK(reqs[0].whereNeeded(Capability::i64Arith).find(":11:") != std::string::npos);
}

TEST_CASE("a device-optional fact nobody probed is unknown, and refuses") {
  FactTable facts = resolveFacts(targetOf(TargetKind::spirv), {});
  const Fact &f = facts[size_t(Capability::f64Arith)];
  CHECK(f.kind == Kind::deviceOptional);
  CHECK(std::holds_alternative<Unknown>(f.verdict));

  unit::Compiler c;
  auto reqs = analyzeRequirements(*c.parse(kF64));
  DiagnosticList diags;
  rt::Status st = deviceGate(facts, "vulkan device 'fake'", reqs, diags);
  CHECK(st.code() == XPU_ERROR_REFUSED);
  REQUIRE_FALSE(diags.empty());
  bool sawUnknown = false;
  for (const auto &d : diags)
    if (d.code == "XPU-CAP002" && d.message.find("f64") != std::string::npos)
      sawUnknown = true;
  CHECK(sawUnknown);
}

TEST_CASE("f64 refused where the probe says no, with the evidence; admitted where it says yes") {
  unit::Compiler c;
  auto reqs = analyzeRequirements(*c.parse(kF64));
  // Storage and contraction are probed available so only arithmetic decides.
  Fact storage{Capability::f64Storage, Kind::deviceOptional, Available{},
               "vkGetPhysicalDeviceFeatures: shaderFloat64=1"};
  Measurement honored{"fake.no-contraction", true, "measured in this test"};
  (void)honored;

  DiagnosticList diags;
  FactTable no = resolveFacts(targetOf(TargetKind::spirv), {f64Fact(false), storage});
  no[size_t(Capability::contractionControl)].verdict = Available{};
  rt::Status st = deviceGate(no, "vulkan device 'llvmpipe'", reqs, diags);
  CHECK(st.code() == XPU_ERROR_REFUSED);
  CHECK(st.message().find("XPU-CAP001: kernel 'dscale' needs f64 arithmetic; vulkan "
                          "device 'llvmpipe': reports shaderFloat64=false "
                          "(device-optional; vkGetPhysicalDeviceFeatures: "
                          "shaderFloat64=0)") != std::string::npos);
  CHECK(diags.size() == 1);
  CHECK(diags[0].line == 5); // the multiplication

  diags.clear();
  FactTable yes = resolveFacts(targetOf(TargetKind::spirv), {f64Fact(true), storage});
  yes[size_t(Capability::contractionControl)].verdict = Available{};
  CHECK(deviceGate(yes, "vulkan device 'llvmpipe'", reqs, diags).isOk());
  CHECK(diags.empty());
}

TEST_CASE("the static gate refuses what a target language cannot express") {
  unit::Compiler c;
  auto reqs = analyzeRequirements(*c.parse(R"(
    xpu.kernel @k(%a: !xpu.buffer<bf16>) {
      %i = xpu.global_id x
      %v = xpu.load %a[%i] : !xpu.buffer<bf16>
      xpu.store %v, %a[%i] : !xpu.buffer<bf16>
      xpu.return
    })"));
  DiagnosticList diags;
  rt::Status st = staticGate(TargetKind::spirv, reqs, diags);
  CHECK(st.code() == XPU_ERROR_REFUSED);
  CHECK(st.message().find("XPU-CAP001: kernel 'k' needs bf16 in memory; target "
                          "spirv cannot express it") != std::string::npos);
  diags.clear();
  CHECK(staticGate(TargetKind::cpu, reqs, diags).isOk());
  CHECK(staticGate(TargetKind::nvptx, reqs, diags).isOk());
}

TEST_CASE("a policy refuses on the authority of a named measurement") {
  FactTable facts = resolveFacts(targetOf(TargetKind::amdgcn), {});
  const Fact &f = facts[size_t(Capability::f16Arith)];
  CHECK(f.kind == Kind::policy);
  auto *u = std::get_if<Unavailable>(&f.verdict);
  REQUIRE(u);
  CHECK(u->kind == Kind::policy);
  CHECK(u->reason.find("resting on amdgcn.f16-narrowing-fused") != std::string::npos);
  // Every policy names a measurement that exists.
  for (const auto &[target, policy] : policies()) {
    REQUIRE(policy.restsOn);
    CHECK_FALSE(policy.restsOn->evidence.empty());
  }
  // On other targets f16 arithmetic is not refused by that policy.
  CHECK(resolveFacts(targetOf(TargetKind::cpu), {})[size_t(Capability::f16Arith)].kind !=
        Kind::policy);
}

TEST_CASE("quantities: a kernel needing more shared memory than the limit is refused") {
  KernelRequirements req;
  req.kernel = "big";
  req.sharedBytes = 65536;
  Fact limit{Capability::sharedMemory, Kind::deviceOptional, Available{},
             "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK)=49152", 49152};
  Verdict v = verdictFor(req, limit);
  auto *u = std::get_if<Unavailable>(&v);
  REQUIRE(u);
  CHECK(u->reason == "needs 65536 bytes of shared memory; the limit is 49152");
  req.sharedBytes = 49152;
  CHECK(permits(verdictFor(req, limit)));
}

TEST_CASE("host-toolchain facts come from probes, with what was looked for") {
  auto f = hostToolchainFact(TargetKind::nvptx, Capability::mathLibrary);
  REQUIRE(f);
  CHECK(f->kind == Kind::hostToolchain);
  CHECK(f->evidence.find("libdevice.10.bc") != std::string::npos);
  CHECK_FALSE(hostToolchainFact(TargetKind::nvptx, Capability::i8Arith));
}
