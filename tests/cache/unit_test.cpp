// Unit tests of cache/ on its own (no LLVM, no MLIR): keys, entry files,
// payloads, the disk store, the in-process level and the location rules.
// Scratch files go under $XPU_TEST_SCRATCH (set by CTest to the build tree).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "cache/cache.h"
#include "cache/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

using namespace xpu;
using namespace xpu::cache;
namespace fs = std::filesystem;

namespace {

/// A fresh, empty directory under the scratch root.
std::string scratchDir(const std::string &name) {
  const char *root = std::getenv("XPU_TEST_SCRATCH");
  std::string dir = std::string(root && *root ? root : "cache-unit-scratch") + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return fs::absolute(dir).string();
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
}

Environment sampleEnvironment() {
  return {"0.1.0 build abc", "1", "22.1.8",
          "kind=cpu;triple=x86_64-pc-linux-gnu;chip=znver3;features=+avx2;wave=1",
          "LLVM 22.1.8", "backend=0;name=EPYC;vendor=AMD;arch=x86-64;driver="};
}

abi::KernelInfo sampleKernel(const std::string &name) {
  abi::KernelInfo k;
  k.name = name;
  k.location = "a.mlir:1:1";
  abi::Param y;
  y.name = "y";
  y.isBuffer = true;
  y.elem = abi::Scalar::f32;
  abi::Param n;
  n.name = "n";
  n.elem = abi::Scalar::i32;
  // A memref parameter (gpu dialect import): its layout and the size the
  // launch fills in after it.
  abi::Param m;
  m.name = "m";
  m.isBuffer = true;
  m.elem = abi::Scalar::i32;
  m.view = abi::ViewLayout{2, false, {abi::kDynamicExtent, 4}, {abi::kDynamicExtent, 1},
                           abi::kDynamicExtent};
  abi::Param rows;
  rows.name = "m.size0";
  rows.elem = abi::Scalar::i64;
  rows.role = abi::Role::viewSize;
  k.params = {y, n, m, rows};
  k.minDynamicSharedBytes = 1024;
  k.sharedBytes = 256;
  k.workgroupSize = std::array<uint32_t, 3>{64, 1, 1};
  k.checkSites = {{"a.mlir:4:5", "store to 'y'"}};
  return k;
}

KernelPayload samplePayload() {
  KernelPayload p;
  for (int i = 0; i < 300; ++i)
    p.code.push_back(uint8_t(i * 7));
  p.format = "elf-object";
  p.toolchain = "LLVM 22.1.8";
  p.kernels = {sampleKernel("k")};
  p.footprints.resize(1);
  p.footprints[0].sharedBytes = {true, 65536 + 256, "ptxas and xpujit's layout"};
  p.footprints[0].launchSharedBytes = 65536;
  return p;
}

/// Collects warnings the way the runtime logs them: once per key.
StoreHooks quietHooks(std::vector<std::string> *warnings = nullptr) {
  StoreHooks h;
  auto seen = std::make_shared<std::set<std::string>>();
  h.warn = [warnings, seen](const std::string &key, const std::string &m) {
    if (warnings && seen->insert(key).second)
      warnings->push_back(m);
  };
  return h;
}

Key keyOf(int i) {
  Key k;
  k.bytes[0] = uint8_t(i);
  k.bytes[15] = uint8_t(i >> 8);
  return k;
}

} // namespace

TEST_CASE("changing any one input changes the key") {
  Environment base = sampleEnvironment();
  Key env = environmentDigest(base);
  std::set<std::string> seen = {env.hex()};
  for (std::string Environment::*field :
       {&Environment::library, &Environment::pipeline, &Environment::llvm,
        &Environment::target, &Environment::toolchain, &Environment::device}) {
    Environment changed = base;
    (changed.*field) += "x";
    CHECK(seen.insert(environmentDigest(changed).hex()).second);
  }
  // Moving text from one field to the next is a different environment too.
  Environment shifted = base;
  shifted.llvm = base.pipeline + base.llvm;
  shifted.pipeline = "";
  CHECK(environmentDigest(shifted) != env);

  Key content = contentKey(env, "flags=0", "module {}");
  CHECK(contentKey(env, "flags=0", "module {}") == content);
  CHECK(contentKey(env, "flags=1", "module {}") != content);
  CHECK(contentKey(env, "flags=0", "module { }") != content);
  CHECK(contentKey(environmentDigest(shifted), "flags=0", "module {}") != content);

  Key source = sourceKey(env, "flags=0", "a.mlir", "explicit cpu:0", "text");
  CHECK(sourceKey(env, "flags=0", "a.mlir", "explicit cpu:0", "text") == source);
  CHECK(sourceKey(env, "flags=0", "b.mlir", "explicit cpu:0", "text") != source);
  CHECK(sourceKey(env, "flags=0", "a.mlir", "default cpu:0", "text") != source);
  CHECK(sourceKey(env, "flags=0", "a.mlir", "explicit cpu:1", "text") != source);
  CHECK(sourceKey(env, "flags=0", "a.mlir", "explicit cpu:0", "text ") != source);
  CHECK(sourceKey(env, "flags=1", "a.mlir", "explicit cpu:0", "text") != source);
  CHECK(source != content);
}

TEST_CASE("keys print as 32 hex digits and parse back") {
  Key k = contentKey(environmentDigest(sampleEnvironment()), "", "x");
  CHECK(k.hex().size() == 32);
  REQUIRE(Key::fromHex(k.hex()));
  CHECK(*Key::fromHex(k.hex()) == k);
  CHECK_FALSE(Key::fromHex("xyz"));
  CHECK_FALSE(Key::fromHex(std::string(32, 'G')));
  auto name = parseEntryFileName(entryFileName(EntryKind::kernel, k));
  REQUIRE(name);
  CHECK(name->kind == EntryKind::kernel);
  CHECK(name->key == k);
  CHECK(name->version == kFormatVersion);
  CHECK_FALSE(parseEntryFileName(k.hex() + ".k"));
  CHECK_FALSE(parseEntryFileName(k.hex() + ".x1"));
  CHECK_FALSE(parseEntryFileName(".tmp.1.2"));
}

TEST_CASE("an entry round-trips, and every flipped byte or truncation is caught") {
  Key key = keyOf(1);
  std::vector<uint8_t> payload = encode(samplePayload());
  std::vector<uint8_t> file = encodeEntry(EntryKind::kernel, key, payload);
  {
    std::vector<uint8_t> copy = file, out;
    CHECK(decodeEntry(copy, EntryKind::kernel, key, out) == "");
    CHECK(out == payload);
  }
  for (size_t i = 0; i < file.size(); ++i) {
    for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
      std::vector<uint8_t> bad = file, out;
      bad[i] ^= flip;
      INFO("byte " << i << " ^ " << int(flip));
      CHECK(decodeEntry(bad, EntryKind::kernel, key, out) != "");
    }
  }
  for (size_t n = 0; n < file.size(); ++n) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + long(n)), out;
    INFO("truncated to " << n);
    CHECK(decodeEntry(cut, EntryKind::kernel, key, out) != "");
  }
  std::vector<uint8_t> longer = file, out;
  longer.push_back(0);
  CHECK(decodeEntry(longer, EntryKind::kernel, key, out) != "");
  std::vector<uint8_t> copy = file;
  CHECK(decodeEntry(copy, EntryKind::source, key, out) == "wrong entry kind");
  copy = file;
  CHECK(decodeEntry(copy, EntryKind::kernel, keyOf(2), out) != "");
}

TEST_CASE("payloads round-trip and garbage never decodes") {
  KernelPayload k = samplePayload(), k2;
  REQUIRE(decode(encode(k), k2) == "");
  CHECK(k2.code == k.code);
  CHECK(k2.format == k.format);
  CHECK(k2.toolchain == k.toolchain);
  REQUIRE(k2.kernels.size() == 1);
  CHECK(k2.kernels[0].params[0].name == "y");
  CHECK(k2.kernels[0].checkSites[0].location == "a.mlir:4:5");
  CHECK(k2.kernels[0].workgroupSize == k.kernels[0].workgroupSize);
  CHECK_FALSE(k2.kernels[0].gridSize);
  CHECK(k2.kernels[0].params[2].view == k.kernels[0].params[2].view);
  CHECK(k2.kernels[0].params[3].role == abi::Role::viewSize);
  CHECK(k2.kernels[0].minDynamicSharedBytes == 1024);
  REQUIRE(k2.footprints.size() == 1);
  CHECK(k2.footprints[0].sharedBytes.value == 65536 + 256);
  CHECK(k2.footprints[0].sharedBytes.source == "ptxas and xpujit's layout");
  CHECK(k2.footprints[0].launchSharedBytes == 65536);

  SourcePayload s, s2;
  s.content = keyOf(9);
  s.kernels = {sampleKernel("a"), sampleKernel("b")};
  s.diagnostics = {{Diagnostic::Severity::warning, "XPU-W1", "careful", "a.mlir", 3, 4}};
  REQUIRE(decode(encode(s), s2) == "");
  CHECK(s2.content == s.content);
  CHECK(s2.kernels.size() == 2);
  REQUIRE(s2.diagnostics.size() == 1);
  CHECK(s2.diagnostics[0].message == "careful");
  CHECK(s2.diagnostics[0].column == 4);

  // Every truncation of a payload, and random bytes, fail cleanly.
  std::vector<uint8_t> bytes = encode(k);
  for (size_t n = 0; n < bytes.size(); ++n) {
    KernelPayload out;
    CHECK(decode(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(n)), out) != "");
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> junk(rng() % 200);
    for (uint8_t &b : junk)
      b = uint8_t(rng());
    KernelPayload out;
    SourcePayload out2;
    (void)decode(junk, out);
    (void)decode(junk, out2);
  }
}

TEST_CASE("interfaces match by kernels and parameter types, not names or locations") {
  std::vector<abi::KernelInfo> a = {sampleKernel("k")}, b = a;
  b[0].params[0].name = "out";
  b[0].location = "b.mlir:9:1";
  b[0].checkSites[0] = {"b.mlir:12:5", "store to 'out'"};
  CHECK(sameInterface(a, b));
  b = a;
  b[0].name = "other";
  CHECK_FALSE(sameInterface(a, b));
  b = a;
  b[0].params[1].elem = abi::Scalar::i64;
  CHECK_FALSE(sameInterface(a, b));
  b = a;
  b[0].params.pop_back();
  CHECK_FALSE(sameInterface(a, b));
  b = a;
  b[0].checkSites.push_back({});
  CHECK_FALSE(sameInterface(a, b));
  b = a;
  b[0].sharedBytes = 0;
  CHECK_FALSE(sameInterface(a, b));
  b = a;
  b[0].params[2].view->sizes[1] = 8;
  CHECK_FALSE(sameInterface(a, b));
  b = a;
  b[0].params[3].role = abi::Role::viewStride;
  CHECK_FALSE(sameInterface(a, b));
  CHECK_FALSE(sameInterface(a, {}));
}

TEST_CASE("the disk store saves, loads, and removes bad entries") {
  std::string dir = scratchDir("store");
  std::vector<std::string> warnings;
  DiskStore store(dir, true, 1 << 20, quietHooks(&warnings));
  std::vector<uint8_t> payload = encode(samplePayload()), out;
  Key key = keyOf(3);
  CHECK_FALSE(store.load(EntryKind::kernel, key, nullptr, out));
  REQUIRE(store.save(EntryKind::kernel, key, payload));
  REQUIRE(store.load(EntryKind::kernel, key, nullptr, out));
  CHECK(out == payload);
  CHECK(store.list().temps.empty());

  std::string path = dir + "/" + entryFileName(EntryKind::kernel, key);
  std::vector<uint8_t> good = readFile(path);
  // Flipped payload byte, flipped header byte, truncation, empty file.
  std::vector<std::vector<uint8_t>> damaged;
  damaged.push_back(good), damaged.back()[good.size() - 1] ^= 1;
  damaged.push_back(good), damaged.back()[20] ^= 1;
  damaged.push_back(std::vector<uint8_t>(good.begin(), good.end() - 1));
  damaged.push_back(std::vector<uint8_t>(good.begin(), good.begin() + 40));
  damaged.push_back({});
  for (const auto &bytes : damaged) {
    writeFile(path, bytes);
    uint64_t before = store.counters().badEntries;
    CHECK_FALSE(store.load(EntryKind::kernel, key, nullptr, out));
    CHECK(store.counters().badEntries == before + 1);
    CHECK_FALSE(fs::exists(path));
  }
  CHECK(warnings.size() == 1); // once per path

  // A payload the validator refuses is bad too.
  REQUIRE(store.save(EntryKind::kernel, key, payload));
  CHECK_FALSE(store.load(EntryKind::kernel, key,
                         [](const std::vector<uint8_t> &) { return std::string("no"); },
                         out));
  CHECK_FALSE(fs::exists(path));

  // Read-only: bad entries stay where they are, nothing is written.
  writeFile(path, damaged[0]);
  DiskStore readonly(dir, false, 1 << 20, quietHooks());
  CHECK_FALSE(readonly.load(EntryKind::kernel, key, nullptr, out));
  CHECK(fs::exists(path));
  CHECK_FALSE(readonly.save(EntryKind::kernel, keyOf(4), payload));
  CHECK_FALSE(fs::exists(dir + "/" + entryFileName(EntryKind::kernel, keyOf(4))));
}

TEST_CASE("an entry being read survives its removal") {
  std::string dir = scratchDir("unlink");
  DiskStore store(dir, true, 1 << 20, quietHooks());
  std::vector<uint8_t> payload(100000, 0x5a), out;
  REQUIRE(store.save(EntryKind::kernel, keyOf(1), payload));
  std::string path = dir + "/" + entryFileName(EntryKind::kernel, keyOf(1));
  int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  CHECK(store.clear() == 1);
  std::vector<uint8_t> bytes;
  CHECK(readAll(fd, kHeaderBytes + payload.size(), bytes) == 0);
  ::close(fd);
  CHECK(decodeEntry(bytes, EntryKind::kernel, keyOf(1), out) == "");
  CHECK(out == payload);
}

TEST_CASE("eviction keeps the store under its limit, least recently used first") {
  std::string dir = scratchDir("evict");
  const uint64_t limit = 16 * 1024;
  DiskStore store(dir, true, limit, quietHooks());
  std::vector<uint8_t> payload(1000, 1), out;
  auto total = [&] {
    uint64_t t = 0;
    for (const StoreFile &f : store.list().entries)
      t += f.bytes;
    return t;
  };
  for (int i = 0; i < 10; ++i)
    REQUIRE(store.save(EntryKind::kernel, keyOf(i), payload));
  // Entry 0 is used again: it becomes the most recently used.
  ::usleep(10000); // file times are as coarse as a jiffy
  REQUIRE(store.load(EntryKind::kernel, keyOf(0), nullptr, out));
  for (int i = 10; i < 60; ++i) {
    ::usleep(10000); // distinct mtimes
    REQUIRE(store.save(EntryKind::kernel, keyOf(i), payload));
    CHECK(total() <= limit);
    if (i % 4 == 0)
      REQUIRE(store.load(EntryKind::kernel, keyOf(0), nullptr, out));
  }
  CHECK(store.counters().evicted > 0);
  CHECK(store.load(EntryKind::kernel, keyOf(0), nullptr, out));
  CHECK(store.load(EntryKind::kernel, keyOf(59), nullptr, out));
  CHECK_FALSE(store.load(EntryKind::kernel, keyOf(1), nullptr, out));
  // An entry larger than the whole limit is not stored at all.
  CHECK_FALSE(store.save(EntryKind::kernel, keyOf(99), std::vector<uint8_t>(limit, 2)));
}

TEST_CASE("stale temporary files are removed, young ones never") {
  std::string dir = scratchDir("temps");
  DiskStore store(dir, true, 1 << 20, quietHooks());
  writeFile(dir + "/.tmp.1.young", {1, 2, 3});
  writeFile(dir + "/.tmp.2.old", {1, 2, 3});
  writeFile(dir + "/unrelated.txt", {1});
  struct timespec old[2] = {{0, UTIME_OMIT}, {::time(nullptr) - 2 * kStaleTempSeconds, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (dir + "/.tmp.2.old").c_str(), old, 0) == 0);
  store.evictTo(1 << 20);
  CHECK(fs::exists(dir + "/.tmp.1.young"));
  CHECK_FALSE(fs::exists(dir + "/.tmp.2.old"));
  CHECK(fs::exists(dir + "/unrelated.txt"));
  REQUIRE(store.save(EntryKind::source, keyOf(1), {1, 2, 3}));
  CHECK(store.clear() == 1);
  CHECK(fs::exists(dir + "/.tmp.1.young"));
  CHECK(fs::exists(dir + "/unrelated.txt"));
}

TEST_CASE("the in-process level makes each key once, even under contention") {
  MemoryCache<int> cache(8);
  std::atomic<int> made{0};
  std::vector<std::thread> threads;
  std::atomic<int> hits{0};
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&] {
      bool hit = false;
      auto v = cache.get(keyOf(1),
                         [&] {
                           made++;
                           std::this_thread::sleep_for(std::chrono::milliseconds(50));
                           return std::make_shared<const int>(42);
                         },
                         hit);
      CHECK(*v == 42);
      hits += hit;
    });
  for (auto &t : threads)
    t.join();
  CHECK(made == 1);
  CHECK(hits == 15);

  // A failure is not remembered.
  bool hit = true;
  CHECK_FALSE(cache.get(keyOf(2), [] { return std::shared_ptr<const int>(); }, hit));
  CHECK(*cache.get(keyOf(2), [] { return std::make_shared<const int>(7); }, hit) == 7);
  CHECK_FALSE(hit);

  // Beyond its capacity the least recently used key goes.
  for (int i = 10; i < 30; ++i)
    cache.get(keyOf(i), [&] { return std::make_shared<const int>(i); }, hit);
  CHECK(cache.size() == 8);
  cache.get(keyOf(29), [] { return std::make_shared<const int>(-1); }, hit);
  CHECK(hit);
  cache.get(keyOf(10), [] { return std::make_shared<const int>(-1); }, hit);
  CHECK_FALSE(hit);
}

TEST_CASE("the location follows the variables and is never a shared temp dir") {
  CHECK(chooseLocation("/data/c", "/x", "/home/u").dir == "/data/c");
  CHECK(chooseLocation(nullptr, "/x", "/home/u").dir == "/x/xpujit");
  CHECK(chooseLocation("", "/x", "/home/u").dir == "/x/xpujit");
  CHECK(chooseLocation(nullptr, "relative", "/home/u").dir == "/home/u/.cache/xpujit");
  CHECK(chooseLocation(nullptr, nullptr, "/home/u").dir == "/home/u/.cache/xpujit");
  CHECK(chooseLocation("/data//c/./d/../e", nullptr, nullptr).dir == "/data/c/e");
  for (const char *bad : {"/tmp", "/tmp/xpujit", "/var/tmp/c", "/dev/shm/c",
                          "/data/../tmp/c"}) {
    Location loc = chooseLocation(bad, nullptr, "/home/u");
    CHECK(loc.dir.empty());
    CHECK(loc.problem.find("temporary directory") != std::string::npos);
  }
  CHECK(chooseLocation(nullptr, "/tmp", "/home/u").dir.empty());
  CHECK_FALSE(isSharedTemp("/tmpfoo"));

  std::string dir = scratchDir("location");
  Location ok{dir + "/a/b", ""};
  prepareLocation(ok, true);
  CHECK(ok.problem == "");
  CHECK(fs::is_directory(dir + "/a/b"));
  // A path whose parent is a regular file cannot be created, even by root.
  writeFile(dir + "/file", {1});
  Location blocked{dir + "/file/cache", ""};
  prepareLocation(blocked, true);
  CHECK(blocked.dir.empty());
  CHECK(blocked.problem.find("cannot create") != std::string::npos);
  // A symbolic link into /tmp is seen through.
  fs::create_symlink("/tmp", dir + "/link");
  Location linked{dir + "/link", ""};
  prepareLocation(linked, false);
  CHECK(linked.dir.empty());
  // Writable by everyone: refused.
  fs::create_directory(dir + "/open");
  ::chmod((dir + "/open").c_str(), 0777);
  Location open{dir + "/open", ""};
  prepareLocation(open, false);
  CHECK(open.dir.empty());
}

TEST_CASE("a cache with an unusable location works in memory and says why once") {
  std::string dir = scratchDir("memonly");
  writeFile(dir + "/file", {1});
  std::vector<std::string> warnings;
  Config config;
  config.location = {dir + "/file/cache", ""};
  config.hooks = quietHooks(&warnings);
  Cache c(config);
  CHECK_FALSE(c.disk());
  CHECK(c.note().find("memory only") != std::string::npos);
  CHECK(warnings.size() == 1);
  KernelPayload p;
  CHECK_FALSE(c.loadKernel(keyOf(1), p));
  c.saveKernel(keyOf(1), samplePayload()); // nothing happens, nothing fails
  CHECK(c.entries(true).empty());
}

TEST_CASE("verify reports and removes bad entries; list leaves them") {
  std::string dir = scratchDir("verify");
  Config config;
  config.location = {dir, ""};
  config.hooks = quietHooks();
  Cache c(config);
  REQUIRE(c.disk());
  KernelPayload p = samplePayload();
  for (int i = 0; i < 4; ++i)
    c.saveKernel(keyOf(i), p);
  c.saveSource(keyOf(9), {keyOf(0), p.kernels, {}});
  std::string victim = dir + "/" + entryFileName(EntryKind::kernel, keyOf(2));
  std::vector<uint8_t> bytes = readFile(victim);
  bytes[bytes.size() / 2] ^= 0x10;
  writeFile(victim, bytes);
  // An entry of another format version is listed but never judged.
  writeFile(dir + "/" + entryFileName(EntryKind::kernel, keyOf(7), kFormatVersion + 1), {1});

  auto listed = c.entries(false);
  CHECK(listed.size() == 6);
  int bad = 0;
  for (const EntryReport &r : listed)
    bad += !r.problem.empty();
  CHECK(bad == 1);
  CHECK(fs::exists(victim));

  auto verified = c.entries(true);
  bad = 0;
  for (const EntryReport &r : verified)
    if (!r.problem.empty()) {
      ++bad;
      CHECK(r.file.id->key == keyOf(2));
    }
  CHECK(bad == 1);
  CHECK_FALSE(fs::exists(victim));
  CHECK(c.entries(true).size() == 5);
}
