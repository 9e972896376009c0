// NVIDIA code generation without a GPU: kernels lower to PTX for sm_90 and,
// where a ptxas is installed, assemble to a cubin.
#include "../../backends/cuda/cuda_codegen.h"
#include "../conformance/kernels.h"
#include "runtime/dump.h"
#include "unit.h"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace {
std::string compile(const std::string &text, xpu::rt::Blob &blob) {
  unit::Compiler c;
  xpu::rt::DumpScope dump("unit-nvptx"); // XPU_DUMP_DIR shows the PTX
  auto module = c.parse(text);
  REQUIRE(module);
  xpu::rt::Status st =
      xpu::cuda::compileForNVPTX(*module, xpu::cuda::nvptxTarget(9, 0), blob);
  INFO(st.message());
  REQUIRE(st.isOk());
  return std::string(blob.code.begin(), blob.code.end());
}
} // namespace

TEST_CASE("saxpy lowers to PTX and, with ptxas, to an sm_90 cubin") {
  xpu::rt::Blob blob;
  std::string code = compile(conf::kSaxpy, blob);
  if (xpu::cuda::ptxas().path.empty()) {
    CHECK(blob.format == "ptx");
    CHECK(code.find(".entry saxpy") != std::string::npos);
    CHECK(code.find(".target sm_90") != std::string::npos);
  } else {
    CHECK(blob.format == "cubin");
    CHECK(code.rfind("\x7f" "ELF", 0) == 0);
    CHECK(blob.toolchain.find("ptxas " + xpu::cuda::ptxas().version) != std::string::npos);
  }
  CHECK(blob.toolchain.find("NVPTX sm_90") != std::string::npos);
}

TEST_CASE("math functions link libdevice; barriers and shared memory lower") {
  xpu::rt::Blob blob;
  compile(R"(
    xpu.kernel @k(%out: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 128>} {
      %t = xpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %f = arith.sitofp %v : i32 to f32
      %e = math.exp %f : f32
      %s = xpu.reduce add %e sequential : f32
      xpu.store %s, %out[%t] : !xpu.buffer<f32>
      xpu.return
    })", blob);
  CHECK(!blob.code.empty());
}

TEST_CASE("the toolchain identity in cache keys changes when a ptxas is replaced") {
  // A stand-in file: naming a tool in a key stats it and never runs it.
  char dir[] = "/tmp/xpujit-unit-ptxas-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string fake = std::string(dir) + "/ptxas";
  auto write = [&](const char *text) {
    std::ofstream(fake, std::ios::trunc) << text;
  };
  write("one");
  const char *saved = std::getenv("XPU_PTXAS");
  std::string savedValue = saved ? saved : "";
  setenv("XPU_PTXAS", fake.c_str(), 1);
  std::string before = xpu::cuda::nvptxToolchainIdentity();
  CHECK(before.find("ptxas " + fake + " (3 bytes") != std::string::npos);
  // Same size, same modification time: only the change time tells.
  struct stat st;
  REQUIRE(stat(fake.c_str(), &st) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write("two");
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  REQUIRE(utimensat(AT_FDCWD, fake.c_str(), times, 0) == 0);
  CHECK(xpu::cuda::nvptxToolchainIdentity() != before);
  unlink(fake.c_str());
  CHECK(xpu::cuda::nvptxToolchainIdentity().find(fake + " (absent)") != std::string::npos);
  rmdir(dir);
  if (saved)
    setenv("XPU_PTXAS", savedValue.c_str(), 1);
  else
    unsetenv("XPU_PTXAS");
}
