// Parsing ptxas -v; see ptxas_report.h. The report's lines, per entry:
//   ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
//   ptxas info    : Function properties for saxpy
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 8 registers, used 1 barriers, 1024 bytes smem
#include "ptxas_report.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

namespace xpu::cuda {

namespace {

/// The number before `what` in `line` ("8 registers" -> 8), if present.
bool numberBefore(const std::string &line, const std::string &what, uint64_t &out) {
  size_t at = line.find(what);
  if (at == std::string::npos || at < 2)
    return false;
  size_t end = at - 1, begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1])))
    --begin;
  if (begin == end)
    return false;
  out = std::strtoull(line.substr(begin, end - begin).c_str(), nullptr, 10);
  return true;
}

std::string quoted(const std::string &line, const std::string &after) {
  size_t at = line.find(after);
  if (at == std::string::npos)
    return "";
  size_t open = line.find('\'', at), close = line.find('\'', open + 1);
  if (open == std::string::npos || close == std::string::npos)
    return "";
  return line.substr(open + 1, close - open - 1);
}

} // namespace

std::vector<abi::Footprint> parsePtxasReport(const std::string &report,
                                             const std::vector<abi::KernelInfo> &kernels,
                                             const std::string &version) {
  std::map<std::string, abi::Footprint> byName;
  std::string source = "ptxas " + version + " -v";
  auto set = [&](abi::CodeFact &f, uint64_t v) { f = {true, v, source}; };
  std::istringstream in(report);
  std::string current;
  for (std::string line; std::getline(in, line);) {
    if (line.find("Compiling entry function") != std::string::npos) {
      current = quoted(line, "entry function");
      continue;
    }
    if (line.find("Function properties for") != std::string::npos) {
      size_t at = line.find("for ") + 4;
      std::string name = line.substr(at);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
        name.pop_back();
      // A device function that was not inlined has properties of its own.
      if (name != current)
        current.clear();
      continue;
    }
    if (current.empty())
      continue;
    abi::Footprint &f = byName[current];
    uint64_t v;
    if (numberBefore(line, "bytes stack frame", v))
      set(f.localBytes, v);
    if (numberBefore(line, "bytes spill stores", v))
      set(f.spillBytes, v);
    if (numberBefore(line, "registers", v))
      set(f.registers, v);
    if (line.find("Used ") != std::string::npos) {
      // A kernel without shared memory has no "smem" entry: 0 bytes.
      set(f.sharedBytes, numberBefore(line, "bytes smem", v) ? v : 0);
    }
  }
  std::vector<abi::Footprint> out(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i)
    if (auto it = byName.find(kernels[i].name); it != byName.end())
      out[i] = it->second;
  return out;
}

} // namespace xpu::cuda
