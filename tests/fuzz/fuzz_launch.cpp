// Fuzz target: the C API's launch path. The input picks a kernel (or a
// released, wrong-kind, NULL or made-up handle), a stream, grid and block
// extents from values around every limit, and each argument's kind, type,
// lanes, value and buffer; then launches, sometimes releases the module,
// the event or the stream before synchronizing, maps a buffer (one of them
// imported host memory) while the launch may run, and synchronizes. Every
// refusal is a status; every accepted launch runs to completion with its
// accesses checked (the kernels are portable, so out-of-bounds accesses are
// suppressed and reported at synchronization).
#include "fuzz_common.h"
#include "raw_enums.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

// Kernels whose work per invocation is small; the harness never launches
// a shape that might be valid and large (see kMaxInvocations).
const char kKernels[] = R"(
xpu.kernel @scale(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %r = arith.mulf %a, %xi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
xpu.kernel @unguarded(%o: !xpu.buffer<i32>, %v: i32) {
  %i = xpu.global_id x
  xpu.store %v, %o[%i] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @scalars(%o: !xpu.buffer<i64>, %a: i8, %b: i16, %c: i64, %d: f64, %e: i1) {
  %i = xpu.global_id x
  %a64 = arith.extsi %a : i8 to i64
  %b64 = arith.extsi %b : i16 to i64
  %s = arith.addi %a64, %b64 : i64
  %t = arith.addi %s, %c : i64
  %f = arith.fptosi %d : f64 to i64
  %u = arith.addi %t, %f : i64
  %e64 = arith.extui %e : i1 to i64
  %w = arith.addi %u, %e64 : i64
  xpu.store %w, %o[%i] : !xpu.buffer<i64>
  xpu.return
}
xpu.kernel @vectors(%o: !xpu.buffer<f32>, %v: vector<4xf32>, %w: vector<8xf32>, %z: vector<8xf64>) {
  %i = xpu.global_id x
  %a = vector.extract %v[3] : f32 from vector<4xf32>
  %b = vector.extract %w[7] : f32 from vector<8xf32>
  %r = arith.addf %a, %b : f32
  xpu.store %r, %o[%i] : !xpu.buffer<f32>
  xpu.return
}
xpu.kernel @fixed(%o: !xpu.buffer<i32, ro>) attributes {workgroup_size = array<i64: 4, 2, 1>, grid_size = array<i64: 2, 1, 1>} {
  xpu.return
}
xpu.kernel @shared(%o: !xpu.buffer<f32>) attributes {workgroup_size = array<i64: 8, 1, 1>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %s = xpu.alloc : !xpu.buffer<8xf32, shared>
  %c = arith.constant 1.0 : f32
  xpu.store %c, %s[%t] : !xpu.buffer<8xf32, shared>
  xpu.barrier
  %v = xpu.load %s[%t] : !xpu.buffer<8xf32, shared>
  xpu.store %v, %o[%g] : !xpu.buffer<f32>
  xpu.return
}
xpu.kernel @det(%o: !xpu.buffer<i32>, %x: !xpu.buffer<i32, ro>) attributes {profile = "deterministic-v1", effects = ["DeviceDispatch"], device = "cpu"} {
  xpu.return
}
)";

/// Above this many invocations a launch the harness cannot show to be
/// invalid is not made: it could run for a very long time.
constexpr uint64_t kMaxInvocations = 1u << 16;

const uint32_t kExtents[] = {0, 1, 2, 3, 4, 7, 8, 64, 1024, 1025, 65535, 65536,
                             0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0x40000000u};

struct Reader {
  const uint8_t *p, *end;
  uint8_t byte() { return p < end ? *p++ : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v = v << 8 | byte();
    return v;
  }
  void bytes(void *out, size_t n) {
    auto *o = static_cast<uint8_t *>(out);
    for (size_t i = 0; i < n; ++i)
      o[i] = byte();
  }
};

struct Fixture {
  xpu_module module = nullptr;
  std::vector<xpu_kernel> kernels;
  xpu_kernel stale = nullptr; ///< a kernel of a released module
  xpu_buffer buffers[4] = {}; ///< 4, 64, 4096 and 1 MiB bytes
  xpu_buffer freed = nullptr;
  xpu_buffer imported = nullptr; ///< 4096 bytes of host memory (xpu_buffer_import)
  xpu_stream stream = nullptr, freedStream = nullptr, defaultStream = nullptr;
  xpu_event event = nullptr;
};

Fixture &fixture() {
  static Fixture f = [] {
    Fixture out;
    fuzz::Session &s = fuzz::session(/*cache=*/true);
    xpu_module old = nullptr;
    xpu_kernel k = nullptr;
    if (xpu_module_create(s.ctx, s.cpu, kKernels, sizeof kKernels - 1, nullptr,
                          &out.module, nullptr) != XPU_SUCCESS ||
        xpu_module_create(s.ctx, s.cpu, kKernels, sizeof kKernels - 1, nullptr, &old,
                          nullptr) != XPU_SUCCESS ||
        xpu_module_kernel_at(old, 0, &out.stale) != XPU_SUCCESS) {
      std::fprintf(stderr, "fuzz: kernels do not compile: %s\n", xpu_last_error_message());
      std::exit(1);
    }
    xpu_module_release(old);
    uint32_t n = 0;
    (void)xpu_module_kernel_count(out.module, &n);
    for (uint32_t i = 0; i < n; ++i)
      if (xpu_module_kernel_at(out.module, i, &k) == XPU_SUCCESS)
        out.kernels.push_back(k);
    size_t sizes[] = {4, 64, 4096, 1u << 20};
    for (int i = 0; i < 4; ++i)
      (void)xpu_buffer_create(s.cpu, sizes[i], &out.buffers[i]);
    alignas(64) static uint8_t host[4096];
    xpu_import_desc desc = XPU_IMPORT_DESC_INIT;
    desc.address = reinterpret_cast<uintptr_t>(host);
    desc.bytes = sizeof host;
    (void)xpu_buffer_import(s.cpu, &desc, &out.imported);
    (void)xpu_buffer_create(s.cpu, 64, &out.freed);
    (void)xpu_buffer_free(out.freed);
    (void)xpu_stream_create(s.cpu, &out.stream);
    (void)xpu_stream_default(s.cpu, &out.defaultStream);
    (void)xpu_stream_create(s.cpu, &out.freedStream);
    xpu_stream_release(out.freedStream);
    (void)xpu_event_create(s.cpu, &out.event);
    return out;
  }();
  return f;
}

/// A buffer operand: one of the fixture's, a freed one, another kind of
/// handle, NULL, or made-up bits.
xpu_buffer pickBuffer(Reader &r, Fixture &f) {
  uint8_t b = r.byte();
  switch (b % 8) {
  case 4: return b & 0x80 ? f.imported : f.freed;
  case 5: return reinterpret_cast<xpu_buffer>(f.stream);
  case 6: return nullptr;
  case 7: return reinterpret_cast<xpu_buffer>(uintptr_t(r.u32()) << 32 | r.u32());
  default: return f.buffers[b % 4];
  }
}

/// Whether a launch of this shape could be valid and large.
bool mightRunLong(const uint32_t grid[3], const uint32_t block[3]) {
  unsigned __int128 total = 1;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0 || block[d] > 1024)
      return false; // refused whatever else holds
    total *= grid[d];
    total *= block[d];
  }
  return total > kMaxInvocations;
}

} // namespace

// Compiles the kernels before the first input: that is set-up, not an input
// that is slow.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fixture();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::Session &s = fuzz::session(/*cache=*/true);
  Fixture &f = fixture();
  Reader r{data, data + size};

  // The module: the fixture's, or a fresh one (an in-process cache hit)
  // that may be released while its launch is queued.
  uint8_t how = r.byte();
  xpu_module own = nullptr;
  xpu_kernel kernel;
  uint8_t pick = r.byte();
  if (how & 1) {
    if (xpu_module_create(s.ctx, s.cpu, kKernels, sizeof kKernels - 1, nullptr, &own,
                          nullptr) != XPU_SUCCESS ||
        xpu_module_kernel_at(own, pick % f.kernels.size(), &kernel) != XPU_SUCCESS)
      std::abort();
  } else if (pick < 240) {
    kernel = f.kernels[pick % f.kernels.size()];
  } else {
    xpu_kernel odd[] = {f.stale, nullptr, reinterpret_cast<xpu_kernel>(f.module),
                        reinterpret_cast<xpu_kernel>(uintptr_t(r.u32()))};
    kernel = odd[pick % 4];
  }
  xpu_stream streams[] = {nullptr, f.stream, f.freedStream,
                          reinterpret_cast<xpu_stream>(f.event)};
  xpu_stream stream = streams[(how >> 1) % 4];

  uint32_t grid[3], block[3];
  for (int d = 0; d < 3; ++d) {
    uint8_t g = r.byte(), b = r.byte();
    grid[d] = g < 200 ? 1 + g % 4 : kExtents[g % 16];
    block[d] = b < 200 ? 1 + b % 8 : kExtents[b % 16];
  }

  size_t count = r.byte() % 10;
  std::vector<xpu_arg> args(count);
  for (xpu_arg &a : args) {
    uint8_t kind = r.byte();
    if (kind < 100) {
      a = xpu_arg_buffer(pickBuffer(r, f));
    } else {
      uint8_t t = r.byte();
      int32_t kindBits = kind < 250 ? XPU_PARAM_SCALAR : int32_t(r.u32());
      int32_t typeBits = t < 240 ? 1 + t % 9 : int32_t(r.u32());
      uint8_t lanes = r.byte();
      a = raw_arg(kindBits, typeBits, lanes < 200 ? lanes % 9 : r.u32());
      r.bytes(a.v.bytes, sizeof a.v.bytes);
    }
  }
  // NULL arguments with a count, or the wrong count, now and then.
  const xpu_arg *argp = args.data();
  if ((how & 0x18) == 0x18)
    argp = nullptr;
  const uint32_t *gridp = (how & 0x60) == 0x60 ? nullptr : grid;

  if (!gridp || !mightRunLong(grid, block)) {
    xpu_status st = xpu_launch(kernel, stream, gridp, block, argp, count);
    if (st == XPU_SUCCESS) {
      if (how & 0x80) {
        // An event on the launch's stream, waited for by the other one.
        xpu_stream on = stream ? stream : f.defaultStream;
        (void)xpu_event_record(f.event, on);
        (void)xpu_stream_wait_event(on == f.stream ? f.defaultStream : f.stream, f.event);
      }
      xpu_module_release(own); // released while its launch may be queued
      own = nullptr;
      // A map while the launch may be queued (it waits for conflicting
      // work), with any access value.
      uint8_t m = r.byte();
      if (m & 1) {
        void *host = nullptr;
        xpu_buffer mapped = m & 2 ? f.imported : f.buffers[(m >> 2) % 4];
        if (raw_buffer_map(mapped, int32_t(m >> 4) - 1, &host) == XPU_SUCCESS &&
            xpu_buffer_unmap(mapped) != XPU_SUCCESS)
          std::abort();
      }
      (void)xpu_device_synchronize(s.cpu);
    }
  }
  xpu_module_release(own);
  (void)xpu_device_synchronize(s.cpu);
  return 0;
}
