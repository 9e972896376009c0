// C API: launch arguments, xpu_launch and xpu_submit. Arguments are checked
// against the kernel's parameter list and packed into the kernel ABI's
// argument block; the scheduler (src/scheduler/submit.cpp) enqueues them
// and lends the buffers to the stream until it synchronizes.
#include "runtime/enum_bits.h"
#include "runtime/objects.h"
#include "runtime/view_args.h"
#include "scheduler/submit.h"
#include "xpu/PrintFormat.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

using namespace xpu::rt;
namespace abi = xpu::abi;
namespace sched = xpu::sched;

namespace {

std::string describe(const abi::Param &p) {
  if (p.view)
    return describeLayout(*p.view, p.elem);
  std::string s = p.isBuffer ? "buffer of " : "";
  s += abi::scalarName(p.elem);
  if (p.lanes > 1)
    s = "vector<" + std::to_string(p.lanes) + "x" + s + ">";
  return s;
}

std::string describe(const xpu_arg &a) {
  uint32_t kind = enumBits(a.kind), type = enumBits(a.type);
  if (kind == XPU_PARAM_BUFFER)
    return "a buffer";
  if (kind == XPU_PARAM_STRUCT)
    return "a struct";
  if (kind == XPU_PARAM_VIEW)
    return "a view";
  if (kind != XPU_PARAM_SCALAR)
    return "an argument of unknown kind " + std::to_string(int32_t(kind));
  if (type < XPU_TYPE_BOOL || type > XPU_TYPE_F64)
    return "a scalar of unknown type " + std::to_string(int32_t(type));
  std::string t = xpu_type_name(a.type);
  return a.lanes > 1 ? "vector<" + std::to_string(a.lanes) + "x" + t + ">" : t;
}

/// `i` counts the launch's arguments; `p` is the parameter it is for.
Status mismatch(const abi::KernelInfo &k, size_t i, const abi::Param &p,
                const std::string &why) {
  return {XPU_ERROR_ARGUMENT_MISMATCH, "kernel '" + k.name + "' argument " +
                                           std::to_string(i) + " ('" + p.name +
                                           "', " + describe(p) + "): " + why};
}

/// The buffer an argument for buffer parameter `p` names.
xpu_buffer bufferOf(const abi::Param &p, const xpu_arg &a) {
  if (a.kind == XPU_PARAM_VIEW && p.view)
    return a.v.view ? a.v.view->buffer : nullptr;
  return a.kind == XPU_PARAM_BUFFER ? a.v.buffer : nullptr;
}

/// A memref parameter's argument (a view, or a buffer that fixes one):
/// checked, and its layout values for the parameters after it.
Status viewArgument(const abi::Param &p, const xpu_arg &a, uint64_t bufferBytes,
                    ViewValues &out) {
  unsigned elem = abi::scalarBytes(p.elem);
  xpu_view view;
  if (a.kind == XPU_PARAM_VIEW) {
    view = *a.v.view;
  } else if (!viewOfBuffer(*p.view, elem, bufferBytes, view)) {
    return {XPU_ERROR_ARGUMENT_MISMATCH,
            "a buffer alone does not give this memref's sizes and strides; pass "
            "a view (xpu_arg_view)"};
  }
  return checkView(*p.view, elem, view, bufferBytes, out);
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
    // Each extent is bounded before it is multiplied: three extents of up
    // to 2^32 - 1 would wrap a 64-bit product.
    if (block[d] > id.maxWorkgroupSize)
      return invalidArgument("a block extent of " + std::to_string(block[d]) +
                             " exceeds the device limit of " +
                             std::to_string(id.maxWorkgroupSize) + " invocations");
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

/// The buffer an argument for parameter `i` names, if it is one.
std::shared_ptr<BufferObj> bufferArg(const abi::KernelInfo &info, const xpu_arg *args,
                                     size_t i) {
  std::shared_ptr<BufferObj> buf;
  if (info.params[i].isBuffer && enumBits(args[i].kind) == XPU_PARAM_BUFFER)
    (void)resolve(args[i].v.buffer, buf); // a bad one is an argument mismatch
  return buf;
}

/// deterministic-v1 at launch, for what only the launch knows, in the RFC's
/// precedence: buffer capacity (GC013), then the shape (GC006, zero extents
/// included), then one buffer passed twice where one of the two is written
/// (GC011).
Status checkDeterministicLaunch(const abi::KernelInfo &info, const uint32_t grid[3],
                                const uint32_t block[3], const xpu_arg *args) {
  for (size_t i = 0; i < info.params.size(); ++i)
    if (auto buf = bufferArg(info, args, i)) {
      uint64_t count = buf->bytes / abi::scalarBytes(info.params[i].elem);
      if (count > kDetMaxBufferElements)
        return refuse(info, 13, "buffer argument '" + info.params[i].name + "' holds " +
                                    std::to_string(count) + " elements; at most " +
                                    std::to_string(kDetMaxBufferElements) +
                                    " are admitted");
    }
  uint64_t invocations = 1;
  for (int d = 0; d < 3; ++d) {
    if (block[d] < 1 || block[d] > kDetMaxWorkgroupAxis)
      return refuse(info, 6, "workgroup extent " + std::to_string(block[d]) +
                                 " on axis " + std::to_string(d) + " is outside 1.." +
                                 std::to_string(kDetMaxWorkgroupAxis));
    if (grid[d] < 1 || grid[d] > kDetMaxGridAxis)
      return refuse(info, 6, "grid extent " + std::to_string(grid[d]) + " on axis " +
                                 std::to_string(d) + " is outside 1.." +
                                 std::to_string(kDetMaxGridAxis));
    invocations *= block[d];
  }
  if (invocations > kDetMaxWorkgroup)
    return refuse(info, 6, "a workgroup of " + std::to_string(invocations) +
                               " invocations exceeds " + std::to_string(kDetMaxWorkgroup));
  for (size_t i = 0; i < info.params.size(); ++i) {
    auto buf = bufferArg(info, args, i);
    if (!buf)
      continue;
    for (size_t j = 0; j < i; ++j) {
      const abi::Param &p = info.params[i], &q = info.params[j];
      bool writes = p.access != abi::Access::ro || q.access != abi::Access::ro;
      if (writes && bufferArg(info, args, j) == buf)
        return refuse(info, 11, "arguments '" + q.name + "' and '" + p.name +
                                    "' are the same buffer, and one is written");
    }
  }
  return {};
}

/// A launch's print buffer (xpu.printf): fresh, its header zeroed.
Status makePrintBuffer(const std::shared_ptr<DeviceObj> &dev, std::shared_ptr<BufferObj> &out) {
  auto buf = std::make_shared<BufferObj>();
  buf->device = dev;
  buf->bytes = abi::kPrintBufferBytes;
  XPU_RETURN_IF_ERROR(dev->device->allocate(buf->bytes, buf->memory));
  uint32_t header[abi::kPrintHeaderWords] = {};
  XPU_RETURN_IF_ERROR(dev->device->upload(*buf->memory, 0, header, sizeof header));
  out = std::move(buf);
  return {};
}

std::string describe(const abi::Scalar elem, uint32_t lanes) {
  std::string t = abi::scalarName(elem);
  return lanes > 1 ? "vector<" + std::to_string(lanes) + "x" + t + ">" : t;
}

/// Checks a struct argument against the kernel's struct (its size, and the
/// host's layout when given, field by field) and copies each field into its
/// parameter's slot.
Status packStruct(const abi::KernelInfo &info, const abi::StructArg &s, size_t argIndex,
                  const xpu_arg &a, uint8_t *block, const abi::Slot *slots) {
  auto fail = [&](const std::string &why) -> Status {
    return {XPU_ERROR_ARGUMENT_MISMATCH, "kernel '" + info.name + "' argument " +
                                             std::to_string(argIndex) + " ('" + s.name +
                                             "', struct " + s.typeName + " of " +
                                             std::to_string(s.bytes) + " bytes): " + why};
  };
  if (a.kind != XPU_PARAM_STRUCT)
    return fail("expected a struct, got " + describe(a));
  const auto &st = a.v.structure;
  if (!st.data)
    return fail("the struct's data is NULL");
  if (st.size != s.bytes) {
    // Name the kernel's fields, so the host sees which one it laid out
    // differently.
    std::string layout;
    for (uint32_t f = 0; f < s.fieldCount; ++f) {
      const abi::Param &p = info.params[s.firstParam + f];
      layout += (f ? ", '" : "'") + p.name.substr(s.name.size() + 1) + "' " +
                describe(p.elem, p.lanes) + " at " + std::to_string(p.fieldOffset);
    }
    return fail("the argument is " + std::to_string(st.size) +
                " bytes; the kernel's fields: " + layout);
  }
  if (st.fields) {
    for (uint32_t f = 0; f < s.fieldCount; ++f) {
      const abi::Param &p = info.params[s.firstParam + f];
      std::string field = p.name.substr(s.name.size() + 1);
      std::string want = "'" + field + "' (" + describe(p.elem, p.lanes) + " at offset " +
                         std::to_string(p.fieldOffset) + ")";
      if (f >= st.field_count)
        return fail("the host's struct ends before field " + std::to_string(f) + ", " + want);
      const xpu_struct_field &h = st.fields[f];
      uint32_t lanes = h.lanes ? h.lanes : 1;
      if (!h.name || field != h.name || int(h.type) != int(p.elem) || lanes != p.lanes ||
          h.offset != p.fieldOffset)
        return fail("field " + std::to_string(f) + " is " + want + " in the kernel but '" +
                    (h.name ? h.name : "(null)") + "' (" + xpu_type_name(h.type) +
                    (lanes > 1 ? " x" + std::to_string(lanes) : std::string()) +
                    " at offset " + std::to_string(h.offset) + ") in the host's struct");
    }
    if (st.field_count != s.fieldCount)
      return fail("the host's struct has " + std::to_string(st.field_count) +
                  " fields, the kernel's " + std::to_string(s.fieldCount));
  }
  for (uint32_t f = 0; f < s.fieldCount; ++f) {
    const abi::Param &p = info.params[s.firstParam + f];
    std::memcpy(block + slots[f].offset, static_cast<const uint8_t *>(st.data) + p.fieldOffset,
                abi::scalarBytes(p.elem) * p.lanes);
  }
  return {};
}

// The argument union keeps its size whatever kinds it gains.
static_assert(sizeof(void *) != 8 || sizeof(xpu_arg{}.v) == 32,
              "xpu_arg's union must stay 32 bytes");

/// xpu_launch_with_options and xpu_submit: resolve, check and pack, then
/// submit.
xpu_status launchOn(xpu_kernel kernel, xpu_stream stream, const uint32_t grid[3],
                    const uint32_t block[3], const xpu_arg *args, size_t arg_count,
                    uint32_t dynamicShared, const xpu_submission *submission,
                    xpu_submission_result *result) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  const std::shared_ptr<DeviceObj> &dev = k->module->device;
  std::shared_ptr<StreamObj> s;
  if (!stream) {
    if (Status st = dev->stream0(s); !st.isOk())
      return finish(st);
  } else {
    if (Status st = resolve(stream, s); !st.isOk())
      return finish(st);
    if (s->device != dev)
      return finish(invalidArgument("the stream belongs to another device than "
                                    "the kernel's module"));
  }
  thread_local sched::PreparedLaunch launch;
  struct Release { // hold no buffer past the call, whatever the way out
    ~Release() {
      launch.buffers.clear();
      launch.printBuffer.reset();
      launch.callArgs = nullptr;
    }
  } release;
  if (Status st = sched::prepareLaunch(k, grid, block, args, arg_count, dynamicShared,
                                       launch);
      !st.isOk())
    return finish(st);
  return finish(sched::submit(k, s, launch, submission, result));
}

} // namespace

extern "C" {

XPU_API xpu_arg xpu_arg_struct(const void *data, size_t size) {
  xpu_arg a{};
  a.kind = XPU_PARAM_STRUCT;
  a.v.structure.data = data;
  a.v.structure.size = size;
  return a;
}

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
  return xpu_launch_with_options(kernel, stream, grid, block, args, arg_count,
                                 nullptr);
}

XPU_API xpu_status xpu_launch_with_options(xpu_kernel kernel, xpu_stream stream,
                                           const uint32_t grid[3],
                                           const uint32_t block[3],
                                           const xpu_arg *args, size_t arg_count,
                                           const xpu_launch_options *options) {
  uint32_t dynamicShared = 0;
  if (options) {
    if (options->struct_size < offsetof(xpu_launch_options, struct_size) +
                                   sizeof(options->struct_size))
      return finish(invalidArgument("xpu_launch_with_options: options.struct_size "
                                    "is not set (use XPU_LAUNCH_OPTIONS_INIT)"));
    if (options->struct_size >= offsetof(xpu_launch_options, dynamic_shared_bytes) +
                                    sizeof(options->dynamic_shared_bytes))
      dynamicShared = options->dynamic_shared_bytes;
  }
  return launchOn(kernel, stream, grid, block, args, arg_count, dynamicShared, nullptr,
                  nullptr);
}

XPU_API xpu_status xpu_submit(xpu_kernel kernel, const xpu_submission *submission,
                              const uint32_t grid[3], const uint32_t block[3],
                              const xpu_arg *args, size_t arg_count,
                              xpu_submission_result *result) {
  if (submission && submission->struct_size < sizeof(xpu_submission))
    return finish(invalidArgument("xpu_submission.struct_size must be "
                                  "sizeof(xpu_submission)"));
  return launchOn(kernel, submission ? submission->stream : nullptr, grid, block, args,
                  arg_count, submission ? submission->dynamic_shared_bytes : 0, submission,
                  result);
}

} // extern "C"

namespace xpu::sched {

Status prepareLaunch(const std::shared_ptr<KernelObj> &k, const uint32_t grid[3],
                     const uint32_t block[3], const xpu_arg *args, size_t arg_count,
                     uint32_t dynamicShared, PreparedLaunch &out) {
  const std::shared_ptr<DeviceObj> &dev = k->module->device;
  if (!grid || !block)
    return invalidArgument("xpu_launch: `grid` or `block` is NULL");
  const abi::KernelInfo &info = *k->info;
  if (arg_count != k->arguments.size())
    return {XPU_ERROR_ARGUMENT_MISMATCH, "kernel '" + info.name + "' takes " +
                                             std::to_string(k->arguments.size()) +
                                             " arguments, got " + std::to_string(arg_count)};
  if (arg_count && !args)
    return invalidArgument("xpu_launch: `args` is NULL");
  // The profile's rules first: a deterministic kernel is refused for its
  // shape the same way on every device, whatever the device's own limits.
  if (info.profile == "deterministic-v1")
    XPU_RETURN_IF_ERROR(checkDeterministicLaunch(info, grid, block, args));
  XPU_RETURN_IF_ERROR(checkShape(*k, dev->device->identity(), grid, block));
  bool takesDynamicShared = info.minDynamicSharedBytes > 0;
  for (const abi::Param &p : info.params)
    takesDynamicShared |= p.role == abi::Role::dynamicSharedBytes;
  if (!takesDynamicShared)
    dynamicShared = 0;
  if (dynamicShared > k->dynamicSharedCapacity)
    return invalidArgument(
        "kernel '" + info.name + "' asks for " + std::to_string(dynamicShared) +
        " bytes of dynamic shared memory; the device leaves it " +
        std::to_string(k->dynamicSharedCapacity) + " after its static shared memory");
  if (dynamicShared < info.minDynamicSharedBytes)
    return invalidArgument(
        "kernel '" + info.name + "' reads " + std::to_string(info.minDynamicSharedBytes) +
        " bytes of dynamic shared memory; the launch gives " +
        std::to_string(dynamicShared) +
        " (xpu_launch_options.dynamic_shared_bytes)");

  // Pack the argument block. `out` is reused per thread: the launch path
  // allocates nothing in steady state.
  out.args.assign(k->argBytes, 0);
  uint8_t *block_ = out.args.data();
  LaunchRequest &req = out.request;
  out.buffers.clear();
  out.printBuffer.reset();
  out.callArgs = args;
  out.callArgCount = arg_count;
  req.buffers.assign(info.params.size(), nullptr);
  req.status = 0;
  req.dynamicSharedBytes = dynamicShared;
  // Parameters in order; those that are not launch arguments take the
  // values of the view before them, or the dynamic shared memory size.
  ViewValues view;
  size_t arg = 0;
  std::shared_ptr<BufferObj> &printBuffer = out.printBuffer;
  for (size_t i = 0; i < info.params.size(); ++i) {
    const abi::Param &p = info.params[i];
    const abi::Slot &slot = k->slots[k->firstSlot[i]];
    if (p.role == abi::Role::structField)
      continue; // packed with the struct's first field
    if (p.role == abi::Role::printBuffer) {
      XPU_RETURN_IF_ERROR(makePrintBuffer(dev, printBuffer));
      uint64_t address = printBuffer->memory->address(), count = printBuffer->bytes / 4;
      std::memcpy(block_ + slot.offset, &address, 8);
      std::memcpy(block_ + k->slots[k->firstSlot[i] + 1].offset, &count, 8);
      req.buffers[i] = printBuffer->memory.get();
      out.buffers.push_back(printBuffer);
      continue;
    }
    if (p.role != abi::Role::argument) {
      int64_t v = p.role == abi::Role::viewOffset   ? view.offset
                  : p.role == abi::Role::viewSize   ? view.sizes[p.dim]
                  : p.role == abi::Role::viewStride ? view.strides[p.dim]
                                                    : int64_t(dynamicShared);
      std::memcpy(block_ + slot.offset, &v, 8);
      continue;
    }
    const size_t a_ = arg++;
    const xpu_arg &a = args[a_];
    if (p.structArg >= 0) {
      XPU_RETURN_IF_ERROR(packStruct(info, info.structs[p.structArg], a_, a, block_, &slot));
      continue;
    }
    if (p.isBuffer) {
      uint32_t kindBits = enumBits(a.kind);
      bool kindFits = kindBits == XPU_PARAM_BUFFER ||
                      (p.view && kindBits == XPU_PARAM_VIEW && a.v.view);
      if (!kindFits)
        return mismatch(info, a_, p,
                        std::string(p.view ? "expected a view or a buffer"
                                           : "expected a buffer") +
                            ", got " + describe(a));
      std::shared_ptr<BufferObj> buf;
      if (Status st = resolve(bufferOf(p, a), buf); !st.isOk())
        return mismatch(info, a_, p, st.message());
      if (buf->device != dev)
        return mismatch(info, a_, p, "the buffer lives on another device");
      XPU_RETURN_IF_ERROR(buf->checkNotMapped("launch with it"));
      uint64_t count = buf->bytes / abi::scalarBytes(p.elem);
      if (p.view) {
        if (Status st = viewArgument(p, a, buf->bytes, view); !st.isOk())
          return mismatch(info, a_, p, st.message());
      } else if (p.staticCount >= 0 && count < uint64_t(p.staticCount)) {
        return mismatch(info, a_, p,
                        "the kernel needs " + std::to_string(p.staticCount) +
                            " elements; the buffer holds " + std::to_string(count));
      }
      uint64_t address = buf->memory->address();
      std::memcpy(block_ + slot.offset, &address, 8);
      std::memcpy(block_ + k->slots[k->firstSlot[i] + 1].offset, &count, 8);
      req.buffers[i] = buf->memory.get();
      out.buffers.push_back(std::move(buf));
    } else {
      uint32_t lanes = a.lanes ? a.lanes : 1;
      if (enumBits(a.kind) != XPU_PARAM_SCALAR || enumBits(a.type) != uint32_t(p.elem) ||
          lanes != p.lanes)
        return mismatch(info, a_, p, "got " + describe(a));
      // A wider vector than xpu_arg's value holds cannot be passed: copying
      // it would read past the caller's argument.
      if (slot.bytes > sizeof a.v)
        return mismatch(info, a_, p,
                        "the value takes " + std::to_string(slot.bytes) +
                            " bytes, more than an xpu_arg carries (" +
                            std::to_string(sizeof a.v) + ")");
      std::memcpy(block_ + slot.offset, a.v.bytes, slot.bytes);
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
