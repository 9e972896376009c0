// Conformance: bad input gets a clear error status and the process, its
// data and its handles carry on.
#include "harness.h"

#include <thread>

using namespace conf;

namespace {
const char *kCopy = R"(
  xpu.kernel @copy(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
    %i = xpu.global_id x
    %ni = arith.index_castui %n : i32 to index
    %ok = arith.cmpi ult, %i, %ni : index
    scf.if %ok {
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      xpu.store %v, %out[%i] : !xpu.buffer<i32>
    }
    xpu.return
  })";

std::string lastMessage() { return xpu_last_error_message(); }

/// A copy launch still works: the process carries on after an error.
void checkStillWorks(xpu_kernel k) {
  auto in = randomInts<int32_t>(100, -50, 50);
  Buffer bin = Buffer::from(in), bout(400);
  run(k, {1}, {128},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(100)});
  CHECK(bout.read<int32_t>() == in);
}
} // namespace

TEST_CASE("malformed IR is a parse error with a line and column") {
  const std::string text = "xpu.kernel @k(%a: !xpu.buffer<f32>) {\n"
                           "  %i = xpu.global_id x\n"
                           "  %v = xpu.load %a[%nope] : !xpu.buffer<f32>\n"
                           "  xpu.return\n"
                           "}\n";
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = "bad.mlir";
  xpu_module mod = nullptr;
  xpu_diagnostics diags = nullptr;
  CHECK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                          &opts, &mod, &diags) == XPU_ERROR_PARSE);
  CHECK(mod == nullptr);
  CHECK(lastMessage().rfind("bad.mlir:3:", 0) == 0);
  REQUIRE(xpu_diagnostics_count(diags) >= 1);
  xpu_diagnostic d;
  XPU_OK(xpu_diagnostics_get(diags, 0, &d));
  CHECK(d.severity == XPU_SEVERITY_ERROR);
  CHECK(std::string(d.file) == "bad.mlir");
  CHECK(d.line == 3);
  CHECK(d.column == 20);
  CHECK(std::string(d.code) == "XPU-PARSE");
  std::string json = xpu_diagnostics_json(diags);
  CHECK(json.find("\"line\":3") != std::string::npos);
  CHECK(json.find("\"code\":\"XPU-PARSE\"") != std::string::npos);
  xpu_diagnostics_release(diags);
}

TEST_CASE("a verifier error names the op and its location") {
  const std::string text = "xpu.kernel @k(%a: !xpu.buffer<f32, ro>) {\n"
                           "  %i = xpu.global_id x\n"
                           "  %c = arith.constant 1.0 : f32\n"
                           "  xpu.store %c, %a[%i] : !xpu.buffer<f32, ro>\n"
                           "  xpu.return\n"
                           "}\n";
  xpu_module mod = nullptr;
  CHECK(xpu_module_create(target().ctx, target().dev, text.data(), text.size(),
                          nullptr, &mod, nullptr) == XPU_ERROR_PARSE);
  CHECK(lastMessage().find(":4:3: error:") != std::string::npos);
  CHECK(lastMessage().find("read-only") != std::string::npos);
}

TEST_CASE("unknown kernel names, argument counts and types are refused") {
  Module m(kCopy);
  xpu_kernel k = nullptr;
  CHECK(xpu_module_kernel(m.handle, "kopy", &k) == XPU_ERROR_NOT_FOUND);
  CHECK(lastMessage().find("copy") != std::string::npos); // lists what exists
  k = m.kernel("copy");
  Buffer a(400), b(400);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};

  xpu_arg two[2] = {xpu_arg_buffer(a.handle), xpu_arg_buffer(b.handle)};
  CHECK(xpu_launch(k, nullptr, grid, block, two, 2) == XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(lastMessage().find("takes 3 arguments, got 2") != std::string::npos);

  xpu_arg wrongScalar[3] = {xpu_arg_buffer(a.handle), xpu_arg_buffer(b.handle),
                            xpu_arg_f32(1.0f)};
  CHECK(xpu_launch(k, nullptr, grid, block, wrongScalar, 3) ==
        XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(lastMessage().find("argument 2 ('n', i32)") != std::string::npos);

  xpu_arg wrongWidth[3] = {xpu_arg_buffer(a.handle), xpu_arg_buffer(b.handle),
                           xpu_arg_i64(1)};
  CHECK(xpu_launch(k, nullptr, grid, block, wrongWidth, 3) ==
        XPU_ERROR_ARGUMENT_MISMATCH);

  xpu_arg scalarForBuffer[3] = {xpu_arg_i32(0), xpu_arg_buffer(b.handle),
                                xpu_arg_u32(1)};
  CHECK(xpu_launch(k, nullptr, grid, block, scalarForBuffer, 3) ==
        XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(lastMessage().find("expected a buffer") != std::string::npos);

  xpu_arg bufferForScalar[3] = {xpu_arg_buffer(a.handle), xpu_arg_buffer(b.handle),
                                xpu_arg_buffer(a.handle)};
  CHECK(xpu_launch(k, nullptr, grid, block, bufferForScalar, 3) ==
        XPU_ERROR_ARGUMENT_MISMATCH);

  xpu_arg ok[3] = {xpu_arg_buffer(a.handle), xpu_arg_buffer(b.handle), xpu_arg_u32(100)};
  uint32_t zero[3] = {0, 1, 1}, huge[3] = {2048, 1, 1};
  CHECK(xpu_launch(k, nullptr, zero, block, ok, 3) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_launch(k, nullptr, grid, huge, ok, 3) == XPU_ERROR_INVALID_ARGUMENT);
  checkStillWorks(k);
}

TEST_CASE("NULL, released and wrong-kind handles are invalid, never a crash") {
  Module m(kCopy);
  xpu_kernel k = m.kernel("copy");
  uint32_t one[3] = {1, 1, 1};
  size_t size = 0;
  int32_t v = 0;
  CHECK(xpu_buffer_size(nullptr, &size) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_buffer_free(nullptr) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_launch(nullptr, nullptr, one, one, nullptr, 0) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_stream_synchronize(nullptr) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_event_record(nullptr, nullptr) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_device_synchronize(nullptr) == XPU_ERROR_INVALID_HANDLE);
  xpu_device_info info = {sizeof info};
  CHECK(xpu_device_info_get(nullptr, &info) == XPU_ERROR_INVALID_HANDLE);
  xpu_module_release(nullptr);
  xpu_stream_release(nullptr);
  xpu_event_release(nullptr);
  xpu_context_release(nullptr);
  xpu_diagnostics_release(nullptr);

  // Released buffer.
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(target().dev, 64, &b));
  XPU_OK(xpu_buffer_free(b));
  CHECK(xpu_buffer_size(b, &size) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_buffer_download(b, 0, &v, 4) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_buffer_free(b) == XPU_ERROR_INVALID_HANDLE);
  xpu_arg args[3] = {xpu_arg_buffer(b), xpu_arg_buffer(b), xpu_arg_u32(1)};
  CHECK(xpu_launch(k, nullptr, one, one, args, 3) == XPU_ERROR_ARGUMENT_MISMATCH);

  // A new buffer reusing the slot does not revive the old handle.
  xpu_buffer b2;
  XPU_OK(xpu_buffer_create(target().dev, 64, &b2));
  CHECK(xpu_buffer_size(b, &size) == XPU_ERROR_INVALID_HANDLE);
  XPU_OK(xpu_buffer_size(b2, &size));
  CHECK(size == 64);

  // Wrong kinds: a buffer where a kernel or stream belongs, and back.
  CHECK(xpu_launch(reinterpret_cast<xpu_kernel>(b2), nullptr, one, one, nullptr, 0) ==
        XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_stream_synchronize(reinterpret_cast<xpu_stream>(b2)) ==
        XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_buffer_size(reinterpret_cast<xpu_buffer>(k), &size) ==
        XPU_ERROR_INVALID_HANDLE);
  // Garbage values.
  CHECK(xpu_buffer_size(reinterpret_cast<xpu_buffer>(uintptr_t(0x1234)), &size) ==
        XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_buffer_size(reinterpret_cast<xpu_buffer>(~uintptr_t(0)), &size) ==
        XPU_ERROR_INVALID_HANDLE);
  XPU_OK(xpu_buffer_free(b2));

  // A released module takes its kernels with it.
  xpu_module mod;
  XPU_OK(xpu_module_create(target().ctx, target().dev, kCopy, std::strlen(kCopy),
                           nullptr, &mod, nullptr));
  xpu_kernel k2;
  XPU_OK(xpu_module_kernel(mod, "copy", &k2));
  xpu_module_release(mod);
  uint32_t count;
  CHECK(xpu_kernel_param_count(k2, &count) == XPU_ERROR_INVALID_HANDLE);
  CHECK(xpu_module_kernel(mod, "copy", &k2) == XPU_ERROR_INVALID_HANDLE);
  checkStillWorks(k);
}

TEST_CASE("copies outside the buffer are refused and change nothing") {
  std::vector<int32_t> data = randomInts<int32_t>(16, -9, 9);
  Buffer b = Buffer::from(data);
  std::vector<int32_t> big(17, 5);
  CHECK(xpu_buffer_download(b.handle, 0, big.data(), 17 * 4) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(lastMessage().find("exceeds the buffer's 64 bytes") != std::string::npos);
  CHECK(xpu_buffer_download(b.handle, 4, big.data(), 64) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_upload(b.handle, 0, big.data(), 17 * 4) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_upload(b.handle, SIZE_MAX, big.data(), 2) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_download(b.handle, 0, nullptr, 4) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(xpu_buffer_upload_async(b.handle, 60, big.data(), 8, nullptr) ==
        XPU_ERROR_INVALID_ARGUMENT);
  CHECK(big == std::vector<int32_t>(17, 5));
  CHECK(b.read<int32_t>() == data);
  xpu_buffer none = nullptr;
  CHECK(xpu_buffer_create(target().dev, 0, &none) == XPU_ERROR_INVALID_ARGUMENT);
  CHECK(none == nullptr);
}

TEST_CASE("the last error is per thread") {
  size_t size;
  CHECK(xpu_buffer_size(nullptr, &size) == XPU_ERROR_INVALID_HANDLE);
  std::string here = lastMessage();
  std::string there = "unset";
  xpu_status thereStatus = XPU_ERROR_INTERNAL;
  std::thread([&] {
    there = xpu_last_error_message();
    thereStatus = xpu_last_error_status();
  }).join();
  CHECK(there.empty());
  CHECK(thereStatus == XPU_SUCCESS);
  CHECK(here.find("NULL buffer handle") != std::string::npos);
  CHECK(xpu_last_error_status() == XPU_ERROR_INVALID_HANDLE);
}

TEST_CASE("a checked access out of bounds is suppressed and reported") {
  // `checked` is what admission puts on an access it cannot prove in bounds.
  Module m(R"(
    xpu.kernel @shift(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %k: i32) {
      %i = xpu.global_id x
      %ki = arith.index_castui %k : i32 to index
      %j = arith.addi %i, %ki : index
      %v = xpu.load %in[%j] {checked} : !xpu.buffer<i32, ro>
      xpu.store %v, %out[%i] {checked} : !xpu.buffer<i32>
      xpu.return
    })");
  const uint32_t n = 256, k = 10;
  auto in = randomInts<int32_t>(n, 1, 1000);
  Buffer bin = Buffer::from(in), bout(n * 4);
  uint32_t grid[3] = {n / 64, 1, 1}, block[3] = {64, 1, 1};
  xpu_arg args[3] = {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle),
                     xpu_arg_u32(k)};
  XPU_OK(xpu_launch(m.kernel("shift"), nullptr, grid, block, args, 3));
  CHECK(xpu_stream_synchronize(defaultStream()) == XPU_ERROR_OUT_OF_BOUNDS);
  std::string why = lastMessage();
  CHECK(why.find("10 out-of-bounds accesses were suppressed") != std::string::npos);
  CHECK(why.find("load from 'in'") != std::string::npos);
  auto out = bout.read<int32_t>();
  for (uint32_t i = 0; i < n; ++i)
    REQUIRE(out[i] == (i + k < n ? in[i + k] : 0)); // a suppressed read is 0
  // In bounds, the same kernel reports nothing.
  args[2] = xpu_arg_u32(0);
  XPU_OK(xpu_launch(m.kernel("shift"), nullptr, grid, block, args, 3));
  XPU_OK(xpu_stream_synchronize(defaultStream()));
  CHECK(bout.read<int32_t>() == in);
}
