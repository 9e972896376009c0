// Submissions; see submit.h.
#include "scheduler/submit.h"

#include "observe/observe.h"
#include "runtime/env.h"
#include "runtime/log.h"
#include "scheduler/deadline.h"
#include "scheduler/stream_queue.h"

#include <mutex>
#include <unordered_set>

namespace xpu::sched {

using rt::Status;

void lendBuffers(const std::shared_ptr<rt::StreamObj> &stream, uint64_t sequence,
                 const rt::KernelObj &kernel,
                 const std::vector<std::shared_ptr<rt::BufferObj>> &buffers) {
  size_t b = 0;
  for (const abi::Param &p : kernel.info->params)
    if (p.isBuffer)
      buffers[b++]->lend(stream, sequence, orderedUses(p.uses) & abi::useWrite,
                         kernel.info);
}

Status enqueueRaw(rt::StreamObj &stream, rt::Queue &queue,
                  const std::shared_ptr<rt::StreamObj> &self,
                  const std::shared_ptr<rt::KernelObj> &kernel, PreparedLaunch &launch) {
  rt::Device &device = *stream.device->device;
  rt::StatusWord word;
  launch.request.status = 0;
  if (!kernel->info->checkSites.empty()) {
    XPU_RETURN_IF_ERROR(device.allocateStatusWord(word));
    launch.request.status = word.device;
  }
  bool observed = observe::launchObserved() && &queue == &front(stream).device();
  Status st = observed ? observe::observedLaunch(stream, *kernel, launch.request,
                                                 launch.callArgs, launch.callArgCount)
                       : queue.launch(launch.request);
  if (!st.isOk()) {
    if (word.host)
      device.freeStatusWord(word);
    return st;
  }
  uint64_t seq = ++stream.enqueued;
  if (word.host)
    stream.checks.push_back({word, kernel->info, nullptr});
  if (launch.printBuffer)
    stream.prints.push_back({launch.printBuffer, kernel->info});
  stream.keep(kernel); // and with it the module and its loaded code
  for (const std::shared_ptr<rt::BufferObj> &buffer : launch.buffers)
    stream.keep(buffer);
  lendBuffers(self, seq, *kernel, launch.buffers);
  return {};
}

namespace {

/// What the caller learns of its submission (xpu_submission_result).
struct Outcome {
  uint32_t flags = 0;
  uint32_t units = 0;
  std::string note;
  void tell(uint32_t flag, const std::string &why) {
    flags |= flag;
    if (!why.empty())
      note += (note.empty() ? "" : "; ") + why;
  }
};

thread_local std::string resultNote;

void report(const Outcome &o, xpu_submission_result *result) {
  if (!result)
    return;
  resultNote = o.note;
  result->flags = o.flags;
  result->compute_units = o.units;
  result->note = resultNote.c_str();
}

/// A kernel whose manifest leaves a buffer's uses unknown: its submissions
/// are unclassified (ordered as read-write), said once per kernel.
void unclassified(const rt::KernelObj &k, Outcome &o) {
  std::string unknown;
  for (const abi::Param &p : k.info->params)
    if (p.isBuffer && (p.uses & abi::useUnknown))
      unknown += (unknown.empty() ? "'" : ", '") + p.name + "'";
  if (unknown.empty())
    return;
  std::string why = "kernel '" + k.info->name + "' has no complete manifest for " +
                    k.module->device->device->label() + " (what it does with " + unknown +
                    " is unknown): an unclassified submission, its buffers ordered as "
                    "read-write";
  o.tell(XPU_SUBMIT_UNCLASSIFIED, why);
  static std::mutex mu;
  static std::unordered_set<const abi::KernelInfo *> said;
  std::lock_guard<std::mutex> g(mu);
  if (said.insert(k.info.get()).second)
    rt::log(rt::LogLevel::warn, why);
}

Status check(const xpu_submission &s) {
  if (uint32_t(s.policy) > XPU_POLICY_ENERGY)
    return rt::invalidArgument("unknown xpu_policy " + std::to_string(int(s.policy)));
  if (s.window_close_ns && s.window_open_ns > s.window_close_ns)
    return rt::invalidArgument("the submission's window closes (" +
                               std::to_string(s.window_close_ns) + " ns) before it opens (" +
                               std::to_string(s.window_open_ns) + " ns)");
  if (s.policy == XPU_POLICY_FRAME_BUDGET && !s.window_close_ns)
    return rt::invalidArgument("a frameBudget submission needs a window "
                               "(window_close_ns)");
  return {};
}

} // namespace

Status submit(const std::shared_ptr<rt::KernelObj> &k,
              const std::shared_ptr<rt::StreamObj> &s, PreparedLaunch &launch,
              const xpu_submission *submission, xpu_submission_result *result) {
  if (result && result->struct_size < sizeof(xpu_submission_result))
    return rt::invalidArgument("xpu_submission_result.struct_size must be "
                               "sizeof(xpu_submission_result)");
  static const xpu_submission kDefault = XPU_SUBMISSION_INIT;
  const xpu_submission &o = submission ? *submission : kDefault;
  if (submission)
    XPU_RETURN_IF_ERROR(check(o));
  const rt::Settings *config = nullptr;
  (void)rt::settings(config);
  bool bypass = config->schedulerBypass;
  bool window = o.window_open_ns || o.window_close_ns;

  Outcome out;
  struct Report {
    const Outcome &o;
    xpu_submission_result *r;
    ~Report() { report(o, r); }
  } reportAtExit{out, result};
  uint32_t computeUnits = s->device->device->identity().computeUnits;
  out.units = computeUnits;
  unclassified(*k, out);

  // Other streams' work on the same buffers first (taken without this
  // stream's lock: fencing locks those streams).
  Fences fences;
  if (!bypass) {
    std::vector<BufferUse> uses;
    size_t b = 0;
    for (const abi::Param &p : k->info->params)
      if (p.isBuffer)
        uses.push_back({launch.buffers[b++].get(), orderedUses(p.uses)});
    XPU_RETURN_IF_ERROR(fenceConflicts(*s, uses, fences));
  }

  std::lock_guard<std::mutex> g(s->mu);
  StreamQueue &q = front(*s);
  if (q.capturing()) {
    if (window)
      return rt::invalidArgument("a submission with a window cannot be recorded into a "
                                 "graph: its window would not apply to the replays");
    if (k->info->printParam >= 0)
      return {XPU_ERROR_UNSUPPORTED,
              "kernel '" + k->info->name + "' prints (xpu.printf): each launch needs a "
              "print buffer of its own, which a graph's replays would share; launch it "
              "outside the capture"};
    q.record(k, launch);
    out.tell(XPU_SUBMIT_RECORDED, "");
    return {};
  }
  if (bypass) {
    out.tell(XPU_SUBMIT_BYPASSED, "");
    if (o.compute_units && o.compute_units < computeUnits)
      out.tell(XPU_SUBMIT_BUDGET_NOT_HONOURED,
               "XPU_SCHEDULER=bypass: the compute-unit budget is not applied");
    if (o.policy != XPU_POLICY_THROUGHPUT)
      out.tell(XPU_SUBMIT_POLICY_NOT_HONOURED,
               "XPU_SCHEDULER=bypass: the policy is not applied");
    if (window)
      XPU_RETURN_IF_ERROR(awaitWindow(*s, k->info->name, o.window_open_ns,
                                      o.window_close_ns));
    return enqueueRaw(*s, q.device(), s, k, launch);
  }

  XPU_RETURN_IF_ERROR(q.waitFences(fences));
  if (!fences.events.empty())
    out.tell(XPU_SUBMIT_ORDERED, "");

  rt::Queue *partition = nullptr;
  if (o.compute_units && o.compute_units < computeUnits) {
    std::string why;
    uint32_t reserved = 0;
    XPU_RETURN_IF_ERROR(q.partition(o.compute_units, partition, reserved, why));
    if (partition) {
      out.tell(XPU_SUBMIT_BUDGET_RESERVED, "");
      out.units = reserved;
    } else {
      out.tell(XPU_SUBMIT_BUDGET_NOT_HONOURED,
               "the budget of " + std::to_string(o.compute_units) + " of " +
                   std::to_string(computeUnits) + " compute units is not reserved: " + why);
    }
  }
  if (o.policy == XPU_POLICY_ENERGY)
    out.tell(XPU_SUBMIT_POLICY_NOT_HONOURED,
             "energy: xpujit has no power controls; run as throughput");

  bool now = o.policy == XPU_POLICY_LATENCY || o.policy == XPU_POLICY_FRAME_BUDGET;
  // Observed launches (hooks, trace) and printing ones run one by one.
  bool capturable = q.autoCaptureEnabled() && !now && !window && !partition &&
                    o.capture_id != XPU_CAPTURE_NEVER && k->info->printParam < 0 &&
                    !observe::launchObserved();
  if (capturable) {
    bool held = false;
    XPU_RETURN_IF_ERROR(q.chains().offer(k, launch, o.capture_id, *s, s, q.device(), held));
    if (held) {
      out.tell(XPU_SUBMIT_HELD, "");
      return {};
    }
    return enqueueRaw(*s, q.device(), s, k, launch);
  }

  XPU_RETURN_IF_ERROR(q.endChain());
  if (window)
    XPU_RETURN_IF_ERROR(awaitWindow(*s, k->info->name, o.window_open_ns,
                                    o.window_close_ns));
  if (partition) {
    XPU_RETURN_IF_ERROR(q.orderWith(*partition, /*before=*/true));
    XPU_RETURN_IF_ERROR(enqueueRaw(*s, *partition, s, k, launch));
    return q.orderWith(*partition, /*before=*/false);
  }
  XPU_RETURN_IF_ERROR(enqueueRaw(*s, q.device(), s, k, launch));
  return now || window ? q.device().flush() : Status();
}

} // namespace xpu::sched
