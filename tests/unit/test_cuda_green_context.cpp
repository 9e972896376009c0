// Compute-unit budgets on CUDA without a GPU: how a request is rounded to
// what a green context can hold, and what xpujit asks of the driver,
// through a driver table of fakes that keep what they were given.
#include "../../backends/cuda/cuda_green_context.h"

#include <doctest/doctest.h>

#include <random>

using namespace xpu::cuda;

namespace {

/// The fake device: its SM resource, and what the fakes saw.
struct FakeDevice {
  uint32_t sms = 132, minPartition = 8, alignment = 8;
  uint32_t splitAsked = 0;   ///< minCount of the last split
  uint32_t splitGives = 0;   ///< what the split reports (0: the request)
  CUresult createResult = CUDA_SUCCESS;
  int created = 0, destroyed = 0, streams = 0, streamsDestroyed = 0;
  unsigned streamFlags = 0, contextFlags = 0;
} fake;

CUresult getResource(CUdevice, CudaDevResource *r, int type) {
  if (type != CU_DEV_RESOURCE_TYPE_SM)
    return 1;
  *r = {};
  r->type = CU_DEV_RESOURCE_TYPE_SM;
  r->sm.smCount = fake.sms;
  r->sm.minSmPartitionSize = fake.minPartition;
  r->sm.smCoscheduledAlignment = fake.alignment;
  return CUDA_SUCCESS;
}
CUresult split(CudaDevResource *result, unsigned *groups, const CudaDevResource *input,
               CudaDevResource *, unsigned, unsigned minCount) {
  REQUIRE(input->sm.smCount == fake.sms);
  fake.splitAsked = minCount;
  *result = *input;
  result->sm.smCount = fake.splitGives ? fake.splitGives : minCount;
  *groups = 1;
  return CUDA_SUCCESS;
}
CUresult generateDesc(CUdevResourceDesc *desc, CudaDevResource *, unsigned n) {
  *desc = reinterpret_cast<CUdevResourceDesc>(uintptr_t(0x1000 + n));
  return CUDA_SUCCESS;
}
CUresult createContext(CUgreenCtx *ctx, CUdevResourceDesc, CUdevice, unsigned flags) {
  fake.contextFlags = flags;
  if (fake.createResult != CUDA_SUCCESS)
    return fake.createResult;
  ++fake.created;
  *ctx = reinterpret_cast<CUgreenCtx>(uintptr_t(0x2000));
  return CUDA_SUCCESS;
}
CUresult createStream(CUstream *s, CUgreenCtx, unsigned flags, int) {
  fake.streamFlags = flags;
  ++fake.streams;
  *s = reinterpret_cast<CUstream>(uintptr_t(0x3000));
  return CUDA_SUCCESS;
}
CUresult destroyContext(CUgreenCtx) { return ++fake.destroyed, CUDA_SUCCESS; }
CUresult destroyStream(CUstream) { return ++fake.streamsDestroyed, CUDA_SUCCESS; }

Driver fakeDriver() {
  Driver d;
  d.cuDeviceGetDevResource = getResource;
  d.cuDevSmResourceSplitByCount = split;
  d.cuDevResourceGenerateDesc = generateDesc;
  d.cuGreenCtxCreate = createContext;
  d.cuGreenCtxStreamCreate = createStream;
  d.cuGreenCtxDestroy = destroyContext;
  d.cuGreenCtxRecordEvent = [](CUgreenCtx, CUevent) { return CUDA_SUCCESS; };
  d.cuStreamDestroy = destroyStream;
  return d;
}

} // namespace

TEST_CASE("cuda green contexts: a request rounds up to the driver's granularity") {
  SmSplitRules hopper{132, 8, 8}; // H200: the guideline for compute capability 9.x
  CHECK(roundSmRequest(16, hopper) == 16);
  CHECK(roundSmRequest(1, hopper) == 8);
  CHECK(roundSmRequest(17, hopper) == 24);
  CHECK(roundSmRequest(66, hopper) == 72);
  CHECK(roundSmRequest(128, hopper) == 128);
  CHECK(roundSmRequest(129, hopper) == 0); // 136 SMs: more than the device
  CHECK(roundSmRequest(132, hopper) == 0);
  SmSplitRules ampere{108, 4, 2};
  CHECK(roundSmRequest(3, ampere) == 4);
  CHECK(roundSmRequest(5, ampere) == 6);
  CHECK(roundSmRequest(106, ampere) == 106);
  CHECK(roundSmRequest(107, ampere) == 0);
  CHECK(roundSmRequest(4, {8, 0, 0}) == 4); // no rules: the request itself
  // Every request: the fewest SMs at or above it, at or above the minimum,
  // that is a multiple of the alignment, below the device's count.
  std::mt19937 rng(std::random_device{}());
  for (int i = 0; i < 1000; ++i) {
    SmSplitRules r{uint32_t(rng() % 200 + 1), uint32_t(rng() % 9), uint32_t(rng() % 9)};
    uint32_t want = uint32_t(rng() % (r.smCount + 4));
    uint32_t got = roundSmRequest(want, r);
    INFO(want << " of " << r.smCount << " min " << r.minPartition << " align " << r.alignment);
    uint32_t align = r.alignment ? r.alignment : 1;
    uint32_t expect = 0;
    for (uint32_t n = 1; n < r.smCount; ++n)
      if (n >= want && n >= r.minPartition && n % align == 0) {
        expect = n;
        break;
      }
    CHECK(got == expect);
  }
}

TEST_CASE("cuda green contexts: what the driver is asked, and what is reported") {
  fake = {};
  Driver d = fakeDriver();
  GreenStream g;
  xpu::rt::Status st = createGreenStream(d, 0, 17, g);
  INFO(st.message());
  REQUIRE(st.isOk());
  CHECK(fake.splitAsked == 24);
  CHECK(g.smCount == 24);
  CHECK(fake.contextFlags == CU_GREEN_CTX_DEFAULT_STREAM);
  CHECK(fake.streamFlags == CU_STREAM_NON_BLOCKING);
  destroyGreenStream(d, g);
  CHECK(fake.streamsDestroyed == 1);
  CHECK(fake.destroyed == 1);
  CHECK(g.context == nullptr);

  // The count reported is the split's, not the request's.
  fake.splitGives = 32;
  REQUIRE(createGreenStream(d, 0, 16, g).isOk());
  CHECK(g.smCount == 32);
  destroyGreenStream(d, g);

  // A split that would take the whole device reserves nothing.
  fake = {};
  st = createGreenStream(d, 0, 130, g);
  CHECK(st.code() == XPU_ERROR_UNSUPPORTED);
  CHECK(st.message().find("136") == std::string::npos); // says the rule, not a guess
  CHECK(st.message().find("132") != std::string::npos);
  CHECK(fake.splitAsked == 0);

  // A driver error: the context is not left behind.
  fake = {};
  fake.createResult = 801; // CUDA_ERROR_NOT_SUPPORTED
  st = createGreenStream(d, 0, 16, g);
  CHECK(st.code() == XPU_ERROR_BACKEND);
  CHECK(st.message().find("cuGreenCtxCreate") != std::string::npos);
  CHECK(fake.streams == 0);
}

TEST_CASE("cuda green contexts: a driver without the entry points reserves nothing") {
  fake = {};
  Driver d = fakeDriver();
  d.cuGreenCtxStreamCreate = nullptr; // CUDA 12.4 has no cuGreenCtxStreamCreate
  GreenStream g;
  xpu::rt::Status st = createGreenStream(d, 0, 16, g);
  CHECK(st.code() == XPU_ERROR_UNSUPPORTED);
  CHECK(st.message().find("cuGreenCtxStreamCreate") != std::string::npos);
  CHECK(st.message().find("cuGreenCtxCreate,") == std::string::npos);
  CHECK(fake.created == 0);
  CHECK(g.context == nullptr);
}
