// C API: the kernel builder. Translates handles, arrays and option structs
// for runtime/kernel_builder.h, and finishes through xpu_module_create so a
// built module takes the same path as text.
#include "runtime/enum_bits.h"
#include "runtime/objects.h"

#include <cstddef>
#include <cstring>

using namespace xpu::rt;

namespace {

ValueId id(xpu_value v) { return reinterpret_cast<uint64_t>(v); }
xpu_value handle(ValueId v) { return reinterpret_cast<xpu_value>(v); }

Status needOut(const void *out, const char *call) {
  if (!out)
    return invalidArgument(std::string(call) + ": `out` is NULL");
  return {};
}

/// `count` values from `values`, which may be NULL only when count is 0.
Status ids(const xpu_value *values, size_t count, const char *call,
           const char *what, ValueIds &out) {
  if (count && !values)
    return invalidArgument(std::string(call) + ": `" + what + "` is NULL but " +
                           std::to_string(count) + " values are given");
  out.assign(count, 0);
  for (size_t i = 0; i < count; ++i)
    out[i] = id(values[i]);
  return {};
}

/// Writes results to a caller array that may be NULL only when empty.
Status put(const ValueIds &results, xpu_value *out, const char *call) {
  if (!results.empty() && !out)
    return internalError(std::string(call) + ": results array vanished");
  for (size_t i = 0; i < results.size(); ++i)
    out[i] = handle(results[i]);
  return {};
}

/// Runs `fn` on the builder behind `h`, one call at a time, and records
/// its failure as this thread's last error.
template <typename F> xpu_status with(xpu_builder h, F &&fn) {
  std::shared_ptr<BuilderObj> b;
  if (Status st = resolve(h, b); !st.isOk())
    return finish(st);
  std::lock_guard<std::mutex> lock(b->mu);
  return finish(fn(*b));
}

/// A call that makes one value.
template <typename F> xpu_status makeOne(xpu_builder h, xpu_value *out,
                                         const char *call, F &&fn) {
  return with(h, [&](BuilderObj &b) -> Status {
    XPU_RETURN_IF_ERROR(needOut(out, call));
    ValueId v = 0;
    XPU_RETURN_IF_ERROR(fn(b.builder, v));
    *out = handle(v);
    return {};
  });
}

/// Fails unless every enum argument of `call` is representable in its C++
/// enum (see runtime/enum_bits.h); the builder then checks that each is a
/// known enumerator.
template <typename... E>
Status representableArgs(const char *call, const E &...values) {
  for (uint32_t bits : {enumBits(values)...})
    if (bits > kMaxEnumBits)
      return invalidArgument(std::string(call) + ": unknown enum value " +
                             std::to_string(int32_t(bits)));
  return {};
}

/// The shape extents before the first 0; a nonzero one after a 0 is wrong.
Status extents(const uint32_t (&in)[3], const char *what, std::vector<int64_t> &out) {
  size_t n = 0;
  while (n < 3 && in[n])
    ++n;
  for (size_t i = n; i < 3; ++i)
    if (in[i])
      return invalidArgument(std::string("xpu_builder_kernel_begin: ") + what +
                             " has an extent after a 0");
  out.assign(in, in + n);
  return {};
}

Status kernelAttributes(const xpu_kernel_attributes *in, KernelAttributes &out) {
  if (!in)
    return {};
  if (in->struct_size < sizeof(uint32_t))
    return invalidArgument("xpu_kernel_attributes.struct_size is not set "
                           "(initialize with XPU_KERNEL_ATTRIBUTES_INIT)");
  // Fields beyond the caller's struct_size keep their defaults.
#define HAS(field)                                                             \
  (offsetof(xpu_kernel_attributes, field) + sizeof(in->field) <= in->struct_size)
  if (HAS(profile))
    out.profile = in->profile;
  if (HAS(workgroup_size))
    XPU_RETURN_IF_ERROR(extents(in->workgroup_size, "workgroup_size", out.workgroupSize));
  if (HAS(grid_size))
    XPU_RETURN_IF_ERROR(extents(in->grid_size, "grid_size", out.gridSize));
  if (HAS(fastmath))
    out.fastmath = in->fastmath != 0;
  if (HAS(effects) && HAS(effect_count)) {
    if (in->effect_count && !in->effects)
      return invalidArgument("xpu_builder_kernel_begin: `effects` is NULL but "
                             "effect_count is not 0");
    out.hasEffects = in->effects != nullptr;
    for (size_t i = 0; i < in->effect_count; ++i) {
      if (!in->effects[i])
        return invalidArgument("xpu_builder_kernel_begin: effect " +
                               std::to_string(i) + " is NULL");
      out.effects.push_back(in->effects[i]);
    }
  }
  if (HAS(device))
    out.device = in->device;
#undef HAS
  return {};
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_builder_create(xpu_context context, xpu_builder *out) {
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (Status st = needOut(out, "xpu_builder_create"); !st.isOk())
    return finish(st);
  auto b = std::make_shared<BuilderObj>();
  b->context = reinterpret_cast<uint64_t>(context);
  uint64_t h = HandleTable::get().add(Kind::builder, b);
  if (!h)
    return finish(handleTableFull(Kind::builder));
  ctx->adopt(h);
  *out = toHandle<xpu_builder>(h);
  return XPU_SUCCESS;
}

XPU_API void xpu_builder_release(xpu_builder builder) {
  if (!builder)
    return;
  auto b = unregisterObject<BuilderObj>(reinterpret_cast<uint64_t>(builder));
  if (!b)
    return;
  std::shared_ptr<ContextObj> ctx;
  if (resolve(reinterpret_cast<xpu_context>(b->context), ctx).isOk())
    ctx->forget(b->handle);
}

XPU_API xpu_status xpu_builder_kernel_begin(xpu_builder builder, const char *name,
                                            const xpu_kernel_attributes *attributes) {
  return with(builder, [&](BuilderObj &b) -> Status {
    KernelAttributes attrs;
    XPU_RETURN_IF_ERROR(kernelAttributes(attributes, attrs));
    return b.builder.beginKernel(name, attrs);
  });
}

XPU_API xpu_status xpu_builder_func_begin(xpu_builder builder, const char *name) {
  return with(builder, [&](BuilderObj &b) { return b.builder.beginFunc(name); });
}

XPU_API xpu_status xpu_builder_param(xpu_builder builder, const char *name,
                                     const char *type, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_param",
                 [&](KernelBuilder &k, ValueId &v) { return k.param(name, type, v); });
}

XPU_API xpu_status xpu_builder_return(xpu_builder builder, const xpu_value *values,
                                      size_t count) {
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals;
    XPU_RETURN_IF_ERROR(ids(values, count, "xpu_builder_return", "values", vals));
    return b.builder.ret(vals);
  });
}

XPU_API xpu_status xpu_builder_constant_int(xpu_builder builder, const char *type,
                                            int64_t value, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_constant_int",
                 [&](KernelBuilder &k, ValueId &v) {
                   return k.constantInt(type, value, v);
                 });
}

XPU_API xpu_status xpu_builder_constant_float(xpu_builder builder, const char *type,
                                              double value, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_constant_float",
                 [&](KernelBuilder &k, ValueId &v) {
                   return k.constantFloat(type, value, v);
                 });
}

XPU_API xpu_status xpu_builder_binary(xpu_builder builder, xpu_binary_op op,
                                      xpu_value lhs, xpu_value rhs, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_binary", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_binary", op));
    return k.binary(op, id(lhs), id(rhs), v);
  });
}

XPU_API xpu_status xpu_builder_unary(xpu_builder builder, xpu_unary_op op,
                                     xpu_value operand, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_unary", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_unary", op));
    return k.unary(op, id(operand), v);
  });
}

XPU_API xpu_status xpu_builder_fma(xpu_builder builder, xpu_value a, xpu_value b,
                                   xpu_value c, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_fma", [&](KernelBuilder &k, ValueId &v) {
    return k.fma(id(a), id(b), id(c), v);
  });
}

XPU_API xpu_status xpu_builder_compare(xpu_builder builder, xpu_compare predicate,
                                       xpu_value lhs, xpu_value rhs, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_compare", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_compare", predicate));
    return k.compare(predicate, id(lhs), id(rhs), v);
  });
}

XPU_API xpu_status xpu_builder_select(xpu_builder builder, xpu_value condition,
                                      xpu_value if_true, xpu_value if_false,
                                      xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_select", [&](KernelBuilder &k, ValueId &v) {
    return k.select(id(condition), id(if_true), id(if_false), v);
  });
}

XPU_API xpu_status xpu_builder_cast(xpu_builder builder, xpu_cast cast,
                                    xpu_value value, const char *type, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_cast", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_cast", cast));
    return k.cast(cast, id(value), type, v);
  });
}

XPU_API xpu_status xpu_builder_broadcast(xpu_builder builder, xpu_value scalar,
                                         uint32_t lanes, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_broadcast", [&](KernelBuilder &k, ValueId &v) {
    return k.broadcast(id(scalar), lanes, v);
  });
}

XPU_API xpu_status xpu_builder_extract(xpu_builder builder, xpu_value vector,
                                       uint32_t lane, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_extract", [&](KernelBuilder &k, ValueId &v) {
    return k.extract(id(vector), lane, v);
  });
}

XPU_API xpu_status xpu_builder_insert(xpu_builder builder, xpu_value scalar,
                                      xpu_value vector, uint32_t lane, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_insert", [&](KernelBuilder &k, ValueId &v) {
    return k.insert(id(scalar), id(vector), lane, v);
  });
}

XPU_API xpu_status xpu_builder_coordinate(xpu_builder builder, xpu_coordinate which,
                                          uint32_t axis, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_coordinate",
                 [&](KernelBuilder &k, ValueId &v) -> Status {
                   XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_coordinate", which));
                   return k.coordinate(which, axis, v);
                 });
}

XPU_API xpu_status xpu_builder_load(xpu_builder builder, xpu_value buffer,
                                    xpu_value index, uint32_t lanes, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_load", [&](KernelBuilder &k, ValueId &v) {
    return k.load(id(buffer), id(index), lanes, v);
  });
}

XPU_API xpu_status xpu_builder_store(xpu_builder builder, xpu_value value,
                                     xpu_value buffer, xpu_value index) {
  return with(builder, [&](BuilderObj &b) {
    return b.builder.store(id(value), id(buffer), id(index));
  });
}

XPU_API xpu_status xpu_builder_buffer_size(xpu_builder builder, xpu_value buffer,
                                           xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_buffer_size",
                 [&](KernelBuilder &k, ValueId &v) { return k.bufferSize(id(buffer), v); });
}

XPU_API xpu_status xpu_builder_alloc(xpu_builder builder, const char *type,
                                     xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_alloc",
                 [&](KernelBuilder &k, ValueId &v) { return k.alloc(type, v); });
}

XPU_API xpu_status xpu_builder_barrier(xpu_builder builder) {
  return with(builder, [&](BuilderObj &b) { return b.builder.barrier(); });
}

XPU_API xpu_status xpu_builder_atomic(xpu_builder builder, xpu_atomic_op op,
                                      xpu_value value, xpu_value buffer,
                                      xpu_value index, xpu_memory_order order,
                                      xpu_scope scope, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_atomic", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_atomic", op, order, scope));
    return k.atomic(op, id(value), id(buffer), id(index), order, scope, v);
  });
}

XPU_API xpu_status xpu_builder_atomic_cmpxchg(xpu_builder builder, xpu_value expected,
                                              xpu_value desired, xpu_value buffer,
                                              xpu_value index, xpu_memory_order order,
                                              xpu_scope scope, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_atomic_cmpxchg", [&](KernelBuilder &k, ValueId &v) {
    return k.atomicCmpxchg(id(expected), id(desired), id(buffer), id(index), order, scope, v);
  });
}

XPU_API xpu_status xpu_builder_reduce(xpu_builder builder, xpu_reduce_op op,
                                      xpu_value value, xpu_reduce_order order,
                                      xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_reduce", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_reduce", op, order));
    return k.reduce(op, id(value), order, v);
  });
}

XPU_API xpu_status xpu_builder_struct_get(xpu_builder builder, xpu_value value,
                                          const char *field, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_struct_get", [&](KernelBuilder &k, ValueId &v) {
    return k.structGet(id(value), field, v);
  });
}

XPU_API xpu_status xpu_builder_printf(xpu_builder builder, const char *format,
                                      const xpu_value *values, size_t count) {
  const char *call = "xpu_builder_printf";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds in;
    XPU_RETURN_IF_ERROR(ids(values, count, call, "values", in));
    return b.builder.printf(format, in);
  });
}

/// `count` symbol names, which may be NULL only when count is 0.
static Status names(const char *const *set, size_t count, const char *call,
                    std::vector<std::string> &out) {
  if (count && !set)
    return invalidArgument(std::string(call) + ": `set` is NULL");
  out.clear();
  for (size_t i = 0; i < count; ++i) {
    if (!set[i])
      return invalidArgument(std::string(call) + ": set[" + std::to_string(i) + "] is NULL");
    out.push_back(set[i]);
  }
  return {};
}

XPU_API xpu_status xpu_builder_fn_value(xpu_builder builder, const char *callee,
                                        const char *const *set, size_t count, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_fn_value", [&](KernelBuilder &k, ValueId &v) {
    std::vector<std::string> s;
    XPU_RETURN_IF_ERROR(names(set, count, "xpu_builder_fn_value", s));
    return k.fnValue(callee, s, v);
  });
}

XPU_API xpu_status xpu_builder_fn_call(xpu_builder builder, xpu_value function,
                                       const char *const *set, size_t count,
                                       const xpu_value *args, size_t arg_count,
                                       xpu_value *results, size_t result_count) {
  const char *call = "xpu_builder_fn_call";
  return with(builder, [&](BuilderObj &b) -> Status {
    std::vector<std::string> s;
    ValueIds in, out;
    XPU_RETURN_IF_ERROR(names(set, count, call, s));
    XPU_RETURN_IF_ERROR(ids(args, arg_count, call, "args", in));
    if (result_count && !results)
      return invalidArgument(std::string(call) + ": `results` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.fnCall(id(function), s, in, result_count, out));
    return put(out, results, call);
  });
}

XPU_API xpu_status xpu_builder_grid_stride_begin(xpu_builder builder, xpu_value n,
                                                 xpu_value *index) {
  return makeOne(builder, index, "xpu_builder_grid_stride_begin",
                 [&](KernelBuilder &k, ValueId &v) { return k.gridStrideBegin(id(n), v); });
}

XPU_API xpu_status xpu_builder_grid_stride_end(xpu_builder builder) {
  return with(builder, [&](BuilderObj &b) { return b.builder.gridStrideEnd(); });
}

// Wave operations.

XPU_API xpu_status xpu_builder_wave_shuffle(xpu_builder builder, xpu_wave_shuffle mode,
                                            xpu_value value, xpu_value offset,
                                            xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_wave_shuffle", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_wave_shuffle", mode));
    return k.waveShuffle(mode, id(value), id(offset), v);
  });
}

XPU_API xpu_status xpu_builder_wave_broadcast(xpu_builder builder, xpu_value value,
                                              xpu_value lane, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_wave_broadcast", [&](KernelBuilder &k, ValueId &v) {
    return k.waveBroadcast(id(value), id(lane), v);
  });
}

XPU_API xpu_status xpu_builder_wave_ballot(xpu_builder builder, xpu_value predicate,
                                           xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_wave_ballot", [&](KernelBuilder &k, ValueId &v) {
    return k.waveBallot(id(predicate), v);
  });
}

XPU_API xpu_status xpu_builder_wave_vote(xpu_builder builder, xpu_wave_vote vote,
                                         xpu_value predicate, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_wave_vote", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_wave_vote", vote));
    return k.waveVote(vote, id(predicate), v);
  });
}

XPU_API xpu_status xpu_builder_wave_reduce(xpu_builder builder, xpu_reduce_op op,
                                           xpu_value value, xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_wave_reduce", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_wave_reduce", op));
    return k.waveReduce(op, id(value), v);
  });
}

XPU_API xpu_status xpu_builder_wave_scan(xpu_builder builder, xpu_reduce_op op,
                                         xpu_value value, xpu_wave_scan scan,
                                         xpu_value *out) {
  return makeOne(builder, out, "xpu_builder_wave_scan", [&](KernelBuilder &k, ValueId &v) {
    XPU_RETURN_IF_ERROR(representableArgs("xpu_builder_wave_scan", op, scan));
    return k.waveScan(op, id(value), scan, v);
  });
}

XPU_API xpu_status xpu_builder_call(xpu_builder builder, const char *callee,
                                    const xpu_value *args, size_t arg_count,
                                    xpu_value *results, size_t result_count) {
  const char *call = "xpu_builder_call";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds in, out;
    XPU_RETURN_IF_ERROR(ids(args, arg_count, call, "args", in));
    if (result_count && !results)
      return invalidArgument(std::string(call) + ": `results` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.call(callee, in, result_count, out));
    return put(out, results, call);
  });
}

XPU_API xpu_status xpu_builder_if_begin(xpu_builder builder, xpu_value condition) {
  return with(builder, [&](BuilderObj &b) { return b.builder.ifBegin(id(condition)); });
}

XPU_API xpu_status xpu_builder_else(xpu_builder builder, const xpu_value *yields,
                                    size_t count) {
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals;
    XPU_RETURN_IF_ERROR(ids(yields, count, "xpu_builder_else", "yields", vals));
    return b.builder.ifElse(vals);
  });
}

XPU_API xpu_status xpu_builder_if_end(xpu_builder builder, const xpu_value *yields,
                                      size_t count, xpu_value *results) {
  const char *call = "xpu_builder_if_end";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals, out;
    XPU_RETURN_IF_ERROR(ids(yields, count, call, "yields", vals));
    if (count && !results)
      return invalidArgument(std::string(call) + ": `results` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.ifEnd(vals, out));
    return put(out, results, call);
  });
}

XPU_API xpu_status xpu_builder_for_begin(xpu_builder builder, xpu_value lower,
                                         xpu_value upper, xpu_value step,
                                         const xpu_value *inits, size_t count,
                                         xpu_value *induction, xpu_value *iter_args) {
  const char *call = "xpu_builder_for_begin";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals, args;
    XPU_RETURN_IF_ERROR(ids(inits, count, call, "inits", vals));
    if (!induction || (count && !iter_args))
      return invalidArgument(std::string(call) + ": `induction` or `iter_args` is NULL");
    ValueId iv = 0;
    XPU_RETURN_IF_ERROR(b.builder.forBegin(id(lower), id(upper), id(step), vals, iv, args));
    *induction = handle(iv);
    return put(args, iter_args, call);
  });
}

XPU_API xpu_status xpu_builder_for_end(xpu_builder builder, const xpu_value *yields,
                                       size_t count, xpu_value *results) {
  const char *call = "xpu_builder_for_end";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals, out;
    XPU_RETURN_IF_ERROR(ids(yields, count, call, "yields", vals));
    if (count && !results)
      return invalidArgument(std::string(call) + ": `results` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.forEnd(vals, out));
    return put(out, results, call);
  });
}

XPU_API xpu_status xpu_builder_while_begin(xpu_builder builder, const xpu_value *inits,
                                           size_t count, xpu_value *args) {
  const char *call = "xpu_builder_while_begin";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals, out;
    XPU_RETURN_IF_ERROR(ids(inits, count, call, "inits", vals));
    if (count && !args)
      return invalidArgument(std::string(call) + ": `args` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.whileBegin(vals, out));
    return put(out, args, call);
  });
}

XPU_API xpu_status xpu_builder_while_do(xpu_builder builder, xpu_value condition,
                                        const xpu_value *passed, size_t passed_count,
                                        xpu_value *args) {
  const char *call = "xpu_builder_while_do";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals, out;
    XPU_RETURN_IF_ERROR(ids(passed, passed_count, call, "passed", vals));
    if (passed_count && !args)
      return invalidArgument(std::string(call) + ": `args` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.whileDo(id(condition), vals, out));
    return put(out, args, call);
  });
}

XPU_API xpu_status xpu_builder_while_end(xpu_builder builder, const xpu_value *yields,
                                         size_t count, xpu_value *results,
                                         size_t result_count) {
  const char *call = "xpu_builder_while_end";
  return with(builder, [&](BuilderObj &b) -> Status {
    ValueIds vals, out;
    XPU_RETURN_IF_ERROR(ids(yields, count, call, "yields", vals));
    if (result_count && !results)
      return invalidArgument(std::string(call) + ": `results` is NULL");
    XPU_RETURN_IF_ERROR(b.builder.whileEnd(vals, result_count, out));
    return put(out, results, call);
  });
}

XPU_API xpu_status xpu_builder_value_type(xpu_builder builder, xpu_value value,
                                          const char **out) {
  return with(builder, [&](BuilderObj &b) -> Status {
    XPU_RETURN_IF_ERROR(needOut(out, "xpu_builder_value_type"));
    return b.builder.valueType(id(value), *out);
  });
}

XPU_API xpu_status xpu_builder_print(xpu_builder builder, const char **out) {
  return with(builder, [&](BuilderObj &b) -> Status {
    XPU_RETURN_IF_ERROR(needOut(out, "xpu_builder_print"));
    b.printed = b.builder.print();
    *out = b.printed.c_str();
    return {};
  });
}

XPU_API xpu_status xpu_builder_finish(xpu_builder builder, xpu_device device,
                                      const xpu_module_options *options,
                                      xpu_module *out, xpu_diagnostics *diagnostics) {
  if (diagnostics)
    *diagnostics = nullptr;
  std::string text;
  uint64_t context = 0;
  xpu_status s = with(builder, [&](BuilderObj &b) -> Status {
    XPU_RETURN_IF_ERROR(needOut(out, "xpu_builder_finish"));
    if (options && options->struct_size < sizeof(uint32_t) * 2)
      return invalidArgument("xpu_module_options.struct_size is not set "
                             "(initialize with XPU_MODULE_OPTIONS_INIT)");
    context = b.context;
    return b.builder.finish(text);
  });
  if (s != XPU_SUCCESS)
    return s;
  // The caller's options, with a source name for the diagnostics.
  xpu_module_options o = XPU_MODULE_OPTIONS_INIT;
  if (options)
    std::memcpy(&o, options, std::min<size_t>(options->struct_size, sizeof o));
  o.struct_size = sizeof o;
  if (!o.source_name)
    o.source_name = "<builder>";
  return xpu_module_create(reinterpret_cast<xpu_context>(context), device,
                           text.data(), text.size(), &o, out, diagnostics);
}

} // extern "C"
