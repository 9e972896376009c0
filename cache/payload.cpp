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

/// A parameter's launch role and, for a memref parameter, its layout.
void putView(Writer &w, const abi::Param &p) {
  w.u8(uint8_t(p.role));
  w.u8(p.dim);
  w.u8(p.view.has_value());
  if (!p.view)
    return;
  w.u8(p.view->rank);
  w.u8(p.view->identity);
  for (unsigned d = 0; d < abi::kMaxViewRank; ++d) {
    w.u64(uint64_t(p.view->sizes[d]));
    w.u64(uint64_t(p.view->strides[d]));
  }
  w.u64(uint64_t(p.view->offset));
}

void getView(Reader &r, abi::Param &p) {
  uint8_t role = r.u8();
  p.dim = r.u8();
  if (role > uint8_t(abi::Role::printBuffer) || p.dim >= abi::kMaxViewRank)
    r.fail();
  p.role = abi::Role(role);
  if (!r.u8())
    return;
  abi::ViewLayout v;
  v.rank = r.u8();
  v.identity = r.u8() != 0;
  for (unsigned d = 0; d < abi::kMaxViewRank; ++d) {
    v.sizes[d] = int64_t(r.u64());
    v.strides[d] = int64_t(r.u64());
  }
  v.offset = int64_t(r.u64());
  if (v.rank > abi::kMaxViewRank)
    r.fail();
  p.view = v;
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
      putView(w, p);
      w.u32(uint32_t(p.structArg));
      w.u32(p.fieldOffset);
    }
    w.u32(uint32_t(k.printParam));
    w.u64(k.prints.size());
    for (const abi::PrintSite &s : k.prints) {
      w.str(s.format);
      w.str(s.location);
      w.u64(s.args.size());
      for (abi::Scalar a : s.args)
        w.u8(uint8_t(a));
    }
    w.u64(k.structs.size());
    for (const abi::StructArg &s : k.structs) {
      w.str(s.name);
      w.str(s.typeName);
      w.u32(s.bytes);
      w.u32(s.firstParam);
      w.u32(s.fieldCount);
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
    w.u64(k.minDynamicSharedBytes);
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
      getView(r, p);
      p.structArg = int32_t(r.u32());
      p.fieldOffset = r.u32();
    }
    k.printParam = int32_t(r.u32());
    if (k.printParam < -1 || k.printParam >= int32_t(k.params.size()))
      r.fail();
    k.prints.resize(r.count(16));
    for (abi::PrintSite &s : k.prints) {
      s.format = r.str();
      s.location = r.str();
      s.args.resize(r.count(1));
      for (abi::Scalar &a : s.args) {
        uint8_t v = r.u8();
        if (v < uint8_t(abi::Scalar::i1) || v > uint8_t(abi::Scalar::f64))
          r.fail();
        a = abi::Scalar(v);
      }
    }
    k.structs.resize(r.count(16));
    for (abi::StructArg &s : k.structs) {
      s.name = r.str();
      s.typeName = r.str();
      s.bytes = r.u32();
      s.firstParam = r.u32();
      s.fieldCount = r.u32();
      if (s.fieldCount == 0 || uint64_t(s.firstParam) + s.fieldCount > k.params.size())
        r.fail();
    }
    for (const abi::Param &p : k.params)
      if (p.structArg < -1 || p.structArg >= int32_t(k.structs.size()))
        r.fail();
    k.sharedBytes = r.u64();
    k.usesBarriers = r.u8() != 0;
    k.workgroupSize = getSize(r);
    k.gridSize = getSize(r);
    k.checkSites.resize(r.count(16));
    for (abi::CheckSite &s : k.checkSites) {
      s.location = r.str();
      s.what = r.str();
    }
    k.minDynamicSharedBytes = r.u64();
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
  for (const abi::Footprint &f : footprints)
    w.u64(f.launchSharedBytes);
}

void getFootprints(Reader &r, std::vector<abi::Footprint> &footprints) {
  footprints.resize(r.count(5 * 17 + 8));
  for (abi::Footprint &f : footprints)
    for (abi::CodeFact *fact : {&f.registers, &f.spillBytes, &f.sharedBytes,
                                &f.localBytes, &f.maxWorkgroupSize}) {
      fact->known = r.u8() != 0;
      fact->value = r.u64();
      fact->source = r.str();
    }
  for (abi::Footprint &f : footprints)
    f.launchSharedBytes = r.u64();
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
        x.gridSize != y.gridSize || x.checkSites.size() != y.checkSites.size() ||
        x.minDynamicSharedBytes != y.minDynamicSharedBytes)
      return false;
    for (size_t j = 0; j < x.params.size(); ++j) {
      const abi::Param &p = x.params[j], &q = y.params[j];
      if (p.isBuffer != q.isBuffer || p.elem != q.elem || p.lanes != q.lanes ||
          p.space != q.space || p.access != q.access ||
          p.staticCount != q.staticCount || p.role != q.role || p.dim != q.dim ||
          p.view != q.view || p.structArg != q.structArg || p.fieldOffset != q.fieldOffset ||
          p.uses != q.uses || p.cost != q.cost)
        return false;
    }
    if (x.structs.size() != y.structs.size() || x.printParam != y.printParam ||
        x.prints.size() != y.prints.size())
      return false;
    for (size_t j = 0; j < x.structs.size(); ++j)
      if (x.structs[j].bytes != y.structs[j].bytes ||
          x.structs[j].firstParam != y.structs[j].firstParam ||
          x.structs[j].fieldCount != y.structs[j].fieldCount)
        return false;
  }
  return true;
}

} // namespace xpu::cache
