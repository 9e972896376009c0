// C API: calibration records, snapshots, the host's store, counters.
#include "calibration/device_calibration.h"
#include "calibration/registry.h"
#include "runtime/objects.h"

#include <algorithm>
#include <cstring>
#include <fstream>

using namespace xpu::rt;
namespace cal = xpu::cal;

namespace {

/// The host's callbacks as a calibration store.
class HostStore : public cal::Store {
public:
  explicit HostStore(const xpu_calibration_store &s) : s_(s) {}
  std::string describe() const override { return "the host's store"; }
  bool writable() const override { return s_.store && (!s_.writable || s_.writable(s_.user)); }
  Status load(const cal::Key &key, std::optional<std::string> &text) override {
    text.reset();
    const char *data = nullptr;
    size_t size = 0;
    int rc = s_.load ? s_.load(s_.user, key.digest().c_str(), &data, &size) : 1;
    if (rc == 1)
      return {};
    if (rc != 0 || (!data && size))
      return {XPU_ERROR_BACKEND, "load returned " + std::to_string(rc)};
    text = std::string(data ? data : "", size);
    return {};
  }
  Status store(const cal::Key &key, const std::string &text) override {
    int rc = s_.store(s_.user, key.digest().c_str(), text.data(), text.size());
    if (rc != 0)
      return {XPU_ERROR_BACKEND, "store returned " + std::to_string(rc)};
    return {};
  }

private:
  xpu_calibration_store s_;
};

/// Runs `f`, turning a thrown allocation failure into a status.
template <typename F> xpu_status guarded(F f) {
  try {
    return f();
  } catch (const std::bad_alloc &) {
    return finish({XPU_ERROR_OUT_OF_MEMORY, "out of host memory while calibrating"});
  }
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_device_calibration_count(xpu_device device, xpu_calibration_set set,
                                                uint32_t *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_calibration_count: `out` is NULL"));
  if (set != XPU_CALIBRATION_CORRECTNESS && set != XPU_CALIBRATION_ALL)
    return finish(invalidArgument("xpu_device_calibration_count: `set` is not an "
                                  "xpu_calibration_set"));
  return guarded([&] {
    cal::DeviceCalibration &c = dev->device->calibration();
    auto record = set == XPU_CALIBRATION_ALL ? c.complete() : c.correctness();
    *out = uint32_t(record->measurements.size());
    return XPU_SUCCESS;
  });
}

XPU_API xpu_status xpu_device_calibration_record(xpu_device device, uint32_t index,
                                                 xpu_calibration_record *out) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_device_calibration_record: `out` is NULL"));
  if (out->struct_size < sizeof(xpu_calibration_record))
    return finish(invalidArgument("xpu_calibration_record.struct_size must be "
                                  "sizeof(xpu_calibration_record)"));
  return guarded([&] {
    cal::DeviceCalibration &c = dev->device->calibration();
    auto record = c.latest();
    if (index >= record->measurements.size())
      return finish({XPU_ERROR_NOT_FOUND,
                     "calibration record index " + std::to_string(index) +
                         " out of range (" + std::to_string(record->measurements.size()) +
                         " facts)"});
    const cal::Measurement &m = record->measurements[index];
    out->name = m.name.c_str();
    out->has_value = m.value.has_value();
    out->value = m.value.value_or(0);
    out->unit = m.unit.c_str();
    out->evidence = m.evidence.c_str();
    out->date = m.date.c_str();
    out->key = c.keyText().c_str();
    return XPU_SUCCESS;
  });
}

XPU_API xpu_status xpu_device_calibrate(xpu_device device) {
  std::shared_ptr<DeviceObj> dev;
  if (Status st = resolve(device, dev); !st.isOk())
    return finish(st);
  return guarded([&] {
    (void)dev->device->calibration().recalibrate();
    return XPU_SUCCESS;
  });
}

XPU_API xpu_status xpu_calibration_snapshot_write(const xpu_device *devices, uint32_t count,
                                                  const char *path) {
  if (!path || !*path)
    return finish(invalidArgument("xpu_calibration_snapshot_write: `path` is empty"));
  if (count && !devices)
    return finish(invalidArgument("xpu_calibration_snapshot_write: `devices` is NULL"));
  std::vector<std::shared_ptr<DeviceObj>> devs(count);
  for (uint32_t i = 0; i < count; ++i)
    if (Status st = resolve(devices[i], devs[i]); !st.isOk())
      return finish(st);
  return guarded([&] {
    std::vector<cal::Record> records;
    for (auto &d : devs)
      records.push_back(*d->device->calibration().latest());
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << cal::encodeSnapshot(records);
    f.close();
    if (!f)
      return finish({XPU_ERROR_BACKEND,
                     std::string("cannot write the calibration snapshot ") + path});
    return XPU_SUCCESS;
  });
}

XPU_API xpu_status xpu_calibration_store_set(const xpu_calibration_store *store) {
  std::unique_ptr<cal::Store> replacement;
  if (store) {
    if (store->struct_size < sizeof(xpu_calibration_store))
      return finish(invalidArgument("xpu_calibration_store.struct_size must be "
                                    "sizeof(xpu_calibration_store)"));
    if (!store->load || !store->store)
      return finish(invalidArgument("xpu_calibration_store: `load` and `store` are "
                                    "required"));
    replacement = std::make_unique<HostStore>(*store);
  } else {
    std::string note;
    replacement = cal::defaultStore(note);
  }
  return finish(cal::Registry::get().replace(std::move(replacement)));
}

XPU_API xpu_status xpu_calibration_stats_get(xpu_calibration_stats *out) {
  if (!out)
    return finish(invalidArgument("xpu_calibration_stats_get: `out` is NULL"));
  if (out->struct_size < sizeof(uint32_t))
    return finish(invalidArgument("xpu_calibration_stats.struct_size is not set"));
  static thread_local std::string described;
  cal::Registry &r = cal::Registry::get();
  described = r.describe();
  xpu_calibration_stats s{};
  s.struct_size = out->struct_size;
  s.store = described.c_str();
  s.writable = r.writable();
  s.probes = r.stats().probes;
  s.loaded = r.stats().loaded;
  s.stored = r.stats().stored;
  s.rejected = r.stats().rejected;
  s.failures = r.stats().failures;
  std::memcpy(out, &s, std::min<size_t>(out->struct_size, sizeof s));
  return XPU_SUCCESS;
}

} // extern "C"
