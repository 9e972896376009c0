// Payload encoding; see payload.h.
#include "payload.h"

#include <cstring>

namespace xpu::cache {

namespace {

class Writer {
public:
  std::vector<uint8_t> out;
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out.push_back(uint8_t(v >> (8 * i)));
  }
  void bytes(const void *p, size_t n) {
    u64(n);
    out.insert(out.end(), static_cast<const uint8_t *>(p),
               static_cast<const uint8_t *>(p) + n);
  }
  void str(const std::string &s) { bytes(s.data(), s.size()); }
};

/// Reads what Writer wrote; after the first short read every value is zero
/// and ok() stays false.
class Reader {
public:
  explicit Reader(const std::vector<uint8_t> &b) : p(b.data()), end(b.data() + b.size()) {}
  bool ok() const { return good; }
  bool atEnd() const { return p == end; }
  uint8_t u8() { return uint8_t(take(1)); }
  uint32_t u32() { return uint32_t(take(4)); }
  uint64_t u64() { return take(8); }
  std::string str() {
    uint64_t n = u64();
    if (!good || n > uint64_t(end - p)) {
      good = false;
      return {};
    }
    std::string s(reinterpret_cast<const char *>(p), n);
    p += n;
    return s;
  }
  /// A count of items that each need at least `minBytes`: bounded by what
  /// is left, so a corrupt count cannot ask for a huge allocation.
  uint64_t count(size_t minBytes) {
    uint64_t n = u64();
    if (n > uint64_t(end - p) / minBytes)
      good = false;
    return good ? n : 0;
  }
  void fail() { good = false; }

private:
  uint64_t take(int n) {
    if (!good || end - p < n) {
      good = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(p[i]) << (8 * i);
    p += n;
    return v;
  }
  const uint8_t *p, *end;
  bool good = true;
};

void putSize(Writer &w, const std::optional<std::array<uint32_t, 3>> &s) {
  w.u8(s.has_value());
  if (s)
    for (uint32_t v : *s)
      w.u32(v);
}

std::optional<std::array<uint32_t, 3>> getSize(Reader &r) {
  if (!r.u8())
    return std::nullopt;
  std::array<uint32_t, 3> s;
  for (uint32_t &v : s)
    v = r.u32();
  return s;
}

void putKernels(Writer &w, const std::vector<abi::KernelInfo> &kernels) {
  w.u64(kernels.size());
  for (const abi::KernelInfo &k : kernels) {
    w.str(k.name);
    w.str(k.profile);
    w.str(k.location);
    w.u64(k.params.size());
    for (const abi::Param &p : k.params) {
      w.str(p.name);
      w.u8(p.isBuffer);
      w.u8(uint8_t(p.elem));
      w.u8(p.lanes);
      w.u8(uint8_t(p.space));
      w.u8(uint8_t(p.access));
      w.u64(uint64_t(p.staticCount));
      w.u8(p.uses);
      w.u8(p.cost);
    }
    w.u64(k.sharedBytes);
    w.u8(k.usesBarriers);
    putSize(w, k.workgroupSize);
    putSize(w, k.gridSize);
    w.u64(k.checkSites.size());
    for (const abi::CheckSite &s : k.checkSites) {
      w.str(s.location);
      w.str(s.what);
    }
  }
}

void getKernels(Reader &r, std::vector<abi::KernelInfo> &kernels) {
  kernels.resize(r.count(8));
  for (abi::KernelInfo &k : kernels) {
    k.name = r.str();
    k.profile = r.str();
    k.location = r.str();
    k.params.resize(r.count(8));
    for (abi::Param &p : k.params) {
      p.name = r.str();
      p.isBuffer = r.u8() != 0;
      uint8_t elem = r.u8(), lanes = r.u8(), space = r.u8(), access = r.u8();
      p.staticCount = int64_t(r.u64());
      p.uses = r.u8();
      p.cost = r.u8();
      if (elem < uint8_t(abi::Scalar::i1) || elem > uint8_t(abi::Scalar::f64) ||
          lanes < 1 || space > uint8_t(abi::Space::priv) ||
          access > uint8_t(abi::Access::alias))
        r.fail();
      p.elem = abi::Scalar(elem);
      p.lanes = lanes;
      p.space = abi::Space(space);
      p.access = abi::Access(access);
    }
    k.sharedBytes = r.u64();
    k.usesBarriers = r.u8() != 0;
    k.workgroupSize = getSize(r);
    k.gridSize = getSize(r);
    k.checkSites.resize(r.count(16));
    for (abi::CheckSite &s : k.checkSites) {
      s.location = r.str();
      s.what = r.str();
    }
    if (!r.ok())
      return;
  }
}

void putFootprints(Writer &w, const std::vector<abi::Footprint> &footprints) {
  w.u64(footprints.size());
  for (const abi::Footprint &f : footprints)
    for (const abi::CodeFact *fact : {&f.registers, &f.spillBytes, &f.sharedBytes,
                                      &f.localBytes, &f.maxWorkgroupSize}) {
      w.u8(fact->known);
      w.u64(fact->value);
      w.str(fact->source);
    }
}

void getFootprints(Reader &r, std::vector<abi::Footprint> &footprints) {
  footprints.resize(r.count(5 * 17));
  for (abi::Footprint &f : footprints)
    for (abi::CodeFact *fact : {&f.registers, &f.spillBytes, &f.sharedBytes,
                                &f.localBytes, &f.maxWorkgroupSize}) {
      fact->known = r.u8() != 0;
      fact->value = r.u64();
      fact->source = r.str();
    }
}

std::string finish(Reader &r, const char *what) {
  if (!r.ok())
    return std::string("malformed ") + what + " payload";
  if (!r.atEnd())
    return std::string("trailing bytes after the ") + what + " payload";
  return "";
}

} // namespace

std::vector<uint8_t> encode(const KernelPayload &p) {
  Writer w;
  w.str(p.format);
  w.str(p.toolchain);
  w.bytes(p.code.data(), p.code.size());
  putKernels(w, p.kernels);
  putFootprints(w, p.footprints);
  return std::move(w.out);
}

std::string decode(const std::vector<uint8_t> &bytes, KernelPayload &out) {
  Reader r(bytes);
  out.format = r.str();
  out.toolchain = r.str();
  std::string code = r.str();
  out.code.assign(code.begin(), code.end());
  getKernels(r, out.kernels);
  getFootprints(r, out.footprints);
  if (r.ok() && out.footprints.size() > out.kernels.size())
    r.fail();
  if (r.ok() && out.code.empty())
    return "empty blob in the kernel payload";
  return finish(r, "kernel");
}

std::vector<uint8_t> encode(const SourcePayload &p) {
  Writer w;
  w.bytes(p.content.bytes, 16);
  putKernels(w, p.kernels);
  w.u64(p.diagnostics.size());
  for (const Diagnostic &d : p.diagnostics) {
    w.u8(uint8_t(d.severity));
    w.str(d.code);
    w.str(d.message);
    w.str(d.file);
    w.u32(d.line);
    w.u32(d.column);
  }
  return std::move(w.out);
}

std::string decode(const std::vector<uint8_t> &bytes, SourcePayload &out) {
  Reader r(bytes);
  std::string key = r.str();
  if (key.size() != 16)
    r.fail();
  else
    std::memcpy(out.content.bytes, key.data(), 16);
  getKernels(r, out.kernels);
  out.diagnostics.resize(r.count(8));
  for (Diagnostic &d : out.diagnostics) {
    uint8_t severity = r.u8();
    if (severity > uint8_t(Diagnostic::Severity::remark))
      r.fail();
    d.severity = Diagnostic::Severity(severity);
    d.code = r.str();
    d.message = r.str();
    d.file = r.str();
    d.line = r.u32();
    d.column = r.u32();
  }
  return finish(r, "source");
}

bool sameInterface(const std::vector<abi::KernelInfo> &a,
                   const std::vector<abi::KernelInfo> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const abi::KernelInfo &x = a[i], &y = b[i];
    if (x.name != y.name || x.profile != y.profile ||
        x.params.size() != y.params.size() || x.sharedBytes != y.sharedBytes ||
        x.usesBarriers != y.usesBarriers || x.workgroupSize != y.workgroupSize ||
        x.gridSize != y.gridSize || x.checkSites.size() != y.checkSites.size())
      return false;
    for (size_t j = 0; j < x.params.size(); ++j) {
      const abi::Param &p = x.params[j], &q = y.params[j];
      if (p.isBuffer != q.isBuffer || p.elem != q.elem || p.lanes != q.lanes ||
          p.space != q.space || p.access != q.access ||
          p.staticCount != q.staticCount || p.uses != q.uses || p.cost != q.cost)
        return false;
    }
  }
  return true;
}

} // namespace xpu::cache
