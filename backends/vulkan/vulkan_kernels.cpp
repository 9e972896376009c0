// Loaded Vulkan kernels: shader module, layouts from the parameter list,
// pipelines per launch shape, and the descriptor-set cache.
#include "vulkan_kernels.h"
#include "vulkan_specialization.h"
#include "vulkan_statistics.h"

#include "runtime/log.h"

#include <algorithm>
#include <cstring>

namespace xpu::vk {

namespace {

std::atomic<uint64_t> nextLayoutId{1};

/// Sets per descriptor pool; pools are added as they fill.
constexpr uint32_t kSetsPerPool = 64;
/// Pipelines of one kernel specialized on its arguments after which the
/// library says, once, that each new value costs a driver compile.
constexpr size_t kSpecializedPipelinesNoted = 16;

class VulkanModule : public rt::LoadedModule {
public:
  std::vector<VulkanKernel> kernels;
  rt::BackendKernel *kernel(size_t index) override { return &kernels.at(index); }
  /// What the driver's pipeline statistics say, where it captures them.
  void describe(size_t index, abi::Footprint &f) override {
    KernelProgram &program = *kernels.at(index).program;
    std::vector<PipelineStatistic> stats;
    std::string what, why;
    if (readStatistics(program.device, program, stats, what, why)) {
      mapStatistics(stats, what, f);
      return;
    }
    for (abi::CodeFact *fact : {&f.registers, &f.spillBytes, &f.localBytes})
      if (!fact->known && fact->source.empty())
        fact->source = "Vulkan reports it only in pipeline statistics: " + why;
  }
};

Status makeProgram(VulkanDevice &device, std::shared_ptr<ShaderModule> shader,
                   const abi::KernelInfo &info, std::shared_ptr<KernelProgram> &out) {
  const VkPhysicalDeviceLimits &limits = device.info.props.limits;
  auto k = std::make_shared<KernelProgram>(device);
  k->shader = std::move(shader);
  k->info = info;
  k->args = abi::vulkanArgLayout(info.params);
  for (const abi::Param &p : info.params)
    k->numBuffers += p.isBuffer;
  // The runtime allocates a status word exactly when the module has checks.
  k->hasStatus = !info.checkSites.empty();
  k->argsInUniform = k->args.bytes > limits.maxPushConstantsSize;
  auto refuse = [&](const std::string &why) -> Status {
    return {XPU_ERROR_UNSUPPORTED, "kernel '" + info.name + "': " + why +
                                       " on vulkan device '" + device.id.name + "'"};
  };
  if (k->argsInUniform && k->args.bytes > limits.maxUniformBufferRange)
    return refuse("its " + std::to_string(k->args.bytes) +
                  " bytes of scalar arguments exceed maxUniformBufferRange = " +
                  std::to_string(limits.maxUniformBufferRange));
  if (k->numBuffers + k->hasStatus > limits.maxPerStageDescriptorStorageBuffers)
    return refuse(std::to_string(k->numBuffers) +
                  " buffer parameters exceed maxPerStageDescriptorStorageBuffers = " +
                  std::to_string(limits.maxPerStageDescriptorStorageBuffers));

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  auto bind = [&](uint32_t index, VkDescriptorType type) {
    VkDescriptorSetLayoutBinding b{};
    b.binding = index;
    b.descriptorType = type;
    b.descriptorCount = 1;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(b);
  };
  for (uint32_t b = 0; b < k->numBuffers; ++b)
    bind(b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
  if (k->hasStatus)
    bind(k->numBuffers, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC);
  if (k->argsInUniform)
    bind(k->numBuffers + 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC);
  VkDescriptorSetLayoutCreateInfo setInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = uint32_t(bindings.size());
  setInfo.pBindings = bindings.data();
  XPU_VK_RETURN_IF_ERROR(device.fn.vkCreateDescriptorSetLayout(device.device, &setInfo,
                                                               nullptr, &k->setLayout),
                         "vkCreateDescriptorSetLayout");

  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, k->args.bytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &k->setLayout;
  if (!k->argsInUniform && k->args.bytes) {
    layoutInfo.pushConstantRangeCount = 1;
    layoutInfo.pPushConstantRanges = &push;
  }
  XPU_VK_RETURN_IF_ERROR(device.fn.vkCreatePipelineLayout(device.device, &layoutInfo,
                                                          nullptr, &k->layout),
                         "vkCreatePipelineLayout");
  k->layoutId = nextLayoutId.fetch_add(1);
  out = std::move(k);
  return {};
}

/// Which parameters each kernel's pipelines are specialized on, from the
/// module's specialization constants (vulkan_specialization.h). Only 32-
/// and 64-bit integer scalars are: anything else is a compiler defect.
Status findSpecialized(const std::vector<uint32_t> &words, VulkanModule &module) {
  for (const ParamSpecConstant &c :
       findParamSpecConstants(words.data(), words.size(), abi::kVulkanParamSpecPrefix)) {
    for (VulkanKernel &vk : module.kernels) {
      KernelProgram &k = *vk.program;
      bool ofCopying = !k.copying.entry.empty() && k.copying.entry == c.kernel;
      if (k.info.name != c.kernel && !ofCopying)
        continue;
      const abi::Param *p = c.param < k.info.params.size() ? &k.info.params[c.param] : nullptr;
      if (!p || p->isBuffer || p->lanes != 1 ||
          (p->elem != abi::Scalar::i32 && p->elem != abi::Scalar::i64))
        return rt::internalError("kernel '" + k.info.name + "': specialization constant " +
                                 std::to_string(c.specId) + " names parameter " +
                                 std::to_string(c.param) +
                                 ", which is not a 32- or 64-bit integer");
      (ofCopying ? k.copying.specialized : k.specialized)
          .push_back({c.specId, k.args.offsets[c.param], abi::scalarBytes(p->elem)});
    }
  }
  return {};
}

/// Each kernel's copying companion: the entry point named after it with
/// abi::kCopyingCompanionSuffix, where no kernel of the module has that name.
/// Such an entry point left over would be work no launch does (the
/// workgroups its kernel skipped): a compiler defect, refused.
Status findCompanions(const std::vector<uint32_t> &words, VulkanModule &module) {
  std::vector<std::string> entries = entryPointNames(words.data(), words.size());
  auto has = [](const std::vector<std::string> &names, const std::string &name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<std::string> kernels, companions;
  for (VulkanKernel &vk : module.kernels)
    kernels.push_back(vk.program->info.name);
  for (VulkanKernel &vk : module.kernels) {
    std::string name = vk.program->info.name + abi::kCopyingCompanionSuffix;
    if (has(entries, name) && !has(kernels, name)) {
      vk.program->copying.entry = name;
      companions.push_back(name);
    }
  }
  const std::string suffix = abi::kCopyingCompanionSuffix;
  for (const std::string &entry : entries)
    if (entry.size() > suffix.size() &&
        entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        !has(kernels, entry) && !has(companions, entry))
      return rt::internalError("the module's entry point '" + entry +
                               "' is the copying companion of no kernel it describes");
  return {};
}

} // namespace

ShaderModule::~ShaderModule() {
  if (handle)
    device.fn.vkDestroyShaderModule(device.device, handle, nullptr);
}

KernelProgram::~KernelProgram() {
  for (auto &[shape, pipeline] : pipelines)
    device.fn.vkDestroyPipeline(device.device, pipeline, nullptr);
  if (device.descriptors)
    device.descriptors->forgetLayout(layoutId);
  if (layout)
    device.fn.vkDestroyPipelineLayout(device.device, layout, nullptr);
  if (setLayout)
    device.fn.vkDestroyDescriptorSetLayout(device.device, setLayout, nullptr);
}

/// The workgroup size is specialized into the one shader module
/// (abi::kVulkanWorkgroupSizeSpecId), and so are the values of the
/// parameters in `specialized`: each shape and set of values is its own
/// pipeline.
Status KernelProgram::pipeline(const uint32_t block[3], const uint8_t *args,
                               VkPipeline &out, bool ofCopying) {
  const std::vector<Specialized> &on = ofCopying ? copying.specialized : specialized;
  const std::string &entry = ofCopying ? copying.entry : info.name;
  llvm::SmallVector<uint32_t, 8> key{ofCopying, block[0], block[1], block[2]};
  for (const Specialized &p : on) {
    if (!args)
      return rt::internalError("kernel '" + info.name +
                               "': a pipeline specialized on its arguments, made without them");
    key.resize(key.size() + p.bytes / 4);
    std::memcpy(key.data() + key.size() - p.bytes / 4, args + p.offset, p.bytes);
  }
  std::lock_guard<std::mutex> g(mu);
  if (auto it = pipelines.find(key); it != pipelines.end()) {
    out = it->second;
    return {};
  }
  // The constants' values are the key's words, in its order.
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t d = 0; d < 3; ++d)
    entries.push_back({abi::kVulkanWorkgroupSizeSpecId + d, d * 4, 4});
  uint32_t at = 12;
  for (const Specialized &p : on) {
    entries.push_back({p.specId, at, p.bytes});
    at += p.bytes;
  }
  VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), (key.size() - 1) * 4,
                            key.data() + 1};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = shader->handle;
  info.stage.pName = entry.c_str();
  info.stage.pSpecializationInfo = &spec;
  info.layout = layout;
  if (device.captureStatistics)
    info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline;
  XPU_VK_RETURN_IF_ERROR(device.fn.vkCreateComputePipelines(
                             device.device, device.pipelineCache, 1, &info, nullptr,
                             &pipeline),
                         "vkCreateComputePipelines for kernel '" + entry + "'");
  pipelines[key] = pipeline;
  kernelPipelines += !ofCopying;
  if (!ofCopying && !specialized.empty() && kernelPipelines == kSpecializedPipelinesNoted)
    rt::logOnce(rt::LogLevel::warn, "specialized-pipelines:" + this->info.name,
                "kernel '" + this->info.name + "' has " +
                    std::to_string(kSpecializedPipelinesNoted) +
                    " pipelines specialized on its tile strides' arguments; each new value "
                    "compiles another (XPU_TILE_SPECIALIZE=off compiles none, for slower "
                    "kernels)");
  uint64_t n = ++device.counters.pipelines;
  std::string values;
  for (size_t w = 4; w < key.size(); ++w)
    values += (w == 4 ? ", specialized on words " : " ") + std::to_string(key[w]);
  rt::log(rt::LogLevel::debug,
          "vulkan: created pipeline for '" + entry + "' workgroup " +
              std::to_string(key[1]) + "x" + std::to_string(key[2]) + "x" +
              std::to_string(key[3]) + values + " (pipelines created: " +
              std::to_string(n) + ")");
  out = pipeline;
  return {};
}

bool KernelProgram::madePipeline(uint32_t block[3], std::vector<uint8_t> &args) {
  std::lock_guard<std::mutex> g(mu);
  if (pipelines.empty())
    return false;
  const auto &key = pipelines.begin()->first; // the kernel's own come first
  if (key[0])
    return false;
  for (int d = 0; d < 3; ++d)
    block[d] = key[1 + d];
  args.assign(this->args.bytes, 0);
  size_t word = 4;
  for (const Specialized &p : specialized) {
    std::memcpy(args.data() + p.offset, key.data() + word, p.bytes);
    word += p.bytes / 4;
  }
  return true;
}

Status loadKernels(VulkanDevice &device, const rt::Blob &blob,
                   const std::vector<abi::KernelInfo> &kernels,
                   std::unique_ptr<rt::LoadedModule> &out) {
  XPU_RETURN_IF_ERROR(device.open());
  if (blob.format != "spirv" || blob.code.empty() || blob.code.size() % 4)
    return rt::internalError("the vulkan backend loads SPIR-V words, got a '" +
                             blob.format + "' blob of " +
                             std::to_string(blob.code.size()) + " bytes");
  auto shader = std::make_shared<ShaderModule>(device);
  std::vector<uint32_t> words(blob.code.size() / 4);
  std::memcpy(words.data(), blob.code.data(), blob.code.size());
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = blob.code.size();
  info.pCode = words.data();
  XPU_VK_RETURN_IF_ERROR(
      device.fn.vkCreateShaderModule(device.device, &info, nullptr, &shader->handle),
      "vkCreateShaderModule");
  auto module = std::make_unique<VulkanModule>();
  module->kernels.resize(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i)
    XPU_RETURN_IF_ERROR(makeProgram(device, shader, kernels[i], module->kernels[i].program));
  XPU_RETURN_IF_ERROR(findCompanions(words, *module));
  XPU_RETURN_IF_ERROR(findSpecialized(words, *module));
  out = std::move(module);
  return {};
}

//===----------------------------------------------------------------------===//
// Descriptor sets
//===----------------------------------------------------------------------===//

DescriptorCache::~DescriptorCache() {
  for (VkDescriptorPool pool : pools)
    device.fn.vkDestroyDescriptorPool(device.device, pool, nullptr);
}

Status DescriptorCache::allocate(VkDescriptorSetLayout layout, Entry &out) {
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  for (auto it = pools.rbegin(); it != pools.rend(); ++it) {
    info.descriptorPool = *it;
    VkResult r = device.fn.vkAllocateDescriptorSets(device.device, &info, &out.set);
    if (r == VK_SUCCESS) {
      out.pool = *it;
      return {};
    }
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
      return vkStatus(r, "vkAllocateDescriptorSets");
  }
  VkDescriptorPoolSize sizes[] = {
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * 8},
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, kSetsPerPool},
      {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, kSetsPerPool},
  };
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  poolInfo.maxSets = kSetsPerPool;
  poolInfo.poolSizeCount = 3;
  poolInfo.pPoolSizes = sizes;
  VkDescriptorPool pool;
  XPU_VK_RETURN_IF_ERROR(
      device.fn.vkCreateDescriptorPool(device.device, &poolInfo, nullptr, &pool),
      "vkCreateDescriptorPool");
  pools.push_back(pool);
  info.descriptorPool = pool;
  XPU_VK_RETURN_IF_ERROR(device.fn.vkAllocateDescriptorSets(device.device, &info, &out.set),
                         "vkAllocateDescriptorSets");
  out.pool = pool;
  return {};
}

void DescriptorCache::release(const Entry &entry) {
  device.fn.vkFreeDescriptorSets(device.device, entry.pool, 1, &entry.set);
}

Status DescriptorCache::get(const KernelProgram &kernel,
                            const std::vector<Binding> &bindings,
                            VkDescriptorSet &out) {
  out = VK_NULL_HANDLE;
  if (bindings.empty())
    return {};
  std::vector<uint64_t> key{kernel.layoutId};
  for (const Binding &b : bindings)
    key.push_back(b.serial);
  std::lock_guard<std::mutex> g(mu);
  if (auto it = sets.find(key); it != sets.end()) {
    out = it->second.set;
    return {};
  }
  Entry entry;
  XPU_RETURN_IF_ERROR(allocate(kernel.setLayout, entry));
  std::vector<VkDescriptorBufferInfo> infos(bindings.size());
  std::vector<VkWriteDescriptorSet> writes(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    infos[i] = {bindings[i].buffer, 0, bindings[i].range};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = entry.set;
    writes[i].dstBinding = bindings[i].index;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = bindings[i].type;
    writes[i].pBufferInfo = &infos[i];
  }
  device.fn.vkUpdateDescriptorSets(device.device, uint32_t(writes.size()),
                                   writes.data(), 0, nullptr);
  sets.emplace(std::move(key), entry);
  uint64_t n = ++device.counters.descriptorSets;
  rt::log(rt::LogLevel::debug, "vulkan: allocated descriptor set for '" +
                                   kernel.info.name + "' (descriptor sets allocated: " +
                                   std::to_string(n) + ")");
  out = entry.set;
  return {};
}

void DescriptorCache::forgetBuffer(uint64_t serial) {
  std::lock_guard<std::mutex> g(mu);
  for (auto it = sets.begin(); it != sets.end();) {
    if (std::find(it->first.begin() + 1, it->first.end(), serial) != it->first.end()) {
      release(it->second);
      it = sets.erase(it);
    } else {
      ++it;
    }
  }
}

void DescriptorCache::forgetLayout(uint64_t layoutId) {
  std::lock_guard<std::mutex> g(mu);
  for (auto it = sets.begin(); it != sets.end();) {
    if (it->first.front() == layoutId) {
      release(it->second);
      it = sets.erase(it);
    } else {
      ++it;
    }
  }
}

} // namespace xpu::vk
