// C API: work that spans devices -- copies between buffers of one device or
// of two (peer copies, or staged through the host).
#include "runtime/objects.h"

#include <vector>

using namespace xpu::rt;

namespace {

Status checkSpan(const BufferObj &buf, size_t offset, size_t bytes, const char *which) {
  if (offset > buf.bytes || bytes > buf.bytes - offset)
    return invalidArgument(std::string("xpu_buffer_copy: the ") + which + " range [" +
                           std::to_string(offset) + ", +" + std::to_string(bytes) +
                           ") exceeds the buffer's " + std::to_string(buf.bytes) + " bytes");
  return {};
}

/// Between devices that share no copy engine: through host memory, now.
Status stagedCopy(BufferObj &dst, size_t dstOffset, BufferObj &src, size_t srcOffset,
                  size_t bytes) {
  XPU_RETURN_IF_ERROR(src.waitForConflicts(/*isWrite=*/false));
  XPU_RETURN_IF_ERROR(dst.waitForConflicts(/*isWrite=*/true));
  std::vector<uint8_t> staging(bytes);
  XPU_RETURN_IF_ERROR(src.device->device->download(*src.memory, srcOffset, staging.data(), bytes));
  return dst.device->device->upload(*dst.memory, dstOffset, staging.data(), bytes);
}

Status copy(xpu_buffer dstHandle, size_t dstOffset, xpu_buffer srcHandle, size_t srcOffset,
            size_t bytes, xpu_stream stream) {
  std::shared_ptr<BufferObj> dst, src;
  XPU_RETURN_IF_ERROR(resolve(dstHandle, dst));
  XPU_RETURN_IF_ERROR(resolve(srcHandle, src));
  XPU_RETURN_IF_ERROR(checkSpan(*dst, dstOffset, bytes, "destination"));
  XPU_RETURN_IF_ERROR(checkSpan(*src, srcOffset, bytes, "source"));
  if (dst == src && dstOffset < srcOffset + bytes && srcOffset < dstOffset + bytes)
    return invalidArgument("xpu_buffer_copy: the ranges overlap within one buffer");
  std::shared_ptr<StreamObj> s;
  if (stream) {
    XPU_RETURN_IF_ERROR(resolve(stream, s));
    if (s->device != dst->device && s->device != src->device)
      return invalidArgument("xpu_buffer_copy: the stream belongs to neither buffer's device");
  } else {
    s = dst->device->defaultStream;
  }
  XPU_RETURN_IF_ERROR(dst->checkNotMapped("copy into it"));
  XPU_RETURN_IF_ERROR(src->checkNotMapped("copy from it"));
  if (!bytes)
    return {};
  bool sameDevice = dst->device == src->device;
  bool sameBackend = dst->device->device->identity().backend ==
                     src->device->device->identity().backend;
  if (!sameDevice && !sameBackend)
    return stagedCopy(*dst, dstOffset, *src, srcOffset, bytes);
  XPU_RETURN_IF_ERROR(dst->checkConflicts("copy into it", true, s.get()));
  XPU_RETURN_IF_ERROR(src->checkConflicts("copy from it", false, s.get()));
  std::lock_guard<std::mutex> g(s->mu);
  Status st;
  if (sameDevice) {
    st = s->queue->copyBuffer(*dst->memory, dstOffset, *src->memory, srcOffset, bytes);
  } else {
    // Peer copies run on a stream of the destination's device.
    if (s->device != dst->device)
      return invalidArgument("xpu_buffer_copy between two devices runs on a stream of the "
                             "destination's device");
    st = s->queue->copyFromPeer(*dst->memory, dstOffset, *src->device->device, *src->memory,
                                srcOffset, bytes);
    if (st.code() == XPU_ERROR_UNSUPPORTED)
      return stagedCopy(*dst, dstOffset, *src, srcOffset, bytes);
  }
  XPU_RETURN_IF_ERROR(st);
  uint64_t seq = ++s->enqueued;
  dst->lend(s, seq, /*writes=*/true, nullptr, "copy");
  src->lend(s, seq, /*writes=*/false, nullptr, "copy");
  return {};
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_buffer_copy(xpu_buffer dst, size_t dst_offset, xpu_buffer src,
                                   size_t src_offset, size_t bytes, xpu_stream stream) {
  return finish(copy(dst, dst_offset, src, src_offset, bytes, stream));
}

} // extern "C"
