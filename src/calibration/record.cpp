// Calibration records and their JSON form; see record.h.
#include "calibration/record.h"

#include "cache/key.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstdio>
#include <ctime>

namespace xpu::cal {

namespace json = llvm::json;

namespace {

constexpr const char *kRecordFormat = "xpujit-calibration-1";
constexpr const char *kSnapshotFormat = "xpujit-calibration-snapshot-1";

json::Value keyJSON(const Key &k) {
  return json::Object{{"subject", k.subject},
                      {"device", k.device},
                      {"driver", k.driver},
                      {"compiler", k.compiler},
                      {"power_mode", k.powerMode ? json::Value(*k.powerMode)
                                                 : json::Value(nullptr)}};
}

json::Value measurementJSON(const Measurement &m) {
  return json::Object{{"name", m.name},
                      {"value", m.value ? json::Value(*m.value) : json::Value(nullptr)},
                      {"unit", m.unit},
                      {"evidence", m.evidence},
                      {"date", m.date}};
}

/// What the checksum covers: key and measurements, printed compactly (the
/// printer sorts object keys, so the text is canonical).
std::string contents(const Record &r) {
  json::Array ms;
  for (const Measurement &m : r.measurements)
    ms.push_back(measurementJSON(m));
  json::Value v = json::Object{{"key", keyJSON(r.key)}, {"measurements", std::move(ms)}};
  return llvm::formatv("{0}", v).str();
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
  return buf;
}

std::string checksumOf(const Record &r) {
  std::string text = contents(r);
  return hex64(cache::checksum(text.data(), text.size()));
}

json::Value recordJSON(const Record &r) {
  json::Array ms;
  for (const Measurement &m : r.measurements)
    ms.push_back(measurementJSON(m));
  return json::Object{{"format", kRecordFormat},
                      {"key", keyJSON(r.key)},
                      {"measurements", std::move(ms)},
                      {"checksum", checksumOf(r)}};
}

std::string str(const json::Object &o, llvm::StringRef field, std::string &problem) {
  if (auto s = o.getString(field))
    return s->str();
  if (problem.empty())
    problem = "field '" + field.str() + "' is missing or not a string";
  return "";
}

std::string fromJSON(const json::Value &v, Record &out) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return "a record is not a JSON object";
  std::string problem;
  if (str(*o, "format", problem) != kRecordFormat)
    return problem.empty() ? "format is not " + std::string(kRecordFormat) : problem;
  const json::Object *k = o->getObject("key");
  const json::Array *ms = o->getArray("measurements");
  if (!k || !ms)
    return "the key or the measurements are missing";
  Record r;
  r.key.subject = str(*k, "subject", problem);
  r.key.device = str(*k, "device", problem);
  r.key.driver = str(*k, "driver", problem);
  r.key.compiler = str(*k, "compiler", problem);
  if (const json::Value *pm = k->get("power_mode"); pm && pm->getAsString())
    r.key.powerMode = pm->getAsString()->str();
  for (const json::Value &mv : *ms) {
    const json::Object *m = mv.getAsObject();
    if (!m)
      return "a measurement is not a JSON object";
    Measurement x;
    x.name = str(*m, "name", problem);
    if (auto d = m->getNumber("value"))
      x.value = *d;
    x.unit = str(*m, "unit", problem);
    x.evidence = str(*m, "evidence", problem);
    x.date = str(*m, "date", problem);
    r.measurements.push_back(std::move(x));
  }
  if (!problem.empty())
    return problem;
  std::string stored = str(*o, "checksum", problem);
  if (!problem.empty())
    return problem;
  if (stored != checksumOf(r))
    return "the checksum does not match the contents (stored " + stored + ", computed " +
           checksumOf(r) + ")";
  out = std::move(r);
  return "";
}

} // namespace

std::string Key::text() const {
  return "subject=" + subject + "; device=" + device + "; driver=" + driver +
         "; compiler=" + compiler +
         "; power mode=" + (powerMode ? *powerMode : std::string("(absent: no query)"));
}

std::string Key::digest() const {
  std::string t = text();
  return hex64(cache::checksum(t.data(), t.size()));
}

const Measurement *Record::find(const std::string &name) const {
  for (const Measurement &m : measurements)
    if (m.name == name)
      return &m;
  return nullptr;
}

void Record::put(Measurement m) {
  for (Measurement &old : measurements)
    if (old.name == m.name) {
      old = std::move(m);
      return;
    }
  measurements.push_back(std::move(m));
}

std::string encode(const Record &record) {
  return llvm::formatv("{0:2}", recordJSON(record)).str() + "\n";
}

std::string decode(const std::string &text, Record &out) {
  llvm::Expected<json::Value> v = json::parse(text);
  if (!v)
    return "not JSON: " + llvm::toString(v.takeError());
  return fromJSON(*v, out);
}

std::string encodeSnapshot(const std::vector<Record> &records) {
  json::Array rs;
  for (const Record &r : records)
    rs.push_back(recordJSON(r));
  json::Value v = json::Object{{"format", kSnapshotFormat}, {"records", std::move(rs)}};
  return llvm::formatv("{0:2}", v).str() + "\n";
}

std::string decodeSnapshot(const std::string &text, std::vector<Record> &out,
                           unsigned &rejected) {
  llvm::Expected<json::Value> v = json::parse(text);
  if (!v)
    return "not JSON: " + llvm::toString(v.takeError());
  const json::Object *o = v->getAsObject();
  if (!o || o->getString("format") != llvm::StringRef(kSnapshotFormat))
    return std::string("not a calibration snapshot (format ") + kSnapshotFormat + ")";
  const json::Array *rs = o->getArray("records");
  if (!rs)
    return "the snapshot has no records";
  for (const json::Value &rv : *rs) {
    Record r;
    if (fromJSON(rv, r).empty())
      out.push_back(std::move(r));
    else
      ++rejected;
  }
  return "";
}

std::string now() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

} // namespace xpu::cal
