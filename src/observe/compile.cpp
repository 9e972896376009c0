// Compiling as observers see it: the stages and cache lookups of one
// xpu_module_create, collected for the module's report, the trace and the
// XPU_LOG=info log ("compile:", "cache:", "module:" lines).
#include "observe/observe.h"
#include "observe/sinks.h"
#include "runtime/compiler.h"
#include "runtime/log.h"

#define XXH_INLINE_ALL
#include "xxhash.h"

#include <cstdio>

namespace xpu::observe {

namespace {
thread_local BuildScope *current = nullptr;
thread_local ModuleRecord *currentRecord = nullptr;

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string hash128(std::string_view text) {
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)h.high64,
                (unsigned long long)h.low64);
  return buf;
}

bool logs(rt::LogLevel level) {
  const rt::Settings *s = nullptr;
  return rt::settings(s).isOk() && s->log >= level;
}
} // namespace

std::string textHash(std::string_view text) { return hash128(text); }

BuildScope::BuildScope(const rt::CompileRequest &request, const rt::Device &device)
    : BuildScope(request, device.label()) {}

BuildScope::BuildScope(const rt::CompileRequest &request, std::string label)
    : record_(std::make_shared<ModuleRecord>()), outer_(current), startUs_(nowUs()),
      deviceLabel_(std::move(label)) {
  record_->sourceName = request.sourceName;
  record_->sourceHash = hash128(request.text);
  record_->options = request.options;
  record_->text = std::string(request.text);
  record_->explicitDevice = request.explicitDevice;
  record_->device = request.device;
  record_->runtimeChecks = request.runtimeChecks;
  current = this;
  currentRecord = record_.get();
}

BuildScope::~BuildScope() {
  current = outer_;
  currentRecord = outer_ ? outer_->record_.get() : nullptr;
}

std::shared_ptr<ModuleRecord> BuildScope::finish(bool ok) {
  double endUs = nowUs();
  record_->totalMs = (endUs - startUs_) / 1e3;
  trace::complete("module " + record_->sourceName, "compile", startUs_, endUs - startUs_,
                  trace::kHostPid, trace::hostThread(),
                  llvm::json::Object{{"device", deviceLabel_},
                                     {"origin", record_->origin},
                                     {"source_hash", record_->sourceHash},
                                     {"ok", ok}});
  if (logs(rt::LogLevel::info)) {
    std::string key;
    for (const CacheLookup &l : record_->lookups)
      if (l.hit || &l == &record_->lookups.back())
        key = l.key;
    rt::log(rt::LogLevel::info,
            "module: source=" + record_->sourceName + " device=\"" + deviceLabel_ +
                "\" origin=" + (ok ? record_->origin : std::string("failed")) +
                " ms=" + ms(record_->totalMs) + (key.empty() ? "" : " key=" + key));
  }
  return record_;
}

thread_local int stageDepth = 0;

Stage::Stage(const char *name)
    : name_(name), startUs_(nowUs()), outermost_(stageDepth++ == 0) {}

void Stage::next(const char *name) {
  end();
  ++stageDepth;
  name_ = name;
  startUs_ = nowUs();
}

void Stage::end() {
  if (!name_)
    return;
  --stageDepth;
  double endUs = nowUs();
  double took = (endUs - startUs_) / 1e3;
  if (currentRecord && outermost_)
    currentRecord->stages.push_back({name_, startUs_, took});
  trace::complete(name_, "compile", startUs_, endUs - startUs_, trace::kHostPid,
                  trace::hostThread());
  if (logs(rt::LogLevel::info))
    rt::log(rt::LogLevel::info,
            std::string("compile: stage=") + name_ + " ms=" + ms(took) + " source=" +
                (currentRecord ? currentRecord->sourceName : std::string("(internal)")));
  name_ = nullptr;
}

void cacheLookup(const char *level, bool hit, const std::string &keyHex) {
  if (currentRecord)
    currentRecord->lookups.push_back({level, hit, keyHex});
  double t = nowUs();
  trace::complete(std::string("cache ") + level + (hit ? " hit" : " miss"), "cache", t, 0,
                  trace::kHostPid, trace::hostThread(),
                  llvm::json::Object{{"level", level}, {"hit", hit}, {"key", keyHex}});
  if (logs(rt::LogLevel::info))
    rt::log(rt::LogLevel::info, std::string("cache: level=") + level +
                                    (hit ? " hit" : " miss") + " key=" + keyHex);
}

void origin(const char *where) {
  if (currentRecord)
    currentRecord->origin = where;
}

} // namespace xpu::observe
