// The builder behind xpu_builder_*: makes a module of kernels and device
// functions op by op with MLIR's OpBuilder, checking every call so that
// misuse is a status, never a crash. The C API only translates handles.
#pragma once

#include "runtime/status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpu::rt {

/// A value as the C API hands it out: the builder's serial in the high 32
/// bits, the value's index + 1 in the low ones, so a value of another (or a
/// released) builder is recognized instead of misread.
using ValueId = uint64_t;
using ValueIds = std::vector<ValueId>;

struct KernelAttributes {
  const char *profile = nullptr;
  std::vector<int64_t> workgroupSize, gridSize; ///< empty: not fixed
  bool fastmath = false;
  std::vector<std::string> effects;
  bool hasEffects = false;
  const char *device = nullptr;
};

class KernelBuilder {
public:
  KernelBuilder();
  ~KernelBuilder();

  Status beginKernel(const char *name, const KernelAttributes &attrs);
  Status beginFunc(const char *name);
  Status param(const char *name, const char *type, ValueId &out);
  Status ret(const ValueIds &values);

  Status constantInt(const char *type, int64_t value, ValueId &out);
  Status constantFloat(const char *type, double value, ValueId &out);
  Status binary(xpu_binary_op op, ValueId lhs, ValueId rhs, ValueId &out);
  Status unary(xpu_unary_op op, ValueId operand, ValueId &out);
  Status fma(ValueId a, ValueId b, ValueId c, ValueId &out);
  Status compare(xpu_compare pred, ValueId lhs, ValueId rhs, ValueId &out);
  Status select(ValueId cond, ValueId t, ValueId f, ValueId &out);
  Status cast(xpu_cast cast, ValueId value, const char *type, ValueId &out);
  Status broadcast(ValueId scalar, uint32_t lanes, ValueId &out);
  Status extract(ValueId vector, uint32_t lane, ValueId &out);
  Status insert(ValueId scalar, ValueId vector, uint32_t lane, ValueId &out);

  Status coordinate(xpu_coordinate which, uint32_t axis, ValueId &out);
  Status load(ValueId buffer, ValueId index, uint32_t lanes, ValueId &out);
  Status store(ValueId value, ValueId buffer, ValueId index);
  Status bufferSize(ValueId buffer, ValueId &out);
  Status alloc(const char *type, ValueId &out);
  Status barrier();
  Status atomic(xpu_atomic_op op, ValueId value, ValueId buffer, ValueId index,
                xpu_memory_order order, xpu_scope scope, ValueId &out);
  Status atomicCmpxchg(ValueId expected, ValueId desired, ValueId buffer, ValueId index,
                       xpu_memory_order order, xpu_scope scope, ValueId &out);
  Status reduce(xpu_reduce_op op, ValueId value, xpu_reduce_order order,
                ValueId &out);
  Status call(const char *callee, const ValueIds &args, size_t resultCount,
              ValueIds &results);

  Status structGet(ValueId value, const char *field, ValueId &out);
  Status printf(const char *format, const ValueIds &values);
  Status fnValue(const char *callee, const std::vector<std::string> &set, ValueId &out);
  Status fnCall(ValueId function, const std::vector<std::string> &set, const ValueIds &args,
                size_t resultCount, ValueIds &results);
  Status gridStrideBegin(ValueId n, ValueId &index);
  Status gridStrideEnd();

  // Wave operations (xpu_builder_wave_*).
  Status waveShuffle(xpu_wave_shuffle mode, ValueId value, ValueId offset,
                     ValueId &out);
  Status waveBroadcast(ValueId value, ValueId lane, ValueId &out);
  Status waveBallot(ValueId predicate, ValueId &out);
  Status waveVote(xpu_wave_vote vote, ValueId predicate, ValueId &out);
  Status waveReduce(xpu_reduce_op op, ValueId value, ValueId &out);
  Status waveScan(xpu_reduce_op op, ValueId value, xpu_wave_scan scan, ValueId &out);

  Status ifBegin(ValueId cond);
  Status ifElse(const ValueIds &yields);
  Status ifEnd(const ValueIds &yields, ValueIds &results);
  Status forBegin(ValueId lower, ValueId upper, ValueId step,
                  const ValueIds &inits, ValueId &induction, ValueIds &iterArgs);
  Status forEnd(const ValueIds &yields, ValueIds &results);
  Status whileBegin(const ValueIds &inits, ValueIds &args);
  Status whileDo(ValueId cond, const ValueIds &passed, ValueIds &args);
  Status whileEnd(const ValueIds &yields, size_t resultCount, ValueIds &results);

  /// The type of `value` as text; the string lives as long as the builder.
  Status valueType(ValueId value, const char *&out);
  /// The module so far (see xpu_builder_print).
  std::string print();
  /// Checks that every block has ended, then seals the builder and returns
  /// the module's text. Fails, changing nothing, while a block is open.
  Status finish(std::string &text);

  /// The MLIR side, defined in the .cpp (public so its helpers can name it).
  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace xpu::rt
