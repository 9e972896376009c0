// Vulkan with a 32-bit `index` (a device without shaderInt64; CTest's
// vulkan.index32 disables it on lavapipe): bounds proofs hold at that
// width too. Accesses proven at both widths run unchecked and right; the
// ones the old prover trusted are checked and reported.
// A launch of more than 2^31 - 1 invocations along an axis is refused
// there (VulkanQueue::launch); lavapipe's own limit of 65,535 workgroups
// per axis refuses it first, the NVIDIA driver's (2^31 - 1) does not
// (tests/device/parts/40-bounds.sh runs this on the H200).
#include "../conformance/harness.h"

#include <cstdlib>

using namespace conf;

namespace {

std::string lastMessage() { return xpu_last_error_message(); }

bool index32() {
  const char *disabled = std::getenv("XPU_VULKAN_DISABLE_FEATURES");
  return disabled && std::string(disabled).find("shaderInt64") != std::string::npos;
}

} // namespace

TEST_CASE("32-bit index: the index width is the one the device was made with") {
  // 65536 * 65536 is 2^32: zero with a 32-bit index, not with a 64-bit one.
  Module m(R"(
    xpu.kernel @k(%out: !xpu.buffer<1xi32>, %p: i32) {
      %pi = arith.index_castui %p : i32 to index
      %sq = arith.muli %pi, %pi : index
      %c0 = arith.constant 0 : index
      %z = arith.cmpi eq, %sq, %c0 : index
      %r = arith.extui %z : i1 to i32
      xpu.store %r, %out[%c0] : !xpu.buffer<1xi32>
      xpu.return
    })");
  Buffer out(4);
  run(m.kernel("k"), {1}, {1}, {xpu_arg_buffer(out.handle), xpu_arg_i32(65536)});
  CHECK(out.read<int32_t>()[0] == (index32() ? 1 : 0));
}

TEST_CASE("32-bit index: a stencil proven at both widths runs unchecked and right") {
  Module m(R"(
    xpu.kernel @stencil(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
      %c1 = arith.constant 1 : index
      %i = xpu.global_id x
      %n = xpu.buffer_size %in : !xpu.buffer<i32, ro>
      %m = xpu.buffer_size %out : !xpu.buffer<i32>
      %ip1 = arith.addi %i, %c1 : index
      %lo = arith.cmpi uge, %i, %c1 : index
      %hi = arith.cmpi ult, %ip1, %n : index
      %fits = arith.cmpi ult, %i, %m : index
      %a = arith.andi %lo, %hi : i1
      %ok = arith.andi %a, %fits : i1
      scf.if %ok {
        %im1 = arith.subi %i, %c1 : index
        %l = xpu.load %in[%im1] : !xpu.buffer<i32, ro>
        %c = xpu.load %in[%i] : !xpu.buffer<i32, ro>
        %r = xpu.load %in[%ip1] : !xpu.buffer<i32, ro>
        %s = arith.addi %l, %c : i32
        %t = arith.addi %s, %r : i32
        xpu.store %t, %out[%i] : !xpu.buffer<i32>
      }
      xpu.return
    })");
  const uint32_t n = 1000;
  auto in = randomInts<int32_t>(n, -100000, 100000);
  std::vector<int32_t> sentinel(n, -7);
  Buffer bin = Buffer::from(in), bout = Buffer::from(sentinel);
  run(m.kernel("stencil"), {16}, {64}, {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
  auto out = bout.read<int32_t>();
  CHECK(out[0] == -7);
  CHECK(out[n - 1] == -7);
  for (uint32_t i = 1; i + 1 < n; ++i)
    REQUIRE(out[i] == in[i - 1] + in[i] + in[i + 1]);
}

TEST_CASE("32-bit index: j < minsi(size, n) with n < 0 is checked") {
  Module m(R"(
    xpu.kernel @k(%probe: !xpu.buffer<1xi32>, %dyn: !xpu.buffer<i32, ro>, %s: i32, %n: i32) {
      %j = arith.index_cast %s : i32 to index
      %sz = xpu.buffer_size %dyn : !xpu.buffer<i32, ro>
      %ni = arith.index_cast %n : i32 to index
      %m = arith.minsi %sz, %ni : index
      %ok = arith.cmpi ult, %j, %m : index
      scf.if %ok {
        %z = xpu.load %dyn[%j] : !xpu.buffer<i32, ro>
        %c0 = arith.constant 0 : index
        xpu.store %z, %probe[%c0] : !xpu.buffer<1xi32>
      }
      xpu.return
    })");
  auto dyn = randomInts<int32_t>(16, 1, 1000);
  Buffer bdyn = Buffer::from(dyn), probe = Buffer::from(std::vector<int32_t>{-7});
  xpu_arg args[4] = {xpu_arg_buffer(probe.handle), xpu_arg_buffer(bdyn.handle), xpu_arg_i32(5000),
                     xpu_arg_i32(-1)};
  uint32_t one[3] = {1, 1, 1};
  XPU_OK(xpu_launch(m.kernel("k"), nullptr, one, one, args, 4));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  CHECK(probe.read<int32_t>()[0] == 0); // the suppressed load read zero
  args[2] = xpu_arg_i32(9);
  run(m.kernel("k"), {1}, {1}, {args[0], args[1], args[2], args[3]});
  CHECK(probe.read<int32_t>()[0] == dyn[9]);
}

TEST_CASE("32-bit index: a launch past 2^31 - 1 invocations along an axis is refused") {
  Module m(R"(
    xpu.kernel @k(%out: !xpu.buffer<1xi32>) {
      xpu.return
    })");
  Buffer out(4);
  uint32_t grid[3] = {1u << 21, 1, 1}, block[3] = {1024, 1, 1}; // 2^31 along x
  xpu_arg args[1] = {xpu_arg_buffer(out.handle)};
  xpu_status st = xpu_launch(m.kernel("k"), nullptr, grid, block, args, 1);
  std::string said = lastMessage();
  if (st != XPU_SUCCESS && said.find("exceeds the device limit") != std::string::npos) {
    MESSAGE("SKIP: the device's own grid limit refuses 2^21 workgroups first: " << said);
    return;
  }
  if (!index32()) { // a 64-bit index holds every id: the launch runs
    XPU_OK(st);
    XPU_OK(xpu_stream_synchronize(defaultStream()));
    return;
  }
  CHECK(st == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(said.find("a launch of 2147483648 invocations along x exceeds 2147483647") !=
        std::string::npos);
  CHECK(said.find("without shaderInt64") != std::string::npos);
}
