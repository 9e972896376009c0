// Code generation of the kernel-surface ops without a GPU: every wave,
// atomic, struct, printf, function-value and async-copy kernel of the
// conformance suite compiles for NVIDIA (sm_90 with
// redux.sync, sm_75 without; assembled to a cubin by ptxas where one is
// installed) and for AMD (gfx942 wave64, gfx1100 wave32 and wave64) to a
// code object whose kernels have the architecture's wave size.
#include "../../backends/cuda/cuda_codegen.h"
#include "../../backends/hip/hip_code_object.h"
#include "../conformance/atomic_kernels.h"
#include "../conformance/surface_kernels.h"
#include "../conformance/wave_kernels.h"
#include "runtime/compiler.h"
#include "runtime/targets.h"

#include <doctest/doctest.h>

using namespace xpu;

namespace {

std::vector<std::string> surfaceKernels() {
  std::vector<std::string> all = conf::wave::allKernels();
  for (std::string &k : conf::atomics::allKernels())
    all.push_back(std::move(k));
  return all;
}

rt::Status compileFor(const std::string &text, const char *target, const char *chip,
                      unsigned wave, rt::Blob &blob, std::vector<abi::KernelInfo> &kernels,
                      std::string &diagnostics) {
  rt::TargetDesc desc;
  XPU_RETURN_IF_ERROR(rt::describeTarget(target, chip, wave, desc));
  rt::CompileRequest request;
  request.text = text;
  request.sourceName = "wave.mlir";
  DiagnosticList diags;
  rt::Status st = rt::compileForTarget(request, desc, blob, kernels, diags);
  for (const Diagnostic &d : diags)
    diagnostics += rt::formatDiagnostic(d) + "\n";
  return st;
}

/// `text` compiled for NVIDIA `chip`: a cubin when ptxas `assembles`, else PTX.
rt::Blob nvptxBlob(const std::string &text, const char *chip, bool assembles) {
  rt::Blob blob;
  std::vector<abi::KernelInfo> kernels;
  std::string diags;
  rt::Status st = compileFor(text, "nvptx", chip, 0, blob, kernels, diags);
  INFO(st.message() << "\n" << diags);
  REQUIRE(st.isOk());
  CHECK(blob.format == (assembles ? "cubin" : "ptx"));
  return blob;
}

} // namespace

TEST_CASE("wave and atomic kernels compile for NVIDIA: PTX that ptxas assembles for sm_90 and sm_75") {
  bool assembles = !cuda::ptxas().path.empty();
  if (!assembles)
    MESSAGE("no ptxas: checking the PTX only (" << cuda::ptxas().why << ")");
  for (const char *chip : {"sm_90", "sm_75"}) {
    for (const std::string &text : surfaceKernels()) {
      INFO(chip << "\n" << text);
      rt::Blob blob = nvptxBlob(text, chip, assembles);
      if (!assembles) {
        std::string ptx(blob.code.begin(), blob.code.end());
        bool surface = ptx.find("shfl.sync") != std::string::npos ||
                       ptx.find("vote.sync") != std::string::npos ||
                       ptx.find("redux.sync") != std::string::npos ||
                       ptx.find("atom.") != std::string::npos;
        CHECK(surface);
      }
    }
  }
}

TEST_CASE("struct, printf, function-value and async-copy kernels compile for NVIDIA; cp.async from sm_80") {
  bool assembles = !cuda::ptxas().path.empty();
  for (const char *chip : {"sm_90", "sm_75"}) {
    for (const std::string &text : conf::surface::allKernels()) {
      INFO(chip << "\n" << text);
      rt::Blob blob = nvptxBlob(text, chip, assembles);
      if (assembles || text != conf::surface::kTiledStencil)
        continue;
      std::string ptx(blob.code.begin(), blob.code.end());
      CHECK((ptx.find("cp.async") != std::string::npos) == (std::string(chip) == "sm_90"));
    }
  }
}

TEST_CASE("every surface kernel compiles for AMD wave64 and wave32 with the architecture's wave size") {
  struct Target {
    const char *chip;
    unsigned wave;
  } targets[] = {{"gfx942", 0}, {"gfx1100", 0}, {"gfx1100", 64}};
  std::vector<std::string> all = surfaceKernels();
  for (std::string &k : conf::surface::allKernels())
    all.push_back(std::move(k));
  for (const Target &t : targets) {
    unsigned want = t.wave ? t.wave : std::string(t.chip) == "gfx942" ? 64 : 32;
    for (const std::string &text : all) {
      INFO(t.chip << " wave " << want << "\n" << text);
      rt::Blob blob;
      std::vector<abi::KernelInfo> kernels;
      std::string diags;
      rt::Status st = compileFor(text, "amdgcn", t.chip, t.wave, blob, kernels, diags);
      INFO(st.message() << "\n" << diags);
      REQUIRE(st.isOk());
      hip::CodeObject code;
      REQUIRE(hip::readCodeObject(blob.code, code).isOk());
      REQUIRE(code.kernels.size() == kernels.size());
      for (const hip::CodeObjectKernel &k : code.kernels)
        CHECK(k.wavefrontSize == want);
    }
  }
}
