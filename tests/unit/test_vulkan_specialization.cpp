// Reading back which parameters a Vulkan module's pipelines are specialized
// on (backends/vulkan/vulkan_specialization.h) from SPIR-V words written
// here: names and SpecIds in any order, other names and decorations
// ignored, and a truncated or malformed module read no further than its
// last whole instruction, never past its end.
#include "../../backends/vulkan/vulkan_specialization.h"

#include <doctest/doctest.h>

#include <random>

using xpu::vk::entryPointNames;
using xpu::vk::findParamSpecConstants;

namespace {

constexpr const char *kPrefix = "__xpu_spec_";

struct Module {
  std::vector<uint32_t> words{0x07230203, 0x00010600, 0, 100, 0};
  void name(uint32_t id, const std::string &text) {
    std::vector<uint32_t> packed((text.size() + 4) / 4, 0);
    std::memcpy(packed.data(), text.data(), text.size());
    words.push_back(uint32_t(2 + packed.size()) << 16 | 5);
    words.push_back(id);
    words.insert(words.end(), packed.begin(), packed.end());
  }
  void entry(uint32_t fn, const std::string &text, std::vector<uint32_t> interface) {
    std::vector<uint32_t> packed((text.size() + 4) / 4, 0);
    std::memcpy(packed.data(), text.data(), text.size());
    words.push_back(uint32_t(3 + packed.size() + interface.size()) << 16 | 15);
    words.insert(words.end(), {5u, fn}); // GLCompute
    words.insert(words.end(), packed.begin(), packed.end());
    words.insert(words.end(), interface.begin(), interface.end());
  }
  void decorate(uint32_t id, uint32_t decoration, uint32_t value) {
    words.insert(words.end(), {4u << 16 | 71, id, decoration, value});
  }
};

} // namespace

TEST_CASE("vulkan specialization: parameters named and decorated, in any order") {
  std::mt19937 rng(std::random_device{}());
  uint32_t param = rng() % 40, spec = 16 + rng() % 1000;
  Module m;
  m.decorate(7, 1, spec);                                   // SpecId first
  m.name(7, std::string(kPrefix) + "gemm_param" + std::to_string(param));
  m.name(8, std::string(kPrefix) + "my_param_kernel_param3"); // "_param" inside the name
  m.decorate(8, 1, spec + 1);
  m.name(9, "__xpu_workgroup_size_x");                      // not a parameter
  m.decorate(9, 1, 0);
  m.name(10, std::string(kPrefix) + "k_param2");            // no SpecId
  m.decorate(10, 6, 4);                                     // ArrayStride, not SpecId
  m.name(11, std::string(kPrefix) + "k_paramx");            // not a number
  m.decorate(11, 1, 99);
  m.name(12, std::string(kPrefix) + "gemm.xpu_copying_param4"); // a copying companion's
  m.decorate(12, 1, spec + 2);
  auto found = findParamSpecConstants(m.words.data(), m.words.size(), kPrefix);
  REQUIRE(found.size() == 3);
  CHECK(found[2].kernel == "gemm.xpu_copying");
  CHECK(found[2].param == 4);
  CHECK(found[2].specId == spec + 2);
  CHECK(found[0].kernel == "gemm");
  CHECK(found[0].param == param);
  CHECK(found[0].specId == spec);
  CHECK(found[1].kernel == "my_param_kernel");
  CHECK(found[1].param == 3);
  CHECK(found[1].specId == spec + 1);
}

TEST_CASE("vulkan specialization: a malformed module is read to its last whole instruction") {
  Module m;
  m.name(7, std::string(kPrefix) + "gemm_param4");
  m.decorate(7, 1, 16);
  size_t whole = m.words.size();
  m.name(8, std::string(kPrefix) + "gemm_param5");
  m.decorate(8, 1, 17);
  // Cut anywhere inside the second pair: the first is still found, the
  // second never, and nothing past the cut is read.
  for (size_t cut = whole; cut < m.words.size(); ++cut) {
    std::vector<uint32_t> head(m.words.begin(), m.words.begin() + cut);
    auto found = findParamSpecConstants(head.data(), head.size(), kPrefix);
    REQUIRE(found.size() == 1);
    CHECK(found[0].param == 4);
  }
  // A zero word count stops the reading; so does a header alone.
  std::vector<uint32_t> stuck = m.words;
  stuck[5] = 0;
  CHECK(findParamSpecConstants(stuck.data(), stuck.size(), kPrefix).empty());
  CHECK(findParamSpecConstants(m.words.data(), 5, kPrefix).empty());
}

TEST_CASE("vulkan specialization: entry point names, of any length, with their interfaces") {
  std::mt19937 rng(std::random_device{}());
  std::string longName(1 + rng() % 40, 'k'); // a length that may end a word exactly
  Module m;
  m.entry(3, "gemm", {7, 8, 9});
  m.name(3, "gemm");
  m.entry(4, "gemm.xpu_copying", {});
  m.entry(5, longName, {10});
  auto names = entryPointNames(m.words.data(), m.words.size());
  REQUIRE(names.size() == 3);
  CHECK(names[0] == "gemm");
  CHECK(names[1] == "gemm.xpu_copying");
  CHECK(names[2] == longName);
  // Cut inside the last one: the first two are still read, nothing past the cut.
  size_t last = m.words.size() - (3 + (longName.size() + 4) / 4 + 1);
  for (size_t cut = last; cut < m.words.size(); ++cut)
    CHECK(entryPointNames(m.words.data(), cut).size() == 2);
}
