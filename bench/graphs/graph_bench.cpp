// Chains of launches replayed (issue 17), in one run on each `--device`:
// a chain of `--chain` saxpy launches over `--n` floats and one
// synchronization, timed on the host (median of `--iterations` chains) as
//   raw        xpu_launch one by one (automatic capture off)
//   automatic  xpu_launch with automatic capture (after its warm-up)
//   graph      an explicit xpujit graph (xpu_graph_launch)
//   hand       on CUDA, a CUDA graph made by hand with the driver API from
//              the same cubin (cuda_reference.h), and the same launches
//              made raw with cuLaunchKernel
// and the host cost per kernel of 100 empty kernels: recording them into a
// graph, replaying the graph, holding them for automatic capture, and
// launching them raw. With a CUDA and a Vulkan device, Vulkan's graph
// replay per kernel is set against the CUDA backend's. Prints markdown with
// the ratios and the targets (--out) and every value as
// "device<TAB>key<TAB>value" lines (--tsv). Exits 1 when a chain's result
// is wrong (every element is checked) or the CUDA reference cannot run.
//
//   xpu-bench-graphs [--device cuda:0]... [--chain 100] [--n 1048576]
//                    [--iterations 50] [--out FILE] [--tsv FILE]
#include "../bench_util.h"
#include "cuda_reference.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// bench::saxpyText(0) (kernel `saxpy0`) and an empty kernel.
const std::string kKernels = bench::saxpyText(0) + "xpu.kernel @empty() {\n  xpu.return\n}\n";

constexpr int kWarmup = 5; // automatic capture instantiates on a chain's second run
constexpr int kEmpty = 100;

double usSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

struct Options {
  int chain = 100, iterations = 50;
  uint32_t n = 1u << 20;
};

struct Row {
  std::string key, what;
  double us; ///< per chain, or per kernel for host costs
};

struct Measured {
  std::string spec, name;
  xpu_backend backend = XPU_BACKEND_CPU;
  std::vector<Row> chains, host;
  size_t wrong = 0;
  float expected = 0;
  const Row *find(const std::string &key) const {
    for (const std::vector<Row> *rows : {&chains, &host})
      for (const Row &r : *rows)
        if (r.key == key)
          return &r;
    return nullptr;
  }
};

[[noreturn]] void failReference(const std::string &why) {
  std::fprintf(stderr, "xpu-bench-graphs: the CUDA reference cannot run: %s\n", why.c_str());
  std::exit(1);
}

Measured measure(xpu_context ctx, const std::string &spec, const Options &o) {
  Measured m;
  m.spec = spec;
  xpu_device dev = bench::findDevice(ctx, spec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  m.backend = info.backend;
  m.name = info.name;
  bool cuda = info.backend == XPU_BACKEND_CUDA;
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, kKernels.data(), kKernels.size(), nullptr, &mod,
                             nullptr));
  xpu_kernel saxpy, empty;
  BENCH_OK(xpu_module_kernel(mod, "saxpy0", &saxpy));
  BENCH_OK(xpu_module_kernel(mod, "empty", &empty));
  xpu_stream raw, automatic, graphs;
  BENCH_OK(xpu_stream_create(dev, &raw));
  BENCH_OK(xpu_stream_create(dev, &automatic));
  BENCH_OK(xpu_stream_create(dev, &graphs));
  BENCH_OK(xpu_stream_set_auto_capture(raw, 0));
  BENCH_OK(xpu_stream_set_auto_capture(graphs, 0));
  const uint32_t n = o.n;
  const float a = 1.0001f;
  std::vector<float> ones(n, 1.0f);
  xpu_buffer y, x;
  BENCH_OK(xpu_buffer_create(dev, size_t(n) * 4, &y));
  BENCH_OK(xpu_buffer_create(dev, size_t(n) * 4, &x));
  BENCH_OK(xpu_buffer_upload(x, 0, ones.data(), size_t(n) * 4));
  BENCH_OK(xpu_buffer_upload(y, 0, ones.data(), size_t(n) * 4));
  xpu_arg args[4] = {xpu_arg_buffer(y), xpu_arg_buffer(x), xpu_arg_f32(a),
                     xpu_arg_i32(int32_t(n))};
  uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  uint32_t one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};

  auto chainOn = [&](xpu_stream s) {
    for (int i = 0; i < o.chain; ++i)
      BENCH_OK(xpu_launch(saxpy, s, grid, block, args, 4));
  };
  auto emptiesOn = [&](xpu_stream s) {
    for (int i = 0; i < kEmpty; ++i)
      BENCH_OK(xpu_launch(empty, s, one, warp, nullptr, 0));
  };
  auto record = [&](const std::function<void()> &launches) {
    xpu_graph g;
    xpu_graph_exec e;
    BENCH_OK(xpu_stream_begin_capture(graphs));
    launches();
    BENCH_OK(xpu_stream_end_capture(graphs, &g));
    BENCH_OK(xpu_graph_instantiate(g, &e));
    xpu_graph_release(g);
    return e;
  };
  xpu_graph_exec saxpyGraph = record([&] { chainOn(graphs); });
  xpu_graph_exec emptyGraph = record([&] { emptiesOn(graphs); });

  std::unique_ptr<graphbench::CudaReference> ref;
  void *handSaxpy = nullptr, *handEmpty = nullptr;
  uint64_t ya = 0, xa = 0;
  if (cuda) {
    const void *image;
    size_t size;
    const char *format;
    BENCH_OK(xpu_module_binary(mod, &image, &size, &format));
    std::string why;
    // cuda:N is the driver's device N.
    int ordinal = spec.find(':') == std::string::npos ? 0 : std::atoi(spec.c_str() + 5);
    ref = graphbench::CudaReference::create(ordinal, image, why);
    if (!ref)
      failReference(why);
    BENCH_OK(xpu_buffer_address(y, &ya));
    BENCH_OK(xpu_buffer_address(x, &xa));
    handSaxpy = ref->graph(true, o.chain, ya, xa, a, n);
    handEmpty = ref->graph(false, kEmpty, 0, 0, 0, 0);
    if (!handSaxpy || !handEmpty)
      failReference(ref->error());
  }
  auto refOk = [&](bool ok) {
    if (!ok)
      failReference(ref->error());
  };

  // Chains. The sides alternate within each iteration, so drift hits all.
  struct Side {
    std::string key, what;
    std::function<void()> run;
  };
  std::vector<Side> sides = {
      {"raw", "xpu_launch one by one", [&] {
         chainOn(raw);
         BENCH_OK(xpu_stream_synchronize(raw));
       }},
      {"automatic", "xpu_launch, automatic capture", [&] {
         chainOn(automatic);
         BENCH_OK(xpu_stream_synchronize(automatic));
       }},
      {"graph", "explicit graph (xpu_graph_launch)", [&] {
         BENCH_OK(xpu_graph_launch(saxpyGraph, graphs));
         BENCH_OK(xpu_stream_synchronize(graphs));
       }},
  };
  if (cuda) {
    sides.push_back({"hand", "CUDA graph by hand (cuGraphLaunch)", [&] {
                       refOk(ref->replay(handSaxpy) && ref->sync());
                     }});
    sides.push_back({"culaunch", "cuLaunchKernel one by one", [&] {
                       refOk(ref->launch(true, o.chain, ya, xa, a, n) && ref->sync());
                     }});
  }
  std::vector<std::vector<double>> times(sides.size());
  for (int it = 0; it < o.iterations + kWarmup; ++it)
    for (size_t s = 0; s < sides.size(); ++s) {
      auto t0 = Clock::now();
      sides[s].run();
      if (it >= kWarmup)
        times[s].push_back(usSince(t0));
    }
  for (size_t s = 0; s < sides.size(); ++s)
    m.chains.push_back({sides[s].key, sides[s].what, bench::median(times[s])});

  // Host cost per kernel of 100 empty kernels: the time of the calls that
  // enqueue them, not of their running.
  std::map<std::string, std::vector<double>> host;
  for (int it = 0; it < o.iterations + kWarmup; ++it) {
    std::map<std::string, double> t;
    auto t0 = Clock::now();
    xpu_graph g;
    BENCH_OK(xpu_stream_begin_capture(graphs));
    emptiesOn(graphs);
    BENCH_OK(xpu_stream_end_capture(graphs, &g));
    t["record"] = usSince(t0);
    xpu_graph_release(g);
    t0 = Clock::now();
    BENCH_OK(xpu_graph_launch(emptyGraph, graphs));
    t["replay"] = usSince(t0);
    BENCH_OK(xpu_stream_synchronize(graphs));
    t0 = Clock::now();
    emptiesOn(automatic);
    t["held"] = usSince(t0);
    BENCH_OK(xpu_stream_synchronize(automatic));
    t0 = Clock::now();
    emptiesOn(raw);
    t["launch"] = usSince(t0);
    BENCH_OK(xpu_stream_synchronize(raw));
    if (cuda) {
      t0 = Clock::now();
      refOk(ref->replay(handEmpty));
      t["hand_replay"] = usSince(t0);
      refOk(ref->sync());
      t0 = Clock::now();
      refOk(ref->launch(false, kEmpty, 0, 0, 0, 0));
      t["culaunch_empty"] = usSince(t0);
      refOk(ref->sync());
    }
    if (it >= kWarmup)
      for (auto &[key, us] : t)
        host[key].push_back(us / kEmpty);
  }
  const std::pair<const char *, const char *> hostRows[] = {
      {"record", "recording into a graph (xpu_launch while capturing)"},
      {"replay", "replaying the graph (xpu_graph_launch / 100)"},
      {"held", "automatic capture (xpu_launch, held)"},
      {"launch", "xpu_launch one by one"},
      {"hand_replay", "CUDA graph by hand (cuGraphLaunch / 100)"},
      {"culaunch_empty", "cuLaunchKernel one by one"},
  };
  for (auto [key, what] : hostRows)
    if (host.count(key))
      m.host.push_back({std::string("host_") + key, what, bench::median(host[key])});

  // Every element of the chains' result, so nothing above was for show:
  // each saxpy added a * 1 to y, in float, in order.
  std::vector<float> result(n);
  BENCH_OK(xpu_buffer_download(y, 0, result.data(), size_t(n) * 4));
  float expected = 1.0f;
  for (int64_t t = 0; t < int64_t(o.iterations + kWarmup) * o.chain * int64_t(sides.size());
       ++t)
    expected = a * 1.0f + expected;
  for (float v : result)
    m.wrong += v != expected;
  m.expected = expected;
  xpu_graph_exec_release(saxpyGraph);
  xpu_graph_exec_release(emptyGraph);
  ref.reset();
  return m;
}

std::string fmt(const char *format, double v) {
  char s[64];
  std::snprintf(s, sizeof s, format, v);
  return s;
}

std::string table(const Measured &m, const Options &o) {
  const Row *reference = m.find("hand") ? m.find("hand") : m.find("raw");
  std::string t = "### " + m.spec + " (" + m.name + ")\n\n" + "Chain of " +
                  std::to_string(o.chain) + " saxpy(" + std::to_string(o.n) +
                  ") + one sync, median of " + std::to_string(o.iterations) +
                  " chains; ratio to " + reference->what + ".\n\n" +
                  "| chain | µs per chain | µs per kernel | ratio |\n|---|---:|---:|---:|\n";
  for (const Row &r : m.chains)
    t += "| " + r.what + " | " + fmt("%.1f", r.us) + " | " + fmt("%.3f", r.us / o.chain) +
         " | " + fmt("%.3f", r.us / reference->us) + " |\n";
  t += "\nHost cost per kernel, 100 empty kernels:\n\n| what | µs per kernel |\n|---|---:|\n";
  for (const Row &r : m.host)
    t += "| " + r.what + " | " + fmt("%.3f", r.us) + " |\n";
  t += "\nCheck: " + std::to_string(m.wrong) + " of " + std::to_string(o.n) +
       " elements differ from the host's " + fmt("%.6g", m.expected) + ".\n\n";
  return t;
}

/// The targets, from what this run measured.
std::string targets(const std::vector<Measured> &all, const Options &o) {
  std::string t = "### Targets (issue 17)\n\n| measure | value | target | met |\n"
                  "|---|---:|---:|---|\n";
  auto row = [&](const std::string &what, double v, const char *unit, const char *target,
                 bool met) {
    t += "| " + what + " | " + fmt(v == double(int64_t(v)) ? "%.0f" : "%.3f", v) + unit +
         " | " + target + " | " + (met ? "yes" : "NO") + " |\n";
  };
  const Measured *cuda = nullptr, *vulkan = nullptr;
  for (const Measured &m : all) {
    if (m.backend == XPU_BACKEND_CUDA && !cuda)
      cuda = &m;
    if (m.backend == XPU_BACKEND_VULKAN && !vulkan)
      vulkan = &m;
  }
  if (cuda) {
    double hand = cuda->find("hand")->us;
    double g = cuda->find("graph")->us / hand, au = cuda->find("automatic")->us / hand;
    row("explicit graph / CUDA graph by hand", g, "", "<= 1.05", g <= 1.05);
    row("automatic capture / CUDA graph by hand", au, "", "<= 1.05", au <= 1.05);
    row("xpu_launch one by one / CUDA graph by hand", cuda->find("raw")->us / hand, "",
        "(1.36 before)", true);
    double replay = cuda->find("host_replay")->us;
    row("host cost per kernel, replaying a graph of 100 empty kernels", replay, " µs",
        "<= 1 µs", replay <= 1.0);
  }
  if (cuda && vulkan) {
    double vk = vulkan->find("graph")->us / o.chain, cu = cuda->find("raw")->us / o.chain;
    row("Vulkan graph replay per kernel / CUDA xpu_launch per kernel", vk / cu, "", "<= 1",
        vk <= cu);
    double cg = cuda->find("graph")->us / o.chain;
    row("Vulkan graph replay per kernel / CUDA graph replay per kernel", vk / cg, "",
        "(for the record)", true);
  }
  for (const Measured &m : all)
    row("wrong elements, " + m.spec, double(m.wrong), "", "0", m.wrong == 0);
  return t;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> devices;
  std::string outPath, tsvPath;
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      devices.push_back(argv[++i]);
    else if (a == "--chain" && i + 1 < argc)
      o.chain = std::atoi(argv[++i]);
    else if (a == "--n" && i + 1 < argc)
      o.n = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--iterations" && i + 1 < argc)
      o.iterations = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      outPath = argv[++i];
    else if (a == "--tsv" && i + 1 < argc)
      tsvPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-graphs [--device cuda:0]... [--chain 100] "
                           "[--n 1048576] [--iterations 50] [--out FILE] [--tsv FILE]\n");
      return 2;
    }
  }
  if (o.chain < 1 || o.iterations < 1 || o.n < 1) {
    std::fprintf(stderr, "xpu-bench-graphs: --chain, --iterations and --n must be >= 1\n");
    return 2;
  }
  if (devices.empty())
    devices.push_back("");
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  std::ifstream loadavg("/proc/loadavg");
  std::string load;
  std::getline(loadavg, load);
  std::vector<Measured> all;
  for (const std::string &spec : devices)
    all.push_back(measure(ctx, spec, o));

  xpu_device first = bench::findDevice(ctx, devices[0]);
  std::string text =
      bench::header("Launch chains replayed: graphs and automatic capture", first, argc, argv);
  text += "- load before: " + load + "\n\n";
  for (const Measured &m : all)
    text += table(m, o);
  text += targets(all, o);
  bench::write(outPath, text);
  if (!tsvPath.empty()) {
    std::string tsv;
    for (const Measured &m : all) {
      for (const std::vector<Row> *rows : {&m.chains, &m.host})
        for (const Row &r : *rows)
          tsv += m.spec + "\t" + r.key + "\t" + fmt("%.4f", r.us) + "\n";
      tsv += m.spec + "\twrong\t" + std::to_string(m.wrong) + "\n";
    }
    std::ofstream(tsvPath) << tsv;
  }
  size_t wrong = 0;
  for (const Measured &m : all)
    wrong += m.wrong;
  xpu_context_release(ctx);
  return wrong ? 1 : 0;
}
