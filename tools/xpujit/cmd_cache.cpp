// `xpujit cache`: the kernel cache's state, entries, checks and removal.
#include "cli.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace cli {

namespace {

const char *kCacheHelp =
    "usage: xpujit cache COMMAND\n"
    "\n"
    "commands:\n"
    "  stats                 location, mode, size limit, entries and bytes on disk\n"
    "  stats -- PROGRAM ...  run PROGRAM with XPU_CACHE_STATS=1 (the library then\n"
    "                        prints that process's memory hits, disk hits and\n"
    "                        compiles to stderr at exit), then print the stats\n"
    "  list                  every entry: key, kind, size, last use, kernels\n"
    "  verify                check every entry; report and remove the bad ones\n"
    "  clear                 remove every entry\n"
    "\n"
    "The cache is the one the library uses with the same environment:\n"
    "XPU_CACHE_DIR, else $XDG_CACHE_HOME/xpujit, else ~/.cache/xpujit.\n";

const char *modeName(xpu_cache_mode m) {
  switch (m) {
  case XPU_CACHE_MODE_OFF: return "off";
  case XPU_CACHE_MODE_MEMORY: return "memory only";
  case XPU_CACHE_MODE_READONLY: return "readonly";
  case XPU_CACHE_MODE_ON: return "on";
  default: return "?";
  }
}

std::string size(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

std::string when(int64_t seconds) {
  time_t t = time_t(seconds);
  struct tm tm;
  char buf[32];
  localtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

/// The stats, or a failure already reported.
bool stats(xpu_cache_stats &s) {
  s = {};
  s.struct_size = sizeof s;
  if (xpu_status st = xpu_cache_stats_get(&s)) {
    reportFailure("cannot read the cache state", st);
    return false;
  }
  return true;
}

/// Runs argv[0..] with XPU_CACHE_STATS=1; returns its exit code.
int runProgram(char **argv) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("xpujit cache stats: fork");
    return kFailed;
  }
  if (pid == 0) {
    setenv("XPU_CACHE_STATS", "1", 1);
    execvp(argv[0], argv);
    std::fprintf(stderr, "xpujit cache stats: cannot run %s: %s\n", argv[0],
                 std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  std::fprintf(stderr, "xpujit cache stats: %s died of signal %d\n", argv[0],
               WTERMSIG(status));
  return kFailed;
}

int cmdStats(int argc, char **argv) {
  int rc = kOk;
  if (argc > 1) {
    if (std::strcmp(argv[1], "--") != 0 || argc < 3) {
      std::fprintf(stderr, "xpujit cache stats: expected `-- PROGRAM [ARGS...]`\n");
      return kUsage;
    }
    rc = runProgram(argv + 2);
  }
  xpu_cache_stats s;
  if (!stats(s))
    return kFailed;
  std::printf("location  %s\n", s.location[0] ? s.location : "(none)");
  std::printf("mode      %s%s%s\n", modeName(s.mode), s.note[0] ? ": " : "", s.note);
  std::printf("limit     %s (%llu bytes)\n", size(s.max_bytes).c_str(),
              (unsigned long long)s.max_bytes);
  std::printf("entries   %llu, %s (%llu bytes)\n", (unsigned long long)s.entries,
              size(s.bytes).c_str(), (unsigned long long)s.bytes);
  return rc;
}

bool needDisk() {
  xpu_cache_stats s;
  if (!stats(s))
    return false;
  if (!s.location[0]) {
    std::fprintf(stderr, "xpujit cache: no disk cache (%s)\n", s.note);
    return false;
  }
  return true;
}

void printEntry(const xpu_cache_entry *e, void *) {
  std::printf("%s  %-6s  %9s  %s  %s\n", e->key, e->kind, size(e->bytes).c_str(),
              when(e->last_used).c_str(), e->description);
  if (e->problem[0])
    std::printf("    BAD: %s (%s)\n", e->problem, e->path);
}

int cmdList() {
  if (!needDisk())
    return kFailed;
  if (xpu_status st = xpu_cache_list(printEntry, nullptr))
    return reportFailure("cannot list the cache", st);
  return kOk;
}

int cmdVerify() {
  if (!needDisk())
    return kFailed;
  uint64_t checked = 0, removed = 0, bad = 0;
  auto onBad = [](const xpu_cache_entry *e, void *user) {
    ++*static_cast<uint64_t *>(user);
    std::printf("bad: %s: %s\n", e->path, e->problem);
  };
  if (xpu_status st = xpu_cache_verify(onBad, &bad, &checked, &removed))
    return reportFailure("cannot verify the cache", st);
  std::printf("checked %llu entries: %llu bad, %llu removed\n",
              (unsigned long long)checked, (unsigned long long)bad,
              (unsigned long long)removed);
  return kOk;
}

int cmdClear() {
  if (!needDisk())
    return kFailed;
  uint64_t removed = 0;
  if (xpu_status st = xpu_cache_clear(&removed))
    return reportFailure("cannot clear the cache", st);
  xpu_cache_stats s;
  if (!stats(s))
    return kFailed;
  std::printf("removed %llu files from %s\n", (unsigned long long)removed, s.location);
  return kOk;
}

} // namespace

int runCache(int argc, char **argv) {
  if (argc < 2) {
    std::fputs(kCacheHelp, stderr);
    return kUsage;
  }
  std::string cmd = argv[1];
  auto isHelp = [](const std::string &a) { return a == "--help" || a == "-h" || a == "help"; };
  // `xpujit cache help`, `xpujit cache --help` and `xpujit cache verify --help`.
  if (isHelp(cmd) || (argc > 2 && isHelp(argv[2]))) {
    std::fputs(kCacheHelp, stdout);
    return kOk;
  }
  if (cmd == "stats")
    return cmdStats(argc - 1, argv + 1);
  if (argc > 2) {
    std::fprintf(stderr, "xpujit cache %s: unexpected argument '%s'\n",
                 cmd.c_str(), argv[2]);
    return kUsage;
  }
  if (cmd == "list")
    return cmdList();
  if (cmd == "verify")
    return cmdVerify();
  if (cmd == "clear")
    return cmdClear();
  std::fprintf(stderr, "xpujit cache: unknown command '%s'\n\n%s", cmd.c_str(),
               kCacheHelp);
  return kUsage;
}

} // namespace cli
