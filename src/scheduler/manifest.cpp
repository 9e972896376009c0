// Kernel manifests; see manifest.h.
#include "scheduler/manifest.h"

#include "runtime/objects.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace xpu::sched {

std::string usesText(uint8_t uses) {
  std::string s;
  auto add = [&](uint8_t bit, const char *name) {
    if (uses & bit)
      s += (s.empty() ? "" : ", ") + std::string(name);
  };
  add(abi::useRead, "read");
  add(abi::useWrite, "write");
  add(abi::useAccumulate, "accumulate");
  add(abi::useUnknown, "unknown");
  return s.empty() ? "none" : s;
}

namespace {

llvm::json::Array names(uint8_t bits, std::initializer_list<std::pair<uint8_t, const char *>> all) {
  llvm::json::Array a;
  for (auto [bit, name] : all)
    if (bits & bit)
      a.push_back(name);
  return a;
}

llvm::json::Value factJson(const abi::CodeFact &f) {
  if (f.known)
    return llvm::json::Object{{"value", int64_t(f.value)}, {"source", f.source}};
  return llvm::json::Object{{"absent", f.source}};
}

void absent(abi::CodeFact &f, const std::string &why) {
  if (!f.known && f.source.empty())
    f.source = why;
}

} // namespace

std::vector<ArgumentFacts> argumentFacts(const abi::KernelInfo &kernel) {
  std::vector<ArgumentFacts> out;
  for (const abi::Param &p : kernel.params) {
    switch (p.role) {
    case abi::Role::argument: {
      ArgumentFacts a{&p, p.name, p.view ? "view" : p.isBuffer ? "buffer" : "scalar",
                      p.isBuffer ? p.uses : uint8_t(0), p.cost};
      if (p.structArg >= 0) {
        a.name = kernel.structs[p.structArg].name;
        a.kind = "struct";
      }
      out.push_back(std::move(a));
      break;
    }
    case abi::Role::structField:
      if (!out.empty())
        out.back().cost |= p.cost; // a field of the struct before it
      break;
    case abi::Role::viewOffset:
    case abi::Role::viewSize:
    case abi::Role::viewStride:
      // The layout of the view before it: what it bounds, its length does.
      if (!out.empty() && p.cost)
        out.back().cost |= abi::costLength;
      break;
    case abi::Role::dynamicSharedBytes:
    case abi::Role::printBuffer:
      break; // the launch's, not an argument's
    }
  }
  return out;
}

void completeFootprint(rt::TargetDesc::Kind target, const abi::KernelInfo &kernel,
                       const rt::DeviceIdentity *device, abi::Footprint &f) {
  using K = rt::TargetDesc::Kind;
  if (target == K::cpu || target == K::spirv) {
    // Host code and SPIR-V carry no allocation or limit of their own: the
    // compiler's shared layout is what a workgroup gets, and any workgroup
    // the device allows runs.
    if (!f.sharedBytes.known)
      f.sharedBytes = {true, kernel.sharedBytes,
                       "xpujit's layout of the kernel's shared allocations"};
    if (!f.maxWorkgroupSize.known && device)
      f.maxWorkgroupSize = {true, device->maxWorkgroupSize,
                            target == K::cpu
                                ? "the CPU runtime's workgroup limit (the code sets none)"
                                : "the device's maxComputeWorkGroupInvocations (SPIR-V "
                                  "code sets no limit of its own)"};
    absent(f.maxWorkgroupSize, "the device's limit applies (the code sets none of its "
                               "own); there is no device here");
    std::string why = target == K::cpu
                          ? "host code: the ORC JIT reports no register use"
                          : "SPIR-V carries no register allocation; only a Vulkan "
                            "driver's pipeline statistics "
                            "(VK_KHR_pipeline_executable_properties) can give it";
    absent(f.registers, why);
    absent(f.spillBytes, why);
    absent(f.localBytes, target == K::cpu ? "host code: stack frames are not reported"
                                          : why);
  }
  if (target == K::nvptx) {
    absent(f.maxWorkgroupSize, "the driver tells it (cuFuncGetAttribute) once a device "
                               "loads the code; there is no device here");
    absent(f.spillBytes, "ptxas did not assemble the code (the driver's JIT does), and "
                         "no driver attribute gives spills");
  }
  const char *none = target == K::nvptx
                         ? "ptxas did not assemble the code, and no device loaded it"
                         : "no query gives it on this target";
  for (abi::CodeFact *fact : {&f.registers, &f.spillBytes, &f.sharedBytes, &f.localBytes,
                              &f.maxWorkgroupSize})
    absent(*fact, none);
}

Manifest makeManifest(const abi::KernelInfo &kernel, std::string targetName,
                      abi::Footprint f) {
  Manifest m;
  m.kernel = kernel.name;
  m.target = std::move(targetName);
  m.footprint = std::move(f);
  for (const abi::Param &p : kernel.params)
    if (p.isBuffer && (p.uses & abi::useUnknown))
      m.classified = false;
  llvm::json::Array params, costParams;
  for (const ArgumentFacts &a : argumentFacts(kernel)) {
    const abi::Param &p = *a.param;
    llvm::json::Object o{{"name", a.name}, {"kind", a.kind}};
    if (p.structArg < 0)
      o["type"] = abi::scalarName(p.elem);
    if (p.isBuffer) {
      o["access"] = names(a.uses, {{abi::useRead, "read"},
                                   {abi::useWrite, "write"},
                                   {abi::useAccumulate, "accumulate"},
                                   {abi::useUnknown, "unknown"}});
      o["declared"] = p.access == abi::Access::ro ? "ro" : "rw";
    }
    o["cost"] = names(a.cost, {{abi::costValue, "value"},
                               {abi::costLength, "length"},
                               {abi::costContents, "contents"}});
    if (a.cost)
      costParams.push_back(a.name);
    params.push_back(std::move(o));
  }
  const abi::Footprint &fp = m.footprint;
  llvm::json::Object root{
      {"schema", "xpujit.manifest/1"},
      {"kernel", kernel.name},
      {"target", m.target},
      {"classified", m.classified},
      {"footprint",
       llvm::json::Object{{"registers", factJson(fp.registers)},
                          {"spill_bytes", factJson(fp.spillBytes)},
                          {"shared_bytes", factJson(fp.sharedBytes)},
                          {"local_bytes", factJson(fp.localBytes)},
                          {"max_workgroup_size", factJson(fp.maxWorkgroupSize)}}},
      {"params", std::move(params)},
      {"cost_params", std::move(costParams)},
  };
  llvm::raw_string_ostream os(m.json);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return m;
}

std::string offlineManifests(const rt::TargetDesc &desc, const char *target,
                             const rt::Blob &blob,
                             const std::vector<abi::KernelInfo> &kernels) {
  std::string out = "[";
  std::string name = std::string(target) + (desc.chip.empty() ? "" : " " + desc.chip);
  for (size_t i = 0; i < kernels.size(); ++i) {
    abi::Footprint f;
    if (i < blob.footprints.size())
      f = blob.footprints[i];
    completeFootprint(desc.kind, kernels[i], nullptr, f);
    out += (i ? ",\n" : "\n") + makeManifest(kernels[i], name, f).json;
  }
  return out + "\n]\n";
}

const Manifest &manifestOf(rt::KernelObj &k) {
  std::call_once(k.manifestOnce, [&] {
    const rt::Program &program = *k.module->program;
    rt::Device &device = *k.module->device->device;
    size_t index = 0;
    while (index < program.kernels.size() && program.kernels[index] != k.info)
      ++index;
    abi::Footprint f;
    if (index < program.blob.footprints.size())
      f = program.blob.footprints[index];
    if (index < program.kernels.size())
      program.code->describe(index, f);
    const rt::TargetDesc &t = device.target();
    completeFootprint(t.kind, *k.info, &device.identity(), f);
    std::string target = device.label() + " (" + t.chip + ")";
    k.manifest = std::make_shared<const Manifest>(makeManifest(*k.info, target, f));
  });
  return *k.manifest;
}

} // namespace xpu::sched
