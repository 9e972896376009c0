// The performance probes (see probes.h): what the scheduler's decisions
// will rest on, measured once per device (spec §17.8: peaks, bandwidth,
// launch cost, event and inter-queue cost, the occupancy probe).
#include "calibration/probe_kernel.h"
#include "calibration/probes.h"

#include <algorithm>
#include <chrono>

namespace xpu::cal {

namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::time_point from) {
  return std::chrono::duration<double, std::micro>(Clock::now() - from).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// @peak_T: eight independent chains of K multiply-adds per invocation
/// (fast-math, so each is one fused operation where the device has it).
/// @chain: one dependent chain of K multiply-adds per invocation, for the
/// occupancy sweep.
std::string kernels(bool f64) {
  std::string text = "xpu.kernel @empty() {\n  xpu.return\n}\n";
  auto peak = [](const char *t) {
    std::string b = std::string("!xpu.buffer<") + t + ">";
    std::string k = std::string("xpu.kernel @peak_") + t + "(%out: " + b +
                    ", %k: i32) attributes {fastmath} {\n"
                    "  %c0 = arith.constant 0 : index\n"
                    "  %c1 = arith.constant 1 : index\n"
                    "  %i = xpu.global_id x\n"
                    "  %ii = arith.index_castui %i : index to i32\n"
                    "  %x = arith.uitofp %ii : i32 to " + t + "\n"
                    "  %a = arith.constant 0.999 : " + t + "\n"
                    "  %b = arith.constant 0.001 : " + t + "\n"
                    "  %K = arith.index_castui %k : i32 to index\n";
    k += "  %r:8 = scf.for %j = %c0 to %K step %c1 iter_args(";
    for (int c = 0; c < 8; ++c)
      k += std::string(c ? ", " : "") + "%v" + std::to_string(c) + " = %x";
    k += ") -> (";
    for (int c = 0; c < 8; ++c)
      k += std::string(c ? ", " : "") + t;
    k += ") {\n";
    for (int c = 0; c < 8; ++c)
      k += "    %m" + std::to_string(c) + " = arith.mulf %v" + std::to_string(c) + ", %a : " +
           t + "\n    %s" + std::to_string(c) + " = arith.addf %m" + std::to_string(c) +
           ", %b : " + t + "\n";
    k += "    scf.yield ";
    for (int c = 0; c < 8; ++c)
      k += std::string(c ? ", " : "") + "%s" + std::to_string(c);
    k += " : ";
    for (int c = 0; c < 8; ++c)
      k += std::string(c ? ", " : "") + t;
    k += "\n  }\n  %t0 = arith.addf %r#0, %r#1 : " + std::string(t) +
         "\n  %t1 = arith.addf %r#2, %r#3 : " + t + "\n  %t2 = arith.addf %r#4, %r#5 : " + t +
         "\n  %t3 = arith.addf %r#6, %r#7 : " + t + "\n  %t4 = arith.addf %t0, %t1 : " + t +
         "\n  %t5 = arith.addf %t2, %t3 : " + t + "\n  %t6 = arith.addf %t4, %t5 : " + t +
         "\n  %n = xpu.buffer_size %out : " + b +
         "\n  %in = arith.cmpi ult, %i, %n : index\n  scf.if %in {\n"
         "    xpu.store %t6, %out[%i] : " + b + "\n  }\n  xpu.return\n}\n";
    return k;
  };
  text += peak("f32");
  if (f64)
    text += peak("f64");
  text += R"(
xpu.kernel @chain(%out: !xpu.buffer<f32>, %k: i32) attributes {fastmath} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = xpu.global_id x
  %ii = arith.index_castui %i : index to i32
  %x = arith.uitofp %ii : i32 to f32
  %a = arith.constant 0.999 : f32
  %b = arith.constant 0.001 : f32
  %K = arith.index_castui %k : i32 to index
  %r = scf.for %j = %c0 to %K step %c1 iter_args(%v = %x) -> (f32) {
    %m = arith.mulf %v, %a : f32
    %s = arith.addf %m, %b : f32
    scf.yield %s : f32
  }
  %n = xpu.buffer_size %out : !xpu.buffer<f32>
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {
    xpu.store %r, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
)";
  return text;
}

struct Sizes {
  size_t copyBytes;
  uint32_t peakGroups, block, occupancyMaxGroups;
  int32_t peakK;
  double occupancyBaseUs; ///< the one-workgroup run lasts at least this
};

Sizes sizesFor(const rt::Device &device) {
  uint32_t block = std::min<uint32_t>(256, device.identity().maxWorkgroupSize);
  if (device.identity().runsOnHostCpu) // the CPU backend, lavapipe: keep CI lean
    return {size_t(8) << 20, 8, block, 32, 256, 2000};
  return {size_t(256) << 20, 4096, block, 8192, 4096, 1000};
}

Measurement make(const char *name, double value, const char *unit, std::string evidence) {
  return {name, value, unit, std::move(evidence), now()};
}

} // namespace

const std::vector<std::string> &performanceFacts() {
  static const std::vector<std::string> names = {
      "copy.h2d",          "copy.d2h",     "launch.enqueue", "launch.round-trip",
      "event.record-sync", "queue.cross-wait", "peak.f32",   "peak.f64",
      "occupancy.workgroups"};
  return names;
}

std::vector<Measurement> measurePerformance(rt::Device &device, const ProbeTypes &types) {
  std::string where = " on " + device.label();
  std::vector<Measurement> out;
  auto fail = [&](const std::string &why) {
    out.clear();
    for (const std::string &n : performanceFacts())
      out.push_back({n, std::nullopt, "",
                     kProbeFailed + std::string("the performance probes did not run") +
                         where + ": " + why,
                     now()});
    return out;
  };
  Sizes sz = sizesFor(device);
  ProbeProgram program;
  std::unique_ptr<rt::Queue> q1, q2;
  if (rt::Status st = program.build(device, kernels(types.f64), "<performance probes>");
      !st.isOk())
    return fail(st.message());
  if (rt::Status st = device.createQueue(q1); !st.isOk())
    return fail(st.message());
  if (rt::Status st = device.createQueue(q2); !st.isOk())
    return fail(st.message());

  // Blocking copies through the device interface, best of three.
  {
    std::vector<uint8_t> host(sz.copyBytes, 1);
    std::unique_ptr<rt::BackendBuffer> buf;
    if (rt::Status st = device.allocate(sz.copyBytes, buf); !st.isOk())
      return fail(st.message());
    double up = 1e300, down = 1e300;
    for (int r = 0; r < 3; ++r) {
      auto t0 = Clock::now();
      if (rt::Status st = device.upload(*buf, 0, host.data(), host.size()); !st.isOk())
        return fail(st.message());
      up = std::min(up, microseconds(t0));
      t0 = Clock::now();
      if (rt::Status st = device.download(*buf, 0, host.data(), host.size()); !st.isOk())
        return fail(st.message());
      down = std::min(down, microseconds(t0));
    }
    std::string what = std::to_string(sz.copyBytes >> 20) + " MiB from pageable host "
                       "memory, best of 3" + where;
    out.push_back(make("copy.h2d", double(sz.copyBytes) / up / 1e3, "GB/s",
                       "blocking upload of " + what));
    out.push_back(make("copy.d2h", double(sz.copyBytes) / down / 1e3, "GB/s",
                       "blocking download of " + what));
  }

  // Launch cost: host time per enqueue of an empty kernel, and one launch
  // followed by synchronization.
  {
    constexpr int kBatch = 200, kRounds = 20;
    if (rt::Status st = program.run(*q1, "empty", 1, 1, {}); !st.isOk()) // warm
      return fail(st.message());
    auto t0 = Clock::now();
    for (int i = 0; i < kBatch; ++i)
      if (rt::Status st = program.launch(*q1, "empty", 1, 1, {}); !st.isOk())
        return fail(st.message());
    double enqueue = microseconds(t0) / kBatch;
    if (rt::Status st = program.finish(*q1); !st.isOk())
      return fail(st.message());
    std::vector<double> trip;
    for (int i = 0; i < kRounds; ++i) {
      t0 = Clock::now();
      if (rt::Status st = program.run(*q1, "empty", 1, 1, {}); !st.isOk())
        return fail(st.message());
      trip.push_back(microseconds(t0));
    }
    out.push_back(make("launch.enqueue", enqueue, "us",
                       "host time per enqueue of an empty kernel, mean of " +
                           std::to_string(kBatch) + where));
    out.push_back(make("launch.round-trip", median(trip), "us",
                       "one empty kernel launched and synchronized, median of " +
                           std::to_string(kRounds) + where));
  }

  // Events: record on an idle queue and wait for it; order a second queue
  // after the first through one.
  {
    constexpr int kRounds = 20;
    std::unique_ptr<rt::BackendEvent> e;
    if (rt::Status st = device.createEvent(e); !st.isOk())
      return fail(st.message());
    std::vector<double> rec, cross;
    for (int i = 0; i < kRounds; ++i) {
      auto t0 = Clock::now();
      rt::Status st = q1->record(*e);
      if (st.isOk())
        st = e->synchronize();
      rec.push_back(microseconds(t0));
      t0 = Clock::now();
      if (st.isOk())
        st = q1->record(*e);
      if (st.isOk())
        st = q2->wait(*e);
      if (st.isOk())
        st = program.run(*q2, "empty", 1, 1, {});
      cross.push_back(microseconds(t0));
      if (!st.isOk())
        return fail(st.message());
    }
    out.push_back(make("event.record-sync", median(rec), "us",
                       "an event recorded on an idle queue and waited for, median of " +
                           std::to_string(kRounds) + where));
    out.push_back(make("queue.cross-wait", median(cross), "us",
                       "an event recorded on one queue, waited on by a second, which "
                       "then runs an empty kernel and synchronizes; median of " +
                           std::to_string(kRounds) + where));
  }

  // Peak FLOP/s: 8 chains x K fused multiply-adds x 2 per invocation.
  auto peak = [&](const char *t, size_t bytes) -> Measurement {
    std::string name = std::string("peak.") + t;
    uint32_t n = sz.peakGroups * sz.block;
    ProbeBuffer b;
    std::vector<uint8_t> zero(n * bytes, 0);
    double best = 1e300;
    rt::Status st = makeBuffer(device, zero, b);
    if (st.isOk()) {
      b.count = n;
      st = program.run(*q1, "peak_" + std::string(t), sz.peakGroups, sz.block,
                       {ProbeArg::of(b), ProbeArg::value(int32_t(1))});
    }
    for (int r = 0; st.isOk() && r < 3; ++r) {
      auto t0 = Clock::now();
      st = program.run(*q1, "peak_" + std::string(t), sz.peakGroups, sz.block,
                       {ProbeArg::of(b), ProbeArg::value(sz.peakK)});
      best = std::min(best, microseconds(t0));
    }
    if (!st.isOk())
      return {name, std::nullopt, "GFLOP/s",
              kProbeFailed + std::string("the peak probe failed") + where + ": " + st.message(),
              now()};
    double flops = double(n) * sz.peakK * 8 * 2;
    return make(name.c_str(), flops / best / 1e3, "GFLOP/s",
                std::to_string(sz.peakGroups) + " workgroups of " + std::to_string(sz.block) +
                    ", 8 chains of " + std::to_string(sz.peakK) + " " + t +
                    " multiply-adds (fast-math) each, best of 3 including the launch" +
                    where);
  };
  out.push_back(peak("f32", 4));
  out.push_back(types.f64 ? peak("f64", 8)
                          : Measurement{"peak.f64", std::nullopt, "GFLOP/s",
                                        "the device has no f64 arithmetic", now()});

  // Occupancy: workgroups that run at once, as the largest grid whose run
  // takes no more than 1.5 times that of a single workgroup.
  {
    uint32_t maxGroups = sz.occupancyMaxGroups;
    ProbeBuffer b;
    std::vector<float> zero(size_t(maxGroups) * sz.block, 0);
    if (rt::Status st = makeBuffer(device, zero, b); !st.isOk())
      return fail(st.message());
    auto timed = [&](uint32_t groups, int32_t k, double &us) -> rt::Status {
      us = 1e300;
      for (int r = 0; r < 3; ++r) {
        auto t0 = Clock::now();
        XPU_RETURN_IF_ERROR(program.run(*q1, "chain", groups, sz.block,
                                        {ProbeArg::of(b), ProbeArg::value(k)}));
        us = std::min(us, microseconds(t0));
      }
      return {};
    };
    // Long enough that launch overhead does not hide the step; on a CPU
    // device below lavapipe's loop budget, which would cut the chain short.
    int32_t k = 256, most = device.identity().runsOnHostCpu ? 1 << 15 : 1 << 24;
    double base = 0;
    for (;;) {
      if (rt::Status st = timed(1, k, base); !st.isOk())
        return fail(st.message());
      if (base >= sz.occupancyBaseUs || k > most / 4)
        break;
      k *= 4;
    }
    uint32_t resident = 1;
    std::string seen = "1: " + std::to_string(int(base)) + " us";
    for (uint32_t g = 2; g <= maxGroups; g *= 2) {
      double us;
      if (rt::Status st = timed(g, k, us); !st.isOk())
        return fail(st.message());
      seen += ", " + std::to_string(g) + ": " + std::to_string(int(us)) + " us";
      if (us > 1.5 * base)
        break;
      resident = g;
    }
    out.push_back(make("occupancy.workgroups", resident, "workgroups",
                       "workgroups of " + std::to_string(sz.block) + " running a chain of " +
                           std::to_string(k) + " dependent multiply-adds; best of 3 per "
                           "grid (" + seen + "); the largest grid within 1.5x of one "
                           "workgroup's time" + where));
  }
  return out;
}

} // namespace xpu::cal
