// Every handle-taking function of the C API, called with a NULL, a released,
// a stale (its slot since reused by a live object), a wrong-kind and a
// made-up handle in each handle position: XPU_ERROR_INVALID_HANDLE (or the
// documented fallback of functions without a status), no crash, and the live
// objects keep working.
#include "misuse.h"

#include <cstring>
#include <functional>
#include <vector>

using namespace misuse;

namespace {

enum K { CTX, DEV, BUF, STR, EVT, MOD, KER, DIAG, BLD, KINDS };
const char *const kKindNames[] = {"context", "device", "buffer", "stream", "event",
                                  "module", "kernel", "diagnostics", "builder"};

/// Live objects of every kind (a fresh builder is made per call).
struct Live {
  void *h[KINDS] = {};
  xpu_module saxpy = nullptr;
};

Live &live() {
  static Live l = [] {
    Live out;
    Env &e = env();
    out.h[CTX] = e.ctx;
    out.h[DEV] = e.dev;
    xpu_buffer b;
    xpu_stream s;
    xpu_event ev;
    XPU_OK(xpu_buffer_create(e.dev, 1024, &b));
    XPU_OK(xpu_stream_create(e.dev, &s));
    XPU_OK(xpu_event_create(e.dev, &ev));
    XPU_OK(xpu_event_record(ev, s));
    out.h[BUF] = b;
    out.h[STR] = s;
    out.h[EVT] = ev;
    out.saxpy = compile(kSaxpy);
    out.h[MOD] = out.saxpy;
    out.h[KER] = kernelOf(out.saxpy, "saxpy");
    xpu_diagnostics d = nullptr;
    XPU_OK(xpu_module_check(e.ctx, kSaxpy, std::strlen(kSaxpy), nullptr, &d));
    out.h[DIAG] = d;
    return out;
  }();
  return l;
}

/// A handle of kind `k` that has been released. The next object made of
/// any kind takes its slot, which makes it stale rather than merely freed.
void *released(K k) {
  Env &e = env();
  switch (k) {
  case CTX: case DEV: {
    xpu_context c;
    xpu_device d;
    XPU_OK(xpu_context_create(nullptr, &c));
    XPU_OK(xpu_device_get(c, 0, &d));
    xpu_context_release(c);
    return k == CTX ? static_cast<void *>(c) : static_cast<void *>(d);
  }
  case BUF: {
    xpu_buffer b;
    XPU_OK(xpu_buffer_create(e.dev, 16, &b));
    XPU_OK(xpu_buffer_free(b));
    return b;
  }
  case STR: {
    xpu_stream s;
    XPU_OK(xpu_stream_create(e.dev, &s));
    xpu_stream_release(s);
    return s;
  }
  case EVT: {
    xpu_event ev;
    XPU_OK(xpu_event_create(e.dev, &ev));
    xpu_event_release(ev);
    return ev;
  }
  case MOD: case KER: {
    xpu_module m = compile(kSaxpy);
    xpu_kernel kernel = kernelOf(m, "saxpy");
    xpu_module_release(m);
    return k == MOD ? static_cast<void *>(m) : static_cast<void *>(kernel);
  }
  case DIAG: {
    xpu_diagnostics d;
    XPU_OK(xpu_module_check(e.ctx, kSaxpy, std::strlen(kSaxpy), nullptr, &d));
    xpu_diagnostics_release(d);
    return d;
  }
  case BLD: {
    xpu_builder b;
    XPU_OK(xpu_builder_create(e.ctx, &b));
    xpu_builder_release(b);
    return b;
  }
  default: return nullptr;
  }
}

/// A released handle whose slot a live object of the same kind now holds.
void *stale(K k, std::vector<std::function<void()>> &cleanup) {
  void *old = released(k);
  if (k == BUF) {
    xpu_buffer b;
    XPU_OK(xpu_buffer_create(env().dev, 16, &b));
    cleanup.push_back([b] { (void)xpu_buffer_free(b); });
    // Same slot (index bits), another generation: the case this tests.
    CHECK((reinterpret_cast<uintptr_t>(b) & 0xFFFFFF) ==
          (reinterpret_cast<uintptr_t>(old) & 0xFFFFFF));
  } else if (k == EVT) {
    xpu_event ev;
    XPU_OK(xpu_event_create(env().dev, &ev));
    cleanup.push_back([ev] { xpu_event_release(ev); });
  } else if (k == STR) {
    xpu_stream s;
    XPU_OK(xpu_stream_create(env().dev, &s));
    cleanup.push_back([s] { xpu_stream_release(s); });
  }
  return old;
}

struct Bad {
  const char *what;
  void *handle;
};

std::vector<Bad> badHandles(K k, std::vector<std::function<void()>> &cleanup) {
  K other = k == BUF ? STR : BUF;
  return {{"NULL", nullptr},
          {"released", released(k)},
          {"stale", stale(k, cleanup)},
          {"wrong kind", live().h[other]},
          {"made up", reinterpret_cast<void *>(uintptr_t(0x5A5A5A5A12345678ull))},
          // The library's kind byte (K + 1) over a slot that was never made.
          {"made up, of this kind",
           reinterpret_cast<void *>(uintptr_t(uint64_t(k + 1) << 56 | 0xA5A5A5A5A5A5ull))}};
}

/// One function: its handle parameters, which of them may be NULL (the
/// default stream, the default device), and a call that returns its status
/// or, for functions without one, XPU_ERROR_INVALID_HANDLE exactly when it
/// returned its documented fallback.
struct Case {
  const char *name;
  std::vector<K> params;
  std::vector<bool> nullOk;
  std::function<xpu_status(void *const *)> call;
};

xpu_status fallback(bool isFallback) {
  return isFallback ? XPU_ERROR_INVALID_HANDLE : XPU_SUCCESS;
}

#define H(T, i) static_cast<T>(h[i])

std::vector<Case> cases() {
  static const char text[] = "xpu.kernel @k() { xpu.return }";
  static float host[256];
  std::vector<Case> c;
  auto add = [&](const char *name, std::vector<K> params,
                 std::function<xpu_status(void *const *)> call,
                 std::vector<bool> nullOk = {}) {
    nullOk.resize(params.size(), false);
    c.push_back({name, params, nullOk, call});
  };
  add("xpu_diagnostics_count", {DIAG}, [](void *const *h) {
    return fallback(xpu_diagnostics_count(H(xpu_diagnostics, 0)) == 0);
  });
  add("xpu_diagnostics_get", {DIAG}, [](void *const *h) {
    xpu_diagnostic d;
    return xpu_diagnostics_get(H(xpu_diagnostics, 0), 0, &d);
  });
  add("xpu_diagnostics_json", {DIAG}, [](void *const *h) {
    return fallback(std::string(xpu_diagnostics_json(H(xpu_diagnostics, 0))) == "[]");
  });
  add("xpu_diagnostics_text", {DIAG}, [](void *const *h) {
    return fallback(std::string(xpu_diagnostics_text(H(xpu_diagnostics, 0))).empty());
  });
  add("xpu_diagnostics_release", {DIAG}, [](void *const *h) {
    xpu_diagnostics_release(H(xpu_diagnostics, 0));
    return XPU_ERROR_INVALID_HANDLE;
  });
  add("xpu_context_release", {CTX}, [](void *const *h) {
    xpu_context_release(H(xpu_context, 0));
    return XPU_ERROR_INVALID_HANDLE;
  });
  add("xpu_context_backend_note", {CTX}, [](void *const *h) {
    return fallback(std::string(xpu_context_backend_note(H(xpu_context, 0),
                                                         XPU_BACKEND_CUDA)).empty());
  });
  add("xpu_device_count", {CTX}, [](void *const *h) {
    uint32_t n;
    return xpu_device_count(H(xpu_context, 0), &n);
  });
  add("xpu_device_get", {CTX}, [](void *const *h) {
    xpu_device d;
    return xpu_device_get(H(xpu_context, 0), 0, &d);
  });
  add("xpu_device_default", {CTX}, [](void *const *h) {
    xpu_device d;
    return xpu_device_default(H(xpu_context, 0), &d);
  });
  add("xpu_device_info_get", {DEV}, [](void *const *h) {
    xpu_device_info info = {sizeof info};
    return xpu_device_info_get(H(xpu_device, 0), &info);
  });
  add("xpu_device_synchronize", {DEV}, [](void *const *h) {
    return xpu_device_synchronize(H(xpu_device, 0));
  });
  add("xpu_device_capability_count", {DEV}, [](void *const *h) {
    uint32_t n;
    return xpu_device_capability_count(H(xpu_device, 0), &n);
  });
  add("xpu_device_capability", {DEV}, [](void *const *h) {
    xpu_capability cap;
    return xpu_device_capability(H(xpu_device, 0), 0, &cap);
  });
  add("xpu_stream_create", {DEV}, [](void *const *h) {
    xpu_stream s;
    return xpu_stream_create(H(xpu_device, 0), &s);
  });
  add("xpu_stream_release", {STR}, [](void *const *h) {
    xpu_stream_release(H(xpu_stream, 0));
    return XPU_ERROR_INVALID_HANDLE;
  });
  add("xpu_stream_synchronize", {STR}, [](void *const *h) {
    return xpu_stream_synchronize(H(xpu_stream, 0));
  });
  add("xpu_stream_default", {DEV}, [](void *const *h) {
    xpu_stream s;
    return xpu_stream_default(H(xpu_device, 0), &s);
  });
  add("xpu_event_create", {DEV}, [](void *const *h) {
    xpu_event e;
    return xpu_event_create(H(xpu_device, 0), &e);
  });
  add("xpu_event_release", {EVT}, [](void *const *h) {
    xpu_event_release(H(xpu_event, 0));
    return XPU_ERROR_INVALID_HANDLE;
  });
  add("xpu_event_record", {EVT, STR}, [](void *const *h) {
    return xpu_event_record(H(xpu_event, 0), H(xpu_stream, 1));
  });
  add("xpu_stream_wait_event", {STR, EVT}, [](void *const *h) {
    return xpu_stream_wait_event(H(xpu_stream, 0), H(xpu_event, 1));
  });
  add("xpu_event_synchronize", {EVT}, [](void *const *h) {
    return xpu_event_synchronize(H(xpu_event, 0));
  });
  add("xpu_event_query", {EVT}, [](void *const *h) {
    return xpu_event_query(H(xpu_event, 0));
  });
  add("xpu_event_elapsed", {EVT, EVT}, [](void *const *h) {
    double ms;
    return xpu_event_elapsed(H(xpu_event, 0), H(xpu_event, 1), &ms);
  });
  add("xpu_buffer_create", {DEV}, [](void *const *h) {
    xpu_buffer b;
    return xpu_buffer_create(H(xpu_device, 0), 64, &b);
  });
  add("xpu_buffer_free", {BUF}, [](void *const *h) {
    return xpu_buffer_free(H(xpu_buffer, 0));
  });
  add("xpu_buffer_size", {BUF}, [](void *const *h) {
    size_t n;
    return xpu_buffer_size(H(xpu_buffer, 0), &n);
  });
  add("xpu_buffer_upload", {BUF}, [](void *const *h) {
    return xpu_buffer_upload(H(xpu_buffer, 0), 0, host, 16);
  });
  add("xpu_buffer_download", {BUF}, [](void *const *h) {
    return xpu_buffer_download(H(xpu_buffer, 0), 0, host, 16);
  });
  add("xpu_buffer_upload_async", {BUF, STR}, [](void *const *h) {
    return xpu_buffer_upload_async(H(xpu_buffer, 0), 0, host, 16, H(xpu_stream, 1));
  }, {false, true});
  add("xpu_buffer_download_async", {BUF, STR}, [](void *const *h) {
    return xpu_buffer_download_async(H(xpu_buffer, 0), 0, host, 16, H(xpu_stream, 1));
  }, {false, true});
  // Zero-copy host access (include/xpu_c.h, "Zero-copy host access").
  add("xpu_buffer_create_ex", {DEV}, [](void *const *h) {
    xpu_buffer_options o = XPU_BUFFER_OPTIONS_INIT;
    xpu_buffer b;
    return xpu_buffer_create_ex(H(xpu_device, 0), 64, &o, &b);
  });
  add("xpu_buffer_is_mappable", {BUF}, [](void *const *h) {
    int m;
    return xpu_buffer_is_mappable(H(xpu_buffer, 0), &m);
  });
  add("xpu_buffer_map", {BUF}, [](void *const *h) {
    void *p;
    xpu_status st = xpu_buffer_map(H(xpu_buffer, 0), XPU_MAP_READ, &p);
    if (st == XPU_SUCCESS)
      (void)xpu_buffer_unmap(H(xpu_buffer, 0));
    return st;
  });
  add("xpu_buffer_unmap", {BUF}, [](void *const *h) {
    return xpu_buffer_unmap(H(xpu_buffer, 0));
  });
  add("xpu_buffer_import", {DEV}, [](void *const *h) {
    xpu_import_desc d = XPU_IMPORT_DESC_INIT;
    d.address = reinterpret_cast<uintptr_t>(host);
    d.bytes = sizeof host;
    xpu_buffer b;
    xpu_status st = xpu_buffer_import(H(xpu_device, 0), &d, &b);
    if (st == XPU_SUCCESS)
      (void)xpu_buffer_free(b);
    return st;
  });
  add("xpu_buffer_synchronize", {BUF}, [](void *const *h) {
    return xpu_buffer_synchronize(H(xpu_buffer, 0));
  });
  add("xpu_buffer_address", {BUF}, [](void *const *h) {
    uint64_t a;
    return xpu_buffer_address(H(xpu_buffer, 0), &a);
  });
  add("xpu_stream_native", {STR}, [](void *const *h) {
    void *n;
    return xpu_stream_native(H(xpu_stream, 0), &n);
  });
  add("xpu_module_create", {CTX, DEV}, [](void *const *h) {
    xpu_module m;
    xpu_status st = xpu_module_create(H(xpu_context, 0), H(xpu_device, 1), text,
                                      sizeof text - 1, nullptr, &m, nullptr);
    if (st == XPU_SUCCESS)
      xpu_module_release(m);
    return st;
  }, {false, true});
  add("xpu_module_check", {CTX}, [](void *const *h) {
    return xpu_module_check(H(xpu_context, 0), text, sizeof text - 1, nullptr, nullptr);
  });
  add("xpu_module_format", {CTX}, [](void *const *h) {
    const char *out;
    return xpu_module_format(H(xpu_context, 0), text, sizeof text - 1, nullptr, &out,
                             nullptr);
  });
  add("xpu_compile_for_target", {CTX}, [](void *const *h) {
    void *code;
    size_t size;
    xpu_status st = xpu_compile_for_target(H(xpu_context, 0), text, sizeof text - 1,
                                           nullptr, "cpu", nullptr, &code, &size, nullptr);
    if (st == XPU_SUCCESS)
      xpu_compiled_code_free(code);
    return st;
  });
  add("xpu_module_release", {MOD}, [](void *const *h) {
    xpu_module_release(H(xpu_module, 0));
    return XPU_ERROR_INVALID_HANDLE;
  });
  add("xpu_module_binary", {MOD}, [](void *const *h) {
    const void *data;
    size_t size;
    return xpu_module_binary(H(xpu_module, 0), &data, &size, nullptr);
  });
  add("xpu_module_build_info", {MOD}, [](void *const *h) {
    return fallback(std::string(xpu_module_build_info(H(xpu_module, 0))).empty());
  });
  add("xpu_module_kernel_count", {MOD}, [](void *const *h) {
    uint32_t n;
    return xpu_module_kernel_count(H(xpu_module, 0), &n);
  });
  add("xpu_module_kernel_at", {MOD}, [](void *const *h) {
    xpu_kernel k;
    return xpu_module_kernel_at(H(xpu_module, 0), 0, &k);
  });
  add("xpu_module_kernel", {MOD}, [](void *const *h) {
    xpu_kernel k;
    return xpu_module_kernel(H(xpu_module, 0), "saxpy", &k);
  });
  add("xpu_kernel_name", {KER}, [](void *const *h) {
    return fallback(std::string(xpu_kernel_name(H(xpu_kernel, 0))).empty());
  });
  add("xpu_kernel_param_count", {KER}, [](void *const *h) {
    uint32_t n;
    return xpu_kernel_param_count(H(xpu_kernel, 0), &n);
  });
  add("xpu_kernel_param", {KER}, [](void *const *h) {
    xpu_param_info p;
    return xpu_kernel_param(H(xpu_kernel, 0), 0, &p);
  });
  add("xpu_launch", {KER, STR, BUF, BUF}, [](void *const *h) {
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    xpu_arg args[4] = {xpu_arg_buffer(H(xpu_buffer, 2)), xpu_arg_buffer(H(xpu_buffer, 3)),
                       xpu_arg_f32(1), xpu_arg_u32(0)};
    xpu_status st = xpu_launch(H(xpu_kernel, 0), H(xpu_stream, 1), grid, block, args, 4);
    // A bad buffer is an argument mismatch naming the argument.
    if (st == XPU_ERROR_ARGUMENT_MISMATCH &&
        std::string(xpu_last_error_message()).find("invalid buffer handle") != std::string::npos)
      return XPU_ERROR_INVALID_HANDLE;
    if (st == XPU_ERROR_ARGUMENT_MISMATCH &&
        std::string(xpu_last_error_message()).find("NULL buffer handle") != std::string::npos)
      return XPU_ERROR_INVALID_HANDLE;
    return st;
  }, {false, true, false, false});
  add("xpu_launch_with_options", {KER, STR, BUF, BUF}, [](void *const *h) {
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    xpu_arg args[4] = {xpu_arg_buffer(H(xpu_buffer, 2)), xpu_arg_buffer(H(xpu_buffer, 3)),
                       xpu_arg_f32(1), xpu_arg_u32(0)};
    xpu_launch_options o = XPU_LAUNCH_OPTIONS_INIT;
    xpu_status st = xpu_launch_with_options(H(xpu_kernel, 0), H(xpu_stream, 1), grid, block,
                                            args, 4, &o);
    if (st == XPU_ERROR_ARGUMENT_MISMATCH &&
        (std::string(xpu_last_error_message()).find("invalid buffer handle") !=
             std::string::npos ||
         std::string(xpu_last_error_message()).find("NULL buffer handle") != std::string::npos))
      return XPU_ERROR_INVALID_HANDLE;
    return st;
  }, {false, true, false, false});
  add("xpu_kernel_param_view", {KER}, [](void *const *h) {
    xpu_view_info v = {sizeof v};
    xpu_status st = xpu_kernel_param_view(H(xpu_kernel, 0), 0, &v);
    // saxpy's first parameter is a buffer, not a view: a live kernel gives
    // XPU_ERROR_INVALID_ARGUMENT, a bad handle must give more than that.
    return st == XPU_ERROR_INVALID_ARGUMENT ? XPU_SUCCESS : st;
  });
  add("xpu_builder_create", {CTX}, [](void *const *h) {
    xpu_builder b;
    xpu_status st = xpu_builder_create(H(xpu_context, 0), &b);
    if (st == XPU_SUCCESS)
      xpu_builder_release(b);
    return st;
  });
  add("xpu_builder_release", {BLD}, [](void *const *h) {
    xpu_builder_release(H(xpu_builder, 0));
    return XPU_ERROR_INVALID_HANDLE;
  });
  add("xpu_builder_finish", {BLD, DEV}, [](void *const *h) {
    xpu_module m;
    (void)xpu_builder_return(H(xpu_builder, 0), nullptr, 0); // complete IR
    xpu_status st = xpu_builder_finish(H(xpu_builder, 0), H(xpu_device, 1), nullptr, &m,
                                       nullptr);
    if (st == XPU_SUCCESS)
      xpu_module_release(m);
    return st;
  }, {false, true});
  // The calls that build: each on a builder with a kernel begun.
  using BuildCall = xpu_status (*)(xpu_builder, xpu_value);
  static const std::pair<const char *, BuildCall> builds[] = {
      {"xpu_builder_kernel_begin", [](xpu_builder b, xpu_value) { return xpu_builder_kernel_begin(b, "k2", nullptr); }},
      {"xpu_builder_func_begin", [](xpu_builder b, xpu_value) { return xpu_builder_func_begin(b, "f"); }},
      {"xpu_builder_param", [](xpu_builder b, xpu_value) { xpu_value o; return xpu_builder_param(b, "p", "i32", &o); }},
      {"xpu_builder_return", [](xpu_builder b, xpu_value) { return xpu_builder_return(b, nullptr, 0); }},
      {"xpu_builder_constant_int", [](xpu_builder b, xpu_value) { xpu_value o; return xpu_builder_constant_int(b, "i32", 1, &o); }},
      {"xpu_builder_constant_float", [](xpu_builder b, xpu_value) { xpu_value o; return xpu_builder_constant_float(b, "f32", 1, &o); }},
      {"xpu_builder_binary", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_binary(b, XPU_BINARY_ADD, v, v, &o); }},
      {"xpu_builder_unary", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_unary(b, XPU_UNARY_ABS, v, &o); }},
      {"xpu_builder_fma", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_fma(b, v, v, v, &o); }},
      {"xpu_builder_compare", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_compare(b, XPU_COMPARE_EQ, v, v, &o); }},
      {"xpu_builder_select", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_select(b, v, v, v, &o); }},
      {"xpu_builder_cast", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_cast(b, XPU_CAST_SIGN_EXTEND, v, "i64", &o); }},
      {"xpu_builder_broadcast", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_broadcast(b, v, 4, &o); }},
      {"xpu_builder_extract", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_extract(b, v, 0, &o); }},
      {"xpu_builder_insert", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_insert(b, v, v, 0, &o); }},
      {"xpu_builder_coordinate", [](xpu_builder b, xpu_value) { xpu_value o; return xpu_builder_coordinate(b, XPU_COORD_THREAD_ID, 0, &o); }},
      {"xpu_builder_load", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_load(b, v, v, 1, &o); }},
      {"xpu_builder_store", [](xpu_builder b, xpu_value v) { return xpu_builder_store(b, v, v, v); }},
      {"xpu_builder_buffer_size", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_buffer_size(b, v, &o); }},
      {"xpu_builder_alloc", [](xpu_builder b, xpu_value) { xpu_value o; return xpu_builder_alloc(b, "!xpu.buffer<4xi32, private>", &o); }},
      {"xpu_builder_barrier", [](xpu_builder b, xpu_value) { return xpu_builder_barrier(b); }},
      {"xpu_builder_atomic", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_atomic(b, XPU_ATOMIC_ADD, v, v, v, XPU_ORDER_RELAXED, XPU_SCOPE_DEVICE, &o); }},
      {"xpu_builder_reduce", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_reduce(b, XPU_REDUCE_ADD, v, XPU_REDUCE_SEQUENTIAL, &o); }},
      {"xpu_builder_wave_shuffle", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_wave_shuffle(b, XPU_WAVE_SHUFFLE_XOR, v, v, &o); }},
      {"xpu_builder_wave_broadcast", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_wave_broadcast(b, v, v, &o); }},
      {"xpu_builder_wave_ballot", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_wave_ballot(b, v, &o); }},
      {"xpu_builder_wave_vote", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_wave_vote(b, XPU_WAVE_ANY, v, &o); }},
      {"xpu_builder_wave_reduce", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_wave_reduce(b, XPU_REDUCE_ADD, v, &o); }},
      {"xpu_builder_wave_scan", [](xpu_builder b, xpu_value v) { xpu_value o; return xpu_builder_wave_scan(b, XPU_REDUCE_ADD, v, XPU_WAVE_SCAN_INCLUSIVE, &o); }},
      {"xpu_builder_call", [](xpu_builder b, xpu_value) { return xpu_builder_call(b, "f", nullptr, 0, nullptr, 0); }},
      {"xpu_builder_if_begin", [](xpu_builder b, xpu_value v) { return xpu_builder_if_begin(b, v); }},
      {"xpu_builder_else", [](xpu_builder b, xpu_value) { return xpu_builder_else(b, nullptr, 0); }},
      {"xpu_builder_if_end", [](xpu_builder b, xpu_value) { return xpu_builder_if_end(b, nullptr, 0, nullptr); }},
      {"xpu_builder_for_begin", [](xpu_builder b, xpu_value v) { xpu_value i; return xpu_builder_for_begin(b, v, v, v, nullptr, 0, &i, nullptr); }},
      {"xpu_builder_for_end", [](xpu_builder b, xpu_value) { return xpu_builder_for_end(b, nullptr, 0, nullptr); }},
      {"xpu_builder_while_begin", [](xpu_builder b, xpu_value) { return xpu_builder_while_begin(b, nullptr, 0, nullptr); }},
      {"xpu_builder_while_do", [](xpu_builder b, xpu_value v) { return xpu_builder_while_do(b, v, nullptr, 0, nullptr); }},
      {"xpu_builder_while_end", [](xpu_builder b, xpu_value) { return xpu_builder_while_end(b, nullptr, 0, nullptr, 0); }},
      {"xpu_builder_value_type", [](xpu_builder b, xpu_value v) { const char *t; return xpu_builder_value_type(b, v, &t); }},
      {"xpu_builder_print", [](xpu_builder b, xpu_value) { const char *t; return xpu_builder_print(b, &t); }},
  };
  for (const auto &[name, fn] : builds)
    add(name, {BLD}, [fn = fn](void *const *h) {
      // The value is a real one of a live builder, so that only the
      // builder handle is bad.
      static xpu_value v = [] {
        xpu_builder b;
        xpu_value out = nullptr;
        XPU_OK(xpu_builder_create(env().ctx, &b));
        XPU_OK(xpu_builder_kernel_begin(b, "k", nullptr));
        XPU_OK(xpu_builder_constant_int(b, "i32", 1, &out));
        return out;
      }();
      return fn(H(xpu_builder, 0), v);
    });
  return c;
}

/// A builder with a kernel begun, as the build calls need.
xpu_builder freshBuilder() {
  xpu_builder b;
  XPU_OK(xpu_builder_create(env().ctx, &b));
  XPU_OK(xpu_builder_kernel_begin(b, "k", nullptr));
  return b;
}

/// The live objects still do what they did.
void liveObjectsWork() {
  Live &l = live();
  std::vector<float> x(256), y(256);
  for (int i = 0; i < 256; ++i) {
    x[i] = float(i);
    y[i] = 1.0f;
  }
  xpu_buffer bx;
  XPU_OK(xpu_buffer_create(env().dev, 1024, &bx));
  XPU_OK(xpu_buffer_upload(bx, 0, x.data(), 1024));
  XPU_OK(xpu_buffer_upload(static_cast<xpu_buffer>(l.h[BUF]), 0, y.data(), 1024));
  uint32_t grid[3] = {1, 1, 1}, block[3] = {256, 1, 1};
  xpu_arg args[4] = {xpu_arg_buffer(static_cast<xpu_buffer>(l.h[BUF])),
                     xpu_arg_buffer(bx), xpu_arg_f32(2.0f), xpu_arg_u32(256)};
  XPU_OK(xpu_launch(static_cast<xpu_kernel>(l.h[KER]), static_cast<xpu_stream>(l.h[STR]),
                    grid, block, args, 4));
  XPU_OK(xpu_event_record(static_cast<xpu_event>(l.h[EVT]), static_cast<xpu_stream>(l.h[STR])));
  XPU_OK(xpu_event_synchronize(static_cast<xpu_event>(l.h[EVT])));
  XPU_OK(xpu_stream_synchronize(static_cast<xpu_stream>(l.h[STR])));
  XPU_OK(xpu_buffer_download(static_cast<xpu_buffer>(l.h[BUF]), 0, y.data(), 1024));
  for (int i = 0; i < 256; ++i)
    REQUIRE(y[i] == 2.0f * float(i) + 1.0f);
  XPU_OK(xpu_buffer_free(bx));
  CHECK(xpu_diagnostics_count(static_cast<xpu_diagnostics>(l.h[DIAG])) == 0);
}

} // namespace

TEST_CASE("every handle-taking function refuses NULL, released, stale, wrong-kind "
          "and made-up handles in every handle position") {
  Live &l = live();
  std::vector<std::function<void()>> cleanup;
  std::vector<Bad> bad[KINDS];
  for (int k = 0; k < KINDS; ++k)
    bad[k] = badHandles(K(k), cleanup);
  size_t calls = 0;
  for (const Case &c : cases()) {
    for (size_t p = 0; p < c.params.size(); ++p) {
      for (const Bad &b : bad[c.params[p]]) {
        if (!b.handle && c.nullOk[p])
          continue; // NULL means the default there
        std::vector<void *> h(c.params.size());
        std::vector<xpu_builder> made;
        for (size_t q = 0; q < c.params.size(); ++q) {
          if (c.params[q] == BLD) {
            made.push_back(freshBuilder());
            h[q] = made.back();
          } else {
            h[q] = l.h[c.params[q]];
          }
        }
        h[p] = b.handle;
        INFO(c.name << ": parameter " << p << " (" << kKindNames[c.params[p]]
                    << ") given a " << b.what << " handle");
        xpu_status st = c.call(h.data());
        CHECK(std::string(xpu_status_name(st)) == "XPU_ERROR_INVALID_HANDLE");
        for (xpu_builder m : made)
          xpu_builder_release(m);
        ++calls;
      }
    }
  }
  MESSAGE(calls << " calls with a bad handle");
  CHECK(calls > 300);
  for (auto &f : cleanup)
    f();
  liveObjectsWork();
}

TEST_CASE("the default stream is not released through its handle") {
  xpu_stream s;
  XPU_OK(xpu_stream_default(env().dev, &s));
  xpu_stream_release(s);
  XPU_OK(xpu_stream_synchronize(s));
}
