// The cache location; see location.h.
#include "location.h"
#include "file_io.h"

#include <climits>
#include <cstdlib>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace xpu::cache {

namespace {

/// Absolute and without ".", ".." or repeated slashes (lexically).
std::string normalize(const std::string &path) {
  std::string abs = path;
  if (abs.empty() || abs[0] != '/') {
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd))
      return "";
    abs = std::string(cwd) + "/" + abs;
  }
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= abs.size()) {
    size_t j = abs.find('/', i);
    if (j == std::string::npos)
      j = abs.size();
    std::string part = abs.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const std::string &p : parts)
    out += "/" + p;
  return out.empty() ? "/" : out;
}

std::string homeDirectory(const char *home) {
  if (home && *home)
    return home;
  struct passwd pw, *found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::geteuid(), &pw, buf, sizeof buf, &found) == 0 && found &&
      found->pw_dir && *found->pw_dir)
    return found->pw_dir;
  return "";
}

} // namespace

bool isSharedTemp(const std::string &path) {
  for (const char *t : {"/tmp", "/var/tmp", "/dev/shm"}) {
    std::string p = t;
    if (path == p || path.rfind(p + "/", 0) == 0)
      return true;
  }
  return false;
}

Location chooseLocation(const char *cacheDir, const char *xdgCacheHome,
                        const char *home) {
  Location loc;
  std::string from;
  if (cacheDir && *cacheDir) {
    loc.dir = cacheDir;
    from = "XPU_CACHE_DIR";
  } else if (xdgCacheHome && *xdgCacheHome && xdgCacheHome[0] == '/') {
    // The XDG spec says a relative XDG_CACHE_HOME is to be ignored.
    loc.dir = std::string(xdgCacheHome) + "/xpujit";
    from = "XDG_CACHE_HOME";
  } else {
    std::string h = homeDirectory(home);
    if (h.empty()) {
      loc.problem = "no cache location: XPU_CACHE_DIR, XDG_CACHE_HOME and HOME "
                    "are unset and the user has no home directory";
      return loc;
    }
    loc.dir = h + "/.cache/xpujit";
    from = "HOME";
  }
  loc.dir = normalize(loc.dir);
  if (loc.dir.empty()) {
    loc.problem = "cannot make the cache location from " + from + " absolute";
  } else if (isSharedTemp(loc.dir)) {
    loc.problem = "refusing the cache location " + loc.dir + " (from " + from +
                  "): it is under a temporary directory shared by all users";
    loc.dir.clear();
  }
  return loc;
}

void prepareLocation(Location &loc, bool create) {
  if (loc.dir.empty())
    return;
  auto fail = [&](std::string why) {
    loc.problem = std::move(why);
    loc.dir.clear();
  };
  struct stat st;
  if (::stat(loc.dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    return fail("the cache location " + loc.dir + " is not a directory");
  if (create)
    if (int err = makeDirs(loc.dir, 0700))
      return fail("cannot create the cache directory " + loc.dir + ": " +
                  errorText(err));
  if (::stat(loc.dir.c_str(), &st) != 0)
    return fail("the cache directory " + loc.dir + " is not there: " +
                errorText(errno));
  if (!S_ISDIR(st.st_mode))
    return fail("the cache location " + loc.dir + " is not a directory");
  // A symbolic link may lead somewhere the name does not say.
  if (char *real = ::realpath(loc.dir.c_str(), nullptr)) {
    std::string r = real;
    std::free(real);
    if (isSharedTemp(r))
      return fail("refusing the cache location " + loc.dir + " (really " + r +
                  "): it is under a temporary directory shared by all users");
  }
  if (st.st_mode & S_IWOTH)
    return fail("refusing the cache directory " + loc.dir +
                ": anyone may write to it");
}

} // namespace xpu::cache
