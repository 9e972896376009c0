// Launches and synchronizations as observers see them: hooks around the
// enqueue, events that time the launch on the device, and the trace and
// dispatch-report records made when the stream synchronizes.
#include "observe/observe.h"
#include "observe/sinks.h"
#include "runtime/log.h"
#include "runtime/objects.h"

#include <cinttypes>
#include <shared_mutex>

namespace xpu::observe {

using rt::Status;

namespace {

/// The hooks, replaced whole so a launch never sees half of a change.
std::shared_mutex hooksMu;
xpu_launch_hooks hooks{};

std::atomic<uint64_t> launchCount{0};

llvm::json::Array extents(const uint32_t e[3]) {
  return llvm::json::Array{int64_t(e[0]), int64_t(e[1]), int64_t(e[2])};
}

/// A scalar argument's value as JSON (integers exact, floats as numbers,
/// f16/bf16 as their bits, vectors as lists).
llvm::json::Value scalarValue(const xpu_arg &a) {
  size_t width = xpu_type_size(a.type);
  uint32_t lanes = a.lanes ? a.lanes : 1;
  llvm::json::Array list;
  for (uint32_t l = 0; l < lanes && (l + 1) * width <= sizeof a.v.bytes; ++l) {
    const uint8_t *p = a.v.bytes + l * width;
    switch (a.type) {
    case XPU_TYPE_F32: {
      float f;
      std::memcpy(&f, p, 4);
      list.push_back(double(f));
      break;
    }
    case XPU_TYPE_F64: {
      double d;
      std::memcpy(&d, p, 8);
      list.push_back(d);
      break;
    }
    default: {
      int64_t v = 0;
      std::memcpy(&v, p, width);
      if (width < 8 && (v >> (width * 8 - 1)) & 1) // sign-extend
        v |= ~int64_t(0) << (width * 8);
      list.push_back(v);
    }
    }
  }
  if (lanes == 1 && !list.empty())
    return std::move(list[0]);
  return llvm::json::Value(std::move(list));
}

/// What a dispatch report says about the arguments.
llvm::json::Array argumentSummary(const rt::KernelObj &k, const xpu_arg *args,
                                  size_t count) {
  llvm::json::Array out;
  for (size_t i = 0; i < count && i < k.arguments.size(); ++i) {
    const abi::Param &p = k.info->params[k.arguments[i]];
    const xpu_arg &a = args[i];
    llvm::json::Object o{{"name", p.name}};
    if (a.kind == XPU_PARAM_BUFFER || a.kind == XPU_PARAM_VIEW) {
      o["kind"] = a.kind == XPU_PARAM_BUFFER ? "buffer" : "view";
      xpu_buffer b = a.kind == XPU_PARAM_BUFFER ? a.v.buffer
                     : a.v.view                 ? a.v.view->buffer
                                                : nullptr;
      std::shared_ptr<rt::BufferObj> buf;
      if (rt::resolve(b, buf).isOk())
        o["bytes"] = int64_t(buf->bytes);
      o["element"] = abi::scalarName(p.elem);
      o["access"] = p.access == abi::Access::ro ? "ro" : "rw";
    } else {
      o["kind"] = "scalar";
      o["type"] = xpu_type_name(a.type);
      o["value"] = scalarValue(a);
    }
    out.push_back(std::move(o));
  }
  return out;
}

} // namespace

/// One launch between its enqueue and its stream's synchronization.
struct PendingLaunch {
  std::unique_ptr<rt::BackendEvent> start, end;
  llvm::json::Object line; ///< the dispatch report line so far
  std::string kernel;
  uint64_t sequence = 0;
  double hostUs = 0;       ///< when the enqueue began (trace clock)
};

static std::atomic<uint32_t> nextStream{1};

StreamLog::StreamLog() : id(nextStream++) {}
StreamLog::~StreamLog() = default;

Status observedLaunch(rt::StreamObj &s, const rt::KernelObj &k,
                      const rt::LaunchRequest &req, const xpu_arg *args,
                      size_t argCount) {
  uint64_t sequence = ++launchCount;
  xpu_launch_hooks h;
  {
    std::shared_lock<std::shared_mutex> g(hooksMu);
    h = hooks;
  }
  const rt::DeviceObj &dev = *s.device;
  xpu_launch_info info{sizeof info,
                       sequence,
                       rt::toHandle<xpu_kernel>(k.handle),
                       k.info->name.c_str(),
                       k.module->observed ? k.module->observed->sourceName.c_str() : "",
                       rt::toHandle<xpu_device>(dev.handle),
                       rt::toHandle<xpu_stream>(s.handle),
                       req.grid,
                       req.block,
                       args,
                       argCount};
  if (h.enter)
    h.enter(&info, h.user);

  bool timed = enabled(kTrace) || enabled(kDispatch);
  // Hooks alone need no record: nothing is allocated for them.
  std::unique_ptr<PendingLaunch> pending;
  rt::Device &device = *dev.device;
  if (timed) {
    pending = std::make_unique<PendingLaunch>();
    // The stream's origin: a completed event whose host time is known,
    // from which device times are placed on the host's timeline. The time
    // after its synchronize is late by the wake-up of this thread (ms on a
    // loaded machine, and every device time with it), so the backend's own
    // completion time is taken where it has one.
    if (!s.observed.origin && device.createEvent(s.observed.origin).isOk()) {
      if (s.queue->record(*s.observed.origin).isOk() &&
          s.observed.origin->synchronize().isOk()) {
        auto done = s.observed.origin->completedAt();
        s.observed.originUs = done ? usAt(*done) : nowUs();
      } else
        s.observed.origin.reset();
    }
    if (!device.createEvent(pending->start).isOk() ||
        !s.queue->record(*pending->start).isOk())
      pending->start.reset();
  }
  double hostUs = timed ? nowUs() : 0;
  Status st = s.queue->launch(req);
  double enqueueUs = timed ? nowUs() - hostUs : 0;
  if (timed && pending->start &&
      (!device.createEvent(pending->end).isOk() || !s.queue->record(*pending->end).isOk()))
    pending->end.reset();
  if (h.exit)
    h.exit(&info, st.code(), h.user);
  if (enabled(kDebugLog))
    rt::log(rt::LogLevel::debug,
          "launch: kernel=" + k.info->name + " stream=" + std::to_string(s.observed.id) +
              " grid=" + std::to_string(req.grid[0]) + "," + std::to_string(req.grid[1]) +
              "," + std::to_string(req.grid[2]) + " block=" + std::to_string(req.block[0]) +
              "," + std::to_string(req.block[1]) + "," + std::to_string(req.block[2]) +
              " status=" + xpu_status_name(st.code()));
  if (!timed)
    return st;
  pending->hostUs = hostUs;

  int pid = trace::devicePid(dev.index, device.label());
  trace::complete("launch " + k.info->name, "launch", pending->hostUs, enqueueUs,
                  trace::kHostPid, trace::hostThread(),
                  llvm::json::Object{{"stream", int64_t(s.observed.id)},
                                     {"device_pid", pid},
                                     {"sequence", int64_t(sequence)},
                                     {"grid", extents(req.grid)},
                                     {"block", extents(req.block)},
                                     {"status", xpu_status_name(st.code())}});
  if (enabled(kDispatch)) {
    const ModuleRecord *m = k.module->observed.get();
    pending->line = llvm::json::Object{
        {"sequence", int64_t(sequence)},
        {"module", llvm::json::Object{{"source", m ? m->sourceName : ""},
                                      {"source_hash", m ? m->sourceHash : ""}}},
        {"kernel", k.info->name},
        {"profile", k.info->profile},
        {"device", llvm::json::Object{{"index", int64_t(dev.index)},
                                      {"label", device.label()},
                                      {"backend", xpu_backend_name(device.identity().backend)}}},
        {"stream", int64_t(s.observed.id)},
        {"grid", extents(req.grid)},
        {"block", extents(req.block)},
        {"arguments", argumentSummary(k, args, argCount)},
        {"host_enqueue_us", enqueueUs},
        {"status", xpu_status_name(st.code())}};
  }
  if (!st.isOk()) { // nothing runs: the line is complete now
    if (enabled(kDispatch)) {
      pending->line["device_ms"] = nullptr;
      pending->line["run_status"] = nullptr;
      dispatch::write(std::move(pending->line));
    }
    return st;
  }
  pending->kernel = k.info->name;
  pending->sequence = sequence;
  s.observed.pending.push_back(std::move(pending));
  return st;
}

SyncScope::SyncScope(rt::StreamObj &stream)
    : stream_(stream), startUs_(launchObserved() ? nowUs() : -1) {}

Status SyncScope::done(Status status) {
  StreamLog &log = stream_.observed;
  if (startUs_ < 0 && log.pending.empty())
    return status;
  rt::DeviceObj &dev = *stream_.device;
  int pid = trace::devicePid(dev.index, dev.device->label());
  for (auto &p : log.pending) {
    double ms = -1, offsetMs = -1;
    bool timed = p->start && p->end && p->end->elapsedSince(*p->start, ms).isOk();
    if (timed && log.origin && p->start->elapsedSince(*log.origin, offsetMs).isOk())
      trace::complete(p->kernel, "device", log.originUs + offsetMs * 1e3, ms * 1e3, pid,
                      log.id,
                      llvm::json::Object{{"device_ms", ms},
                                         {"sequence", int64_t(p->sequence)}});
    if (enabled(kDispatch) && !p->line.empty()) {
      p->line["device_ms"] = timed ? llvm::json::Value(ms) : llvm::json::Value(nullptr);
      p->line["run_status"] = xpu_status_name(status.code());
      if (!status.isOk())
        p->line["run_message"] = status.message();
      dispatch::write(std::move(p->line));
    }
  }
  log.pending.clear();
  if (startUs_ >= 0)
    trace::complete("synchronize", "sync", startUs_, nowUs() - startUs_, trace::kHostPid,
                    trace::hostThread(),
                    llvm::json::Object{{"stream", int64_t(log.id)},
                                       {"device_pid", pid},
                                       {"status", xpu_status_name(status.code())}});
  return status;
}

CopySpan::CopySpan(const char *what, size_t bytes)
    : what_(what), bytes_(bytes), startUs_(enabled(kTrace) ? nowUs() : -1) {}

CopySpan::~CopySpan() {
  if (startUs_ >= 0)
    trace::complete(what_, "copy", startUs_, nowUs() - startUs_, trace::kHostPid,
                    trace::hostThread(), llvm::json::Object{{"bytes", int64_t(bytes_)}});
}

Status setHooks(const xpu_launch_hooks *h) {
  if (h && h->struct_size < sizeof(xpu_launch_hooks))
    return rt::invalidArgument("xpu_launch_hooks.struct_size is not set "
                               "(initialize with XPU_LAUNCH_HOOKS_INIT)");
  std::unique_lock<std::shared_mutex> g(hooksMu);
  hooks = h ? *h : xpu_launch_hooks{};
  if (hooks.enter || hooks.exit)
    gFeatures.fetch_or(kHooks);
  else
    gFeatures.fetch_and(~uint32_t(kHooks));
  return {};
}

} // namespace xpu::observe
