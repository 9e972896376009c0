// docs/interop.md's table of accepted operations is the import's own list
// (gpuimport::acceptedOps), row for row, and each op it names is refused
// with XPU-UNSUPPORTED when the table does not list it.
#include "unit.h"

#include "xpu/FrontEnd/GPUImport.h"

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

namespace {

/// op -> job, from the table of the "## Accepted operations" section (up to
/// the next heading).
std::map<std::string, std::string> documentedOps() {
  std::ifstream in(XPU_SOURCE_DIR "/docs/interop.md");
  REQUIRE(in);
  std::map<std::string, std::string> ops;
  std::string line;
  bool inSection = false;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) // the section ends at the next heading
      inSection = line == "## Accepted operations";
    if (!inSection || line.rfind("| `", 0) != 0)
      continue;
    size_t end = line.find('`', 3);
    size_t bar = line.find('|', end);
    size_t next = line.find('|', bar + 1);
    REQUIRE(end != std::string::npos);
    REQUIRE(next != std::string::npos);
    std::string job = line.substr(bar + 1, next - bar - 1);
    job.erase(0, job.find_first_not_of(' '));
    job.erase(job.find_last_not_of(' ') + 1);
    ops[line.substr(3, end - 3)] = job;
  }
  return ops;
}

} // namespace

TEST_CASE("docs/interop.md lists exactly the ops the gpu import accepts") {
  std::map<std::string, std::string> accepted;
  for (const xpu::gpuimport::AcceptedOp &op : xpu::gpuimport::acceptedOps())
    accepted[op.name.str()] = op.job.str();
  std::map<std::string, std::string> documented = documentedOps();
  for (auto &[name, job] : accepted) {
    INFO("accepted by the import: " << name);
    REQUIRE(documented.count(name) == 1);
    CHECK(documented[name] == job);
  }
  for (auto &[name, job] : documented) {
    INFO("in docs/interop.md: " << name);
    CHECK(accepted.count(name) == 1);
  }
  CHECK(accepted.size() >= 40);
}

TEST_CASE("an op the table does not list is refused as unsupported, not a parse error") {
  unit::Compiler c;
  auto refused = c.parse(R"(
    gpu.module @m {
      gpu.func @k(%a: memref<?xi32>) kernel {
        %c0 = arith.constant 0 : index
        %v = memref.load %a[%c0] : memref<?xi32>
        gpu.printf "%d", %v : i32
        memref.store %v, %a[%c0] : memref<?xi32>
        gpu.return
      }
    })");
  REQUIRE(!refused);
  bool found = false;
  for (const xpu::Diagnostic &d : c.diags)
    found |= d.code == "XPU-UNSUPPORTED" && d.line == 6 &&
             d.message.find("'gpu.printf' is not imported") != std::string::npos;
  CHECK(found);
}
