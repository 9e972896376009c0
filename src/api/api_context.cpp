// C API: versions, contexts, devices, streams and events.
#include "runtime/enum_bits.h"
#include "runtime/env.h"
#include "runtime/objects.h"

#include "llvm/Config/llvm-config.h"

#include <cstring>

using namespace xpu::rt;

namespace {

void copyString(char *dst, size_t cap, const std::string &src) {
  size_t n = std::min(cap - 1, src.size());
  std::memcpy(dst, src.data(), n);
  dst[n] = 0;
}

/// Everything a released context owned: its work finishes, every handle
/// made from it goes, and its devices let go of their default streams so
/// that devices, queues and worker threads are destroyed.
void releaseContext(ContextObj &ctx) {
  for (auto &dev : ctx.devices)
    (void)dev->synchronizeAll();
  std::unordered_set<uint64_t> children;
  {
    std::lock_guard<std::mutex> g(ctx.mu);
    children.swap(ctx.children);
  }
  for (uint64_t h : children)
    HandleTable::get().remove(h, Kind(h >> 56));
  for (auto &dev : ctx.devices)
    dev->shutDown();
}

} // namespace

extern "C" {

XPU_API uint32_t xpu_version(void) { return XPU_VERSION; }

XPU_API const char *xpu_version_string(void) {
  static const std::string s =
      std::to_string(XPU_VERSION_MAJOR) + "." + std::to_string(XPU_VERSION_MINOR) +
      "." + std::to_string(XPU_VERSION_PATCH) + " (LLVM " LLVM_VERSION_STRING ")";
  return s.c_str();
}

XPU_API const char *xpu_backend_name(xpu_backend backend) {
  switch (enumBits(backend)) {
  case XPU_BACKEND_CPU: return "cpu";
  case XPU_BACKEND_CUDA: return "cuda";
  case XPU_BACKEND_HIP: return "hip";
  case XPU_BACKEND_VULKAN: return "vulkan";
  default: return "unknown";
  }
}

XPU_API xpu_status xpu_context_create(const xpu_context_options *options,
                                      xpu_context *out) {
  if (!out)
    return finish(invalidArgument("xpu_context_create: `out` is NULL"));
  if (options && options->struct_size < sizeof(uint32_t))
    return finish(invalidArgument("xpu_context_options.struct_size is not set "
                                  "(initialize with XPU_CONTEXT_OPTIONS_INIT)"));
  const Settings *s = nullptr;
  Status st = settings(s);
  if (!st.isOk())
    return finish(st);
  if (Status obs = xpu::observe::configureFromEnvironment(); !obs.isOk())
    return finish(obs);

  auto ctx = std::make_shared<ContextObj>();
  for (auto &backend : createBackends()) {
    std::vector<std::unique_ptr<Device>> found;
    std::string note;
    Status e = backend->enumerate(found, note);
    // A bad setting (XPU_VULKAN_DISABLE_FEATURES) fails the context; a
    // backend that fails to enumerate otherwise simply has no devices.
    if (e.code() == XPU_ERROR_INVALID_ARGUMENT)
      return finish(e);
    if (!e.isOk())
      note = e.message();
    else if (found.empty() && note.empty())
      note = "no devices found";
    ctx->backendNotes[backend->kind()] = note;
    for (auto &dev : found) {
      auto obj = std::make_shared<DeviceObj>();
      obj->device = std::move(dev);
      obj->context = ctx;
      ctx->devices.push_back(std::move(obj));
    }
  }
  // The default order, each rank keeping its backend's order.
  std::vector<std::shared_ptr<DeviceObj>> ordered;
  for (int rank = 0; rank <= kLastDefaultOrderRank; ++rank)
    for (auto &dev : ctx->devices)
      if (defaultOrderRank(dev->device->identity()) == rank)
        ordered.push_back(dev);
  ctx->devices = std::move(ordered);
  for (size_t i = 0; i < ctx->devices.size(); ++i)
    ctx->devices[i]->index = uint32_t(i);
  uint64_t h = HandleTable::get().add(Kind::context, ctx);
  if (!h) {
    releaseContext(*ctx);
    return finish(handleTableFull(Kind::context));
  }
  for (auto &dev : ctx->devices) {
    Status ds = registerObject(dev, dev, dev->handle);
    std::shared_ptr<StreamObj> stream;
    if (ds.isOk())
      ds = createStream(dev, stream);
    if (ds.isOk()) {
      std::lock_guard<std::mutex> g(dev->mu);
      dev->defaultStream = stream;
    }
    if (ds.isOk())
      ds = registerObject(dev, stream, stream->handle);
    if (!ds.isOk()) {
      xpu_context_release(toHandle<xpu_context>(h));
      return finish(ds);
    }
  }
  *out = toHandle<xpu_context>(h);
  return XPU_SUCCESS;
}

XPU_API void xpu_context_release(xpu_context context) {
  if (!context)
    return;
  auto obj = unregisterObject<ContextObj>(reinterpret_cast<uint64_t>(context));
  if (obj)
    releaseContext(*obj);
}

XPU_API const char *xpu_context_backend_note(xpu_context context,
                                            xpu_backend backend) {
  std::shared_ptr<ContextObj> ctx;
  if (!resolve(context, ctx).isOk())
    return "";
  if (enumBits(backend) > XPU_BACKEND_VULKAN)
    return "no such backend";
  auto it = ctx->backendNotes.find(backend);
  if (it == ctx->backendNotes.end())
    return "not built into this library";
  return it->second.c_str();
}

XPU_API xpu_status xpu_device_count(xpu_context context, uint32_t *out) {
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_count: `out` is NULL"));
  *out = uint32_t(ctx->devices.size());
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_device_get(xpu_context context, uint32_t index,
                                  xpu_device *out) {
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_get: `out` is NULL"));
  if (index >= ctx->devices.size())
    return finish({XPU_ERROR_NOT_FOUND,
                   "device index " + std::to_string(index) + " out of range (" +
                       std::to_string(ctx->devices.size()) + " devices)"});
  *out = toHandle<xpu_device>(ctx->devices[index]->handle);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_device_default(xpu_context context, xpu_device *out) {
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_default: `out` is NULL"));
  const Settings *s = nullptr;
  if (Status st = settings(s); !st.isOk())
    return finish(st);

  std::optional<xpu_backend> backend = s->backend;
  uint64_t wanted = 0;
  if (!s->device.empty()) {
    backend = s->deviceBackend;
    wanted = s->deviceIndex;
  }
  uint64_t seen = 0;
  for (auto &dev : ctx->devices) {
    if (backend && dev->device->identity().backend != *backend)
      continue;
    if (seen++ == wanted) {
      *out = toHandle<xpu_device>(dev->handle);
      return XPU_SUCCESS;
    }
  }
  std::string what = !s->device.empty() ? "XPU_DEVICE=" + s->device
                                        : "XPU_BACKEND=" +
                                              std::string(xpu_backend_name(*backend));
  return finish({XPU_ERROR_NOT_FOUND, what + ": no such device in this context"});
}

XPU_API xpu_status xpu_device_info_get(xpu_device device, xpu_device_info *info) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!info)
    return finish(invalidArgument("xpu_device_info_get: `info` is NULL"));
  if (info->struct_size < sizeof(xpu_device_info))
    return finish(invalidArgument("xpu_device_info.struct_size must be "
                                  "sizeof(xpu_device_info)"));
  const DeviceIdentity &id = dev->device->identity();
  info->backend = id.backend;
  copyString(info->name, sizeof info->name, id.name);
  copyString(info->vendor, sizeof info->vendor, id.vendor);
  copyString(info->arch, sizeof info->arch, id.arch);
  copyString(info->driver, sizeof info->driver, id.driver);
  std::memcpy(info->uuid, id.uuid, sizeof info->uuid);
  info->memory_bytes = id.memoryBytes;
  info->compute_units = id.computeUnits;
  info->wave_width = id.waveWidth;
  info->max_workgroup_size = id.maxWorkgroupSize;
  info->index = dev->index;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_device_synchronize(xpu_device device) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  return finish(dev->synchronizeAll());
}

XPU_API xpu_status xpu_stream_create(xpu_device device, xpu_stream *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_stream_create: `out` is NULL"));
  std::shared_ptr<StreamObj> stream;
  if (Status st = createStream(dev, stream); !st.isOk())
    return finish(st);
  uint64_t h = 0;
  if (Status st = registerObject(dev, stream, h); !st.isOk())
    return finish(st);
  *out = toHandle<xpu_stream>(h);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_stream_default(xpu_device device, xpu_stream *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_stream_default: `out` is NULL"));
  std::shared_ptr<StreamObj> s;
  if (Status st = dev->stream0(s); !st.isOk())
    return finish(st);
  *out = toHandle<xpu_stream>(s->handle);
  return XPU_SUCCESS;
}

XPU_API void xpu_stream_release(xpu_stream stream) {
  if (!stream)
    return;
  std::shared_ptr<StreamObj> s, own;
  if (!resolve(stream, s).isOk())
    return;
  if (!s->device->stream0(own).isOk() || s == own)
    return; // the default stream belongs to its device
  if (!unregisterObject<StreamObj>(s->handle))
    return;
  if (auto ctx = s->device->context.lock())
    ctx->forget(s->handle);
  (void)s->synchronize(); // releasing waits for the stream's work
}

XPU_API xpu_status xpu_stream_synchronize(xpu_stream stream) {
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  return finish(s->synchronize());
}

XPU_API xpu_status xpu_event_create(xpu_device device, xpu_event *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_event_create: `out` is NULL"));
  auto ev = std::make_shared<EventObj>();
  ev->device = dev;
  if (Status st = dev->device->createEvent(ev->event); !st.isOk())
    return finish(st);
  uint64_t h = 0;
  if (Status st = registerObject(dev, ev, h); !st.isOk())
    return finish(st);
  *out = toHandle<xpu_event>(h);
  return XPU_SUCCESS;
}

XPU_API void xpu_event_release(xpu_event event) {
  if (!event)
    return;
  auto ev = unregisterObject<EventObj>(reinterpret_cast<uint64_t>(event));
  if (ev)
    if (auto ctx = ev->device->context.lock())
      ctx->forget(ev->handle);
}

XPU_API xpu_status xpu_event_record(xpu_event event, xpu_stream stream) {
  std::shared_ptr<EventObj> ev;
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(event, ev); !st.isOk())
    return finish(st);
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  if (ev->device != s->device)
    return finish(invalidArgument("event and stream belong to different devices"));
  std::lock_guard<std::mutex> g(s->mu);
  Status st = s->queue->record(*ev->event);
  if (st.isOk()) {
    ++s->enqueued;
    s->keep(ev);
    ev->recorded = true;
  }
  return finish(st);
}

XPU_API xpu_status xpu_stream_wait_event(xpu_stream stream, xpu_event event) {
  std::shared_ptr<EventObj> ev;
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(event, ev); !st.isOk())
    return finish(st);
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  if (!ev->recorded)
    return finish(invalidArgument("the event has not been recorded; a stream "
                                  "cannot wait for it"));
  if (ev->device != s->device &&
      (ev->device->device->identity().backend != s->device->device->identity().backend ||
       !s->queue->waitsForPeerEvents()))
    // No device-side wait between these devices: the host waits, so that
    // everything enqueued after this call starts after the event.
    return finish(ev->event->synchronize());
  std::lock_guard<std::mutex> g(s->mu);
  Status st = s->queue->wait(*ev->event);
  if (st.isOk()) {
    ++s->enqueued;
    s->keep(ev);
  }
  return finish(st);
}

XPU_API xpu_status xpu_event_synchronize(xpu_event event) {
  std::shared_ptr<EventObj> ev;
  if (Status st = resolve(event, ev); !st.isOk())
    return finish(st);
  return finish(ev->event->synchronize());
}

XPU_API xpu_status xpu_event_elapsed(xpu_event start, xpu_event end,
                                     double *milliseconds) {
  std::shared_ptr<EventObj> a, b;
  if (Status st = resolve(start, a); !st.isOk())
    return finish(st);
  if (Status st = resolve(end, b); !st.isOk())
    return finish(st);
  if (!milliseconds)
    return finish(invalidArgument("xpu_event_elapsed: `milliseconds` is NULL"));
  if (a->device != b->device)
    return finish(invalidArgument("the events belong to different devices"));
  if (!a->recorded || !b->recorded)
    return finish(invalidArgument("both events must have been recorded"));
  if (a == b) { // no time passes between an event and itself
    if (!a->event->isComplete())
      return finish({XPU_ERROR_BUSY, "the event has not completed yet"});
    *milliseconds = 0;
    return XPU_SUCCESS;
  }
  return finish(b->event->elapsedSince(*a->event, *milliseconds));
}

XPU_API xpu_status xpu_event_query(xpu_event event) {
  std::shared_ptr<EventObj> ev;
  if (Status st = resolve(event, ev); !st.isOk())
    return finish(st);
  if (ev->event->isComplete())
    return XPU_SUCCESS;
  return XPU_ERROR_BUSY; // not a failure: not recorded as the last error
}

} // extern "C"
