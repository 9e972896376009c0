// Reading and checking AMDGPU code objects; see hip_code_object.h. The
// metadata keys are those of the AMDGPU code object v5 ABI (LLVM's
// AMDGPUUsage, "Code Object V5 Metadata").
#include "hip_code_object.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"

namespace xpu::hip {

using rt::Status;

namespace {

Status bad(const std::string &why) {
  return {XPU_ERROR_COMPILE, "not a usable AMDGPU code object: " + why};
}

/// Accessors that tolerate missing keys and unexpected kinds.
const llvm::msgpack::DocNode *field(llvm::msgpack::DocNode &map, llvm::StringRef key) {
  if (!map.isMap())
    return nullptr;
  auto m = map.getMap();
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}
uint64_t number(llvm::msgpack::DocNode &map, llvm::StringRef key) {
  const llvm::msgpack::DocNode *n = field(map, key);
  if (!n)
    return 0;
  if (n->getKind() == llvm::msgpack::Type::UInt)
    return n->getUInt();
  if (n->getKind() == llvm::msgpack::Type::Int && n->getInt() >= 0)
    return uint64_t(n->getInt());
  return 0;
}
std::string text(llvm::msgpack::DocNode &map, llvm::StringRef key) {
  const llvm::msgpack::DocNode *n = field(map, key);
  return n && n->isString() ? n->getString().str() : std::string();
}
bool flag(llvm::msgpack::DocNode &map, llvm::StringRef key) {
  const llvm::msgpack::DocNode *n = field(map, key);
  if (!n)
    return false;
  if (n->getKind() == llvm::msgpack::Type::Boolean)
    return n->getBool();
  return number(map, key) != 0;
}

Status readMetadata(llvm::StringRef blob, CodeObject &out) {
  llvm::msgpack::Document doc;
  if (!doc.readFromBlob(blob, /*Multi=*/false))
    return bad("the metadata note is not valid msgpack");
  llvm::msgpack::DocNode &root = doc.getRoot();
  if (!root.isMap())
    return bad("the metadata is not a map");
  out.target = text(root, "amdhsa.target");
  llvm::msgpack::DocNode *kernels = nullptr;
  auto rootMap = root.getMap();
  if (auto it = rootMap.find("amdhsa.kernels"); it != rootMap.end())
    kernels = &it->second;
  if (!kernels || !kernels->isArray())
    return bad("the metadata has no amdhsa.kernels list");
  for (llvm::msgpack::DocNode &k : kernels->getArray()) {
    if (!k.isMap())
      return bad("a kernel entry is not a map");
    CodeObjectKernel kernel;
    kernel.name = text(k, ".name");
    kernel.symbol = text(k, ".symbol");
    kernel.groupSegmentBytes = number(k, ".group_segment_fixed_size");
    kernel.privateSegmentBytes = number(k, ".private_segment_fixed_size");
    kernel.kernargSegmentBytes = number(k, ".kernarg_segment_size");
    kernel.wavefrontSize = uint32_t(number(k, ".wavefront_size"));
    kernel.maxFlatWorkgroupSize = uint32_t(number(k, ".max_flat_workgroup_size"));
    kernel.sgprs = uint32_t(number(k, ".sgpr_count"));
    kernel.vgprs = uint32_t(number(k, ".vgpr_count"));
    kernel.sgprSpills = uint32_t(number(k, ".sgpr_spill_count"));
    kernel.vgprSpills = uint32_t(number(k, ".vgpr_spill_count"));
    kernel.dynamicStack = flag(k, ".uses_dynamic_stack");
    auto km = k.getMap();
    if (auto it = km.find(".args"); it != km.end()) {
      if (!it->second.isArray())
        return bad("the arguments of '" + kernel.name + "' are not a list");
      for (llvm::msgpack::DocNode &a : it->second.getArray()) {
        if (!a.isMap())
          return bad("an argument of '" + kernel.name + "' is not a map");
        kernel.args.push_back({number(a, ".offset"), number(a, ".size"),
                               text(a, ".value_kind"), text(a, ".address_space")});
      }
    }
    out.kernels.push_back(std::move(kernel));
  }
  return {};
}

std::string describeArg(const CodeObjectArg &a) {
  std::string s = a.valueKind + " of " + std::to_string(a.size) + " bytes at " +
                  std::to_string(a.offset);
  if (!a.addressSpace.empty())
    s += " (" + a.addressSpace + ")";
  return s;
}

} // namespace

std::vector<abi::Footprint> footprints(const CodeObject &code,
                                       const std::vector<abi::KernelInfo> &kernels) {
  std::vector<abi::Footprint> out(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    const CodeObjectKernel *k = code.find(kernels[i].name);
    if (!k)
      continue;
    abi::Footprint &f = out[i];
    auto meta = [](const char *key) {
      return std::string("AMDGPU code object metadata ") + key;
    };
    f.registers = {true, k->vgprs,
                   meta(".vgpr_count") + " (per work-item; " + std::to_string(k->sgprs) +
                       " SGPRs per wave, .sgpr_count)"};
    // A spilled VGPR takes 4 bytes of scratch per work-item; spilled SGPRs
    // go to VGPR lanes, not memory.
    f.spillBytes = {true, uint64_t(k->vgprSpills) * 4,
                    meta(".vgpr_spill_count") + " x 4 bytes (" +
                        std::to_string(k->sgprSpills) +
                        " SGPRs spilled to VGPR lanes, .sgpr_spill_count)"};
    f.sharedBytes = {true, k->groupSegmentBytes, meta(".group_segment_fixed_size")};
    f.localBytes = {true, k->privateSegmentBytes, meta(".private_segment_fixed_size")};
    f.maxWorkgroupSize = {true, k->maxFlatWorkgroupSize, meta(".max_flat_workgroup_size")};
  }
  return out;
}

const CodeObjectKernel *CodeObject::find(const std::string &name) const {
  for (const CodeObjectKernel &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

Status readCodeObject(const std::vector<uint8_t> &bytes, CodeObject &out) {
  out = CodeObject();
  llvm::StringRef data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  auto elf = llvm::object::ELF64LEFile::create(data);
  if (!elf)
    return bad(llvm::toString(elf.takeError()));
  const auto &header = elf->getHeader();
  if (header.e_machine != llvm::ELF::EM_AMDGPU ||
      header.e_ident[llvm::ELF::EI_OSABI] != llvm::ELF::ELFOSABI_AMDGPU_HSA)
    return bad("not an ELF for the AMD HSA runtime");
  // ELFABIVERSION_AMDGPU_HSA_V3 = 1 is code object v3, ... V5 = 3.
  out.version = header.e_ident[llvm::ELF::EI_ABIVERSION] + 2;
  auto segments = elf->program_headers();
  if (!segments)
    return bad(llvm::toString(segments.takeError()));
  bool found = false;
  for (const auto &segment : *segments) {
    if (segment.p_offset > bytes.size() || segment.p_filesz > bytes.size() - segment.p_offset)
      return bad("truncated (a segment ends past the end of the file)");
    if (segment.p_type != llvm::ELF::PT_NOTE)
      continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : elf->notes(segment, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      XPU_RETURN_IF_ERROR(readMetadata(note.getDescAsStringRef(segment.p_align), out));
      found = true;
    }
    if (err)
      return bad(llvm::toString(std::move(err)));
  }
  if (!found)
    return bad("no AMDGPU metadata note");
  return {};
}

std::vector<CodeObjectArg> expectedArgs(const abi::KernelInfo &kernel) {
  std::vector<CodeObjectArg> args;
  uint64_t offset = 0;
  auto add = [&](uint64_t size, const char *kind, const char *space) {
    offset = (offset + size - 1) / size * size; // every size is a power of two
    args.push_back({offset, size, kind, space});
    offset += size;
  };
  for (const abi::Param &p : kernel.params) {
    if (p.isBuffer) {
      add(8, "global_buffer", "global");
      add(8, "by_value", "");
    } else {
      add(abi::paramBytes(p), "by_value", "");
    }
  }
  add(8, "global_buffer", "generic"); // the status word
  return args;
}

Status checkCodeObject(const CodeObject &code, const rt::TargetDesc &target,
                       const std::vector<abi::KernelInfo> &kernels) {
  auto wrong = [](const std::string &what) {
    return Status{XPU_ERROR_INTERNAL,
                  "the generated code object does not match the kernel ABI: " + what};
  };
  if (code.version != 5)
    return wrong("code object v" + std::to_string(code.version) + ", not v5");
  std::string prefix = "amdgcn-amd-amdhsa--" + target.chip;
  if (code.target.rfind(prefix, 0) != 0)
    return wrong("target '" + code.target + "', not " + prefix);
  for (const abi::KernelInfo &info : kernels) {
    const CodeObjectKernel *k = code.find(info.name);
    std::string who = "kernel '" + info.name + "'";
    if (!k)
      return wrong(who + " is missing");
    if (k->symbol != info.name + ".kd")
      return wrong(who + " has descriptor symbol '" + k->symbol + "'");
    std::vector<CodeObjectArg> want = expectedArgs(info);
    if (k->args.size() < want.size())
      return wrong(who + " has " + std::to_string(k->args.size()) + " arguments, not " +
                   std::to_string(want.size()));
    for (size_t i = 0; i < k->args.size(); ++i) {
      const CodeObjectArg &a = k->args[i];
      if (i >= want.size()) {
        if (a.valueKind.rfind("hidden_", 0) != 0)
          return wrong(who + " has an extra argument " + std::to_string(i) + ": " +
                       describeArg(a));
        continue;
      }
      const CodeObjectArg &w = want[i];
      if (a.offset != w.offset || a.size != w.size || a.valueKind != w.valueKind ||
          a.addressSpace != w.addressSpace)
        return wrong(who + " argument " + std::to_string(i) + " is " + describeArg(a) +
                     ", expected " + describeArg(w));
    }
    if (k->wavefrontSize != target.waveWidth)
      return wrong(who + " runs waves of " + std::to_string(k->wavefrontSize) +
                   ", the target's are " + std::to_string(target.waveWidth));
    // LLVM packs the shared allocations and drops unused ones, so the group
    // segment may be smaller than what the gates checked, never larger.
    if (k->groupSegmentBytes > info.sharedBytes)
      return wrong(who + " has a group segment of " +
                   std::to_string(k->groupSegmentBytes) + " bytes; it declares " +
                   std::to_string(info.sharedBytes) + " bytes of shared memory");
    if (k->dynamicStack)
      return wrong(who + " needs a dynamic stack");
  }
  return {};
}

} // namespace xpu::hip
