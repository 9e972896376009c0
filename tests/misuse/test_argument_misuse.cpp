// Sizes and extents whose arithmetic would overflow, enum arguments outside
// their enumerators, launch arguments wider than xpu_arg, and an event timed
// against itself: each a clear error (or the documented value), never a
// crash, a hang or a silent success.
#include "misuse.h"
#include "raw_enums.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

using namespace misuse;

TEST_CASE("buffer sizes beyond the device's memory are refused before rounding") {
  xpu_device_info info = {sizeof info};
  XPU_OK(xpu_device_info_get(env().dev, &info));
  REQUIRE(info.memory_bytes > 0);
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 10, SIZE_MAX - 63, size_t(info.memory_bytes) + 1}) {
    xpu_buffer b = reinterpret_cast<xpu_buffer>(uintptr_t(0x1234));
    INFO("bytes = " << bytes);
    XPU_FAILS(xpu_buffer_create(env().dev, bytes, &b), XPU_ERROR_OUT_OF_MEMORY);
    CHECK(b == reinterpret_cast<xpu_buffer>(uintptr_t(0x1234))); // untouched
  }
  xpu_buffer b;
  XPU_FAILS(xpu_buffer_create(env().dev, 0, &b), XPU_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("copy ranges whose end wraps around are refused") {
  xpu_buffer b;
  XPU_OK(xpu_buffer_create(env().dev, 64, &b));
  uint8_t host[64] = {};
  struct Range { size_t offset, bytes; } ranges[] = {
      {SIZE_MAX, 2}, {1, SIZE_MAX}, {64, 1}, {SIZE_MAX - 1, SIZE_MAX}, {65, 0}};
  for (Range r : ranges) {
    INFO("offset " << r.offset << ", bytes " << r.bytes);
    XPU_FAILS(xpu_buffer_upload(b, r.offset, host, r.bytes), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(xpu_buffer_download(b, r.offset, host, r.bytes), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(xpu_buffer_upload_async(b, r.offset, host, r.bytes, nullptr),
              XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(xpu_buffer_download_async(b, r.offset, host, r.bytes, nullptr),
              XPU_ERROR_INVALID_ARGUMENT);
  }
  XPU_OK(xpu_device_synchronize(env().dev));
  XPU_OK(xpu_buffer_free(b));
}

TEST_CASE("launch extents whose product wraps 2^64 are refused, not run") {
  xpu_module m = compile(kSaxpy);
  xpu_kernel k = kernelOf(m, "saxpy");
  xpu_buffer y, x;
  XPU_OK(xpu_buffer_create(env().dev, 64, &y));
  XPU_OK(xpu_buffer_create(env().dev, 64, &x));
  xpu_arg args[4] = {xpu_arg_buffer(y), xpu_arg_buffer(x), xpu_arg_f32(1), xpu_arg_u32(16)};
  uint32_t one[3] = {1, 1, 1};
  // 2^31 * 2^31 * 4 = 2^64: a 64-bit product of 0, under every limit.
  uint32_t wraps[3] = {1u << 31, 1u << 31, 4};
  uint32_t big[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  uint32_t zero[3] = {1, 0, 1};
  for (const uint32_t *block : {wraps, big, zero}) {
    INFO("block " << block[0] << "," << block[1] << "," << block[2]);
    XPU_FAILS(xpu_launch(k, nullptr, one, block, args, 4), XPU_ERROR_INVALID_ARGUMENT);
  }
  for (const uint32_t *grid : {big, zero}) {
    INFO("grid " << grid[0] << "," << grid[1] << "," << grid[2]);
    XPU_FAILS(xpu_launch(k, nullptr, grid, one, args, 4), XPU_ERROR_INVALID_ARGUMENT);
  }
  XPU_FAILS(xpu_launch(k, nullptr, nullptr, one, args, 4), XPU_ERROR_INVALID_ARGUMENT);
  XPU_FAILS(xpu_launch(k, nullptr, one, one, nullptr, 4), XPU_ERROR_INVALID_ARGUMENT);
  XPU_FAILS(xpu_launch(k, nullptr, one, one, args, SIZE_MAX), XPU_ERROR_ARGUMENT_MISMATCH);
  XPU_OK(xpu_device_synchronize(env().dev));
  XPU_OK(xpu_buffer_free(y));
  XPU_OK(xpu_buffer_free(x));
  xpu_module_release(m);
}

TEST_CASE("vector arguments up to xpu_arg's 32 bytes are passed; wider ones refused") {
  static const char text[] = R"(
xpu.kernel @v(%o: !xpu.buffer<f32>, %v: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %a = vector.extract %v[0] : f32 from vector<8xf32>
  %b = vector.extract %v[7] : f32 from vector<8xf32>
  %r = arith.subf %b, %a : f32
  xpu.store %r, %o[%c0] : !xpu.buffer<f32>
  xpu.return
}
xpu.kernel @wide(%o: !xpu.buffer<f64>, %v: vector<8xf64>) {
  %c0 = arith.constant 0 : index
  %b = vector.extract %v[7] : f64 from vector<8xf64>
  xpu.store %b, %o[%c0] : !xpu.buffer<f64>
  xpu.return
}
)";
  xpu_module m = compile(text);
  xpu_buffer o;
  XPU_OK(xpu_buffer_create(env().dev, 8, &o));
  uint32_t one[3] = {1, 1, 1};

  xpu_arg v = raw_arg(XPU_PARAM_SCALAR, XPU_TYPE_F32, 8);
  float lanes[8] = {1.5f, 0, 0, 0, 0, 0, 0, 9.25f};
  std::memcpy(v.v.bytes, lanes, sizeof lanes);
  xpu_arg args[2] = {xpu_arg_buffer(o), v};
  XPU_OK(xpu_launch(kernelOf(m, "v"), nullptr, one, one, args, 2));
  XPU_OK(xpu_device_synchronize(env().dev));
  float got = 0;
  XPU_OK(xpu_buffer_download(o, 0, &got, 4));
  CHECK(got == 9.25f - 1.5f);

  xpu_arg wide[2] = {xpu_arg_buffer(o), raw_arg(XPU_PARAM_SCALAR, XPU_TYPE_F64, 8)};
  XPU_FAILS(xpu_launch(kernelOf(m, "wide"), nullptr, one, one, wide, 2),
            XPU_ERROR_ARGUMENT_MISMATCH);
  CHECK(std::string(xpu_last_error_message()).find("more than an xpu_arg carries") !=
        std::string::npos);
  XPU_OK(xpu_device_synchronize(env().dev));
  XPU_OK(xpu_buffer_free(o));
  xpu_module_release(m);
}

TEST_CASE("enum arguments outside their enumerators, negative ones included") {
  // 17: one past the last status (XPU_ERROR_DEADLINE).
  for (int32_t v : {-1, -2147483647 - 1, 17, 1000, 0x7FFFFFFF}) {
    INFO("value " << v);
    CHECK(std::string(raw_status_name(v)) == "XPU_ERROR_UNKNOWN");
  }
  for (int32_t v : {-1, -2147483647 - 1, 4, 0x7FFFFFFF}) {
    INFO("value " << v);
    CHECK(std::string(raw_backend_name(v)) == "unknown");
    CHECK(std::string(raw_backend_note(env().ctx, v)) == "no such backend");
  }
  for (int32_t v : {-1, 0, 10, 0x7FFFFFFF}) {
    INFO("value " << v);
    CHECK(std::string(raw_type_name(v)) == "unknown");
    CHECK(raw_type_size(v) == 0);
  }

  xpu_builder b;
  XPU_OK(xpu_builder_create(env().ctx, &b));
  XPU_OK(xpu_builder_kernel_begin(b, "k", nullptr));
  xpu_value i32v, idx, buf, o;
  XPU_OK(xpu_builder_param(b, "p", "!xpu.buffer<i32>", &buf));
  XPU_OK(xpu_builder_constant_int(b, "i32", 3, &i32v));
  XPU_OK(xpu_builder_constant_int(b, "index", 0, &idx));
  for (int32_t v : {-1, -2147483647 - 1, 99, 0x7FFFFFFF}) {
    INFO("value " << v);
    XPU_FAILS(raw_binary(b, v, i32v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_unary(b, v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_compare(b, v, i32v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_cast(b, v, i32v, "i64", &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_coordinate(b, v, 0, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_atomic(b, v, XPU_ORDER_RELAXED, XPU_SCOPE_DEVICE, i32v, buf, idx, &o),
              XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_atomic(b, XPU_ATOMIC_ADD, v, XPU_SCOPE_DEVICE, i32v, buf, idx, &o),
              XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_atomic(b, XPU_ATOMIC_ADD, XPU_ORDER_RELAXED, v, i32v, buf, idx, &o),
              XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_reduce(b, v, XPU_REDUCE_SEQUENTIAL, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_reduce(b, XPU_REDUCE_ADD, v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_wave_shuffle(b, v, i32v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_wave_vote(b, v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_wave_reduce(b, v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_wave_scan(b, v, XPU_WAVE_SCAN_INCLUSIVE, i32v, &o),
              XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_wave_scan(b, XPU_REDUCE_ADD, v, i32v, &o), XPU_ERROR_INVALID_ARGUMENT);
  }
  // The builder was left as it was: it still builds and finishes.
  XPU_OK(xpu_builder_return(b, nullptr, 0));
  xpu_module m = nullptr;
  XPU_OK(xpu_builder_finish(b, env().dev, nullptr, &m, nullptr));
  xpu_module_release(m);
  xpu_builder_release(b);

  // Launch arguments whose kind or type is no enumerator.
  xpu_module sm = compile(kSaxpy);
  xpu_buffer y;
  XPU_OK(xpu_buffer_create(env().dev, 64, &y));
  uint32_t one[3] = {1, 1, 1};
  for (int32_t v : {-1, 2, 99, 0x7FFFFFFF}) {
    INFO("value " << v);
    xpu_arg bad_kind[4] = {xpu_arg_buffer(y), xpu_arg_buffer(y), raw_arg(v, XPU_TYPE_F32, 1),
                           xpu_arg_u32(1)};
    XPU_FAILS(xpu_launch(kernelOf(sm, "saxpy"), nullptr, one, one, bad_kind, 4),
              XPU_ERROR_ARGUMENT_MISMATCH);
    xpu_arg bad_type[4] = {xpu_arg_buffer(y), xpu_arg_buffer(y),
                           raw_arg(XPU_PARAM_SCALAR, v, 1), xpu_arg_u32(1)};
    XPU_FAILS(xpu_launch(kernelOf(sm, "saxpy"), nullptr, one, one, bad_type, 4),
              XPU_ERROR_ARGUMENT_MISMATCH);
    xpu_arg buffer_kind[4] = {raw_arg(v, XPU_TYPE_F32, 1), xpu_arg_buffer(y),
                              xpu_arg_f32(1), xpu_arg_u32(1)};
    XPU_FAILS(xpu_launch(kernelOf(sm, "saxpy"), nullptr, one, one, buffer_kind, 4),
              XPU_ERROR_ARGUMENT_MISMATCH);
  }
  XPU_OK(xpu_device_synchronize(env().dev));
  XPU_OK(xpu_buffer_free(y));
  xpu_module_release(sm);
}

TEST_CASE("memory kinds, map access and import kinds outside their enumerators; "
          "imports and sizes that wrap") {
  xpu_buffer b = nullptr, untouched = reinterpret_cast<xpu_buffer>(uintptr_t(0x1234));
  alignas(16) static uint8_t host[64];
  XPU_OK(xpu_buffer_create(env().dev, 64, &b));
  for (int32_t v : {-1, -2147483647 - 1, 99, 0x7FFFFFFE}) {
    INFO("value " << v);
    xpu_buffer out = untouched;
    void *p = nullptr;
    XPU_FAILS(raw_buffer_create_ex(env().dev, 64, v, &out), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_buffer_map(b, v, &p), XPU_ERROR_INVALID_ARGUMENT);
    XPU_FAILS(raw_buffer_import(env().dev, v, reinterpret_cast<uintptr_t>(host), sizeof host,
                                &out),
              XPU_ERROR_INVALID_ARGUMENT);
    CHECK(out == untouched);
  }
  // A map refused for its access left nothing mapped.
  XPU_FAILS(xpu_buffer_unmap(b), XPU_ERROR_INVALID_ARGUMENT);
  xpu_buffer out = untouched;
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 10})
    XPU_FAILS(raw_buffer_create_ex(env().dev, bytes, XPU_MEMORY_DEVICE, &out),
              XPU_ERROR_OUT_OF_MEMORY);
  XPU_FAILS(raw_buffer_import(env().dev, XPU_IMPORT_HOST_POINTER, UINT64_MAX - 8, 64, &out),
            XPU_ERROR_INVALID_ARGUMENT);
  XPU_FAILS(raw_buffer_import(env().dev, XPU_IMPORT_HOST_POINTER, 0, 64, &out),
            XPU_ERROR_INVALID_ARGUMENT);
  XPU_FAILS(raw_buffer_import(env().dev, XPU_IMPORT_HOST_POINTER,
                              reinterpret_cast<uintptr_t>(host), 0, &out),
            XPU_ERROR_INVALID_ARGUMENT);
  CHECK(out == untouched);
  XPU_OK(xpu_buffer_free(b));
}

TEST_CASE("view arguments: bad buffers, ranks, and offsets, sizes and strides whose "
          "arithmetic would wrap") {
  static const char kStrided[] = R"(
gpu.module @m {
  gpu.func @copy(%out: memref<?xi32>, %in: memref<?x?xi32, strided<[?, ?], offset: ?>>) kernel {
    %x = gpu.global_id x
    %c0 = arith.constant 0 : index
    %n = memref.dim %out, %c0 : memref<?xi32>
    %ok = arith.cmpi ult, %x, %n : index
    scf.if %ok {
      %v = memref.load %in[%c0, %x] : memref<?x?xi32, strided<[?, ?], offset: ?>>
      memref.store %v, %out[%x] : memref<?xi32>
    }
    gpu.return
  }
})";
  xpu_module m = compile(kStrided);
  xpu_kernel k = kernelOf(m, "copy");
  xpu_buffer out, in, freed;
  XPU_OK(xpu_buffer_create(env().dev, 64, &out));
  XPU_OK(xpu_buffer_create(env().dev, 256, &in));
  XPU_OK(xpu_buffer_create(env().dev, 64, &freed));
  XPU_OK(xpu_buffer_free(freed));
  const uint32_t one[3] = {1, 1, 1};
  auto launch = [&](const xpu_view &v) {
    xpu_arg args[2] = {xpu_arg_buffer(out), xpu_arg_view(&v)};
    return xpu_launch(k, nullptr, one, one, args, 2);
  };
  auto view = [&](xpu_buffer b, uint64_t offset, int64_t h, int64_t w, int64_t sh,
                  int64_t sw) {
    xpu_view v = {};
    v.buffer = b;
    v.byte_offset = offset;
    v.rank = 2;
    v.sizes[0] = h;
    v.sizes[1] = w;
    v.strides[0] = sh;
    v.strides[1] = sw;
    return v;
  };
  XPU_OK(launch(view(in, 0, 4, 16, 16, 1))); // the one that fits
  struct Bad {
    const char *what;
    xpu_view v;
  } bad[] = {
      {"freed buffer", view(freed, 0, 1, 1, 1, 1)},
      {"NULL buffer", view(nullptr, 0, 1, 1, 1, 1)},
      {"wrong-kind buffer", view(reinterpret_cast<xpu_buffer>(m), 0, 1, 1, 1, 1)},
      {"rank 0", [&] { xpu_view v = view(in, 0, 1, 1, 1, 1); v.rank = 0; return v; }()},
      {"rank past XPU_VIEW_MAX_RANK",
       [&] { xpu_view v = view(in, 0, 1, 1, 1, 1); v.rank = 0xFFFFFFFF; return v; }()},
      {"offset past INT64_MAX", view(in, UINT64_MAX - 3, 1, 1, 1, 1)},
      {"offset past the buffer", view(in, 256, 1, 1, 1, 1)},
      {"unaligned offset", view(in, 2, 1, 1, 1, 1)},
      {"negative size", view(in, 0, -1, 4, 4, 1)},
      {"sizes whose product wraps", view(in, 0, INT64_MAX, INT64_MAX, 1, 1)},
      {"stride times size wraps", view(in, 0, 2, 2, INT64_MAX, 1)},
      {"negative stride reaching before the buffer", view(in, 0, 2, 2, INT64_MIN, 1)},
      {"reach past the buffer", view(in, 0, 4, 17, 16, 1)},
  };
  for (const Bad &b : bad) {
    INFO(b.what);
    xpu_status st = launch(b.v);
    CHECK((st == XPU_ERROR_ARGUMENT_MISMATCH || st == XPU_ERROR_INVALID_HANDLE));
  }
  // A NULL view pointer.
  xpu_arg args[2] = {xpu_arg_buffer(out), xpu_arg_view(nullptr)};
  XPU_FAILS(xpu_launch(k, nullptr, one, one, args, 2), XPU_ERROR_ARGUMENT_MISMATCH);
  XPU_OK(xpu_device_synchronize(env().dev));
  XPU_OK(xpu_buffer_free(out));
  XPU_OK(xpu_buffer_free(in));
  xpu_module_release(m);
}

TEST_CASE("an event timed against itself is 0 ms; events timed both ways at once "
          "do not deadlock") {
  xpu_event a, b;
  xpu_stream s;
  XPU_OK(xpu_event_create(env().dev, &a));
  XPU_OK(xpu_event_create(env().dev, &b));
  XPU_OK(xpu_stream_create(env().dev, &s));
  double ms = -1;
  XPU_FAILS(xpu_event_elapsed(a, a, &ms), XPU_ERROR_INVALID_ARGUMENT); // not recorded
  XPU_OK(xpu_event_record(a, s));
  XPU_OK(xpu_event_record(b, s));
  XPU_OK(xpu_event_synchronize(b));
  XPU_OK(xpu_event_elapsed(a, a, &ms));
  CHECK(ms == 0);
  // elapsed(a, b) and elapsed(b, a) take both events' locks; in opposite
  // orders they deadlocked.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        double x;
        (void)(t % 2 ? xpu_event_elapsed(a, b, &x) : xpu_event_elapsed(b, a, &x));
      }
    });
  for (auto &th : threads)
    th.join();
  XPU_OK(xpu_event_elapsed(a, b, &ms));
  CHECK(ms >= 0);
  xpu_event_release(a);
  xpu_event_release(b);
  xpu_stream_release(s);
}

TEST_CASE("index and count arguments out of range") {
  xpu_device d;
  XPU_FAILS(xpu_device_get(env().ctx, UINT32_MAX, &d), XPU_ERROR_NOT_FOUND);
  xpu_capability cap;
  XPU_FAILS(xpu_device_capability(env().dev, UINT32_MAX, &cap), XPU_ERROR_NOT_FOUND);
  xpu_module m = compile(kSaxpy);
  xpu_kernel k;
  xpu_param_info p;
  XPU_FAILS(xpu_module_kernel_at(m, UINT32_MAX, &k), XPU_ERROR_NOT_FOUND);
  XPU_FAILS(xpu_kernel_param(kernelOf(m, "saxpy"), 4, &p), XPU_ERROR_NOT_FOUND);
  XPU_FAILS(xpu_module_kernel(m, "nope", &k), XPU_ERROR_NOT_FOUND);
  xpu_diagnostics diags;
  XPU_OK(xpu_module_check(env().ctx, kSaxpy, std::strlen(kSaxpy), nullptr, &diags));
  xpu_diagnostic one;
  XPU_FAILS(xpu_diagnostics_get(diags, SIZE_MAX, &one), XPU_ERROR_NOT_FOUND);
  xpu_diagnostics_release(diags);
  xpu_device_info small = {4};
  XPU_FAILS(xpu_device_info_get(env().dev, &small), XPU_ERROR_INVALID_ARGUMENT);
  xpu_context_options opts = {0, 0};
  xpu_context c;
  XPU_FAILS(xpu_context_create(&opts, &c), XPU_ERROR_INVALID_ARGUMENT);
  XPU_FAILS(xpu_module_create(env().ctx, env().dev, nullptr, 10, nullptr, &m, nullptr),
            XPU_ERROR_INVALID_ARGUMENT);
  xpu_module_release(m);
}

TEST_CASE("compile_for_target names the NVIDIA architectures it accepts") {
  void *code = nullptr;
  size_t size = 0;
  xpu_diagnostics diags = nullptr;
  for (const char *chip : {"sm_99", "sm_0090", "sm_89a", "sm_", "gfx942"}) {
    INFO("chip " << chip);
    XPU_FAILS(xpu_compile_for_target(env().ctx, kSaxpy, std::strlen(kSaxpy), nullptr, "nvptx",
                                     chip, &code, &size, &diags),
              XPU_ERROR_INVALID_ARGUMENT);
    xpu_diagnostics_release(diags);
  }
  XPU_FAILS(xpu_compile_for_target(env().ctx, kSaxpy, std::strlen(kSaxpy), nullptr, "nvptx",
                                   "sm_99", &code, &size, nullptr),
            XPU_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(xpu_last_error_message()).find("sm_90") != std::string::npos);
}
