// A stand-in for libamdhip64 with one fake AMD device, for testing xpujit's
// side of the HIP runtime API on machines without an AMD GPU. Memory is
// host memory; kernels do not run: a launch is only recorded (mockLastLaunch)
// so a test can check what xpujit passed, and a graph replays its nodes as
// such records (mockGraphLaunches); a CU-masked stream keeps its mask
// (mockLastCUMask). Device properties are written at
// the hipDeviceProp_tR0600 offsets of HIP 6 (name 0, uuid 256, gcnArchName
// 1160). A kernel named "mock_fault", launched or replayed in a graph,
// makes the next stream synchronization fail as a memory fault does, and
// every later call with it.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kSuccess = 0, kInvalidValue = 1, kNoDevice = 100, kInvalidImage = 200,
              kNotFound = 500, kIllegalAddress = 700;

int sticky = 0; // a fault poisons everything after it, as in HIP

struct Function {
  std::string name;
};
struct Module {
  std::vector<uint8_t> image;
  std::vector<Function *> functions;
};

struct Launch {
  std::string name;
  unsigned grid[3], block[3];
  std::vector<std::vector<uint8_t>> params; ///< the first 8 bytes of each
} last;
int launches = 0;

/// hipKernelNodeParams of HIP 6 (the layout xpujit declares).
struct Dim3 {
  uint32_t x, y, z;
};
struct KernelNodeParams {
  Dim3 blockDim;
  void **extra;
  void *func;
  Dim3 gridDim;
  void **kernelParams;
  unsigned sharedMemBytes;
};
/// A graph node keeps what a launch would record; instantiation copies it.
struct GraphNode {
  Launch launch;
  std::vector<GraphNode *> deps;
};
struct Graph {
  std::vector<GraphNode *> nodes;
};
struct GraphExec {
  std::vector<GraphNode *> originals; ///< to find a node by its handle
  std::vector<Launch> launches;
};
int graphLaunches = 0;
std::vector<uint32_t> lastCUMask;

Launch record(void *f, const unsigned grid[3], const unsigned block[3], void **params) {
  Launch l{static_cast<Function *>(f)->name, {grid[0], grid[1], grid[2]},
           {block[0], block[1], block[2]}, {}};
  for (int i = 0; params && params[i] && i < 16; ++i) {
    auto *b = static_cast<const uint8_t *>(params[i]);
    l.params.emplace_back(b, b + 8);
  }
  return l;
}

const char *arch() {
  const char *a = std::getenv("MOCK_HIP_ARCH");
  return a && *a ? a : "gfx942:sramecc+:xnack-";
}
bool wave32() { return std::strncmp(arch(), "gfx1", 4) == 0; }

/// The size of an image: xpujit passes code objects (ELF) only; the section
/// header table is the last thing lld writes.
size_t elfSize(const uint8_t *p) {
  uint64_t shoff;
  uint16_t shentsize, shnum;
  std::memcpy(&shoff, p + 0x28, 8);
  std::memcpy(&shentsize, p + 0x3a, 2);
  std::memcpy(&shnum, p + 0x3c, 2);
  return size_t(shoff + uint64_t(shentsize) * shnum);
}

} // namespace

extern "C" {

int hipInit(unsigned) { return std::getenv("MOCK_HIP_NO_DEVICE") ? kNoDevice : kSuccess; }
int hipDriverGetVersion(int *v) { *v = 60342134; return kSuccess; }
int hipRuntimeGetVersion(int *v) { *v = 60342134; return kSuccess; }
const char *hipGetErrorName(int e) {
  switch (e) {
  case kSuccess: return "hipSuccess";
  case kInvalidValue: return "hipErrorInvalidValue";
  case kNoDevice: return "hipErrorNoDevice";
  case kInvalidImage: return "hipErrorInvalidImage";
  case kNotFound: return "hipErrorNotFound";
  case kIllegalAddress: return "hipErrorIllegalAddress";
  }
  return "hipErrorUnknown";
}
const char *hipGetErrorString(int e) {
  return e == kIllegalAddress ? "an illegal memory access was encountered" : "mock error";
}
int hipGetDeviceCount(int *n) { *n = 1; return sticky ? sticky : kSuccess; }
int hipSetDevice(int d) { return d == 0 ? kSuccess : kInvalidValue; }
int hipDeviceGetName(char *name, int len, int) {
  std::strncpy(name, "Mock AMD Instinct", size_t(len));
  return kSuccess;
}
int hipDeviceGetAttribute(int *v, int attr, int) {
  switch (attr) {
  case 26: *v = 1024; return kSuccess;         // MaxBlockDimX
  case 29: *v = 2147483647; return kSuccess;   // MaxGridDimX
  case 30: case 31: *v = 65536; return kSuccess;
  case 56: *v = 1024; return kSuccess;         // MaxThreadsPerBlock
  case 63: *v = 304; return kSuccess;          // MultiprocessorCount
  case 74: *v = 65536; return kSuccess;        // MaxSharedMemoryPerBlock
  case 87: *v = wave32() ? 32 : 64; return kSuccess; // WarpSize
  }
  return kInvalidValue;
}
int hipGetDevicePropertiesR0600(void *props, int) {
  char *p = static_cast<char *>(props);
  std::memset(p, 0, 1472);
  std::strcpy(p, "Mock AMD Instinct");
  for (int i = 0; i < 16; ++i)
    p[256 + i] = char(0xa0 + i);
  std::strcpy(p + 1160, arch());
  return kSuccess;
}
int hipDeviceTotalMem(size_t *bytes, int) { *bytes = size_t(192) << 30; return kSuccess; }

int hipMalloc(void **p, size_t n) { *p = std::calloc(1, n ? n : 1); return sticky; }
int hipFree(void *p) { std::free(p); return kSuccess; }
int hipHostMalloc(void **p, size_t n, unsigned) { *p = std::calloc(1, n); return kSuccess; }
int hipHostFree(void *p) { std::free(p); return kSuccess; }
int hipHostGetDevicePointer(void **d, void *h, unsigned) { *d = h; return kSuccess; }
int hipMemcpyHtoD(void *d, const void *s, size_t n) {
  if (!sticky)
    std::memcpy(d, s, n);
  return sticky;
}
int hipMemcpyDtoH(void *d, void *s, size_t n) {
  if (!sticky)
    std::memcpy(d, s, n);
  return sticky;
}
int hipMemcpyHtoDAsync(void *d, const void *s, size_t n, void *) { return hipMemcpyHtoD(d, s, n); }
int hipMemcpyDtoDAsync(void *d, void *s, size_t n, void *) {
  std::memmove(d, s, n);
  return 0;
}
int hipMemcpyDtoHAsync(void *d, void *s, size_t n, void *) { return hipMemcpyDtoH(d, s, n); }

int hipStreamCreateWithFlags(void **s, unsigned) { *s = new int(0); return sticky; }
int hipStreamDestroy(void *s) { delete static_cast<int *>(s); return kSuccess; }
int hipStreamSynchronize(void *s) {
  static int nullStream = 0; // stream 0 (the HIP upload waits for it)
  int &pending = s ? *static_cast<int *>(s) : nullStream;
  if (pending)
    sticky = kIllegalAddress;
  pending = 0;
  return sticky;
}
int hipStreamWaitEvent(void *, void *, unsigned) { return sticky; }
int hipEventCreateWithFlags(void **e, unsigned) { *e = new int(0); return sticky; }
int hipEventDestroy(void *e) { delete static_cast<int *>(e); return kSuccess; }
int hipEventRecord(void *, void *) { return sticky; }
int hipEventSynchronize(void *) { return sticky; }
int hipEventQuery(void *) { return sticky; }
int hipEventElapsedTime(float *ms, void *, void *) {
  *ms = 0;
  return sticky;
}

int hipModuleLoadData(void **out, const void *image) {
  auto *p = static_cast<const uint8_t *>(image);
  // An AMDGPU code object v5: ELF64, OS/ABI AMDGPU_HSA, ABI version 3,
  // a shared object for EM_AMDGPU.
  uint16_t type, machine;
  std::memcpy(&type, p + 16, 2);
  std::memcpy(&machine, p + 18, 2);
  if (std::memcmp(p, "\x7f" "ELF", 4) || p[4] != 2 || p[7] != 64 || p[8] != 3 ||
      type != 3 || machine != 224)
    return kInvalidImage;
  auto *m = new Module;
  m->image.assign(p, p + elfSize(p));
  *out = m;
  return sticky;
}
int hipModuleUnload(void *m) {
  auto *mod = static_cast<Module *>(m);
  for (Function *f : mod->functions)
    delete f;
  delete mod;
  return kSuccess;
}
int hipModuleGetFunction(void **f, void *m, const char *name) {
  auto *mod = static_cast<Module *>(m);
  std::string symbol = std::string(name) + ".kd";
  std::string bytes(mod->image.begin(), mod->image.end());
  if (bytes.find(symbol + '\0') == std::string::npos)
    return kNotFound;
  mod->functions.push_back(new Function{name});
  *f = mod->functions.back();
  return kSuccess;
}
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned, void *stream, void **params,
                          void **) {
  if (sticky)
    return sticky;
  auto *fn = static_cast<Function *>(f);
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  last = record(f, grid, block, params);
  ++launches;
  if (fn->name == "mock_fault")
    *static_cast<int *>(stream) = 1;
  return kSuccess;
}

int hipExtStreamCreateWithCUMask(void **s, uint32_t words, const uint32_t *mask) {
  lastCUMask.assign(mask, mask + words);
  *s = new int(0);
  return sticky;
}

int hipGraphCreate(void **g, unsigned) {
  *g = new Graph;
  return sticky;
}
int hipGraphDestroy(void *g) {
  for (GraphNode *n : static_cast<Graph *>(g)->nodes)
    delete n;
  delete static_cast<Graph *>(g);
  return kSuccess;
}
int hipGraphAddKernelNode(void **node, void *g, void *const *deps, size_t ndeps,
                          const KernelNodeParams *p) {
  auto *graph = static_cast<Graph *>(g);
  auto *n = new GraphNode;
  unsigned grid[3] = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
  unsigned block[3] = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
  n->launch = record(p->func, grid, block, p->kernelParams); // values copied now
  for (size_t i = 0; i < ndeps; ++i) {
    auto *d = static_cast<GraphNode *>(deps[i]);
    bool known = false;
    for (GraphNode *m : graph->nodes)
      known |= m == d;
    if (!known) {
      delete n;
      return kInvalidValue;
    }
    n->deps.push_back(d);
  }
  graph->nodes.push_back(n);
  *node = n;
  return sticky;
}
int hipGraphInstantiate(void **exec, void *g, void **, char *, size_t) {
  auto *e = new GraphExec;
  for (GraphNode *n : static_cast<Graph *>(g)->nodes) {
    e->originals.push_back(n);
    e->launches.push_back(n->launch);
  }
  *exec = e;
  return sticky;
}
int hipGraphExecDestroy(void *e) {
  delete static_cast<GraphExec *>(e);
  return kSuccess;
}
int hipGraphExecKernelNodeSetParams(void *e, void *node, const KernelNodeParams *p) {
  auto *exec = static_cast<GraphExec *>(e);
  for (size_t i = 0; i < exec->originals.size(); ++i)
    if (exec->originals[i] == node) {
      unsigned grid[3] = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
      unsigned block[3] = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
      exec->launches[i] = record(p->func, grid, block, p->kernelParams);
      return sticky;
    }
  return kInvalidValue;
}
/// Replays the nodes in order: each is recorded as a launch would be.
int hipGraphLaunch(void *e, void *stream) {
  if (sticky)
    return sticky;
  for (const Launch &l : static_cast<GraphExec *>(e)->launches) {
    last = l;
    ++launches;
    if (l.name == "mock_fault")
      *static_cast<int *>(stream) = 1;
  }
  ++graphLaunches;
  return kSuccess;
}

/// For tests: graph launches so far, and the mask of the last CU-masked
/// stream (up to `maxWords` words; returns how many it has).
int mockGraphLaunches() { return graphLaunches; }
int mockLastCUMask(uint32_t *mask, int maxWords) {
  int n = 0;
  for (; n < maxWords && n < int(lastCUMask.size()); ++n)
    mask[n] = lastCUMask[n];
  return int(lastCUMask.size());
}

/// For tests: the last launch, its parameters' first 8 bytes each (up to
/// the first null entry or 16).
int mockLastLaunch(char *name, size_t nameLen, unsigned grid[3], unsigned block[3],
                   uint8_t (*params)[8], int maxParams) {
  std::strncpy(name, last.name.c_str(), nameLen);
  std::memcpy(grid, last.grid, sizeof last.grid);
  std::memcpy(block, last.block, sizeof last.block);
  int n = 0;
  for (; n < maxParams && n < int(last.params.size()); ++n)
    std::memcpy(params[n], last.params[n].data(), 8);
  return launches;
}

} // extern "C"
