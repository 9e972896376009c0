// The contraction probe; see contraction_probe.h. Compiled with
// -ffp-contract=off so the host reference itself is unfused.
#include "capability/contraction_probe.h"
#include "runtime/compiler.h"

#include <cstring>
#include <ctime>
#include <random>

namespace xpu::cap {

namespace {

const char *kProbe = R"(
xpu.kernel @contraction_probe(%out: !xpu.buffer<f32>, %a: !xpu.buffer<f32, ro>,
                              %b: !xpu.buffer<f32, ro>, %c: !xpu.buffer<f32, ro>)
    ATTRIBUTES {
  %i = xpu.global_id x
  %n = xpu.buffer_size %out : !xpu.buffer<f32>
  %na = xpu.buffer_size %a : !xpu.buffer<f32, ro>
  %nb = xpu.buffer_size %b : !xpu.buffer<f32, ro>
  %nc = xpu.buffer_size %c : !xpu.buffer<f32, ro>
  %o0 = arith.cmpi ult, %i, %n : index
  %o1 = arith.cmpi ult, %i, %na : index
  %o2 = arith.cmpi ult, %i, %nb : index
  %o3 = arith.cmpi ult, %i, %nc : index
  %o01 = arith.andi %o0, %o1 : i1
  %o23 = arith.andi %o2, %o3 : i1
  %ok = arith.andi %o01, %o23 : i1
  scf.if %ok {
    %av = xpu.load %a[%i] : !xpu.buffer<f32, ro>
    %bv = xpu.load %b[%i] : !xpu.buffer<f32, ro>
    %cv = xpu.load %c[%i] : !xpu.buffer<f32, ro>
    %p = arith.mulf %av, %bv : f32
    %r = arith.addf %p, %cv : f32
    xpu.store %r, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
)";

constexpr uint32_t kCount = 1024, kSensitive = 64;

Fact unknown(const std::string &why) {
  return {Capability::contractionControl, Kind::toolchainSemantic, Unknown{why},
          "contraction probe did not run: " + why};
}

std::string today() {
  char buf[16];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

} // namespace

Fact measureContraction(rt::Device &device, bool permitContraction) {
  std::string text = kProbe;
  text.replace(text.find("ATTRIBUTES"), 10,
               permitContraction ? "attributes {fastmath}" : "");
  rt::CompileRequest request;
  request.text = text;
  request.sourceName = "<contraction probe>";
  request.skipGates = true; // the probe is what the gate would need
  std::shared_ptr<const rt::Program> program;
  DiagnosticList diags;
  if (rt::Status st = rt::compileProgram(device, request, program, diags); !st.isOk())
    return unknown("building the probe failed: " + st.message());
  const abi::KernelInfo &info = *program->kernels[0];
  if (!info.checkSites.empty()) // every access is guarded: none to report
    return unknown("the probe kernel was not proven in bounds");

  // The first kSensitive inputs make a fused multiply-add round differently:
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds (ties to even) to 1 + 2^-11, so
  // adding -(1 + 2^-11) gives 0 unfused and 2^-24 fused.
  std::vector<float> a(kCount), b(kCount), c(kCount), out(kCount, -1.0f);
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  for (uint32_t i = 0; i < kCount; ++i) {
    if (i < kSensitive) {
      float s = 1.0f + std::ldexp(1.0f, -12) * float(1 + i % 3);
      a[i] = s;
      b[i] = s;
      c[i] = -(1.0f + std::ldexp(1.0f, -11) * float(1 + i % 3));
    } else {
      a[i] = d(rng);
      b[i] = d(rng);
      c[i] = d(rng);
    }
  }
  std::unique_ptr<rt::BackendBuffer> bufs[4];
  const std::vector<float> *inputs[4] = {&out, &a, &b, &c};
  for (int i = 0; i < 4; ++i) {
    if (rt::Status st = device.allocate(kCount * 4, bufs[i]); !st.isOk())
      return unknown(st.message());
    if (rt::Status st = device.upload(*bufs[i], 0, inputs[i]->data(), kCount * 4);
        !st.isOk())
      return unknown(st.message());
  }
  std::vector<abi::Slot> slots;
  uint32_t argBytes = abi::layoutArgs(info.params, slots);
  std::vector<uint8_t> args(argBytes);
  rt::LaunchRequest req;
  for (int i = 0; i < 4; ++i) {
    uint64_t address = bufs[i]->address(), count = kCount;
    std::memcpy(args.data() + slots[2 * i].offset, &address, 8);
    std::memcpy(args.data() + slots[2 * i + 1].offset, &count, 8);
    req.buffers.push_back(bufs[i].get());
  }
  req.kernel = program->code->kernel(0);
  req.info = &info;
  req.grid[0] = kCount / 64;
  req.block[0] = 64;
  req.args = args.data();
  req.argBytes = argBytes;
  req.slots = &slots;
  std::unique_ptr<rt::Queue> queue;
  if (rt::Status st = device.createQueue(queue); !st.isOk())
    return unknown(st.message());
  if (rt::Status st = queue->launch(req); !st.isOk())
    return unknown(st.message());
  if (rt::Status st = queue->synchronize(); !st.isOk())
    return unknown(st.message());
  if (rt::Status st = device.download(*bufs[0], 0, out.data(), kCount * 4); !st.isOk())
    return unknown(st.message());

  uint32_t differ = 0, sensitiveDiffer = 0;
  for (uint32_t i = 0; i < kCount; ++i) {
    float p = a[i] * b[i];
    float want = p + c[i];
    if (std::memcmp(&want, &out[i], 4) != 0) {
      ++differ;
      sensitiveDiffer += i < kSensitive;
    }
  }
  std::string evidence = "contraction probe on " + device.label() + ", " + today() +
                         ": " + std::to_string(kCount - differ) + " of " +
                         std::to_string(kCount) +
                         " a*b+c results bit-identical to unfused rounding (" +
                         std::to_string(kSensitive) +
                         " chosen so that a fused multiply-add differs); " +
                         program->blob.toolchain;
  if (differ == 0)
    return {Capability::contractionControl, Kind::toolchainSemantic, Available{},
            evidence};
  return {Capability::contractionControl, Kind::toolchainSemantic,
          Unavailable{Kind::toolchainSemantic,
                      "the toolchain contracts a*b+c: " + std::to_string(differ) +
                          " results differ from unfused rounding (" +
                          std::to_string(sensitiveDiffer) + " of the " +
                          std::to_string(kSensitive) + " sensitive ones)"},
          evidence};
}

} // namespace xpu::cap
