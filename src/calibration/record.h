// A calibration record: measured facts about one subject (a device, or a
// kernel by its code hash) under one key, and its on-disk form (JSON with a
// checksum). Spec §17.8 "Calibration": records are keyed by subject,
// device, driver, compiler and power mode; a record whose key differs from
// the live one, or whose checksum fails, is ignored; a fact that cannot be
// measured is recorded as absent, never borrowed from another device.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace xpu::cal {

/// What a record is about and under which conditions it was measured.
struct Key {
  std::string subject;  ///< "device", or "kernel:<code hash>"
  std::string device;   ///< backend, name, vendor, architecture, UUID
  std::string driver;   ///< the driver (and its version) that ran the probes
  std::string compiler; ///< xpujit build, pipeline, LLVM, device toolchain
  /// The power mode where a query reports one; absent (never guessed)
  /// where none does.
  std::optional<std::string> powerMode;

  bool operator==(const Key &o) const = default;
  /// One line naming every field, for messages and the C API.
  std::string text() const;
  /// 16 hex digits (XXH3-64 of text()): the record's file name in a store.
  std::string digest() const;
};

/// One measured fact. `value` is absent when it could not be measured;
/// `evidence` then says why.
struct Measurement {
  std::string name; ///< "copy.h2d", "loop.pass-limit", "fma.f32.fused"
  std::optional<double> value;
  std::string unit;     ///< "GB/s", "us", "passes", "ulp", "bool"
  std::string evidence; ///< what ran, what it saw
  std::string date;     ///< when, "2026-12-01T10:22:03Z"
};

struct Record {
  Key key;
  std::vector<Measurement> measurements;

  const Measurement *find(const std::string &name) const;
  /// Adds or replaces the measurement of the same name.
  void put(Measurement m);
};

/// The record as one JSON document with a checksum over its contents.
std::string encode(const Record &record);
/// Decodes a document made by encode(). Returns "" or what is wrong (not
/// JSON, another format, a field missing, the checksum does not match).
std::string decode(const std::string &text, Record &out);

/// A snapshot: records of one or more devices in one file, for a fixed
/// device with no writable storage (`xpujit calibrate --out`,
/// XPU_CALIBRATION). Each record keeps its own checksum.
std::string encodeSnapshot(const std::vector<Record> &records);
/// Decodes a snapshot; records that do not check out are counted in
/// `rejected` and left out. Returns "" or why the file is not a snapshot.
std::string decodeSnapshot(const std::string &text, std::vector<Record> &out,
                           unsigned &rejected);

/// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string now();

} // namespace xpu::cal
