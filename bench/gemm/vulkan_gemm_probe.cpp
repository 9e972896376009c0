// A standalone Vulkan GEMM runner for SPIR-V written outside the library
// (bench/gemm/workgroup_matrix_gemm.py), to measure what a shape of
// cooperative matrix can reach on a driver before the library lowers to it.
// It loads libvulkan.so.1 itself, enables VK_KHR_cooperative_matrix and, when
// listed, VK_NV_cooperative_matrix2 with every feature bit the device has.
//
//   xpu-vulkan-gemm-probe --query
//   xpu-vulkan-gemm-probe --spv g.spv --m 4096 --n 4096 --k 4096 --bm 128 --bn 128 --wg 256
//
// Bindings 0, 1, 2: A (MxK f16), B (KxN f16), C (MxN f32), row-major; grid
// (N/BN, M/BM). With --xpujit the shader is one the library compiled for
// bench/gemm/gemm_kernel.h's @gemm (`xpujit compile --target spirv`): entry
// point gemm, the status word at binding 3, the element counts and m, n, k
// as push constants, the workgroup size as specialization constants 0-2
// (abi::vulkanArgLayout), and m, n, k as specialization constants 3-5 too;
// so one run compares the library's code with the hand-written shaders'
// (and shaders that read the sizes as the library does: --sizes). Where the driver has
// VK_KHR_pipeline_executable_properties, the pipeline's statistics
// (registers among them) are printed too.
//
// --edge: M need not be a multiple of BM; the last block row overhangs C.
// A gets rows up to the next multiple (so only the store overhangs), C is
// bound with its M x N elements exactly and followed in its allocation by
// a guard filled with a marker, which must come back untouched: does the
// driver discard the stores outside the binding? --robust enables
// VK_EXT_robustness2's robustBufferAccess2, under which it must. Times the dispatches with timestamps (best and median of
// --iters after a warm-up), checks 4096 sampled elements of C against a
// float64 product of the same f16 operands, prints one line, exits 1 when a
// step fails or an element is off.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>

#include "vulkan_specialization.h" // the library's specialized parameters

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

// Values of the Vulkan registry, absent from Debian 12's 1.3.239 headers.
constexpr VkStructureType kCoopFeaturesKHR = VkStructureType(1000506000);
constexpr VkStructureType kCoopPropertiesKHR = VkStructureType(1000506001);
constexpr VkStructureType kCoop2FeaturesNV = VkStructureType(1000593000);
constexpr VkStructureType kCoop2FlexibleNV = VkStructureType(1000593001);
constexpr VkStructureType kCoop2PropertiesNV = VkStructureType(1000593002);

struct CoopPropertiesKHR {
  VkStructureType sType;
  void *pNext;
  uint32_t m, n, k, a, b, c, result;
  VkBool32 saturating;
  uint32_t scope;
};
struct CoopFeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrix, robustBufferAccess;
};
struct Coop2FeaturesNV {
  VkStructureType sType;
  void *pNext;
  VkBool32 bits[7];
};
const char *kCoop2FeatureNames[7] = {"WorkgroupScope",       "FlexibleDimensions",
                                     "Reductions",           "Conversions",
                                     "PerElementOperations", "TensorAddressing",
                                     "BlockLoads"};
struct Coop2PropertiesNV {
  VkStructureType sType;
  void *pNext;
  uint32_t workgroupScopeMaxWorkgroupSize, flexibleDimensionsMaxDimension,
      workgroupScopeReservedSharedMemory;
};
struct Coop2FlexibleNV {
  VkStructureType sType;
  void *pNext;
  uint32_t mGranularity, nGranularity, kGranularity, a, b, c, result;
  VkBool32 saturating;
  uint32_t scope, workgroupInvocations;
};

const char *componentName(uint32_t t) {
  static const char *names[] = {"f16", "f32", "f64", "s8", "s16", "s32", "s64",
                                "u8",  "u16", "u32", "u64"};
  if (t < 11)
    return names[t];
  return t == 1000141000 ? "bf16" : "?";
}
const char *scopeName(uint32_t s) {
  return s == 2 ? "workgroup" : s == 3 ? "subgroup" : s == 1 ? "device" : "?";
}

[[noreturn]] void fail(const char *what, VkResult r = VK_SUCCESS) {
  std::printf("FAIL: %s (VkResult %d)\n", what, int(r));
  std::exit(1);
}
#define CHECK(call)                                                                      \
  do {                                                                                   \
    VkResult r_ = (call);                                                                \
    if (r_ != VK_SUCCESS)                                                                \
      fail(#call, r_);                                                                   \
  } while (0)

// The entry points this program calls, loaded at start.
#define VK_FUNCTIONS(X)                                                                  \
  X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)                         \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2)                      \
  X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties)     \
  X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice) X(vkGetDeviceQueue)          \
  X(vkCreateBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory)                 \
  X(vkBindBufferMemory) X(vkMapMemory) X(vkCreateShaderModule)                           \
  X(vkCreateDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkCreateComputePipelines)   \
  X(vkCreateDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets)        \
  X(vkCreateCommandPool) X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer)             \
  X(vkEndCommandBuffer) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets)                  \
  X(vkCmdDispatch) X(vkCmdCopyBuffer) X(vkCmdPipelineBarrier) X(vkCmdWriteTimestamp)     \
  X(vkCmdResetQueryPool) X(vkCreateQueryPool) X(vkGetQueryPoolResults)                   \
  X(vkQueueSubmit) X(vkQueueWaitIdle) X(vkResetCommandBuffer) X(vkCmdPushConstants)    \
  X(vkCmdFillBuffer)

PFN_vkGetInstanceProcAddr getProc;
#define DECLARE(f) PFN_##f f;
VK_FUNCTIONS(DECLARE)

uint16_t toHalf(float f) { // round to nearest even; inputs are small normals or zero
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp < 103)
    return uint16_t(sign);
  if (exp < 113) { // subnormal half
    man |= 0x800000;
    uint32_t shift = 126 - exp, h = man >> shift, rest = man & ((1u << shift) - 1),
             halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1)))
      ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = ((exp - 112) << 10) | (man >> 13), rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(sign | h);
}
double fromHalf(uint16_t h) {
  int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v = exp ? std::ldexp(1024 + man, exp - 25) : std::ldexp(man, -24);
  return (h & 0x8000) ? -v : v;
}

struct Buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void *mapped = nullptr;
};

VkPhysicalDeviceMemoryProperties memoryProperties;
VkDevice device;

Buffer makeBuffer(VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want) {
  Buffer b;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  CHECK(vkCreateBuffer(device, &info, nullptr, &b.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, b.buffer, &req);
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < memoryProperties.memoryTypeCount && type == UINT32_MAX; ++i)
    if ((req.memoryTypeBits & (1u << i)) &&
        (memoryProperties.memoryTypes[i].propertyFlags & want) == want)
      type = i;
  if (type == UINT32_MAX)
    fail("no memory type for a buffer");
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = type;
  CHECK(vkAllocateMemory(device, &alloc, nullptr, &b.memory));
  CHECK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
  if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    CHECK(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
  return b;
}

bool hasExtension(const std::vector<VkExtensionProperties> &list, const char *name) {
  for (const auto &e : list)
    if (!std::strcmp(e.extensionName, name))
      return true;
  return false;
}

} // namespace

int main(int argc, char **argv) {
  bool query = false, xpujit = false, edge = false, robust = false;
  std::string spvPath;
  int m = 4096, n = 4096, k = 4096, bm = 128, bn = 128, wg = 256, iters = 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (a == "--query")
      query = true;
    else if (a == "--spv" && i + 1 < argc)
      spvPath = argv[++i];
    else if (a == "--m") m = next();
    else if (a == "--n") n = next();
    else if (a == "--k") k = next();
    else if (a == "--bm") bm = next();
    else if (a == "--bn") bn = next();
    else if (a == "--wg") wg = next();
    else if (a == "--iters") iters = next();
    else if (a == "--xpujit") xpujit = true;
    else if (a == "--edge") edge = true;
    else if (a == "--robust") robust = true;
    else {
      std::printf("FAIL: unknown argument %s\n", a.c_str());
      return 1;
    }
  }
  void *lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    fail("no libvulkan.so.1");
  getProc = PFN_vkGetInstanceProcAddr(dlsym(lib, "vkGetInstanceProcAddr"));
  auto createInstance = PFN_vkCreateInstance(getProc(nullptr, "vkCreateInstance"));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &app;
  VkInstance instance;
  CHECK(createInstance(&instanceInfo, nullptr, &instance));
#define LOAD(f)                                                                          \
  f = PFN_##f(getProc(instance, #f));                                                    \
  if (!f)                                                                                \
    fail("missing entry point " #f);
  VK_FUNCTIONS(LOAD)

  uint32_t count = 0;
  CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> physicals(count);
  CHECK(vkEnumeratePhysicalDevices(instance, &count, physicals.data()));
  if (!count)
    fail("no Vulkan device");
  VkPhysicalDevice physical = physicals[0];
  VkPhysicalDeviceProperties props;
  for (auto p : physicals) {
    vkGetPhysicalDeviceProperties(p, &props);
    if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
      physical = p;
      break;
    }
  }
  vkGetPhysicalDeviceProperties(physical, &props);
  vkGetPhysicalDeviceMemoryProperties(physical, &memoryProperties);
  CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data()));
  bool khr = hasExtension(extensions, "VK_KHR_cooperative_matrix");
  bool nv2 = hasExtension(extensions, "VK_NV_cooperative_matrix2");
  bool statistics = hasExtension(extensions, "VK_KHR_pipeline_executable_properties");

  Coop2FeaturesNV nv2Features{kCoop2FeaturesNV};
  CoopFeaturesKHR khrFeatures{kCoopFeaturesKHR, nv2 ? &nv2Features : nullptr};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                       khr ? &khrFeatures : nullptr};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                       &f11};
  VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                       &f12};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f13};
  vkGetPhysicalDeviceFeatures2(physical, &features);
  Coop2PropertiesNV nv2Props{kCoop2PropertiesNV};
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, nv2 ? &nv2Props : nullptr};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
  vkGetPhysicalDeviceProperties2(physical, &props2);

  if (query) {
    std::printf("device: %s, driver 0x%x, api %u.%u, subgroup %u, max shared %u\n",
                props.deviceName, props.driverVersion, VK_API_VERSION_MAJOR(props.apiVersion),
                VK_API_VERSION_MINOR(props.apiVersion), subgroup.subgroupSize,
                props.limits.maxComputeSharedMemorySize);
    for (const auto &e : extensions)
      if (std::strstr(e.extensionName, "ooperative") || std::strstr(e.extensionName, "subgroup"))
        std::printf("extension: %s (spec %u)\n", e.extensionName, e.specVersion);
    // What a robust store of an edge tile could rest on: out-of-bounds
    // cooperative-matrix accesses made robust, and robustness2's
    // discarded writes, per pipeline where pipeline robustness is listed.
    VkPhysicalDeviceRobustness2FeaturesEXT r2{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    VkPhysicalDevicePipelineRobustnessFeaturesEXT pr{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT, &r2};
    VkPhysicalDeviceFeatures2 robust{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &pr};
    vkGetPhysicalDeviceFeatures2(physical, &robust);
    std::printf("robustness: cooperativeMatrixRobustBufferAccess %u, robustBufferAccess2 %u "
                "(VK_EXT_robustness2 %s), pipelineRobustness %u (VK_EXT_pipeline_robustness "
                "%s)\n",
                khr ? khrFeatures.robustBufferAccess : 0, r2.robustBufferAccess2,
                hasExtension(extensions, "VK_EXT_robustness2") ? "listed" : "absent",
                pr.pipelineRobustness,
                hasExtension(extensions, "VK_EXT_pipeline_robustness") ? "listed" : "absent");
    if (khr) {
      auto list = (VkResult(*)(VkPhysicalDevice, uint32_t *, CoopPropertiesKHR *))getProc(
          instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
      uint32_t c = 0;
      list(physical, &c, nullptr);
      std::vector<CoopPropertiesKHR> entries(c, CoopPropertiesKHR{kCoopPropertiesKHR});
      list(physical, &c, entries.data());
      for (const auto &e : entries)
        std::printf("khr: %ux%ux%u A %s B %s C %s R %s%s %s\n", e.m, e.n, e.k,
                    componentName(e.a), componentName(e.b), componentName(e.c),
                    componentName(e.result), e.saturating ? " sat" : "", scopeName(e.scope));
    }
    if (nv2) {
      for (int i = 0; i < 7; ++i)
        std::printf("nv2 feature %s: %u\n", kCoop2FeatureNames[i], nv2Features.bits[i]);
      std::printf("nv2: workgroupScopeMaxWorkgroupSize %u flexibleDimensionsMaxDimension %u "
                  "workgroupScopeReservedSharedMemory %u\n",
                  nv2Props.workgroupScopeMaxWorkgroupSize,
                  nv2Props.flexibleDimensionsMaxDimension,
                  nv2Props.workgroupScopeReservedSharedMemory);
      auto list = (VkResult(*)(VkPhysicalDevice, uint32_t *, Coop2FlexibleNV *))getProc(
          instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV");
      if (list) {
        uint32_t c = 0;
        list(physical, &c, nullptr);
        std::vector<Coop2FlexibleNV> entries(c, Coop2FlexibleNV{kCoop2FlexibleNV});
        list(physical, &c, entries.data());
        for (const auto &e : entries)
          std::printf("nv2 flexible: granularity %ux%ux%u A %s B %s C %s R %s%s %s, %u "
                      "invocations\n",
                      e.mGranularity, e.nGranularity, e.kGranularity, componentName(e.a),
                      componentName(e.b), componentName(e.c), componentName(e.result),
                      e.saturating ? " sat" : "", scopeName(e.scope), e.workgroupInvocations);
      }
    }
    if (spvPath.empty())
      return 0;
  }
  if (spvPath.empty())
    fail("--spv FILE or --query");
  if (!khr || !khrFeatures.cooperativeMatrix)
    std::printf("note: no VK_KHR_cooperative_matrix; only a shader without one can run\n");
  if ((m % bm && !edge) || n % bn)
    fail("M (without --edge) and N must be multiples of the block");
  const int rows = (m + bm - 1) / bm * bm; // A's rows, the grid's
  VkPhysicalDeviceRobustness2FeaturesEXT robustFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
  if (robust) {
    VkPhysicalDeviceFeatures2 f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &robustFeatures};
    vkGetPhysicalDeviceFeatures2(physical, &f);
    if (!robustFeatures.robustBufferAccess2)
      fail("--robust: the device has no robustBufferAccess2");
    robustFeatures.robustImageAccess2 = robustFeatures.nullDescriptor = VK_FALSE;
  }

  // Enable what the shaders use: 16-bit storage and arithmetic, the
  // cooperative matrices, every listed NV2 feature.
  VkPhysicalDeviceVulkan11Features e11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  e11.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
  VkPhysicalDeviceVulkan12Features e12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                       &e11};
  e12.shaderFloat16 = f12.shaderFloat16;
  e12.vulkanMemoryModel = f12.vulkanMemoryModel;
  e12.vulkanMemoryModelDeviceScope = f12.vulkanMemoryModelDeviceScope;
  VkPhysicalDeviceVulkan13Features e13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                       &e12};
  e13.subgroupSizeControl = f13.subgroupSizeControl;
  e13.computeFullSubgroups = f13.computeFullSubgroups;
  e13.maintenance4 = f13.maintenance4;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR estats{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, &e13,
      VK_TRUE};
  robustFeatures.pNext = &e13;
  VkBaseOutStructure *afterStats = robust ? (VkBaseOutStructure *)&robustFeatures
                                          : (VkBaseOutStructure *)&e13;
  estats.pNext = afterStats;
  CoopFeaturesKHR ekhr{kCoopFeaturesKHR, statistics ? (void *)&estats : (void *)afterStats,
                       VK_TRUE, VK_FALSE};
  Coop2FeaturesNV env2 = nv2Features;
  env2.pNext = &ekhr;
  std::vector<const char *> enable;
  if (khr)
    enable.push_back("VK_KHR_cooperative_matrix");
  if (nv2)
    enable.push_back("VK_NV_cooperative_matrix2");
  if (statistics)
    enable.push_back("VK_KHR_pipeline_executable_properties");
  if (robust)
    enable.push_back("VK_EXT_robustness2");

  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  uint32_t family = UINT32_MAX;
  for (uint32_t i = 0; i < count && family == UINT32_MAX; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      family = i;
  if (family == UINT32_MAX)
    fail("no compute queue");
  float priority = 1;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = family;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                nv2 ? (void *)&env2 : (void *)&ekhr};
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = uint32_t(enable.size());
  deviceInfo.ppEnabledExtensionNames = enable.data();
  CHECK(vkCreateDevice(physical, &deviceInfo, nullptr, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  // Operands: uniform in [-1, 1), rounded to f16.
  size_t aCount = size_t(rows) * k, bCount = size_t(k) * n, cCount = size_t(m) * n;
  // The guard after C: at least what the last block row overhangs.
  const size_t guard = size_t(rows - m) * n + 4096;
  constexpr uint32_t kMarker = 0x7fc0dead;
  std::vector<uint16_t> hostA(aCount), hostB(bCount);
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (auto &x : hostA)
    x = toHalf(uniform(rng));
  for (auto &x : hostB)
    x = toHalf(uniform(rng));

  const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  const VkMemoryPropertyFlags host =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  Buffer bufA = makeBuffer(aCount * 2, storage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  Buffer bufB = makeBuffer(bCount * 2, storage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  Buffer bufC = makeBuffer((cCount + guard) * 4, storage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  // The library's status word: a failed check writes it (xpujit mode).
  Buffer status = makeBuffer(256, storage, host);
  std::memset(status.mapped, 0, 256);
  Buffer staging = makeBuffer(std::max((cCount + guard) * 4, (aCount + bCount) * 2),
                              VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              host);
  std::memcpy(staging.mapped, hostA.data(), aCount * 2);
  std::memcpy((char *)staging.mapped + aCount * 2, hostB.data(), bCount * 2);

  std::ifstream in(spvPath, std::ios::binary);
  std::vector<char> code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (code.empty() || code.size() % 4)
    fail("cannot read the .spv file");
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = code.size();
  moduleInfo.pCode = reinterpret_cast<const uint32_t *>(code.data());
  VkShaderModule shader;
  CHECK(vkCreateShaderModule(device, &moduleInfo, nullptr, &shader));
  const uint32_t numBindings = xpujit ? 4 : 3;
  VkDescriptorSetLayoutBinding bindings[4];
  for (uint32_t i = 0; i < numBindings; ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  layoutInfo.bindingCount = numBindings;
  layoutInfo.pBindings = bindings;
  VkDescriptorSetLayout setLayout;
  CHECK(vkCreateDescriptorSetLayout(device, &layoutInfo, nullptr, &setLayout));
  VkPipelineLayoutCreateInfo pipelineLayoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pipelineLayoutInfo.setLayoutCount = 1;
  pipelineLayoutInfo.pSetLayouts = &setLayout;
  // xpujit's argument block: the counts of A, B and C, then m, n, k.
  const uint32_t args[6] = {uint32_t(aCount), uint32_t(bCount), uint32_t(cCount),
                            uint32_t(m),      uint32_t(n),      uint32_t(k)};
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof args};
  if (xpujit) {
    pipelineLayoutInfo.pushConstantRangeCount = 1;
    pipelineLayoutInfo.pPushConstantRanges = &push;
  }
  VkPipelineLayout pipelineLayout;
  CHECK(vkCreatePipelineLayout(device, &pipelineLayoutInfo, nullptr, &pipelineLayout));
  VkComputePipelineCreateInfo pipelineInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = shader;
  pipelineInfo.stage.pName = xpujit ? "gemm" : "main";
  pipelineInfo.layout = pipelineLayout;
  // The workgroup size (0-2, the library's), then m, n, k (3-5: the
  // generator's --sizes spec shaders), then the parameters the library's
  // module reads from specialization constants (its tile strides), each
  // the value it is pushed with.
  std::vector<uint32_t> constants{uint32_t(wg), 1, 1, uint32_t(m), uint32_t(n), uint32_t(k)};
  std::vector<VkSpecializationMapEntry> entries;
  for (uint32_t i = 0; i < 6; ++i)
    entries.push_back({i, 4 * i, 4});
  for (const xpu::vk::ParamSpecConstant &c : xpu::vk::findParamSpecConstants(
           reinterpret_cast<const uint32_t *>(code.data()), code.size() / 4, "__xpu_spec_"))
    if (c.kernel == "gemm" && c.param < 6) {
      entries.push_back({c.specId, uint32_t(4 * constants.size()), 4});
      constants.push_back(args[c.param]);
    }
  const VkSpecializationInfo specialization{uint32_t(entries.size()), entries.data(),
                                            4 * constants.size(), constants.data()};
  if (xpujit)
    pipelineInfo.stage.pSpecializationInfo = &specialization;
  if (statistics)
    pipelineInfo.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VkPipeline pipeline;
  CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &pipeline));
  std::string stats;
  if (statistics) {
    auto get = PFN_vkGetPipelineExecutableStatisticsKHR(
        getProc(instance, "vkGetPipelineExecutableStatisticsKHR"));
    VkPipelineExecutableInfoKHR which{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, nullptr,
                                      pipeline, 0};
    uint32_t c = 0;
    if (get && get(device, &which, &c, nullptr) == VK_SUCCESS) {
      std::vector<VkPipelineExecutableStatisticKHR> list(
          c, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
      get(device, &which, &c, list.data());
      for (const auto &st : list) {
        char value[64];
        switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
          std::snprintf(value, sizeof value, "%u", st.value.b32);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
          std::snprintf(value, sizeof value, "%lld", (long long)st.value.i64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
          std::snprintf(value, sizeof value, "%llu", (unsigned long long)st.value.u64);
          break;
        default:
          std::snprintf(value, sizeof value, "%g", st.value.f64);
        }
        stats += std::string(stats.empty() ? "" : ", ") + st.name + " " + value;
      }
    }
  }

  VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VkDescriptorPool pool;
  CHECK(vkCreateDescriptorPool(device, &poolInfo, nullptr, &pool));
  VkDescriptorSetAllocateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setInfo.descriptorPool = pool;
  setInfo.descriptorSetCount = 1;
  setInfo.pSetLayouts = &setLayout;
  VkDescriptorSet set;
  CHECK(vkAllocateDescriptorSets(device, &setInfo, &set));
  VkDescriptorBufferInfo bufferInfos[4] = {{bufA.buffer, 0, VK_WHOLE_SIZE},
                                           {bufB.buffer, 0, VK_WHOLE_SIZE},
                                           {bufC.buffer, 0, cCount * 4},
                                           {status.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[4];
  for (uint32_t i = 0; i < numBindings; ++i) {
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = uint32_t(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &bufferInfos[i];
  }
  vkUpdateDescriptorSets(device, numBindings, writes, 0, nullptr);

  VkCommandPoolCreateInfo cmdPoolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cmdPoolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cmdPoolInfo.queueFamilyIndex = family;
  VkCommandPool cmdPool;
  CHECK(vkCreateCommandPool(device, &cmdPoolInfo, nullptr, &cmdPool));
  VkCommandBufferAllocateInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cmdInfo.commandPool = cmdPool;
  cmdInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cmdInfo.commandBufferCount = 1;
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(device, &cmdInfo, &cmd));
  VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
  queryInfo.queryCount = uint32_t(2 * (iters + 1));
  VkQueryPool queries;
  CHECK(vkCreateQueryPool(device, &queryInfo, nullptr, &queries));

  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_READ_BIT;
  auto submit = [&] {
    CHECK(vkEndCommandBuffer(cmd));
    VkSubmitInfo info{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    info.commandBufferCount = 1;
    info.pCommandBuffers = &cmd;
    CHECK(vkQueueSubmit(queue, 1, &info, VK_NULL_HANDLE));
    CHECK(vkQueueWaitIdle(queue));
    CHECK(vkResetCommandBuffer(cmd, 0));
  };
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cmd, &begin));
  VkBufferCopy copyA{0, 0, aCount * 2}, copyB{aCount * 2, 0, bCount * 2};
  vkCmdCopyBuffer(cmd, staging.buffer, bufA.buffer, 1, &copyA);
  vkCmdCopyBuffer(cmd, staging.buffer, bufB.buffer, 1, &copyB);
  vkCmdFillBuffer(cmd, bufC.buffer, 0, VK_WHOLE_SIZE, kMarker);
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       0, 1, &barrier, 0, nullptr, 0, nullptr);
  vkCmdResetQueryPool(cmd, queries, 0, queryInfo.queryCount);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelineLayout, 0, 1, &set, 0,
                          nullptr);
  if (xpujit)
    vkCmdPushConstants(cmd, pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof args, args);
  // One warm-up dispatch, then the timed ones, each between two timestamps.
  for (int i = 0; i <= iters; ++i) {
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, uint32_t(2 * i));
    vkCmdDispatch(cmd, uint32_t(n / bn), uint32_t(rows / bm), 1);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, uint32_t(2 * i + 1));
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         1, &barrier, 0, nullptr, 0, nullptr);
  }
  VkBufferCopy copyC{0, 0, (cCount + guard) * 4};
  vkCmdCopyBuffer(cmd, bufC.buffer, staging.buffer, 1, &copyC);
  submit();

  std::vector<uint64_t> stamps(queryInfo.queryCount);
  CHECK(vkGetQueryPoolResults(device, queries, 0, queryInfo.queryCount,
                              stamps.size() * sizeof(uint64_t), stamps.data(), sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  std::vector<double> seconds;
  for (int i = 1; i <= iters; ++i)
    seconds.push_back(double(stamps[2 * i + 1] - stamps[2 * i]) * props.limits.timestampPeriod *
                      1e-9);
  std::sort(seconds.begin(), seconds.end());
  double flops = 2.0 * m * n * k;

  // Check sampled elements against float64, with a bound of the f32
  // accumulation's rounding: K steps of relative 2^-24 on the sum of |a*b|.
  const float *c = static_cast<const float *>(staging.mapped);
  std::uniform_int_distribution<size_t> pick(0, cCount - 1);
  int bad = 0;
  double worst = 0;
  for (int s = 0; s < 4096; ++s) {
    size_t at = pick(rng), row = at / n, col = at % n;
    double exact = 0, magnitude = 0;
    for (int i = 0; i < k; ++i) {
      double p = fromHalf(hostA[row * k + i]) * fromHalf(hostB[size_t(i) * n + col]);
      exact += p;
      magnitude += std::fabs(p);
    }
    double err = std::fabs(c[at] - exact), bound = k * 0x1p-24 * magnitude + 1e-6;
    worst = std::max(worst, err / bound);
    if (!(err <= bound) && bad++ < 5)
      std::printf("  C[%zu,%zu] = %.6g, expected %.6g\n", row, col, c[at], exact);
  }
  std::printf("%s M N K %d %d %d block %dx%d wg %d: best %.1f median %.1f TFLOP/s (%.3f ms), "
              "4096 samples %s (worst err/bound %.3g)\n",
              spvPath.c_str(), m, n, k, bm, bn, wg, flops / seconds.front() * 1e-12,
              flops / seconds[seconds.size() / 2] * 1e-12, seconds[seconds.size() / 2] * 1e3,
              bad ? "WRONG" : "ok", worst);
  size_t touched = 0;
  for (size_t i = cCount; i < cCount + guard; ++i) {
    uint32_t word;
    std::memcpy(&word, c + i, 4);
    touched += word != kMarker;
  }
  if (touched)
    std::printf("  WRONG: %zu of the %zu guard words after C were written%s\n", touched, guard,
                robust ? " under robustBufferAccess2" : "");
  else if (edge)
    std::printf("  guard after C untouched (%zu words)%s\n", guard,
                robust ? ", robustBufferAccess2" : "");
  if (!stats.empty())
    std::printf("  statistics: %s\n", stats.c_str());
  uint32_t word = *static_cast<const uint32_t *>(status.mapped);
  if (word)
    std::printf("  status word %u: a check of the library's code failed\n", word);
  // With --edge the library's checked store rightly reports its overhang.
  return bad || (word && !edge) || touched ? 1 : 0;
}
