// AMD code generation without an AMD GPU: every conformance kernel compiles
// for gfx90a, gfx942 and gfx1100 to a code object v5 whose metadata names
// each kernel with the kernel ABI's argument layout, a group segment within
// its shared memory and the architecture's wave size. Also: targets, the
// device libraries, and the code object reader on bad input.
#include "../../backends/hip/hip_code_object.h"
#include "../../backends/hip/hip_codegen.h"
#include "runtime/compiler.h"
#include "runtime/targets.h"

#include <doctest/doctest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace xpu;

namespace {

struct Source {
  std::string where; ///< "test_compute.cpp:11"
  std::string text;
};

/// The kernel texts of the conformance suite: its raw string literals that
/// hold kernels.
std::vector<Source> conformanceKernels() {
  std::vector<Source> out;
  std::string dir = XPU_CONFORMANCE_DIR;
  DIR *d = opendir(dir.c_str());
  REQUIRE(d);
  std::vector<std::string> files;
  while (dirent *e = readdir(d))
    if (std::string name = e->d_name; name.rfind("test_", 0) == 0)
      files.push_back(name);
  closedir(d);
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    std::ifstream in(dir + "/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    for (size_t at = s.find("R\"("); at != std::string::npos; at = s.find("R\"(", at)) {
      size_t end = s.find(")\"", at);
      if (end == std::string::npos)
        break;
      std::string text = s.substr(at + 3, end - at - 3);
      if (text.find("xpu.kernel") != std::string::npos ||
          text.find("gpu.module") != std::string::npos)
        out.push_back({file + ":" + std::to_string(std::count(s.begin(), s.begin() + at, '\n') + 1),
                       text});
      at = end;
    }
  }
  return out;
}

rt::Status compile(const std::string &text, const std::string &chip, unsigned wave,
                   rt::Blob &blob, std::vector<abi::KernelInfo> &kernels,
                   DiagnosticList &diags, const std::string &name = "test.mlir") {
  rt::TargetDesc target;
  XPU_RETURN_IF_ERROR(rt::describeTarget("amdgcn", chip, wave, target));
  rt::CompileRequest request;
  request.text = text;
  request.sourceName = name;
  return rt::compileForTarget(request, target, blob, kernels, diags);
}

std::string diagnosticsText(const DiagnosticList &diags) {
  std::string s;
  for (const Diagnostic &d : diags)
    s += rt::formatDiagnostic(d) + "\n";
  return s;
}

/// The explicit arguments, as this test reads the kernel ABI: per
/// parameter a global pointer and an i64 count (buffers) or the value; each
/// at the next offset its size divides; then the generic status pointer.
void checkArguments(const abi::KernelInfo &info, const hip::CodeObjectKernel &k) {
  uint64_t next = 0;
  size_t i = 0;
  auto expect = [&](uint64_t size, const char *kind, const char *space) {
    INFO("argument " << i);
    REQUIRE(i < k.args.size());
    const hip::CodeObjectArg &a = k.args[i++];
    uint64_t offset = (next + size - 1) / size * size;
    CHECK(a.offset == offset);
    CHECK(a.size == size);
    CHECK(a.valueKind == kind);
    CHECK(a.addressSpace == space);
    next = offset + size;
  };
  for (const abi::Param &p : info.params) {
    INFO("parameter " << p.name);
    if (p.isBuffer) {
      expect(8, "global_buffer", "global");
      expect(8, "by_value", "");
    } else {
      expect(abi::paramBytes(p), "by_value", "");
    }
  }
  expect(8, "global_buffer", "generic");
  for (; i < k.args.size(); ++i)
    CHECK(k.args[i].valueKind.rfind("hidden_", 0) == 0);
  CHECK(k.kernargSegmentBytes >= next);
}

const char *kMath = R"(
  xpu.kernel @waves(%out: !xpu.buffer<f32>, %n: !xpu.buffer<i32>) {
    %i = xpu.global_id x
    %v = xpu.load %out[%i] : !xpu.buffer<f32>
    %e = math.exp %v : f32
    %s = math.sin %e : f32
    xpu.store %s, %out[%i] : !xpu.buffer<f32>
    %w = xpu.wave_width
    %w32 = arith.index_cast %w : index to i32
    xpu.store %w32, %n[%i] : !xpu.buffer<i32>
    xpu.return
  })";

} // namespace

TEST_CASE("the conformance kernels compile to code objects for gfx90a, gfx942, gfx1100") {
  std::vector<Source> sources = conformanceKernels();
  REQUIRE(sources.size() >= 15);
  for (const char *chip : {"gfx90a", "gfx942", "gfx1100"}) {
    unsigned wave = std::string(chip) == "gfx1100" ? 32 : 64;
    size_t compiled = 0;
    for (const Source &src : sources) {
      INFO(std::string(chip) << " " << src.where);
      rt::Blob blob;
      std::vector<abi::KernelInfo> kernels;
      DiagnosticList diags;
      rt::Status st = compile(src.text, chip, 0, blob, kernels, diags, src.where);
      INFO(st.message() << "\n" << diagnosticsText(diags));
      // Admission tests refuse some kernels on purpose, and verifier tests
      // give invalid ones: a refusal is then the profile's (XPU-GC), the
      // uniformity rule's (XPU-UC) or a tile rule's (XPU-TILE), and a parse
      // error the verifier's, never a code generation failure.
      if (st.code() == XPU_ERROR_PARSE ||
          (st.code() == XPU_ERROR_REFUSED && !diags.empty() &&
           (diags.front().code.rfind("XPU-GC", 0) == 0 ||
            diags.front().code.rfind("XPU-TILE", 0) == 0 ||
            diags.front().code.rfind("XPU-UC", 0) == 0)))
        continue;
      REQUIRE(st.isOk());
      CHECK(blob.format == "hsaco");
      hip::CodeObject code;
      REQUIRE(hip::readCodeObject(blob.code, code).isOk());
      CHECK(code.version == 5);
      CHECK(code.target.rfind(std::string("amdgcn-amd-amdhsa--") + chip, 0) == 0);
      REQUIRE(code.kernels.size() == kernels.size());
      for (const abi::KernelInfo &info : kernels) {
        INFO("kernel " << info.name);
        const hip::CodeObjectKernel *k = code.find(info.name);
        REQUIRE(k);
        CHECK(k->symbol == info.name + ".kd");
        checkArguments(info, *k);
        CHECK(k->wavefrontSize == wave);
        CHECK(k->groupSegmentBytes <= info.sharedBytes);
        if (info.sharedBytes)
          CHECK(k->groupSegmentBytes > 0);
        CHECK_FALSE(k->dynamicStack);
        CHECK(k->maxFlatWorkgroupSize >= 1);
        if (info.workgroupSize) {
          auto [x, y, z] = *info.workgroupSize;
          CHECK(k->maxFlatWorkgroupSize == x * y * z);
        } else {
          CHECK(k->maxFlatWorkgroupSize == 1024);
        }
        ++compiled;
      }
    }
    MESSAGE(std::string(chip) << ": " << compiled << " conformance kernels checked");
    CHECK(compiled >= 15);
  }
}

TEST_CASE("shared memory used is the group segment; private arrays stay off the stack") {
  const char *text = R"(
    xpu.kernel @tile(%out: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 64>} {
      %t = xpu.thread_id x
      %s = xpu.alloc : !xpu.buffer<64xf32, shared>
      %d = xpu.alloc : !xpu.buffer<96xf64, shared>
      %p = xpu.alloc : !xpu.buffer<4xf32, private>
      %v = arith.constant 2.0 : f32
      %c0 = arith.constant 0 : index
      xpu.store %v, %p[%c0] : !xpu.buffer<4xf32, private>
      %pv = xpu.load %p[%c0] : !xpu.buffer<4xf32, private>
      xpu.store %pv, %s[%t] : !xpu.buffer<64xf32, shared>
      %dv = arith.constant 1.0 : f64
      xpu.store %dv, %d[%t] : !xpu.buffer<96xf64, shared>
      xpu.barrier
      %r = xpu.load %s[%t] : !xpu.buffer<64xf32, shared>
      %rd = xpu.load %d[%t] : !xpu.buffer<96xf64, shared>
      %rf = arith.truncf %rd : f64 to f32
      %sum = arith.addf %r, %rf : f32
      xpu.store %sum, %out[%t] : !xpu.buffer<f32>
      xpu.return
    })";
  rt::Blob blob;
  std::vector<abi::KernelInfo> kernels;
  DiagnosticList diags;
  rt::Status st = compile(text, "gfx942", 0, blob, kernels, diags);
  INFO(st.message() << diagnosticsText(diags));
  REQUIRE(st.isOk());
  hip::CodeObject code;
  REQUIRE(hip::readCodeObject(blob.code, code).isOk());
  CHECK(kernels[0].sharedBytes == 64 * 4 + 96 * 8);
  CHECK(code.kernels[0].groupSegmentBytes == kernels[0].sharedBytes);
  CHECK(code.kernels[0].privateSegmentBytes == 0);
  CHECK(code.kernels[0].maxFlatWorkgroupSize == 64);
}

TEST_CASE("wave size comes from the architecture, wave64 on request on gfx10+") {
  rt::TargetDesc t;
  REQUIRE(hip::amdgcnTarget("gfx90a", 0, t).isOk());
  CHECK(t.waveWidth == 64);
  CHECK(t.triple == "amdgcn-amd-amdhsa");
  REQUIRE(hip::amdgcnTarget("gfx942:sramecc+:xnack-", 0, t).isOk());
  CHECK(t.chip == "gfx942");
  CHECK(t.waveWidth == 64);
  REQUIRE(hip::amdgcnTarget("gfx1100", 0, t).isOk());
  CHECK(t.waveWidth == 32);
  CHECK(t.features == "+wavefrontsize32");
  REQUIRE(hip::amdgcnTarget("gfx1100", 64, t).isOk());
  CHECK(t.waveWidth == 64);
  CHECK(hip::amdgcnTarget("gfx90a", 32, t).code() == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(hip::amdgcnTarget("gfx1100", 16, t).code() == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(hip::amdgcnTarget("gfx803", 0, t).code() == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(hip::amdgcnTarget("gfx9999", 0, t).code() == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(hip::amdgcnTarget("", 0, t).code() == XPU_ERROR_INVALID_ARGUMENT);

  // The kernel sees the width it was compiled for, and so does the code object.
  for (auto [chip, wave] : {std::pair{"gfx942", 64u}, {"gfx1100", 32u}, {"gfx1100", 64u}}) {
    INFO(std::string(chip) << " wave" << wave);
    rt::Blob blob;
    std::vector<abi::KernelInfo> kernels;
    DiagnosticList diags;
    rt::Status st = compile(kMath, chip, wave == 64 && std::string(chip) == "gfx1100" ? 64 : 0,
                            blob, kernels, diags);
    INFO(st.message() << diagnosticsText(diags));
    REQUIRE(st.isOk());
    hip::CodeObject code;
    REQUIRE(hip::readCodeObject(blob.code, code).isOk());
    CHECK(code.kernels[0].wavefrontSize == wave);
  }
}

TEST_CASE("math functions link ocml; f32 exp and log need no library") {
  rt::Blob blob;
  std::vector<abi::KernelInfo> kernels;
  DiagnosticList diags;
  rt::Status st = compile(kMath, "gfx1100", 0, blob, kernels, diags);
  INFO(st.message() << diagnosticsText(diags));
  REQUIRE(st.isOk());
  CHECK(blob.toolchain.find("ocml.bc") != std::string::npos);

  const char *expOnly = R"(
    xpu.kernel @e(%out: !xpu.buffer<f32>) {
      %i = xpu.global_id x
      %v = xpu.load %out[%i] : !xpu.buffer<f32>
      %e = math.exp %v : f32
      %l = math.log %e : f32
      xpu.store %l, %out[%i] : !xpu.buffer<f32>
      xpu.return
    })";
  st = compile(expOnly, "gfx90a", 0, blob, kernels, diags);
  REQUIRE(st.isOk());
  CHECK(blob.toolchain.find("ocml") == std::string::npos);
}

TEST_CASE("offline gates: f16 arithmetic is refused on amdgcn by policy") {
  const char *text = R"(
    xpu.kernel @h(%out: !xpu.buffer<f16>) {
      %i = xpu.global_id x
      %v = xpu.load %out[%i] : !xpu.buffer<f16>
      %r = arith.addf %v, %v : f16
      xpu.store %r, %out[%i] : !xpu.buffer<f16>
      xpu.return
    })";
  rt::Blob blob;
  std::vector<abi::KernelInfo> kernels;
  DiagnosticList diags;
  rt::Status st = compile(text, "gfx942", 0, blob, kernels, diags);
  CHECK(st.code() == XPU_ERROR_REFUSED);
  REQUIRE(!diags.empty());
  CHECK(diags.back().code == "XPU-CAP001");
  CHECK(diags.back().message.find("amdgcn.no-f16-arith") != std::string::npos);
}

TEST_CASE("the code object reader refuses bad input without crashing") {
  hip::CodeObject code;
  CHECK_FALSE(hip::readCodeObject({}, code).isOk());
  CHECK_FALSE(hip::readCodeObject({0x7f, 'E', 'L', 'F'}, code).isOk());
  std::vector<uint8_t> noise(4096);
  for (size_t i = 0; i < noise.size(); ++i)
    noise[i] = uint8_t(i * 2654435761u >> 13);
  CHECK_FALSE(hip::readCodeObject(noise, code).isOk());

  // A real code object, truncated or with its note damaged.
  rt::Blob blob;
  std::vector<abi::KernelInfo> kernels;
  DiagnosticList diags;
  REQUIRE(compile(kMath, "gfx942", 0, blob, kernels, diags).isOk());
  REQUIRE(hip::readCodeObject(blob.code, code).isOk());
  for (size_t cut : {size_t(16), size_t(64), blob.code.size() / 2}) {
    std::vector<uint8_t> part(blob.code.begin(), blob.code.begin() + cut);
    CHECK_FALSE(hip::readCodeObject(part, code).isOk());
  }
  std::vector<uint8_t> damaged = blob.code;
  std::string bytes(damaged.begin(), damaged.end());
  size_t at = bytes.find("amdhsa.kernels");
  REQUIRE(at != std::string::npos);
  for (size_t i = at - 8; i < at + 64 && i < damaged.size(); ++i)
    damaged[i] ^= 0x5a;
  CHECK_FALSE(hip::readCodeObject(damaged, code).isOk());
}

TEST_CASE("the metadata check names the first difference from the kernel ABI") {
  rt::Blob blob;
  std::vector<abi::KernelInfo> kernels;
  DiagnosticList diags;
  REQUIRE(compile(kMath, "gfx942", 0, blob, kernels, diags).isOk());
  hip::CodeObject code;
  REQUIRE(hip::readCodeObject(blob.code, code).isOk());
  rt::TargetDesc t;
  REQUIRE(hip::amdgcnTarget("gfx942", 0, t).isOk());
  CHECK(hip::checkCodeObject(code, t, kernels).isOk());

  std::vector<abi::KernelInfo> other = kernels;
  other[0].params[1].isBuffer = false;
  rt::Status st = hip::checkCodeObject(code, t, other);
  CHECK(st.code() == XPU_ERROR_INTERNAL);
  CHECK(st.message().find("argument") != std::string::npos);
  other = kernels;
  other[0].name = "nope";
  CHECK(hip::checkCodeObject(code, t, other).message().find("missing") != std::string::npos);

  // A kernel whose group segment exceeds what it declared.
  const char *shared = R"(
    xpu.kernel @s(%out: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 32>} {
      %t = xpu.thread_id x
      %v = xpu.load %out[%t] : !xpu.buffer<f32>
      %r = xpu.reduce add %v sequential : f32
      xpu.store %r, %out[%t] : !xpu.buffer<f32>
      xpu.return
    })";
  REQUIRE(compile(shared, "gfx942", 0, blob, kernels, diags).isOk());
  REQUIRE(hip::readCodeObject(blob.code, code).isOk());
  CHECK(code.kernels[0].groupSegmentBytes > 0);
  other = kernels;
  other[0].sharedBytes = 0;
  CHECK(hip::checkCodeObject(code, t, other).message().find("group segment") !=
        std::string::npos);
  REQUIRE(hip::amdgcnTarget("gfx90a", 0, t).isOk());
  CHECK(hip::checkCodeObject(code, t, kernels).message().find("target") != std::string::npos);
}
