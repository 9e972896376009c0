// In-process lld for AMDGPU code objects; see hip_link.h. lld reads and
// writes files, so the link runs in a private temporary directory.
#include "hip_link.h"

#include "lld/Common/Driver.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>

LLD_HAS_DRIVER(elf)

namespace xpu::hip {

using rt::Status;

namespace {

std::mutex linkMutex;
/// Set when lld reported that a crash left it unable to run again.
std::string linkerBroken;

/// A directory only this link uses, removed with its files.
struct TempDir {
  std::string path;
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/xpujit-lld-XXXXXX";
    if (char *p = mkdtemp(pattern.data()))
      path = p;
  }
  ~TempDir() {
    if (path.empty())
      return;
    for (const char *f : {"/kernels.o", "/kernels.hsaco"})
      unlink((path + f).c_str());
    rmdir(path.c_str());
  }
};

} // namespace

std::string linkerIdentity() { return "lld " LLVM_VERSION_STRING; }

Status linkCodeObject(const std::vector<uint8_t> &object, std::vector<uint8_t> &hsaco) {
  std::lock_guard<std::mutex> g(linkMutex);
  if (!linkerBroken.empty())
    return {XPU_ERROR_COMPILE, "the linker cannot run again in this process: " + linkerBroken};
  TempDir dir;
  if (dir.path.empty())
    return {XPU_ERROR_COMPILE, "cannot make a temporary directory for lld"};
  std::string in = dir.path + "/kernels.o", out = dir.path + "/kernels.hsaco";
  {
    std::ofstream f(in, std::ios::binary);
    f.write(reinterpret_cast<const char *>(object.data()), std::streamsize(object.size()));
    if (!f)
      return {XPU_ERROR_COMPILE, "cannot write " + in};
  }
  // A code object is a shared object with every symbol defined; one thread,
  // as lld runs inside the host's process.
  const char *args[] = {"ld.lld", "-shared", "--no-undefined", "--threads=1",
                        in.c_str(), "-o", out.c_str()};
  std::string messages;
  llvm::raw_string_ostream os(messages);
  lld::Result r = lld::lldMain(args, os, os, {{lld::Gnu, &lld::elf::link}});
  os.flush();
  if (!r.canRunAgain)
    linkerBroken = messages.empty() ? "lld crashed" : messages;
  if (r.retCode != 0)
    return {XPU_ERROR_COMPILE, "lld failed: " + messages};
  std::ifstream f(out, std::ios::binary);
  hsaco.assign(std::istreambuf_iterator<char>(f), {});
  if (hsaco.empty())
    return {XPU_ERROR_COMPILE, "lld wrote no code object"};
  return {};
}

} // namespace xpu::hip
