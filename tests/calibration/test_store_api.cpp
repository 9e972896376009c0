// The calibration store through the C API, one scenario per process (the
// store is chosen once per process): `host` replaces the store with one of
// the host's, which then serves a second context without probes; `failing`
// gives a store whose calls fail, which is disabled once while everything
// goes on from memory; `late` replaces it after the first record was read.
//
//   calibration_api host|failing|late
#include "xpu_c.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace {

int failures = 0;
#define EXPECT(cond)                                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::printf("FAILED: %s (line %d): %s\n", #cond, __LINE__,                     \
                  xpu_last_error_message());                                         \
      ++failures;                                                                    \
    }                                                                                \
  } while (0)

/// A store in memory, counting its calls.
struct HostStore {
  std::map<std::string, std::string> records;
  std::string last;
  int loads = 0, stores = 0;
  bool fail = false;
};

int load(void *user, const char *key, const char **data, size_t *size) {
  auto *s = static_cast<HostStore *>(user);
  s->loads++;
  if (s->fail)
    return -5;
  auto it = s->records.find(key);
  if (it == s->records.end())
    return 1;
  s->last = it->second;
  *data = s->last.data();
  *size = s->last.size();
  return 0;
}

int store(void *user, const char *key, const char *data, size_t size) {
  auto *s = static_cast<HostStore *>(user);
  s->stores++;
  if (s->fail)
    return -7;
  s->records[key] = std::string(data, size);
  return 0;
}

int writable(void *) { return 1; }

xpu_calibration_stats stats() {
  xpu_calibration_stats s = {sizeof s};
  EXPECT(xpu_calibration_stats_get(&s) == XPU_SUCCESS);
  return s;
}

/// Creates a context and reads the CPU device's correctness facts.
void calibrateCpu(uint32_t *facts) {
  xpu_context ctx;
  EXPECT(xpu_context_create(nullptr, &ctx) == XPU_SUCCESS);
  uint32_t n = 0;
  EXPECT(xpu_device_count(ctx, &n) == XPU_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    EXPECT(xpu_device_get(ctx, i, &d) == XPU_SUCCESS);
    EXPECT(xpu_device_info_get(d, &info) == XPU_SUCCESS);
    if (info.backend == XPU_BACKEND_CPU)
      EXPECT(xpu_device_calibration_count(d, XPU_CALIBRATION_CORRECTNESS, facts) ==
             XPU_SUCCESS);
  }
  xpu_context_release(ctx);
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  HostStore host;
  xpu_calibration_store s = {sizeof s, &host, load, store, writable};
  uint32_t facts = 0;

  if (mode == "host") {
    EXPECT(xpu_calibration_store_set(&s) == XPU_SUCCESS);
    calibrateCpu(&facts);
    xpu_calibration_stats one = stats();
    EXPECT(facts > 0);
    EXPECT(one.probes > 0);
    EXPECT(host.stores == 1);
    EXPECT(host.records.size() == 1);
    EXPECT(std::strstr(one.store, "the host's store") != nullptr);
    // A second context (a new device object) is served by the host's store.
    calibrateCpu(&facts);
    xpu_calibration_stats two = stats();
    EXPECT(two.probes == one.probes);
    EXPECT(two.loaded == one.loaded + 1);
    // A record the host damaged is ignored and measured again.
    std::string &text = host.records.begin()->second;
    size_t at = text.find("\"value\": ");
    EXPECT(at != std::string::npos);
    text[at + 9] = text[at + 9] == '1' ? '0' : '1';
    calibrateCpu(&facts);
    xpu_calibration_stats three = stats();
    EXPECT(three.rejected == two.rejected + 1);
    EXPECT(three.probes > two.probes);
    EXPECT(host.stores == 2);
  } else if (mode == "failing") {
    host.fail = true;
    EXPECT(xpu_calibration_store_set(&s) == XPU_SUCCESS);
    calibrateCpu(&facts);
    calibrateCpu(&facts);
    xpu_calibration_stats st = stats();
    EXPECT(facts > 0);
    EXPECT(st.failures == 1); // disabled after the first failure
    EXPECT(host.loads == 1);
    EXPECT(host.stores == 0);
    EXPECT(std::strstr(st.store, "disabled") != nullptr);
  } else if (mode == "late") {
    calibrateCpu(&facts);
    EXPECT(xpu_calibration_store_set(&s) == XPU_ERROR_BUSY);
    EXPECT(std::strstr(xpu_last_error_message(), "before the first calibration record") !=
           nullptr);
    EXPECT(xpu_calibration_store_set(nullptr) == XPU_ERROR_BUSY);
    xpu_calibration_store bad = {sizeof bad, &host, nullptr, store, writable};
    EXPECT(xpu_calibration_store_set(&bad) == XPU_ERROR_INVALID_ARGUMENT);
  } else {
    std::fprintf(stderr, "usage: calibration_api host|failing|late\n");
    return 2;
  }
  std::printf("calibration_api %s: %s\n", mode.c_str(), failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
