// The manifests' IR facts (mlir/lib/Analysis/AccessModes.cpp) on kernels
// the C API cannot build (an op the analysis has no rule for), helpers it
// follows into, and ptxas's report as the CUDA manifest reads it.
#include "../../backends/cuda/ptxas_report.h"
#include "unit.h"
#include "xpu/Analysis/AccessModes.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include <doctest/doctest.h>

namespace {

xpu::ParamUses usesOf(unit::Compiler &c, const std::string &text, const char *kernel) {
  auto module = c.parse(text);
  REQUIRE(module);
  for (auto k : module->getOps<xpu::KernelOp>())
    if (k.getSymName() == kernel)
      return xpu::analyzeParamUses(k);
  FAIL("no kernel " << kernel);
  return {};
}

} // namespace

TEST_CASE("access modes follow buffers into device functions") {
  unit::Compiler c;
  auto u = usesOf(c, R"(
    xpu.func @bump(%b: !xpu.buffer<i32>, %i: index) {
      %v = xpu.load %b[%i] : !xpu.buffer<i32>
      %one = arith.constant 1 : i32
      %r = arith.addi %v, %one : i32
      xpu.store %r, %b[%i] : !xpu.buffer<i32>
      xpu.return
    }
    xpu.func @peek(%b: !xpu.buffer<i32, ro>, %i: index) -> i32 {
      %v = xpu.load %b[%i] : !xpu.buffer<i32, ro>
      xpu.return %v : i32
    }
    xpu.kernel @k(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      xpu.call @bump(%out, %i) : (!xpu.buffer<i32>, index) -> ()
      %v = xpu.call @peek(%in, %i) : (!xpu.buffer<i32, ro>, index) -> i32
      %c = arith.cmpi slt, %v, %n : i32
      scf.if %c {
        xpu.call @bump(%out, %i) : (!xpu.buffer<i32>, index) -> ()
      }
      xpu.return
    })", "k");
  CHECK(u.uses[0] == (xpu::abi::useRead | xpu::abi::useWrite));
  CHECK(u.uses[1] == xpu::abi::useRead);
  CHECK(u.uses[2] == 0);
  // The branch depends on n and on what is loaded from `in`.
  CHECK(u.cost[2] == xpu::abi::costValue);
  CHECK(u.cost[1] == xpu::abi::costContents);
}

TEST_CASE("an op the analysis has no rule for makes a buffer's use unknown") {
  unit::Compiler c;
  c.ctx->allowUnregisteredDialects();
  auto u = usesOf(c, R"(
    xpu.kernel @k(%a: !xpu.buffer<i32>, %b: !xpu.buffer<i32>) {
      "test.opaque"(%a) : (!xpu.buffer<i32>) -> ()
      %i = xpu.global_id x
      %c1 = arith.constant 1 : i32
      %old = xpu.atomic_rmw xchg %c1, %b[%i] relaxed device : !xpu.buffer<i32>
      xpu.return
    })", "k");
  CHECK(u.uses[0] == xpu::abi::useUnknown);
  // An exchange writes (and its old value is not used: no read).
  CHECK(u.uses[1] == xpu::abi::useWrite);
}

TEST_CASE("ptxas -v: registers, spills, stack and shared memory per entry") {
  std::string report =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
      "ptxas info    : Function properties for a\n"
      "    24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Function properties for helper\n"
      "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'b' for 'sm_90'\n"
      "ptxas info    : Function properties for b\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers\n"
      "ptxas info    : Compile time = 1.0 ms\n";
  std::vector<xpu::abi::KernelInfo> kernels(3);
  kernels[0].name = "b";
  kernels[1].name = "a";
  kernels[2].name = "missing";
  auto f = xpu::cuda::parsePtxasReport(report, kernels, "13.0");
  REQUIRE(f.size() == 3);
  CHECK(f[0].registers.known);
  CHECK(f[0].registers.value == 8);
  CHECK(f[0].sharedBytes.value == 0);
  CHECK(f[0].localBytes.value == 0);
  CHECK(f[1].registers.value == 40);
  CHECK(f[1].spillBytes.value == 8);
  CHECK(f[1].localBytes.value == 24); // not the helper's 16
  CHECK(f[1].sharedBytes.value == 1024);
  CHECK(f[1].registers.source == "ptxas 13.0 -v");
  CHECK(!f[2].registers.known);
}

TEST_CASE("tiles and asynchronous copies read and write what they name") {
  unit::Compiler c;
  auto u = usesOf(c, R"(
    xpu.kernel @k(%a: !xpu.buffer<f32, ro>, %c: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>,
                  %out: !xpu.buffer<f32>) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %t = xpu.tile_load %a[%c0], %c4 : !xpu.buffer<f32, ro> -> !xpu.tile<4x4xf32>
      xpu.tile_store %t, %c[%c0], %c4 : !xpu.tile<4x4xf32>, !xpu.buffer<f32>
      %tile = xpu.alloc : !xpu.buffer<64xf32, shared>
      %tok = xpu.async_copy %in[%c0] to %tile[%c0], %c64 : !xpu.buffer<f32, ro> to !xpu.buffer<64xf32, shared>
      xpu.async_wait %tok
      %i = xpu.thread_id x
      %v = xpu.load %tile[%i] : !xpu.buffer<64xf32, shared>
      xpu.store %v, %out[%i] : !xpu.buffer<f32>
      xpu.return
    })", "k");
  CHECK(u.uses[0] == xpu::abi::useRead);
  CHECK(u.uses[1] == xpu::abi::useWrite);
  CHECK(u.uses[2] == xpu::abi::useRead);
  CHECK(u.uses[3] == xpu::abi::useWrite);
}
