// printf in kernels: formats and records; see PrintFormat.h.
#include "xpu/PrintFormat.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace xpu::abi {

bool isFloatConversion(char c) { return std::strchr("fFeEgGaA", c) != nullptr; }

bool parsePrintFormat(const std::string &format, std::vector<PrintPiece> &pieces,
                      std::string &error) {
  pieces.clear();
  std::string text;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      text += format[i];
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      text += '%';
      ++i;
      continue;
    }
    if (!text.empty())
      pieces.push_back({text, 0});
    text.clear();
    std::string spec = "%";
    size_t j = i + 1;
    while (j < format.size() && std::strchr("-+ #0", format[j]))
      spec += format[j++];
    while (j < format.size() && std::isdigit((unsigned char)format[j]))
      spec += format[j++];
    if (j < format.size() && format[j] == '.') {
      spec += format[j++];
      while (j < format.size() && std::isdigit((unsigned char)format[j]))
        spec += format[j++];
    }
    // Length modifiers say nothing here: the value's type does.
    while (j < format.size() && std::strchr("hlLqjzt", format[j]))
      ++j;
    if (j >= format.size()) {
      error = "a conversion at offset " + std::to_string(i) + " has no conversion character";
      return false;
    }
    char c = format[j];
    if (!std::strchr("diuxXocfFeEgGaA", c)) {
      error = std::string("'%") + c + "' at offset " + std::to_string(i) +
              " is not a conversion kernels print (d i u x X o c f F e E g G a A)";
      return false;
    }
    pieces.push_back({spec + c, c});
    i = j;
  }
  if (!text.empty())
    pieces.push_back({text, 0});
  return true;
}

namespace {

/// One conversion of a value held in `lo`/`hi` words.
std::string convert(const PrintPiece &piece, Scalar type, uint32_t lo, uint32_t hi) {
  char buf[512];
  const std::string &spec = piece.text;
  if (isFloatConversion(piece.conversion)) {
    double v;
    if (type == Scalar::f64) {
      uint64_t bits = uint64_t(hi) << 32 | lo;
      std::memcpy(&v, &bits, 8);
    } else {
      float f;
      std::memcpy(&f, &lo, 4);
      v = f;
    }
    std::snprintf(buf, sizeof buf, spec.c_str(), v);
    return buf;
  }
  unsigned bits = type == Scalar::i1 ? 1 : scalarBytes(type) * 8;
  uint64_t raw = bits == 64 ? uint64_t(hi) << 32 | lo : lo;
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  raw &= mask;
  // The format's own conversion, with the length modifier of a 64-bit value.
  std::string wide = spec.substr(0, spec.size() - 1) + "ll" + piece.conversion;
  if (piece.conversion == 'c') {
    std::snprintf(buf, sizeof buf, spec.c_str(), int(raw & 0xFF));
  } else if (piece.conversion == 'd' || piece.conversion == 'i') {
    // A bool is 0 or 1; other values are sign-extended from their width.
    bool negative = bits > 1 && bits < 64 && (raw >> (bits - 1));
    int64_t s = negative ? int64_t(raw | ~mask) : int64_t(raw);
    std::snprintf(buf, sizeof buf, wide.c_str(), (long long)s);
  } else {
    std::snprintf(buf, sizeof buf, wide.c_str(), (unsigned long long)raw);
  }
  return buf;
}

} // namespace

uint32_t formatPrintRecords(const std::vector<PrintSite> &sites, const uint32_t *words,
                            size_t wordCount, std::string &out) {
  if (wordCount < kPrintHeaderWords)
    return 0;
  uint64_t used = std::min<uint64_t>(words[0], wordCount - kPrintHeaderWords);
  const uint32_t *at = words + kPrintHeaderWords, *end = at + used;
  std::vector<PrintPiece> pieces;
  while (at < end) {
    uint32_t site = *at++;
    std::string error;
    if (site == 0 || site > sites.size() ||
        !parsePrintFormat(sites[site - 1].format, pieces, error)) {
      out += "[xpujit: the print buffer holds a record it cannot read (site " +
             std::to_string(site) + "); the rest is not printed]\n";
      break;
    }
    const PrintSite &s = sites[site - 1];
    size_t k = 0;
    for (const PrintPiece &p : pieces) {
      if (!p.conversion) {
        out += p.text;
        continue;
      }
      Scalar t = s.args[k++];
      uint32_t n = printValueWords(t);
      if (at + n > end) {
        out += "[xpujit: a print record is cut short]\n";
        return words[1];
      }
      out += convert(p, t, at[0], n == 2 ? at[1] : 0);
      at += n;
    }
  }
  return words[1];
}

} // namespace xpu::abi
