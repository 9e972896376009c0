// The misuse suite's main() and shared set-up; see misuse.h.
#define DOCTEST_CONFIG_IMPLEMENT
#include "misuse.h"

#include <cstdlib>
#include <cstring>

namespace misuse {

const char kSaxpy[] = R"(
xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %yi = xpu.load %y[%i] : !xpu.buffer<f32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
)";

const char kSpin[] = R"(
xpu.kernel @spin(%o: !xpu.buffer<f32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = arith.constant 1.0000001 : f32
  %n_idx = arith.index_castui %n : i32 to index
  %init = xpu.load %o[%c0] : !xpu.buffer<f32>
  %r = scf.for %i = %c0 to %n_idx step %c1 iter_args(%acc = %init) -> (f32) {
    %m = arith.mulf %acc, %k : f32
    %a = arith.addf %m, %k : f32
    scf.yield %a : f32
  }
  xpu.store %r, %o[%c0] : !xpu.buffer<f32>
  xpu.return
}
xpu.kernel @copy(%dst: !xpu.buffer<f32>, %src: !xpu.buffer<f32, ro>) {
  %c0 = arith.constant 0 : index
  %v = xpu.load %src[%c0] : !xpu.buffer<f32, ro>
  xpu.store %v, %dst[%c0] : !xpu.buffer<f32>
  xpu.return
}
)";

float spinReference(float start, uint32_t n) {
  volatile float k = 1.0000001f; // no contraction, no folding
  float acc = start;
  for (uint32_t i = 0; i < n; ++i) {
    float m = acc * k;
    acc = m + k;
  }
  return acc;
}

static bool made = false;

xpu_device deviceOf(xpu_context ctx) {
  const char *want = std::getenv("XPU_TEST_BACKEND");
  std::string backend = want && *want ? want : "cpu";
  uint32_t n = 0;
  REQUIRE(xpu_device_count(ctx, &n) == XPU_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    REQUIRE(xpu_device_get(ctx, i, &d) == XPU_SUCCESS);
    REQUIRE(xpu_device_info_get(d, &info) == XPU_SUCCESS);
    if (backend == xpu_backend_name(info.backend))
      return d;
  }
  INFO("no " << backend << " device");
  REQUIRE(false);
  return nullptr;
}

Env &env() {
  static Env e = [] {
    made = true;
    Env out;
    REQUIRE(xpu_context_create(nullptr, &out.ctx) == XPU_SUCCESS);
    out.dev = deviceOf(out.ctx);
    return out;
  }();
  return e;
}

xpu_module compile(const char *text, xpu_device dev) {
  xpu_module m = nullptr;
  XPU_OK(xpu_module_create(env().ctx, dev ? dev : env().dev, text, std::strlen(text),
                           nullptr, &m, nullptr));
  return m;
}

xpu_kernel kernelOf(xpu_module m, const char *name) {
  xpu_kernel k = nullptr;
  XPU_OK(xpu_module_kernel(m, name, &k));
  return k;
}

} // namespace misuse

int main(int argc, char **argv) {
  doctest::Context context(argc, argv);
  int rc = context.run();
  if (misuse::made)
    xpu_context_release(misuse::env().ctx); // with everything made from it
  return rc;
}
