// Conformance: kernels made by builder calls. Each prints exactly as its
// text form does (both normalized by the library's printer), and runs with
// the same results on fresh random data. Misuse of the builder is an error
// status with a message, never a crash, and changes nothing.
#include "harness.h"
#include "kernels.h"

#include <cmath>
#include <numeric>

using namespace conf;

namespace {

/// A builder; each helper is one C call that must succeed.
struct Build {
  xpu_builder b = nullptr;
  Build() { XPU_OK(xpu_builder_create(target().ctx, &b)); }
  ~Build() { xpu_builder_release(b); }
  Build(const Build &) = delete;

  xpu_value param(const char *name, const char *type) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_param(b, name, type, &v));
    return v;
  }
  xpu_value cint(const char *type, int64_t value) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_constant_int(b, type, value, &v));
    return v;
  }
  xpu_value cfloat(const char *type, double value) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_constant_float(b, type, value, &v));
    return v;
  }
  xpu_value bin(xpu_binary_op op, xpu_value l, xpu_value r) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_binary(b, op, l, r, &v));
    return v;
  }
  xpu_value cmp(xpu_compare p, xpu_value l, xpu_value r) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_compare(b, p, l, r, &v));
    return v;
  }
  xpu_value cast(xpu_cast c, xpu_value x, const char *type) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_cast(b, c, x, type, &v));
    return v;
  }
  xpu_value coord(xpu_coordinate which, uint32_t axis = 0) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_coordinate(b, which, axis, &v));
    return v;
  }
  xpu_value load(xpu_value buf, xpu_value index) {
    xpu_value v = nullptr;
    XPU_OK(xpu_builder_load(b, buf, index, 0, &v));
    return v;
  }
  void store(xpu_value value, xpu_value buf, xpu_value index) {
    XPU_OK(xpu_builder_store(b, value, buf, index));
  }
  std::string print() {
    const char *text = nullptr;
    XPU_OK(xpu_builder_print(b, &text));
    return text;
  }
};

/// `text` in the library's printed form.
std::string formatted(const std::string &text) {
  const char *out = nullptr;
  XPU_OK(xpu_module_format(target().ctx, text.data(), text.size(), nullptr, &out,
                           nullptr));
  return out;
}

/// A module compiled from a builder.
struct Built {
  xpu_module handle = nullptr;
  explicit Built(Build &b) {
    xpu_diagnostics diags = nullptr;
    xpu_status st = xpu_builder_finish(b.b, target().dev, nullptr, &handle, &diags);
    INFO("diagnostics: " << xpu_diagnostics_text(diags));
    INFO(xpu_status_name(st) << ": " << xpu_last_error_message());
    xpu_diagnostics_release(diags);
    REQUIRE(st == XPU_SUCCESS);
  }
  ~Built() { xpu_module_release(handle); }
  xpu_kernel kernel(const char *name) const {
    xpu_kernel k = nullptr;
    XPU_OK(xpu_module_kernel(handle, name, &k));
    return k;
  }
};

// A 5-point stencil on the interior of a w x h grid, through a device
// function; boundary elements are left as they were.
const char *kStencil = R"(
    xpu.func @blend(%c: f32, %l: f32, %r: f32, %u: f32, %d: f32) -> f32 {
      %s1 = arith.addf %l, %r : f32
      %s2 = arith.addf %u, %d : f32
      %s3 = arith.addf %s1, %s2 : f32
      %q = arith.constant 1.250000e-01 : f32
      %n = arith.mulf %s3, %q : f32
      %h = arith.constant 5.000000e-01 : f32
      %a = arith.mulf %c, %h : f32
      %res = arith.addf %a, %n : f32
      xpu.return %res : f32
    }
    xpu.kernel @stencil(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %w: i32, %h: i32) {
      %x = xpu.global_id x
      %y = xpu.global_id y
      %wi = arith.index_castui %w : i32 to index
      %hi = arith.index_castui %h : i32 to index
      %c1 = arith.constant 1 : index
      %wm = arith.subi %wi, %c1 : index
      %hm = arith.subi %hi, %c1 : index
      %x0 = arith.cmpi uge, %x, %c1 : index
      %x1 = arith.cmpi ult, %x, %wm : index
      %y0 = arith.cmpi uge, %y, %c1 : index
      %y1 = arith.cmpi ult, %y, %hm : index
      %okx = arith.andi %x0, %x1 : i1
      %oky = arith.andi %y0, %y1 : i1
      %ok = arith.andi %okx, %oky : i1
      scf.if %ok {
        %row = arith.muli %y, %wi : index
        %c = arith.addi %row, %x : index
        %l = arith.subi %c, %c1 : index
        %r = arith.addi %c, %c1 : index
        %u = arith.subi %c, %wi : index
        %d = arith.addi %c, %wi : index
        %vc = xpu.load %in[%c] : !xpu.buffer<f32, ro>
        %vl = xpu.load %in[%l] : !xpu.buffer<f32, ro>
        %vr = xpu.load %in[%r] : !xpu.buffer<f32, ro>
        %vu = xpu.load %in[%u] : !xpu.buffer<f32, ro>
        %vd = xpu.load %in[%d] : !xpu.buffer<f32, ro>
        %res = xpu.call @blend(%vc, %vl, %vr, %vu, %vd) : (f32, f32, f32, f32, f32) -> f32
        xpu.store %res, %out[%c] : !xpu.buffer<f32>
      }
      xpu.return
    })";

void buildSaxpy(Build &k) {
  XPU_OK(xpu_builder_kernel_begin(k.b, "saxpy", nullptr));
  xpu_value y = k.param("y", "!xpu.buffer<f32>");
  xpu_value x = k.param("x", "!xpu.buffer<f32, ro>");
  xpu_value a = k.param("a", "f32");
  xpu_value n = k.param("n", "i32");
  xpu_value i = k.coord(XPU_COORD_GLOBAL_ID);
  xpu_value nIdx = k.cast(XPU_CAST_INDEX_UNSIGNED, n, "index");
  XPU_OK(xpu_builder_if_begin(k.b, k.cmp(XPU_COMPARE_ULT, i, nIdx)));
  xpu_value xi = k.load(x, i);
  xpu_value yi = k.load(y, i);
  xpu_value r = k.bin(XPU_BINARY_ADD, k.bin(XPU_BINARY_MUL, a, xi), yi);
  k.store(r, y, i);
  XPU_OK(xpu_builder_if_end(k.b, nullptr, 0, nullptr));
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
}

} // namespace

TEST_CASE("builder: saxpy prints as its text and runs like it") {
  Build k;
  buildSaxpy(k);
  CHECK(k.print() == formatted(kSaxpy));

  Built m(k);
  const uint32_t n = 50021;
  auto x = randomFloats(n), y = randomFloats(n + 1);
  float a = randomFloats(1, -4, 4)[0];
  Buffer bx = Buffer::from(x), by = Buffer::from(y);
  run(m.kernel("saxpy"), {(n + 255) / 256}, {256},
      {xpu_arg_buffer(by.handle), xpu_arg_buffer(bx.handle), xpu_arg_f32(a),
       xpu_arg_u32(n)});
  auto out = by.read<float>();
  for (uint32_t i = 0; i < n; ++i) {
    float want = a * x[i] + y[i];
    REQUIRE(std::memcmp(&out[i], &want, 4) == 0);
  }
  CHECK(out[n] == y[n]);
}

TEST_CASE("builder: a shared-memory tree reduction prints as its text and runs like it") {
  Build k;
  xpu_kernel_attributes attrs = XPU_KERNEL_ATTRIBUTES_INIT;
  attrs.workgroup_size[0] = 256;
  attrs.workgroup_size[1] = attrs.workgroup_size[2] = 1;
  XPU_OK(xpu_builder_kernel_begin(k.b, "block_sum", &attrs));
  xpu_value out = k.param("out", "!xpu.buffer<i32>");
  xpu_value in = k.param("in", "!xpu.buffer<i32, ro>");
  xpu_value t = k.coord(XPU_COORD_THREAD_ID);
  xpu_value g = k.coord(XPU_COORD_GLOBAL_ID);
  xpu_value wg = k.coord(XPU_COORD_WORKGROUP_ID);
  xpu_value s = nullptr;
  XPU_OK(xpu_builder_alloc(k.b, "!xpu.buffer<256xi32, shared>", &s));
  k.store(k.load(in, g), s, t);
  XPU_OK(xpu_builder_barrier(k.b));
  xpu_value c0 = k.cint("index", 0), c1 = k.cint("index", 1);
  xpu_value c8 = k.cint("index", 8), c128 = k.cint("index", 128);
  xpu_value step = nullptr;
  XPU_OK(xpu_builder_for_begin(k.b, c0, c8, c1, nullptr, 0, &step, nullptr));
  xpu_value stride = k.bin(XPU_BINARY_SHRU, c128, step);
  XPU_OK(xpu_builder_if_begin(k.b, k.cmp(XPU_COMPARE_ULT, t, stride)));
  xpu_value o = k.bin(XPU_BINARY_ADD, t, stride);
  xpu_value sum = k.bin(XPU_BINARY_ADD, k.load(s, t), k.load(s, o));
  k.store(sum, s, t);
  XPU_OK(xpu_builder_if_end(k.b, nullptr, 0, nullptr));
  XPU_OK(xpu_builder_barrier(k.b));
  XPU_OK(xpu_builder_for_end(k.b, nullptr, 0, nullptr));
  XPU_OK(xpu_builder_if_begin(k.b, k.cmp(XPU_COMPARE_EQ, t, c0)));
  k.store(k.load(s, c0), out, wg);
  XPU_OK(xpu_builder_if_end(k.b, nullptr, 0, nullptr));
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
  CHECK(k.print() == formatted(kBlockSum));

  Built m(k);
  const uint32_t groups = 29;
  auto in_ = randomInts<int32_t>(groups * 256, -100000, 100000);
  Buffer bin = Buffer::from(in_), bout(groups * 4);
  run(m.kernel("block_sum"), {groups}, {256},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
  auto got = bout.read<int32_t>();
  for (uint32_t i = 0; i < groups; ++i)
    REQUIRE(got[i] == std::accumulate(in_.begin() + i * 256,
                                      in_.begin() + (i + 1) * 256, 0));
}

TEST_CASE("builder: a 2-D stencil through a device function prints as its text and runs like it") {
  Build k;
  XPU_OK(xpu_builder_func_begin(k.b, "blend"));
  xpu_value c = k.param("c", "f32"), l = k.param("l", "f32"), r = k.param("r", "f32");
  xpu_value u = k.param("u", "f32"), d = k.param("d", "f32");
  xpu_value s3 = k.bin(XPU_BINARY_ADD, k.bin(XPU_BINARY_ADD, l, r),
                       k.bin(XPU_BINARY_ADD, u, d));
  xpu_value nb = k.bin(XPU_BINARY_MUL, s3, k.cfloat("f32", 0.125));
  xpu_value a = k.bin(XPU_BINARY_MUL, c, k.cfloat("f32", 0.5));
  xpu_value res = k.bin(XPU_BINARY_ADD, a, nb);
  XPU_OK(xpu_builder_return(k.b, &res, 1));

  XPU_OK(xpu_builder_kernel_begin(k.b, "stencil", nullptr));
  xpu_value out = k.param("out", "!xpu.buffer<f32>");
  xpu_value in = k.param("in", "!xpu.buffer<f32, ro>");
  xpu_value w = k.param("w", "i32"), h = k.param("h", "i32");
  xpu_value x = k.coord(XPU_COORD_GLOBAL_ID, 0), y = k.coord(XPU_COORD_GLOBAL_ID, 1);
  xpu_value wi = k.cast(XPU_CAST_INDEX_UNSIGNED, w, "index");
  xpu_value hi = k.cast(XPU_CAST_INDEX_UNSIGNED, h, "index");
  xpu_value c1 = k.cint("index", 1);
  xpu_value wm = k.bin(XPU_BINARY_SUB, wi, c1), hm = k.bin(XPU_BINARY_SUB, hi, c1);
  xpu_value x0 = k.cmp(XPU_COMPARE_UGE, x, c1), x1 = k.cmp(XPU_COMPARE_ULT, x, wm);
  xpu_value y0 = k.cmp(XPU_COMPARE_UGE, y, c1), y1 = k.cmp(XPU_COMPARE_ULT, y, hm);
  xpu_value ok = k.bin(XPU_BINARY_AND, k.bin(XPU_BINARY_AND, x0, x1),
                       k.bin(XPU_BINARY_AND, y0, y1));
  XPU_OK(xpu_builder_if_begin(k.b, ok));
  xpu_value ci = k.bin(XPU_BINARY_ADD, k.bin(XPU_BINARY_MUL, y, wi), x);
  xpu_value li = k.bin(XPU_BINARY_SUB, ci, c1), ri = k.bin(XPU_BINARY_ADD, ci, c1);
  xpu_value ui = k.bin(XPU_BINARY_SUB, ci, wi), di = k.bin(XPU_BINARY_ADD, ci, wi);
  xpu_value args[5] = {k.load(in, ci), k.load(in, li), k.load(in, ri), k.load(in, ui),
                       k.load(in, di)};
  xpu_value blended = nullptr;
  XPU_OK(xpu_builder_call(k.b, "blend", args, 5, &blended, 1));
  k.store(blended, out, ci);
  XPU_OK(xpu_builder_if_end(k.b, nullptr, 0, nullptr));
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
  CHECK(k.print() == formatted(kStencil));

  Built m(k);
  const uint32_t W = 93, H = 61;
  auto src = randomFloats(W * H, -10, 10), init = randomFloats(W * H);
  Buffer bin = Buffer::from(src), bout = Buffer::from(init);
  run(m.kernel("stencil"), {(W + 15) / 16, (H + 7) / 8}, {16, 8},
      {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle), xpu_arg_u32(W),
       xpu_arg_u32(H)});
  auto got = bout.read<float>();
  for (uint32_t yy = 0; yy < H; ++yy)
    for (uint32_t xx = 0; xx < W; ++xx) {
      uint32_t i = yy * W + xx;
      float want = init[i];
      if (xx >= 1 && xx < W - 1 && yy >= 1 && yy < H - 1) {
        float n = ((src[i - 1] + src[i + 1]) + (src[i - W] + src[i + W])) * 0.125f;
        want = src[i] * 0.5f + n;
      }
      INFO("x " << xx << " y " << yy);
      REQUIRE(std::memcmp(&got[i], &want, 4) == 0);
    }
}

TEST_CASE("builder: loops, selects, vectors and atomics") {
  // Each invocation counts the steps of a while loop (halving its value
  // until it is below 2), selects, and adds to two histograms atomically.
  const char *text = R"(
    xpu.kernel @mix(%hist: !xpu.buffer<i32>, %vec: !xpu.buffer<f32>, %in: !xpu.buffer<i32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
      %zero = arith.constant 0 : i32
      %res:2 = scf.while (%a = %v, %n = %zero) : (i32, i32) -> (i32, i32) {
        %two = arith.constant 2 : i32
        %go = arith.cmpi uge, %a, %two : i32
        scf.condition(%go) %a, %n : i32, i32
      } do {
      ^bb0(%a: i32, %n: i32):
        %one = arith.constant 1 : i32
        %h = arith.shrui %a, %one : i32
        %m = arith.addi %n, %one : i32
        scf.yield %h, %m : i32, i32
      }
      %c31 = arith.constant 31 : i32
      %b = arith.minui %res#1, %c31 : i32
      %bi = arith.index_castui %b : i32 to index
      %one = arith.constant 1 : i32
      %old = xpu.atomic_rmw add %one, %hist[%bi] relaxed device : !xpu.buffer<i32>
      %f = arith.sitofp %res#1 : i32 to f32
      %fv = vector.broadcast %f : f32 to vector<4xf32>
      %c4 = arith.constant 4 : index
      %base = arith.muli %i, %c4 : index
      xpu.store %fv, %vec[%base] : !xpu.buffer<f32> -> vector<4xf32>
      xpu.return
    })";
  Build k;
  XPU_OK(xpu_builder_kernel_begin(k.b, "mix", nullptr));
  xpu_value hist = k.param("hist", "!xpu.buffer<i32>");
  xpu_value vec = k.param("vec", "!xpu.buffer<f32>");
  xpu_value in = k.param("in", "!xpu.buffer<i32, ro>");
  xpu_value i = k.coord(XPU_COORD_GLOBAL_ID);
  xpu_value inits[2] = {k.load(in, i), k.cint("i32", 0)};
  xpu_value before[2], after[2], results[2];
  XPU_OK(xpu_builder_while_begin(k.b, inits, 2, before));
  xpu_value go = k.cmp(XPU_COMPARE_UGE, before[0], k.cint("i32", 2));
  XPU_OK(xpu_builder_while_do(k.b, go, before, 2, after));
  xpu_value one = k.cint("i32", 1);
  xpu_value next[2] = {k.bin(XPU_BINARY_SHRU, after[0], one),
                       k.bin(XPU_BINARY_ADD, after[1], one)};
  XPU_OK(xpu_builder_while_end(k.b, next, 2, results, 2));
  xpu_value b = k.bin(XPU_BINARY_MINU, results[1], k.cint("i32", 31));
  xpu_value bi = k.cast(XPU_CAST_INDEX_UNSIGNED, b, "index");
  xpu_value old = nullptr;
  XPU_OK(xpu_builder_atomic(k.b, XPU_ATOMIC_ADD, k.cint("i32", 1), hist, bi,
                            XPU_ORDER_RELAXED, XPU_SCOPE_DEVICE, &old));
  xpu_value f = k.cast(XPU_CAST_SIGNED_TO_FLOAT, results[1], "f32");
  xpu_value fv = nullptr;
  XPU_OK(xpu_builder_broadcast(k.b, f, 4, &fv));
  xpu_value base = k.bin(XPU_BINARY_MUL, i, k.cint("index", 4));
  k.store(fv, vec, base);
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
  CHECK(k.print() == formatted(text));

  Built m(k);
  const uint32_t n = 4096;
  auto in_ = randomInts<int32_t>(n, 0, INT32_MAX);
  std::vector<int32_t> zeros(32, 0);
  Buffer bh = Buffer::from(zeros), bv(n * 16), bi_ = Buffer::from(in_);
  run(m.kernel("mix"), {n / 64}, {64},
      {xpu_arg_buffer(bh.handle), xpu_arg_buffer(bv.handle), xpu_arg_buffer(bi_.handle)});
  std::vector<int32_t> want(32, 0);
  auto vecs = bv.read<float>();
  for (uint32_t j = 0; j < n; ++j) {
    int steps = 0;
    for (uint32_t a = uint32_t(in_[j]); a >= 2; a >>= 1)
      ++steps;
    ++want[std::min(steps, 31)];
    for (int lane = 0; lane < 4; ++lane)
      REQUIRE(vecs[j * 4 + lane] == float(steps));
  }
  CHECK(bh.read<int32_t>() == want);
}

TEST_CASE("builder: if with results, select, and a refusal located in the built text") {
  const char *text = R"(
    xpu.kernel @pick(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>) {
      %i = xpu.global_id x
      %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
      %z = arith.constant 0.000000e+00 : f32
      %neg = arith.cmpf olt, %v, %z : f32
      %r = scf.if %neg -> (f32) {
        %m = arith.negf %v : f32
        scf.yield %m : f32
      } else {
        %s = math.sqrt %v : f32
        scf.yield %s : f32
      }
      %big = arith.cmpf ogt, %r, %z : f32
      %o = arith.select %big, %r, %z : f32
      xpu.store %o, %out[%i] : !xpu.buffer<f32>
      xpu.return
    })";
  Build k;
  XPU_OK(xpu_builder_kernel_begin(k.b, "pick", nullptr));
  xpu_value out = k.param("out", "!xpu.buffer<f32>");
  xpu_value in = k.param("in", "!xpu.buffer<f32, ro>");
  xpu_value i = k.coord(XPU_COORD_GLOBAL_ID);
  xpu_value v = k.load(in, i);
  xpu_value z = k.cfloat("f32", 0);
  XPU_OK(xpu_builder_if_begin(k.b, k.cmp(XPU_COMPARE_LT, v, z)));
  xpu_value m = nullptr, s = nullptr, r = nullptr, o = nullptr;
  XPU_OK(xpu_builder_unary(k.b, XPU_UNARY_NEG, v, &m));
  XPU_OK(xpu_builder_else(k.b, &m, 1));
  XPU_OK(xpu_builder_unary(k.b, XPU_UNARY_SQRT, v, &s));
  XPU_OK(xpu_builder_if_end(k.b, &s, 1, &r));
  XPU_OK(xpu_builder_select(k.b, k.cmp(XPU_COMPARE_GT, r, z), r, z, &o));
  k.store(o, out, i);
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
  CHECK(k.print() == formatted(text));

  Built mod(k);
  auto in_ = randomFloats(256, -100, 100);
  Buffer bin = Buffer::from(in_), bout(256 * 4);
  run(mod.kernel("pick"), {4}, {64}, {xpu_arg_buffer(bout.handle), xpu_arg_buffer(bin.handle)});
  auto got = bout.read<float>();
  uint32_t maxUlp = sqrtMaxUlp();
  for (int j = 0; j < 256; ++j) {
    float rr = in_[j] < 0 ? -in_[j] : std::sqrt(in_[j]);
    INFO("element " << j << ": " << got[j] << " vs " << rr);
    REQUIRE(ulpDistance(got[j], rr > 0 ? rr : 0.0f) <= maxUlp);
  }

  // A deterministic kernel compiled for the default device is refused
  // (XPU-GC002) exactly as its text is, at its line in the built text.
  Build det;
  xpu_kernel_attributes attrs = XPU_KERNEL_ATTRIBUTES_INIT;
  attrs.profile = "deterministic-v1";
  XPU_OK(xpu_builder_kernel_begin(det.b, "det", &attrs));
  det.param("out", "!xpu.buffer<i32>");
  XPU_OK(xpu_builder_return(det.b, nullptr, 0));
  xpu_module none = nullptr;
  xpu_diagnostics diags = nullptr;
  CHECK(xpu_builder_finish(det.b, nullptr, nullptr, &none, &diags) == XPU_ERROR_REFUSED);
  CHECK(none == nullptr);
  REQUIRE(xpu_diagnostics_count(diags) == 1);
  xpu_diagnostic d;
  XPU_OK(xpu_diagnostics_get(diags, 0, &d));
  CHECK(std::string(d.code) == "XPU-GC002");
  CHECK(std::string(d.file) == "<builder>");
  CHECK(d.line == 2); // line 1 is `module {`
  xpu_diagnostics_release(diags);
}

namespace {

/// Expects `st` to be `want` with a message containing `words`.
void fails(xpu_status st, xpu_status want, const char *words) {
  std::string message = xpu_last_error_message();
  INFO("got " << std::string(xpu_status_name(st)) << ": " << message);
  CHECK(st == want);
  CHECK(message.find(words) != std::string::npos);
}

} // namespace

TEST_CASE("builder misuse is an error with a message and changes nothing") {
  Build k, other;
  xpu_value v = nullptr;
  fails(xpu_builder_constant_int(k.b, "i32", 1, &v), XPU_ERROR_INVALID_ARGUMENT,
        "no kernel or function is open");
  XPU_OK(xpu_builder_kernel_begin(k.b, "k", nullptr));
  xpu_value buf = k.param("buf", "!xpu.buffer<f32>");
  xpu_value ro = k.param("ro", "!xpu.buffer<f32, ro>");
  xpu_value n = k.param("n", "i32");
  fails(xpu_builder_param(k.b, "n", "i32", &v), XPU_ERROR_INVALID_ARGUMENT,
        "already has a parameter 'n'");
  fails(xpu_builder_param(k.b, "9lives", "i32", &v), XPU_ERROR_INVALID_ARGUMENT,
        "is not a name");
  fails(xpu_builder_param(k.b, "t", "f33", &v), XPU_ERROR_INVALID_ARGUMENT,
        "'f33' is not a type");
  fails(xpu_builder_param(k.b, "t", "memref<4xf32>", &v), XPU_ERROR_INVALID_ARGUMENT,
        "is not one a kernel value can have");
  fails(xpu_builder_kernel_begin(k.b, "k2", nullptr), XPU_ERROR_INVALID_ARGUMENT,
        "'k' is still open");
  xpu_value f = k.cfloat("f32", 1.5);
  xpu_value i = k.coord(XPU_COORD_GLOBAL_ID);
  const std::string before = k.print();

  // Foreign, NULL and stale values.
  XPU_OK(xpu_builder_kernel_begin(other.b, "o", nullptr));
  xpu_value foreign = other.param("x", "i32");
  fails(xpu_builder_binary(k.b, XPU_BINARY_ADD, n, foreign, &v), XPU_ERROR_INVALID_HANDLE,
        "not a value of this builder");
  fails(xpu_builder_binary(k.b, XPU_BINARY_ADD, n, nullptr, &v), XPU_ERROR_INVALID_HANDLE,
        "is NULL");
  {
    Build gone;
    XPU_OK(xpu_builder_kernel_begin(gone.b, "g", nullptr));
    foreign = gone.param("x", "i32");
  }
  fails(xpu_builder_binary(k.b, XPU_BINARY_ADD, n, foreign, &v), XPU_ERROR_INVALID_HANDLE,
        "released");
  fails(xpu_builder_binary(k.b, XPU_BINARY_ADD, n, n, nullptr), XPU_ERROR_INVALID_ARGUMENT,
        "`out` is NULL");

  // Types that do not fit.
  fails(xpu_builder_binary(k.b, XPU_BINARY_ADD, n, f, &v), XPU_ERROR_INVALID_ARGUMENT,
        "different types, i32 and f32");
  fails(xpu_builder_binary(k.b, XPU_BINARY_SHL, f, f, &v), XPU_ERROR_INVALID_ARGUMENT,
        "XPU_BINARY_SHL does not apply to f32");
  fails(xpu_builder_binary(k.b, xpu_binary_op(99), n, n, &v), XPU_ERROR_INVALID_ARGUMENT,
        "unknown operation");
  fails(xpu_builder_constant_int(k.b, "i8", 300, &v), XPU_ERROR_INVALID_ARGUMENT,
        "300 does not fit i8");
  fails(xpu_builder_cast(k.b, XPU_CAST_SIGN_EXTEND, n, "i8", &v), XPU_ERROR_INVALID_ARGUMENT,
        "cast incompatible");
  fails(xpu_builder_load(k.b, buf, n, 0, &v), XPU_ERROR_INVALID_ARGUMENT,
        "`index` must be an index value, got i32");
  fails(xpu_builder_load(k.b, n, n, 0, &v), XPU_ERROR_INVALID_ARGUMENT, "is not a buffer");
  fails(xpu_builder_store(k.b, f, ro, i), XPU_ERROR_INVALID_ARGUMENT,
        "stores to a read-only buffer");
  fails(xpu_builder_store(k.b, n, buf, i), XPU_ERROR_INVALID_ARGUMENT, "accesses 'i32'");
  fails(xpu_builder_coordinate(k.b, XPU_COORD_GLOBAL_ID, 3, &v), XPU_ERROR_INVALID_ARGUMENT,
        "axis");
  fails(xpu_builder_if_begin(k.b, n), XPU_ERROR_INVALID_ARGUMENT, "must be i1");
  fails(xpu_builder_call(k.b, "nowhere", nullptr, 0, nullptr, 0), XPU_ERROR_INVALID_ARGUMENT,
        "'@nowhere' is not a device function");
  fails(xpu_builder_return(k.b, &n, 1), XPU_ERROR_INVALID_ARGUMENT,
        "kernels return no values");
  // None of the failed calls left anything behind.
  CHECK(k.print() == before);

  // Structure: blocks end where they began, terminators only where they go.
  fails(xpu_builder_else(k.b, nullptr, 0), XPU_ERROR_INVALID_ARGUMENT,
        "not the then-block of an if");
  fails(xpu_builder_while_do(k.b, i, nullptr, 0, nullptr), XPU_ERROR_INVALID_ARGUMENT,
        "not the condition block of a while");
  xpu_value cond = k.cmp(XPU_COMPARE_ULT, i, i);
  XPU_OK(xpu_builder_if_begin(k.b, cond));
  xpu_value inner = k.load(buf, i);
  fails(xpu_builder_return(k.b, nullptr, 0), XPU_ERROR_INVALID_ARGUMENT,
        "then-block of an if is still open");
  fails(xpu_builder_for_end(k.b, nullptr, 0, nullptr), XPU_ERROR_INVALID_ARGUMENT,
        "not the body of a for");
  fails(xpu_builder_if_end(k.b, &inner, 1, &v), XPU_ERROR_INVALID_ARGUMENT,
        "needs an else-block");
  xpu_module mod = nullptr;
  fails(xpu_builder_finish(k.b, target().dev, nullptr, &mod, nullptr),
        XPU_ERROR_INVALID_ARGUMENT, "then-block of an if is still open");
  CHECK(k.print().find("\"scf.if\"") != std::string::npos); // generic form
  XPU_OK(xpu_builder_else(k.b, &inner, 1));
  fails(xpu_builder_if_end(k.b, &n, 1, &v), XPU_ERROR_INVALID_ARGUMENT,
        "got (i32), expected (f32)");
  XPU_OK(xpu_builder_if_end(k.b, &f, 1, &v));
  fails(xpu_builder_store(k.b, inner, buf, i), XPU_ERROR_INVALID_ARGUMENT,
        "`value` is not visible here");
  k.store(v, buf, i);
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
  fails(xpu_builder_barrier(k.b), XPU_ERROR_INVALID_ARGUMENT,
        "no kernel or function is open");

  XPU_OK(xpu_builder_finish(k.b, target().dev, nullptr, &mod, nullptr));
  xpu_module_release(mod);
  fails(xpu_builder_finish(k.b, target().dev, nullptr, &mod, nullptr),
        XPU_ERROR_INVALID_ARGUMENT, "already finished");
  fails(xpu_builder_kernel_begin(k.b, "late", nullptr), XPU_ERROR_INVALID_ARGUMENT,
        "the builder is finished");
  const char *type = nullptr;
  XPU_OK(xpu_builder_value_type(k.b, buf, &type)); // inspection still works
  CHECK(std::string(type) == "!xpu.buffer<f32>");

  // Released builders, and builders of a released context, are invalid.
  xpu_builder dead = nullptr;
  XPU_OK(xpu_builder_create(target().ctx, &dead));
  xpu_builder_release(dead);
  fails(xpu_builder_barrier(dead), XPU_ERROR_INVALID_HANDLE, "invalid builder handle");
  xpu_builder_release(dead); // twice is harmless
  xpu_context ctx = nullptr;
  XPU_OK(xpu_context_create(nullptr, &ctx));
  XPU_OK(xpu_builder_create(ctx, &dead));
  xpu_context_release(ctx);
  fails(xpu_builder_func_begin(dead, "f"), XPU_ERROR_INVALID_HANDLE, "invalid builder handle");
  fails(xpu_builder_create(nullptr, &dead), XPU_ERROR_INVALID_HANDLE, "NULL context");
}

TEST_CASE("builder: calls check their callee, and functions take their result types from return") {
  Build k;
  XPU_OK(xpu_builder_func_begin(k.b, "twice"));
  xpu_value x = k.param("x", "i32");
  fails(xpu_builder_call(k.b, "twice", &x, 1, &x, 1), XPU_ERROR_INVALID_ARGUMENT,
        "has not ended");
  xpu_value r = k.bin(XPU_BINARY_ADD, x, x);
  XPU_OK(xpu_builder_return(k.b, &r, 1));
  XPU_OK(xpu_builder_kernel_begin(k.b, "k", nullptr));
  xpu_value out = k.param("out", "!xpu.buffer<i32>");
  xpu_value f = k.cfloat("f32", 2);
  xpu_value res = nullptr;
  fails(xpu_builder_call(k.b, "twice", &f, 1, &res, 1), XPU_ERROR_INVALID_ARGUMENT,
        "got (f32), expected (i32)");
  xpu_value three = k.cint("i32", 3);
  fails(xpu_builder_call(k.b, "twice", &three, 1, nullptr, 0), XPU_ERROR_INVALID_ARGUMENT,
        "returns 1 values, 0 asked for");
  fails(xpu_builder_call(k.b, "k", nullptr, 0, nullptr, 0), XPU_ERROR_INVALID_ARGUMENT,
        "kernels are not called");
  XPU_OK(xpu_builder_call(k.b, "twice", &three, 1, &res, 1));
  k.store(res, out, k.coord(XPU_COORD_GLOBAL_ID));
  XPU_OK(xpu_builder_return(k.b, nullptr, 0));
  Built m(k);
  std::vector<int32_t> zero(8, 0);
  Buffer b = Buffer::from(zero);
  run(m.kernel("k"), {1}, {8}, {xpu_arg_buffer(b.handle)});
  CHECK(b.read<int32_t>() == std::vector<int32_t>(8, 6));
}
