// C API: launch arguments, xpu_launch and xpu_submit. Arguments are checked
// against the kernel's parameter list and packed into the kernel ABI's
// argument block; the scheduler (src/scheduler/submit.cpp) enqueues them
// and lends the buffers to the stream until it synchronizes.
#include "runtime/objects.h"
#include "scheduler/submit.h"

#include <cstdio>
#include <cstring>

using namespace xpu::rt;
namespace abi = xpu::abi;
namespace sched = xpu::sched;

namespace {

std::string describe(const abi::Param &p) {
  std::string s = p.isBuffer ? "buffer of " : "";
  s += abi::scalarName(p.elem);
  if (p.lanes > 1)
    s = "vector<" + std::to_string(p.lanes) + "x" + s + ">";
  return s;
}

std::string describe(const xpu_arg &a) {
  if (a.kind == XPU_PARAM_BUFFER)
    return "a buffer";
  if (a.kind != XPU_PARAM_SCALAR)
    return "an argument of unknown kind " + std::to_string(int(a.kind));
  std::string t = xpu_type_name(a.type);
  return a.lanes > 1 ? "vector<" + std::to_string(a.lanes) + "x" + t + ">" : t;
}

Status mismatch(const abi::KernelInfo &k, size_t i, const std::string &why) {
  const abi::Param &p = k.params[i];
  return {XPU_ERROR_ARGUMENT_MISMATCH, "kernel '" + k.name + "' argument " +
                                           std::to_string(i) + " ('" + p.name +
                                           "', " + describe(p) + "): " + why};
}

Status checkShape(const KernelObj &k, const DeviceIdentity &id,
                  const uint32_t grid[3], const uint32_t block[3]) {
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || block[d] == 0)
      return invalidArgument("grid and block extents must be at least 1");
    if (grid[d] > id.maxGrid[d])
      return invalidArgument("grid extent " + std::to_string(grid[d]) +
                             " exceeds the device limit " +
                             std::to_string(id.maxGrid[d]));
    invocations *= block[d];
  }
  if (invocations > id.maxWorkgroupSize)
    return invalidArgument("a workgroup of " + std::to_string(invocations) +
                           " invocations exceeds the device limit of " +
                           std::to_string(id.maxWorkgroupSize));
  const abi::KernelInfo &info = *k.info;
  if (info.workgroupSize)
    for (int d = 0; d < 3; ++d)
      if ((*info.workgroupSize)[d] != block[d])
        return invalidArgument("kernel '" + info.name +
                               "' fixes its workgroup size; the launch's block "
                               "does not match it");
  if (info.gridSize)
    for (int d = 0; d < 3; ++d)
      if ((*info.gridSize)[d] != grid[d])
        return invalidArgument("kernel '" + info.name +
                               "' fixes its grid size; the launch's grid does "
                               "not match it");
  return {};
}

// RFC 0005 bounds, checked again at launch for what only the launch knows.
constexpr uint32_t kDetMaxWorkgroupAxis = 1024, kDetMaxWorkgroup = 1024;
constexpr uint32_t kDetMaxGridAxis = 65535;
constexpr uint64_t kDetMaxBufferElements = 16u << 20;

Status refuse(const abi::KernelInfo &k, int code, const std::string &why) {
  char c[16];
  std::snprintf(c, sizeof c, "XPU-GC%03d", code);
  return {XPU_ERROR_REFUSED, std::string(c) + ": kernel '" + k.name + "': " + why};
}

/// deterministic-v1 at launch: the shape, each buffer's element count, and
/// no buffer passed twice where one of the two is written.
Status checkDeterministicLaunch(const abi::KernelInfo &info, const uint32_t grid[3],
                                const uint32_t block[3], const xpu_arg *args) {
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    if (block[d] > kDetMaxWorkgroupAxis)
      return refuse(info, 6, "workgroup extent " + std::to_string(block[d]) +
                                 " exceeds " + std::to_string(kDetMaxWorkgroupAxis));
    if (grid[d] > kDetMaxGridAxis)
      return refuse(info, 6, "grid extent " + std::to_string(grid[d]) +
                                 " exceeds " + std::to_string(kDetMaxGridAxis));
    invocations *= block[d];
  }
  if (invocations > kDetMaxWorkgroup)
    return refuse(info, 6, "a workgroup of " + std::to_string(invocations) +
                               " invocations exceeds " + std::to_string(kDetMaxWorkgroup));
  for (size_t i = 0; i < info.params.size(); ++i) {
    const abi::Param &p = info.params[i];
    if (!p.isBuffer || args[i].kind != XPU_PARAM_BUFFER)
      continue;
    std::shared_ptr<BufferObj> buf;
    if (!resolve(args[i].v.buffer, buf).isOk())
      continue; // reported as an argument mismatch
    uint64_t count = buf->bytes / abi::scalarBytes(p.elem);
    if (count > kDetMaxBufferElements)
      return refuse(info, 13, "buffer argument '" + p.name + "' holds " +
                                  std::to_string(count) + " elements; at most " +
                                  std::to_string(kDetMaxBufferElements) + " are admitted");
    for (size_t j = 0; j < i; ++j) {
      const abi::Param &q = info.params[j];
      bool writes = p.access != abi::Access::ro || q.access != abi::Access::ro;
      if (q.isBuffer && args[j].kind == XPU_PARAM_BUFFER &&
          args[j].v.buffer == args[i].v.buffer && writes)
        return refuse(info, 11, "arguments '" + q.name + "' and '" + p.name +
                                    "' are the same buffer, and one is written");
    }
  }
  return {};
}

/// xpu_launch and xpu_submit: resolve, check and pack, then submit.
xpu_status launchOn(xpu_kernel kernel, xpu_stream stream,
                         const xpu_submission *submission, const uint32_t grid[3],
                         const uint32_t block[3], const xpu_arg *args, size_t arg_count,
                         xpu_submission_result *result) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  const std::shared_ptr<DeviceObj> &dev = k->module->device;
  std::shared_ptr<StreamObj> s;
  if (!stream) {
    s = dev->defaultStream;
  } else {
    if (Status st = resolve(stream, s); !st.isOk())
      return finish(st);
    if (s->device != dev)
      return finish(invalidArgument("the stream belongs to another device than "
                                    "the kernel's module"));
  }
  thread_local sched::PreparedLaunch launch;
  struct Release { // hold no buffer past the call, whatever the way out
    ~Release() { launch.buffers.clear(); }
  } release;
  if (Status st = sched::prepareLaunch(k, grid, block, args, arg_count, launch);
      !st.isOk())
    return finish(st);
  return finish(sched::submit(k, s, launch, submission, result));
}

} // namespace

extern "C" {

XPU_API xpu_arg xpu_arg_buffer(xpu_buffer buffer) {
  xpu_arg a{};
  a.kind = XPU_PARAM_BUFFER;
  a.v.buffer = buffer;
  return a;
}

#define SCALAR_ARG(fn, ctype, tag, field)                                      \
  XPU_API xpu_arg fn(ctype value) {                                            \
    xpu_arg a{};                                                               \
    a.kind = XPU_PARAM_SCALAR;                                                 \
    a.type = tag;                                                              \
    a.lanes = 1;                                                               \
    a.v.field = value;                                                         \
    return a;                                                                  \
  }
SCALAR_ARG(xpu_arg_i32, int32_t, XPU_TYPE_I32, i32)
SCALAR_ARG(xpu_arg_u32, uint32_t, XPU_TYPE_I32, i32)
SCALAR_ARG(xpu_arg_i64, int64_t, XPU_TYPE_I64, i64)
SCALAR_ARG(xpu_arg_f32, float, XPU_TYPE_F32, f32)
SCALAR_ARG(xpu_arg_f64, double, XPU_TYPE_F64, f64)
#undef SCALAR_ARG

XPU_API xpu_status xpu_launch(xpu_kernel kernel, xpu_stream stream,
                              const uint32_t grid[3], const uint32_t block[3],
                              const xpu_arg *args, size_t arg_count) {
  return launchOn(kernel, stream, nullptr, grid, block, args, arg_count, nullptr);
}

XPU_API xpu_status xpu_submit(xpu_kernel kernel, const xpu_submission *submission,
                              const uint32_t grid[3], const uint32_t block[3],
                              const xpu_arg *args, size_t arg_count,
                              xpu_submission_result *result) {
  if (submission && submission->struct_size < sizeof(xpu_submission))
    return finish(invalidArgument("xpu_submission.struct_size must be "
                                  "sizeof(xpu_submission)"));
  return launchOn(kernel, submission ? submission->stream : nullptr, submission,
                       grid, block, args, arg_count, result);
}

} // extern "C"

namespace xpu::sched {

Status prepareLaunch(const std::shared_ptr<KernelObj> &k, const uint32_t grid[3],
                     const uint32_t block[3], const xpu_arg *args, size_t arg_count,
                     PreparedLaunch &out) {
  const std::shared_ptr<DeviceObj> &dev = k->module->device;
  if (!grid || !block)
    return invalidArgument("xpu_launch: `grid` or `block` is NULL");
  const abi::KernelInfo &info = *k->info;
  if (arg_count != info.params.size())
    return {XPU_ERROR_ARGUMENT_MISMATCH,
            "kernel '" + info.name + "' takes " + std::to_string(info.params.size()) +
                " arguments, got " + std::to_string(arg_count)};
  if (arg_count && !args)
    return invalidArgument("xpu_launch: `args` is NULL");
  // The profile's rules first: a deterministic kernel is refused for its
  // shape the same way on every device, whatever the device's own limits.
  if (info.profile == "deterministic-v1")
    XPU_RETURN_IF_ERROR(checkDeterministicLaunch(info, grid, block, args));
  XPU_RETURN_IF_ERROR(checkShape(*k, dev->device->identity(), grid, block));

  // Pack the argument block. `out` is reused per thread: the launch path
  // allocates nothing in steady state.
  out.args.assign(k->argBytes, 0);
  uint8_t *block_ = out.args.data();
  LaunchRequest &req = out.request;
  out.buffers.clear();
  req.buffers.assign(info.params.size(), nullptr);
  req.status = 0;
  size_t slot = 0;
  for (size_t i = 0; i < info.params.size(); ++i) {
    const abi::Param &p = info.params[i];
    const xpu_arg &a = args[i];
    if (p.isBuffer) {
      if (a.kind != XPU_PARAM_BUFFER)
        return mismatch(info, i, "expected a buffer, got " + describe(a));
      std::shared_ptr<BufferObj> buf;
      if (Status st = resolve(a.v.buffer, buf); !st.isOk())
        return mismatch(info, i, st.message());
      if (buf->device != dev)
        return mismatch(info, i, "the buffer lives on another device");
      XPU_RETURN_IF_ERROR(buf->checkNotMapped("launch with it"));
      uint64_t count = buf->bytes / abi::scalarBytes(p.elem);
      if (p.staticCount >= 0 && count < uint64_t(p.staticCount))
        return mismatch(info, i, "the kernel needs " + std::to_string(p.staticCount) +
                                     " elements; the buffer holds " + std::to_string(count));
      uint64_t address = buf->memory->address();
      std::memcpy(block_ + k->slots[slot].offset, &address, 8);
      std::memcpy(block_ + k->slots[slot + 1].offset, &count, 8);
      slot += 2;
      req.buffers[i] = buf->memory.get();
      out.buffers.push_back(std::move(buf));
    } else {
      uint32_t lanes = a.lanes ? a.lanes : 1;
      if (a.kind != XPU_PARAM_SCALAR || int(a.type) != int(p.elem) ||
          lanes != p.lanes)
        return mismatch(info, i, "got " + describe(a));
      std::memcpy(block_ + k->slots[slot].offset, a.v.bytes, k->slots[slot].bytes);
      ++slot;
    }
  }

  req.kernel = k->code;
  req.info = k->info.get();
  std::memcpy(req.grid, grid, sizeof req.grid);
  std::memcpy(req.block, block, sizeof req.block);
  req.args = block_;
  req.argBytes = k->argBytes;
  req.slots = &k->slots;
  return {};
}

} // namespace xpu::sched
