// C API: buffers and copies, with the deferred-borrow checks.
#include "runtime/enum_bits.h"
#include "runtime/objects.h"

using namespace xpu::rt;

namespace {

Status checkRange(const BufferObj &buf, size_t offset, size_t bytes,
                  const void *host, const char *what) {
  if (!host && bytes)
    return invalidArgument(std::string(what) + ": host pointer is NULL");
  if (offset > buf.bytes || bytes > buf.bytes - offset)
    return invalidArgument(std::string(what) + ": a range of " + std::to_string(bytes) +
                           " bytes at offset " + std::to_string(offset) +
                           " exceeds the buffer's " + std::to_string(buf.bytes) +
                           " bytes");
  return {};
}

Status streamFor(const std::shared_ptr<BufferObj> &buf, xpu_stream stream,
                 std::shared_ptr<StreamObj> &out) {
  if (!stream)
    return buf->device->stream0(out);
  XPU_RETURN_IF_ERROR(resolve(stream, out));
  if (out->device != buf->device)
    return invalidArgument("the stream and the buffer belong to different devices");
  return {};
}

/// An asynchronous copy on `stream`; the buffer is lent to it until the
/// stream synchronizes.
Status enqueueCopy(xpu_buffer buffer, size_t offset, void *host, size_t bytes,
                   xpu_stream stream, bool upload) {
  std::shared_ptr<BufferObj> buf;
  std::shared_ptr<StreamObj> s;
  const char *what = upload ? "upload" : "download";
  XPU_RETURN_IF_ERROR(resolve(buffer, buf));
  XPU_RETURN_IF_ERROR(streamFor(buf, stream, s));
  XPU_RETURN_IF_ERROR(checkRange(*buf, offset, bytes, host, what));
  XPU_RETURN_IF_ERROR(buf->checkNotMapped(what));
  XPU_RETURN_IF_ERROR(buf->checkConflicts(what, upload, s.get()));
  if (!bytes)
    return {};
  std::lock_guard<std::mutex> g(s->mu);
  XPU_RETURN_IF_ERROR(upload ? s->queue->copyIn(*buf->memory, offset, host, bytes)
                             : s->queue->copyOut(*buf->memory, offset, host, bytes));
  buf->lend(s, ++s->enqueued, upload, nullptr, what);
  s->keep(buf);
  return {};
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_buffer_create_ex(xpu_device device, size_t bytes,
                                        const xpu_buffer_options *options,
                                        xpu_buffer *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_buffer_create: `out` is NULL"));
  if (bytes == 0)
    return finish(invalidArgument("xpu_buffer_create: size is 0"));
  // Before any backend rounds the size up (which could wrap around).
  uint64_t memory = dev->device->identity().memoryBytes;
  if (memory && bytes > memory)
    return finish({XPU_ERROR_OUT_OF_MEMORY,
                   "xpu_buffer_create: " + std::to_string(bytes) +
                       " bytes exceed the memory of " + dev->device->label() + " (" +
                       std::to_string(memory) + " bytes)"});
  xpu_memory_kind kind = XPU_MEMORY_DEVICE;
  if (options) {
    if (options->struct_size < sizeof(xpu_buffer_options))
      return finish(invalidArgument("xpu_buffer_options.struct_size is " +
                                    std::to_string(options->struct_size) +
                                    "; use XPU_BUFFER_OPTIONS_INIT"));
    uint32_t bits = enumBits(options->memory);
    if (bits != XPU_MEMORY_DEVICE && bits != XPU_MEMORY_HOST_VISIBLE &&
        bits != XPU_MEMORY_MANAGED)
      return finish(invalidArgument("unknown xpu_memory_kind " +
                                    std::to_string(int32_t(bits))));
    kind = options->memory;
  }
  auto buf = std::make_shared<BufferObj>();
  buf->device = dev;
  buf->bytes = bytes;
  if (Status st = dev->device->allocateKind(bytes, kind, buf->memory); !st.isOk())
    return finish(st);
  uint64_t h = 0;
  if (Status st = registerObject(dev, buf, h); !st.isOk())
    return finish(st);
  *out = toHandle<xpu_buffer>(h);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_create(xpu_device device, size_t bytes,
                                     xpu_buffer *out) {
  return xpu_buffer_create_ex(device, bytes, nullptr, out);
}

XPU_API xpu_status xpu_buffer_free(xpu_buffer buffer) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (Status st = buf->checkNotMapped("free"); !st.isOk())
    return finish(st);
  if (Status st = buf->checkConflicts("free", /*isWrite=*/true, nullptr);
      !st.isOk())
    return finish(st);
  if (!unregisterObject<BufferObj>(buf->handle))
    return finish({XPU_ERROR_INVALID_HANDLE, "buffer already freed"});
  if (auto ctx = buf->device->context.lock())
    ctx->forget(buf->handle);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_size(xpu_buffer buffer, size_t *out) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_buffer_size: `out` is NULL"));
  *out = buf->bytes;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_upload(xpu_buffer buffer, size_t offset,
                                     const void *src, size_t bytes) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (Status st = checkRange(*buf, offset, bytes, src, "upload"); !st.isOk())
    return finish(st);
  if (Status st = buf->waitForConflicts(/*isWrite=*/true); !st.isOk())
    return finish(st);
  if (!bytes)
    return XPU_SUCCESS;
  xpu::observe::CopySpan traced("upload", bytes);
  return finish(buf->device->device->upload(*buf->memory, offset, src, bytes));
}

XPU_API xpu_status xpu_buffer_download(xpu_buffer buffer, size_t offset,
                                       void *dst, size_t bytes) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (Status st = checkRange(*buf, offset, bytes, dst, "download"); !st.isOk())
    return finish(st);
  if (Status st = buf->waitForConflicts(/*isWrite=*/false); !st.isOk())
    return finish(st);
  if (!bytes)
    return XPU_SUCCESS;
  xpu::observe::CopySpan traced("download", bytes);
  return finish(buf->device->device->download(*buf->memory, offset, dst, bytes));
}

XPU_API xpu_status xpu_buffer_upload_async(xpu_buffer buffer, size_t offset,
                                           const void *src, size_t bytes,
                                           xpu_stream stream) {
  xpu::observe::CopySpan traced("upload (enqueue)", bytes);
  return finish(enqueueCopy(buffer, offset, const_cast<void *>(src), bytes, stream,
                            /*upload=*/true));
}

XPU_API xpu_status xpu_buffer_download_async(xpu_buffer buffer, size_t offset,
                                             void *dst, size_t bytes,
                                             xpu_stream stream) {
  xpu::observe::CopySpan traced("download (enqueue)", bytes);
  return finish(enqueueCopy(buffer, offset, dst, bytes, stream, /*upload=*/false));
}

} // extern "C"
