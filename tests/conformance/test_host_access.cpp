// Conformance: mapping buffers, importing external memory, buffer addresses
// (zero-copy host access), and how they meet the borrow rules.
#include "harness.h"

#include <cstdlib>

using namespace conf;

namespace {
const char *kTwice = R"(
  xpu.kernel @twice(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
    %i = xpu.global_id x
    %n = xpu.buffer_size %out : !xpu.buffer<i32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %r = arith.addi %v, %v : i32
      xpu.store %r, %out[%i] : !xpu.buffer<i32>
    }
    xpu.return
  })";
const uint32_t kN = 4096;
const uint32_t kGrid[3] = {kN / 128, 1, 1}, kBlock[3] = {128, 1, 1};

/// A buffer the host can map on this backend, or null with the reason.
xpu_buffer mappableBuffer(size_t bytes) {
  xpu_buffer_options opts = XPU_BUFFER_OPTIONS_INIT;
  opts.memory = XPU_MEMORY_HOST_VISIBLE;
  xpu_buffer b = nullptr;
  if (xpu_buffer_create_ex(target().dev, bytes, &opts, &b) != XPU_SUCCESS)
    return nullptr;
  return b;
}
} // namespace

TEST_CASE("a host-visible buffer maps, and kernels see what the host wrote") {
  xpu_buffer in = mappableBuffer(kN * 4), out = mappableBuffer(kN * 4);
  if (target().backend == XPU_BACKEND_HIP) {
    CHECK(in == nullptr); // not implemented there: the status said so
    return;
  }
  REQUIRE(in);
  REQUIRE(out);
  int mappable = 0;
  XPU_OK(xpu_buffer_is_mappable(in, &mappable));
  CHECK(mappable == 1);
  auto values = randomInts<int32_t>(kN, -100000, 100000);
  void *p = nullptr;
  XPU_OK(xpu_buffer_map(in, XPU_MAP_WRITE, &p));
  std::memcpy(p, values.data(), kN * 4);
  // Mapped: work that would use it is refused, and so is freeing it.
  Module m(kTwice);
  xpu_arg args[2] = {xpu_arg_buffer(out), xpu_arg_buffer(in)};
  CHECK(xpu_launch(m.kernel("twice"), nullptr, kGrid, kBlock, args, 2) == XPU_ERROR_BUSY);
  CHECK(std::string(xpu_last_error_message()).find("mapped") != std::string::npos);
  CHECK(xpu_buffer_free(in) == XPU_ERROR_BUSY);
  XPU_OK(xpu_buffer_unmap(in));
  CHECK(xpu_buffer_unmap(in) == XPU_ERROR_INVALID_ARGUMENT);

  XPU_OK(xpu_launch(m.kernel("twice"), nullptr, kGrid, kBlock, args, 2));
  // Mapping what the launch writes waits for it.
  void *q = nullptr;
  XPU_OK(xpu_buffer_map(out, XPU_MAP_READ, &q));
  const int32_t *r = static_cast<const int32_t *>(q);
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(r[i] == values[i] * 2);
  XPU_OK(xpu_buffer_unmap(out));
  XPU_OK(xpu_buffer_free(in));
  XPU_OK(xpu_buffer_free(out));
}

TEST_CASE("plain device memory maps where the host sees it, and says why not elsewhere") {
  Buffer b(256);
  int mappable = -1;
  XPU_OK(xpu_buffer_is_mappable(b.handle, &mappable));
  void *p = nullptr;
  xpu_status st = xpu_buffer_map(b.handle, XPU_MAP_READ, &p);
  if (mappable) {
    CHECK(st == XPU_SUCCESS);
    XPU_OK(xpu_buffer_unmap(b.handle));
  } else {
    CHECK(st == XPU_ERROR_UNSUPPORTED);
    CHECK(std::string(xpu_last_error_message()).find("XPU_MEMORY_HOST_VISIBLE") !=
          std::string::npos);
  }
  if (target().backend == XPU_BACKEND_CPU)
    CHECK(mappable == 1);
  CHECK(xpu_buffer_map(b.handle, xpu_map_access(7), &p) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_map(b.handle, XPU_MAP_READ, nullptr) == XPU_ERROR_INVALID_ARGUMENT);
}

namespace {
int releases = 0;
void countRelease(void *data) { releases += *static_cast<int *>(data); }
} // namespace

TEST_CASE("imported host memory is used in place and released to its owner") {
  xpu_import_desc desc = XPU_IMPORT_DESC_INIT;
  auto *in = static_cast<int32_t *>(std::aligned_alloc(64, kN * 4));
  auto *out = static_cast<int32_t *>(std::aligned_alloc(64, kN * 4));
  auto values = randomInts<int32_t>(kN, -100000, 100000);
  std::memcpy(in, values.data(), kN * 4);
  for (uint32_t i = 0; i < kN; ++i)
    out[i] = 0x5a5a5a5a;
  int one = 1;
  desc.address = reinterpret_cast<uint64_t>(in);
  desc.bytes = kN * 4;
  desc.release = countRelease;
  desc.release_data = &one;
  xpu_buffer bin = nullptr, bout = nullptr;
  xpu_status st = xpu_buffer_import(target().dev, &desc, &bin);
  if (target().backend != XPU_BACKEND_CPU) {
    // Only the CPU backend imports host memory.
    CHECK(st == XPU_ERROR_UNSUPPORTED);
    std::free(in);
    std::free(out);
    return;
  }
  XPU_OK(st);
  desc.address = reinterpret_cast<uint64_t>(out);
  XPU_OK(xpu_buffer_import(target().dev, &desc, &bout));
  Module m(kTwice);
  xpu_arg args[2] = {xpu_arg_buffer(bout), xpu_arg_buffer(bin)};
  XPU_OK(xpu_launch(m.kernel("twice"), nullptr, kGrid, kBlock, args, 2));
  XPU_OK(xpu_device_synchronize(target().dev));
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(out[i] == values[i] * 2); // written in place: no copy back
  uint64_t address = 0;
  XPU_OK(xpu_buffer_address(bout, &address));
  CHECK(address == reinterpret_cast<uint64_t>(out));
  releases = 0;
  XPU_OK(xpu_buffer_free(bin));
  XPU_OK(xpu_buffer_free(bout));
  CHECK(releases == 2);
  // Misaligned, NULL, empty, wrapping or unknown-kind imports are refused.
  desc.release = nullptr;
  desc.address = reinterpret_cast<uint64_t>(in) + 4;
  CHECK(xpu_buffer_import(target().dev, &desc, &bin) == XPU_ERROR_INVALID_ARGUMENT);
  desc.address = 0;
  CHECK(xpu_buffer_import(target().dev, &desc, &bin) == XPU_ERROR_INVALID_ARGUMENT);
  desc.address = ~uint64_t(0) - 15;
  CHECK(xpu_buffer_import(target().dev, &desc, &bin) == XPU_ERROR_INVALID_ARGUMENT);
  desc.address = reinterpret_cast<uint64_t>(in);
  desc.bytes = 0;
  CHECK(xpu_buffer_import(target().dev, &desc, &bin) == XPU_ERROR_INVALID_ARGUMENT);
  desc.bytes = 16;
  desc.kind = xpu_import_kind(9);
  CHECK(xpu_buffer_import(target().dev, &desc, &bin) == XPU_ERROR_INVALID_ARGUMENT);
  desc.kind = XPU_IMPORT_HOST_POINTER;
  desc.struct_size = 4;
  CHECK(xpu_buffer_import(target().dev, &desc, &bin) == XPU_ERROR_INVALID_ARGUMENT);
  std::free(in);
  std::free(out);
}

TEST_CASE("buffer addresses exist where kernels take pointers") {
  Buffer b(64);
  uint64_t address = 0;
  xpu_status st = xpu_buffer_address(b.handle, &address);
  if (target().backend == XPU_BACKEND_VULKAN) {
    CHECK(st == XPU_ERROR_UNSUPPORTED);
  } else {
    XPU_OK(st);
    CHECK(address != 0);
  }
}

TEST_CASE("a device address imports as the same memory, without a copy") {
  auto values = randomInts<int32_t>(kN, -100000, 100000);
  Buffer owner = Buffer::from(values), result(kN * 4);
  uint64_t address = 0;
  if (xpu_buffer_address(owner.handle, &address) != XPU_SUCCESS) {
    CHECK(target().backend == XPU_BACKEND_VULKAN);
    return;
  }
  xpu_import_desc desc = XPU_IMPORT_DESC_INIT;
  desc.kind = XPU_IMPORT_DEVICE_POINTER;
  desc.address = address;
  desc.bytes = kN * 4;
  xpu_buffer view = nullptr;
  xpu_status st = xpu_buffer_import(target().dev, &desc, &view);
  if (target().backend == XPU_BACKEND_HIP) {
    CHECK(st == XPU_ERROR_UNSUPPORTED);
    return;
  }
  XPU_OK(st);
  Module m(kTwice);
  xpu_arg args[2] = {xpu_arg_buffer(result.handle), xpu_arg_buffer(view)};
  XPU_OK(xpu_launch(m.kernel("twice"), nullptr, kGrid, kBlock, args, 2));
  auto r = result.read<int32_t>();
  for (uint32_t i = 0; i < kN; ++i)
    REQUIRE(r[i] == values[i] * 2);
  XPU_OK(xpu_buffer_free(view));
  // The importer checks the range: past the allocation's end is refused on
  // CUDA (the driver knows the allocation), and host memory is not device
  // memory there.
  if (target().backend == XPU_BACKEND_CUDA) {
    desc.bytes = kN * 4 + (1u << 30);
    CHECK(xpu_buffer_import(target().dev, &desc, &view) == XPU_ERROR_INVALID_ARGUMENT);
    static int32_t host[64];
    desc.address = reinterpret_cast<uint64_t>(host);
    desc.bytes = sizeof host;
    CHECK(xpu_buffer_import(target().dev, &desc, &view) == XPU_ERROR_INVALID_ARGUMENT);
  }
}
