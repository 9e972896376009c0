// The parameters a Vulkan module's kernels are specialized on (see
// abi::kVulkanParamSpecIdBase): read back from the SPIR-V itself, so a
// cached blob says what its pipelines need without any other record.
// Header-only and free of the library's types: bench/gemm's probe reads
// the library's shaders with it too.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace xpu::vk {

struct ParamSpecConstant {
  std::string kernel;   ///< the entry point
  uint32_t param = 0;   ///< the parameter's index in the kernel's list
  uint32_t specId = 0;  ///< its SpecId
};

/// Every specialization constant of `words` (a SPIR-V module) named
/// prefix + kernel + "_param" + index and decorated with a SpecId (OpName
/// 5, OpDecorate 71 with SpecId 1). Stops quietly at a malformed word:
/// what was found before it is returned, and a kernel missing from the
/// result is simply not specialized.
inline std::vector<ParamSpecConstant> findParamSpecConstants(const uint32_t *words,
                                                             size_t count,
                                                             const std::string &prefix) {
  std::vector<ParamSpecConstant> found;
  std::vector<std::pair<uint32_t, std::string>> names;
  std::vector<std::pair<uint32_t, uint32_t>> ids; // target, SpecId
  for (size_t at = 5; at < count;) {
    uint32_t length = words[at] >> 16, opcode = words[at] & 0xffff;
    if (length == 0 || at + length > count)
      break;
    if (opcode == 5 && length > 2) { // OpName %target "name"
      const char *text = reinterpret_cast<const char *>(words + at + 2);
      size_t bytes = (length - 2) * 4;
      names.emplace_back(words[at + 1], std::string(text, strnlen(text, bytes)));
    } else if (opcode == 71 && length == 4 && words[at + 2] == 1) { // OpDecorate SpecId
      ids.emplace_back(words[at + 1], words[at + 3]);
    }
    at += length;
  }
  const std::string marker = "_param";
  for (auto &[target, name] : names) {
    size_t cut = name.rfind(marker);
    if (name.compare(0, prefix.size(), prefix) != 0 || cut == std::string::npos ||
        cut < prefix.size() || cut + marker.size() == name.size())
      continue;
    std::string digits = name.substr(cut + marker.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6)
      continue;
    for (auto &[id, spec] : ids)
      if (id == target)
        found.push_back({name.substr(prefix.size(), cut - prefix.size()),
                         uint32_t(std::stoul(digits)), spec});
  }
  return found;
}

/// The names of the entry points of `words` (OpEntryPoint 15: execution
/// model, function, then the name as a nul-terminated literal). Stops
/// quietly at a malformed word, as findParamSpecConstants does.
inline std::vector<std::string> entryPointNames(const uint32_t *words, size_t count) {
  std::vector<std::string> names;
  for (size_t at = 5; at < count;) {
    uint32_t length = words[at] >> 16, opcode = words[at] & 0xffff;
    if (length == 0 || at + length > count)
      break;
    if (opcode == 15 && length > 3) {
      const char *text = reinterpret_cast<const char *>(words + at + 3);
      names.emplace_back(text, strnlen(text, (length - 3) * 4));
    }
    at += length;
  }
  return names;
}

} // namespace xpu::vk
