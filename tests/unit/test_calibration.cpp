// Unit tests of calibration (src/calibration): records and their checksum,
// the directory store, keys (a changed driver or compiler measures again),
// the numeric probes on the CPU device, and the facts the capability model
// takes from them.
#include "calibration/device_calibration.h"
#include "calibration/probes.h"
#include "calibration/registry.h"
#include "capability/target_facts.h"

#include "mlir/IR/BuiltinOps.h"

#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <sys/stat.h>

using namespace xpu;
using namespace xpu::cal;

namespace {

Record sample() {
  Record r;
  r.key = {"device", "cpu 'test'", "none", "xpujit test", std::nullopt};
  r.put({"copy.h2d", 12.5, "GB/s", "measured in a test", "2026-12-01T00:00:00Z"});
  r.put({"peak.f64", std::nullopt, "GFLOP/s", "no f64 here", "2026-12-01T00:00:00Z"});
  return r;
}

std::unique_ptr<rt::Device> cpuDevice() {
  for (auto &b : rt::createBackends()) {
    if (b->kind() != XPU_BACKEND_CPU)
      continue;
    std::vector<std::unique_ptr<rt::Device>> found;
    std::string note;
    REQUIRE(b->enumerate(found, note).isOk());
    return std::move(found.front());
  }
  return nullptr;
}

/// The CPU device under another driver or toolchain name: everything else
/// is the real device's.
class Renamed : public rt::Device {
public:
  Renamed(rt::Device &real, std::string driver, std::string toolchain)
      : real_(real), toolchain_(std::move(toolchain)) {
    id_ = real.identity();
    id_.driver = std::move(driver);
  }
  const rt::DeviceIdentity &identity() const override { return id_; }
  const rt::TargetDesc &target() const override { return real_.target(); }
  std::string toolchainIdentity() const override { return toolchain_; }
  rt::Status allocate(size_t b, std::unique_ptr<rt::BackendBuffer> &o) override {
    return real_.allocate(b, o);
  }
  rt::Status upload(rt::BackendBuffer &d, size_t o, const void *s, size_t b) override {
    return real_.upload(d, o, s, b);
  }
  rt::Status download(rt::BackendBuffer &s, size_t o, void *d, size_t b) override {
    return real_.download(s, o, d, b);
  }
  rt::Status createQueue(std::unique_ptr<rt::Queue> &o) override { return real_.createQueue(o); }
  rt::Status createEvent(std::unique_ptr<rt::BackendEvent> &o) override {
    return real_.createEvent(o);
  }
  rt::Status allocateStatusWord(rt::StatusWord &o) override {
    return real_.allocateStatusWord(o);
  }
  void freeStatusWord(const rt::StatusWord &w) override { real_.freeStatusWord(w); }
  rt::Status compile(mlir::ModuleOp m, const std::vector<abi::KernelInfo> &k,
                     rt::Blob &o) override {
    return real_.compile(m, k, o);
  }
  rt::Status load(const rt::Blob &b, const std::vector<abi::KernelInfo> &k,
                  std::unique_ptr<rt::LoadedModule> &o) override {
    return real_.load(b, k, o);
  }
  std::vector<cap::Fact> probeCapabilities() override { return real_.probeCapabilities(); }

private:
  rt::Device &real_;
  rt::DeviceIdentity id_;
  std::string toolchain_;
};

} // namespace

TEST_CASE("a record survives encoding; a changed value breaks its checksum") {
  Record r = sample(), back;
  std::string text = encode(r);
  REQUIRE(decode(text, back) == "");
  CHECK(back.key == r.key);
  REQUIRE(back.measurements.size() == 2);
  CHECK(*back.find("copy.h2d")->value == 12.5);
  CHECK_FALSE(back.find("peak.f64")->value); // absent stays absent
  std::string damaged = text;
  damaged.replace(damaged.find("12.5"), 4, "13.5");
  CHECK(decode(damaged, back).find("checksum") != std::string::npos);
  std::string other = text;
  other.replace(other.find("xpujit test"), 11, "xpujit TEST");
  CHECK(decode(other, back).find("checksum") != std::string::npos);
  CHECK(decode("not json", back).find("not JSON") == 0);
}

TEST_CASE("keys differ by every field, and a power mode is absent unless queried") {
  Key a = sample().key, b = a;
  CHECK(a.text().find("power mode=(absent") != std::string::npos);
  for (auto change : {+[](Key &k) { k.subject = "kernel:0123"; },
                      +[](Key &k) { k.device += " other"; },
                      +[](Key &k) { k.driver = "driver 2"; },
                      +[](Key &k) { k.compiler += "; ptxas 13.1"; },
                      +[](Key &k) { k.powerMode = "max-q"; }}) {
    b = a;
    change(b);
    CHECK_FALSE(a == b);
    CHECK(a.digest() != b.digest());
  }
}

TEST_CASE("a snapshot keeps good records and counts the bad ones") {
  Record r = sample();
  std::string text = encodeSnapshot({r, r});
  text.replace(text.rfind("12.5"), 4, "99.5");
  std::vector<Record> out;
  unsigned rejected = 0;
  CHECK(decodeSnapshot(text, out, rejected) == "");
  CHECK(out.size() == 1);
  CHECK(rejected == 1);
  CHECK(decodeSnapshot(encode(r), out, rejected).find("not a calibration snapshot") == 0);
}

TEST_CASE("the directory store writes and reads records; an unusable one is read-only") {
  std::string dir = std::string(std::getenv("XPU_TEST_SCRATCH")) + "/calibration-store";
  std::system(("rm -rf '" + dir + "'").c_str());
  DirectoryStore store(dir, true);
  REQUIRE(store.writable());
  Record r = sample();
  std::optional<std::string> text;
  CHECK(store.load(r.key, text).isOk());
  CHECK_FALSE(text);
  CHECK(store.store(r.key, encode(r)).isOk());
  CHECK(store.load(r.key, text).isOk());
  REQUIRE(text);
  CHECK(*text == encode(r));
  struct stat st;
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  std::string file = dir + "/a-file";
  std::ofstream(file) << "x";
  DirectoryStore blocked(file + "/calibration", true);
  CHECK_FALSE(blocked.writable());
  CHECK(blocked.note().find("cannot create") != std::string::npos);
  CHECK_FALSE(blocked.store(r.key, "x").isOk());
  CHECK(blocked.load(r.key, text).isOk()); // nothing there: a miss, not a failure
  CHECK_FALSE(text);
}

TEST_CASE("a device is measured once; a changed driver or compiler measures again") {
  auto cpu = cpuDevice();
  REQUIRE(cpu);
  Stats &stats = Registry::get().stats();
  auto first = cpu->calibration().correctness();
  CHECK(first->find(fact::contraction));
  CHECK(first->find(fact::loopPassLimit));
  uint64_t probes = stats.probes;
  // Another device object of the same device: the store serves it.
  auto again = cpuDevice();
  auto second = again->calibration().correctness();
  CHECK(stats.probes == probes);
  CHECK(second->measurements.size() == first->measurements.size());
  // The same device under another driver, or another toolchain (names no
  // earlier run of this test stored).
  std::string nonce = std::to_string(std::random_device()());
  Renamed driver(*cpu, "driver " + nonce, cpu->toolchainIdentity());
  (void)driver.calibration().correctness();
  CHECK(stats.probes > probes);
  probes = stats.probes;
  Renamed compiler(*cpu, cpu->identity().driver, cpu->toolchainIdentity() + "; ptxas " + nonce);
  (void)compiler.calibration().correctness();
  CHECK(stats.probes > probes);
  CHECK_FALSE(driver.calibration().key() == compiler.calibration().key());
  CHECK(driver.calibration().key().subject == "device");
  CHECK_FALSE(driver.calibration().key().powerMode);
}

TEST_CASE("the numeric probes: the CPU keeps a*b+c apart and fuses math.fma") {
  auto cpu = cpuDevice();
  REQUIRE(cpu);
  ProbeTypes types = probeTypes(*cpu);
  CHECK(types.f64);
  std::vector<Measurement> plain = measureNumerics(*cpu, types);
  auto value = [](const std::vector<Measurement> &ms, const char *name) {
    for (const Measurement &m : ms)
      if (m.name == name)
        return m.value;
    return std::optional<double>();
  };
  CHECK(value(plain, fact::contraction) == std::optional<double>(1.0));
  CHECK(value(plain, fact::fmaF32) == std::optional<double>(1.0));
  CHECK(value(plain, fact::fmaF64) == std::optional<double>(1.0));
  CHECK(value(plain, fact::subnormalF32) == std::optional<double>(1.0));
  CHECK(value(plain, fact::subnormalF64) == std::optional<double>(1.0));
  // With contraction permitted, a host with FMA fuses, and the probe sees it.
  if (cpu->target().features.find("+fma") != std::string::npos) {
    std::vector<Measurement> fused = measureNumerics(*cpu, types, /*permitContraction=*/true);
    CHECK(value(fused, fact::contraction) == std::optional<double>(0.0));
    for (const Measurement &m : fused)
      if (m.name == fact::contraction)
        CHECK(m.evidence.find("a*b+c is contracted") != std::string::npos);
  }
  std::vector<Measurement> loops = measureLoopLimit(*cpu);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0].value == std::optional<double>(0.0)); // the CPU backend has no budget
}

TEST_CASE("the capability model takes contraction and fma from the measurements") {
  auto cpu = cpuDevice();
  REQUIRE(cpu);
  const cap::FactTable &facts = cpu->capabilities();
  for (Capability c : {Capability::contractionControl, Capability::fmaF32,
                       Capability::fmaF64}) {
    const cap::Fact &f = facts[size_t(c)];
    CHECK(f.kind == cap::Kind::toolchainSemantic);
    CHECK(cap::permits(f.verdict));
    CHECK(f.evidence.find("on cpu device") != std::string::npos);
  }
  // On SPIR-V a device that does not fuse f32 fma gets it in software when
  // it has f64 (lavapipe), is refused it without f64, and is refused f64 fma.
  Record unfused;
  unfused.put({fact::contraction, 1.0, "bool", "kept apart", ""});
  unfused.put({fact::fmaF32, 0.0, "bool", "up to 13023 ULP", ""});
  unfused.put({fact::fmaF64, 0.0, "bool", "not fused", ""});
  rt::TargetDesc spirv;
  spirv.kind = rt::TargetDesc::Kind::spirv;
  cap::Fact yes{Capability::f64Arith, cap::Kind::deviceOptional, cap::Available{}, "q"};
  cap::Fact no{Capability::f64Arith, cap::Kind::deviceOptional,
               cap::Unavailable{cap::Kind::deviceOptional, "no f64"}, "q"};
  for (bool f64 : {true, false}) {
    cap::FactTable device = cap::resolveFacts(spirv, {f64 ? yes : no});
    std::vector<cap::Fact> got = capabilityFactsFrom(unfused, spirv.kind, device);
    REQUIRE(got.size() == 3);
    CHECK(cap::permits(got[0].verdict));
    CHECK(got[1].capability == Capability::fmaF32);
    CHECK(cap::permits(got[1].verdict) == f64);
    if (f64)
      CHECK(got[1].evidence.find("in software through f64") != std::string::npos);
    CHECK(got[2].capability == Capability::fmaF64);
    CHECK_FALSE(cap::permits(got[2].verdict));
  }
  // Not measured is unknown, which refuses.
  std::vector<cap::Fact> none = capabilityFactsFrom(Record{}, spirv.kind, {});
  for (const cap::Fact &f : none)
    CHECK(std::holds_alternative<cap::Unknown>(f.verdict));
}
