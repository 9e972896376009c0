// Where the disk cache lives: XPU_CACHE_DIR, else $XDG_CACHE_HOME/xpujit,
// else $HOME/.cache/xpujit. Never under /tmp (or /var/tmp, /dev/shm):
// those are shared with every user, who could plant entries there.
#pragma once

#include <string>

namespace xpu::cache {

struct Location {
  std::string dir;     ///< absolute path; empty when there is none
  std::string problem; ///< why there is none ("" when `dir` is set)
};

/// Picks the directory from the variables' values (null or "" when unset).
/// Does not touch the file system.
Location chooseLocation(const char *cacheDir, const char *xdgCacheHome,
                        const char *home);

/// Creates `loc.dir` when `create`, then checks that it is a directory,
/// that its real path is not under a shared temporary directory, and that
/// it is not writable by everyone. Sets `loc.problem` when it is unusable.
void prepareLocation(Location &loc, bool create);

/// Whether `path` (absolute, normalized) is /tmp, /var/tmp, /dev/shm or
/// below one of them.
bool isSharedTemp(const std::string &path);

} // namespace xpu::cache
