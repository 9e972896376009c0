// A device's calibration; see device_calibration.h.
#include "calibration/device_calibration.h"

#include "calibration/probe_kernel.h"
#include "calibration/probes.h"
#include "calibration/registry.h"
#include "calibration/store.h"
#include "runtime/kernel_cache.h"
#include "runtime/log.h"

namespace xpu::cal {

namespace {

const std::vector<std::string> &correctnessFacts() {
  static const std::vector<std::string> names = {
      fact::contraction,  fact::fmaF16,       fact::fmaF32,       fact::fmaF64,
      fact::subnormalF16, fact::subnormalF32, fact::subnormalF64, fact::subnormalExpF32,
      fact::loopPassLimit};
  return names;
}

bool hasAll(const Record &r, const std::vector<std::string> &names) {
  for (const std::string &n : names)
    if (!r.find(n))
      return false;
  return true;
}

const char *backendName(xpu_backend b) {
  static const char *names[] = {"cpu", "cuda", "hip", "vulkan"};
  return unsigned(b) < 4 ? names[b] : "?";
}

std::string hexUuid(const uint8_t (&uuid)[16]) {
  static const char *digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : uuid) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

} // namespace

const Key &DeviceCalibration::key() {
  std::call_once(keyOnce_, [this] {
    const rt::DeviceIdentity &id = device_.identity();
    cache::Environment env = rt::keyEnvironment(device_);
    key_.subject = "device";
    key_.device = std::string(backendName(id.backend)) + " '" + id.name + "', " +
                  id.vendor + ", " + id.arch + ", uuid " + hexUuid(id.uuid);
    key_.driver = id.driver.empty() ? "(none: " + std::string(backendName(id.backend)) +
                                          " code runs in the process)"
                                    : id.driver;
    key_.compiler = "xpujit " + env.library + "; pipeline " + env.pipeline + "; LLVM " +
                    env.llvm + "; " + env.target + "; " + env.toolchain;
    keyText_ = key_.text();
  });
  return key_;
}

const std::string &DeviceCalibration::keyText() {
  key();
  return keyText_;
}

std::shared_ptr<const Record> DeviceCalibration::ensure(Need need) {
  if (measuring_.load() == std::this_thread::get_id())
    return std::make_shared<const Record>(); // a probe is being built
  std::lock_guard<std::mutex> g(measureMu_);
  std::shared_ptr<const Record> current;
  {
    std::lock_guard<std::mutex> r(recordMu_);
    current = record_;
  }
  bool performance = need != Need::correctness;
  auto complete = [&](const Record &r) {
    return hasAll(r, correctnessFacts()) && (!performance || hasAll(r, performanceFacts()));
  };
  if (need != Need::fresh && current && complete(*current))
    return current;

  Record record;
  record.key = key();
  bool seen = false;
  if (need != Need::fresh) {
    if (current)
      record = *current;
    else if (std::optional<Record> stored = Registry::get().read(key(), &seen))
      record = std::move(*stored);
  }
  // Another process may be measuring this device right now (the ranks of
  // a job start together): wait for it, then read what it stored.
  std::unique_ptr<Store::Lock> lock;
  if (need == Need::fresh || !complete(record)) {
    lock = Registry::get().lockForMeasuring(key());
    // Read again unless the record there was read already (and found
    // wanting): another process may have stored it meanwhile.
    if (need != Need::fresh && lock && (lock->waited || !seen))
      if (std::optional<Record> stored = Registry::get().read(key())) {
        for (const Measurement &m : stored->measurements)
          if (!record.find(m.name))
            record.put(m);
      }
  }
  if (need == Need::fresh || !complete(record)) {
    measuring_.store(std::this_thread::get_id());
    std::vector<Measurement> measured;
    ProbeTypes types = probeTypes(device_);
    if (need == Need::fresh || !hasAll(record, correctnessFacts())) {
      std::shared_ptr<ProbeProgram> counting;
      for (Measurement &m : measureNumerics(device_, types, false, &counting))
        measured.push_back(std::move(m));
      for (Measurement &m : measureLoopLimit(device_, counting.get()))
        measured.push_back(std::move(m));
    }
    if (performance && (need == Need::fresh || !hasAll(record, performanceFacts())))
      for (Measurement &m : measurePerformance(device_, types))
        measured.push_back(std::move(m));
    measuring_.store(std::thread::id());
    Registry::get().stats().probes += measured.size();
    std::string failure;
    for (Measurement &m : measured) {
      if (probeFailed(m) && failure.empty())
        failure = m.evidence;
      record.put(std::move(m));
    }
    if (failure.empty())
      Registry::get().write(record);
    else
      rt::logOnce(rt::LogLevel::warn, "calibration-incomplete:" + key().digest(),
                  "calibration of " + device_.label() + " is incomplete (" + failure +
                      "); it is used by this process only and measured again by the next");
  }
  auto published = std::make_shared<const Record>(std::move(record));
  std::lock_guard<std::mutex> r(recordMu_);
  if (record_)
    replaced_.push_back(record_);
  record_ = published;
  return published;
}

std::shared_ptr<const Record> DeviceCalibration::latest() {
  {
    std::lock_guard<std::mutex> r(recordMu_);
    if (record_)
      return record_;
  }
  return correctness();
}

std::shared_ptr<const Record> DeviceCalibration::correctness() {
  return ensure(Need::correctness);
}

std::shared_ptr<const Record> DeviceCalibration::complete() { return ensure(Need::complete); }

std::shared_ptr<const Record> DeviceCalibration::recalibrate() { return ensure(Need::fresh); }

std::optional<uint64_t> DeviceCalibration::loopPassLimit() {
  auto r = correctness();
  const Measurement *m = r->find(fact::loopPassLimit);
  if (!m || !m->value || *m->value <= 0)
    return std::nullopt;
  return uint64_t(*m->value);
}

bool DeviceCalibration::fmaUnfused(const char *type) {
  auto r = correctness();
  const Measurement *m = r->find(std::string("fma.") + type + ".fused");
  return m && m->value && *m->value == 0.0;
}

bool DeviceCalibration::expFlushesSubnormals() {
  auto r = correctness();
  const Measurement *exp = r->find(fact::subnormalExpF32);
  const Measurement *arith = r->find(fact::subnormalF32);
  return exp && exp->value && *exp->value == 0.0 && arith && arith->value &&
         *arith->value == 1.0;
}

std::string DeviceCalibration::codegenKey() {
  std::string key;
  if (expFlushesSubnormals())
    key += "exp-flushes-subnormals;";
  if (auto limit = loopPassLimit())
    key += "loop-limit=" + std::to_string(*limit) + ";";
  for (const char *t : {"f16", "f32"})
    if (fmaUnfused(t))
      key += std::string("unfused-fma=") + t + ";";
  return key;
}

rt::Status DeviceCalibration::loopStopped(const abi::KernelInfo &kernel,
                                          const abi::CheckSite &site) {
  std::string limit = "a limit";
  std::string evidence = "not measured";
  if (const Measurement *m = correctness()->find(fact::loopPassLimit)) {
    evidence = m->evidence;
    if (m->value)
      limit = std::to_string(uint64_t(*m->value));
  }
  return {XPU_ERROR_UNSUPPORTED,
          "kernel '" + kernel.name + "': " + device_.label() + " stopped the loop at " +
              site.location + " before it finished, so the results are incomplete: the "
              "device runs at most " + limit + " loop passes for the invocations it runs "
              "together, shared by all their loops (each loop also spends a pass to "
              "exit), and reports nothing itself (measured: " + evidence + ")"};
}

std::vector<cap::Fact> DeviceCalibration::capabilityFacts(const cap::FactTable &deviceFacts) {
  return capabilityFactsFrom(*correctness(), device_.target().kind, deviceFacts);
}

std::vector<cap::Fact> capabilityFactsFrom(const Record &r, rt::TargetDesc::Kind target,
                                           const cap::FactTable &deviceFacts) {
  std::vector<cap::Fact> out;
  auto measured = [&](Capability c, const char *name, const std::string &no,
                      const std::string &fallback) {
    const Measurement *m = r.find(name);
    cap::Kind k = cap::Kind::toolchainSemantic;
    if (!m || !m->value) {
      std::string why = m ? m->evidence : std::string("not measured");
      out.push_back({c, k, cap::Unknown{why}, why});
    } else if (*m->value == 1.0) {
      out.push_back({c, k, cap::Available{}, m->evidence});
    } else if (!fallback.empty()) {
      out.push_back({c, k, cap::Available{}, fallback + " (" + m->evidence + ")"});
    } else {
      out.push_back({c, k, cap::Unavailable{k, no}, m->evidence});
    }
  };
  measured(Capability::contractionControl, fact::contraction,
           "the toolchain contracts a*b+c although the kernel does not permit it", "");
  // A correct f32 fma exists in software through f64 (see
  // mlir/lib/Transforms/SoftwareFMA.cpp); xpujit uses it on SPIR-V.
  bool software = target == rt::TargetDesc::Kind::spirv &&
                  deviceFacts.size() > size_t(Capability::f64Arith) &&
                  cap::permits(deviceFacts[size_t(Capability::f64Arith)].verdict);
  measured(Capability::fmaF32, fact::fmaF32,
           "math.fma of f32 is not fused by the toolchain, and the device has no f64 "
           "arithmetic to compute it exactly in software",
           software ? "computed exactly in software through f64: the toolchain does not "
                      "fuse math.fma of f32"
                    : "");
  measured(Capability::fmaF64, fact::fmaF64,
           "math.fma of f64 is not fused by the toolchain (xpujit has no exact software "
           "f64 fma)",
           "");
  return out;
}

} // namespace xpu::cal
