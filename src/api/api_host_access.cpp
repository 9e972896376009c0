// C API: host access without copies -- mapping buffers, importing memory
// xpujit did not allocate, and the addresses other libraries need.
#include "runtime/enum_bits.h"
#include "runtime/objects.h"

#include "llvm/ADT/StringExtras.h"

using namespace xpu::rt;

extern "C" {

XPU_API xpu_status xpu_buffer_is_mappable(xpu_buffer buffer, int *out) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_buffer_is_mappable: `out` is NULL"));
  *out = buf->memory->hostPointer() != nullptr;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_map(xpu_buffer buffer, xpu_map_access access,
                                  void **out) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_buffer_map: `out` is NULL"));
  uint32_t bits = enumBits(access);
  if (bits != XPU_MAP_READ && bits != XPU_MAP_WRITE && bits != XPU_MAP_READ_WRITE)
    return finish(invalidArgument("unknown xpu_map_access " + std::to_string(int32_t(bits))));
  void *host = buf->memory->hostPointer();
  if (!host)
    return finish({XPU_ERROR_UNSUPPORTED,
                   "the buffer's memory on " + buf->device->device->label() +
                       " is not host-visible; create it with XPU_MEMORY_HOST_VISIBLE "
                       "(xpu_buffer_create_ex) or copy it"});
  if (Status st = buf->waitForConflicts((access & XPU_MAP_WRITE) != 0); !st.isOk())
    return finish(st);
  buf->maps.fetch_add(1, std::memory_order_acq_rel);
  *out = host;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_unmap(xpu_buffer buffer) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  uint32_t open = buf->maps.load(std::memory_order_acquire);
  do {
    if (open == 0)
      return finish(invalidArgument("xpu_buffer_unmap: the buffer is not mapped"));
  } while (!buf->maps.compare_exchange_weak(open, open - 1, std::memory_order_acq_rel));
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_import(xpu_device device, const xpu_import_desc *desc,
                                     xpu_buffer *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!desc || !out)
    return finish(invalidArgument("xpu_buffer_import: `desc` or `out` is NULL"));
  if (desc->struct_size < sizeof(xpu_import_desc))
    return finish(invalidArgument("xpu_import_desc.struct_size is " +
                                  std::to_string(desc->struct_size) +
                                  "; use XPU_IMPORT_DESC_INIT"));
  uint32_t kindBits = enumBits(desc->kind);
  if (kindBits != XPU_IMPORT_HOST_POINTER && kindBits != XPU_IMPORT_DEVICE_POINTER)
    return finish(invalidArgument("unknown xpu_import_kind " +
                                  std::to_string(int32_t(kindBits))));
  if (!desc->address || !desc->bytes)
    return finish(invalidArgument("xpu_buffer_import: the address and size must not be 0"));
  if (desc->address + desc->bytes < desc->address)
    return finish(invalidArgument("xpu_buffer_import: address + size wraps around"));
  ImportRequest request{desc->kind, desc->address, desc->bytes};
  auto buf = std::make_shared<BufferObj>();
  buf->device = dev;
  buf->bytes = desc->bytes;
  if (Status st = dev->device->importMemory(request, buf->memory); !st.isOk())
    return finish(st);
  buf->release = desc->release;
  buf->releaseData = desc->release_data;
  uint64_t h = 0;
  if (Status st = registerObject(dev, buf, h); !st.isOk()) {
    // A failed import leaves the memory the caller's: no release call.
    buf->release = nullptr;
    return finish(st);
  }
  *out = toHandle<xpu_buffer>(h);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_synchronize(xpu_buffer buffer) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  return finish(buf->waitForConflicts(/*isWrite=*/true));
}

XPU_API xpu_status xpu_stream_native(xpu_stream stream, void **out) {
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_stream_native: `out` is NULL"));
  void *native = nullptr;
  {
    // Launches the scheduler holds reach the driver's stream first.
    std::lock_guard<std::mutex> g(s->mu);
    native = s->queue->nativeHandle();
  }
  if (!native)
    return finish({XPU_ERROR_UNSUPPORTED,
                   s->device->device->label() + " has no driver stream behind its streams"});
  *out = native;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_buffer_address(xpu_buffer buffer, uint64_t *out) {
  std::shared_ptr<BufferObj> buf;
  if (Status st = resolve(buffer, buf); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_buffer_address: `out` is NULL"));
  if (buf->device->device->identity().backend == XPU_BACKEND_VULKAN)
    return finish({XPU_ERROR_UNSUPPORTED,
                   "Vulkan buffers have no device address in xpujit (they are bound "
                   "as descriptors)"});
  *out = buf->memory->address();
  return XPU_SUCCESS;
}

} // extern "C"
