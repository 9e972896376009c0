#!/usr/bin/env python3
"""The kernel cache across processes, through the xpujit tool: concurrent
writers, a writer killed mid-write, damaged entries, unusable locations,
eviction, modes, and `xpujit cache`. Every kernel result is checked against
NumPy. Usage: test_cache.py XPUJIT XPU_OPT SCRATCH_DIR"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

XPUJIT, XPU_OPT, SCRATCH = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
N = 256
failures = []
STATS = re.compile(r"xpujit cache: (\d+) memory hits, (\d+) disk hits, (\d+) compiled; "
                   r"(\d+) stored, (\d+) bad entries, (\d+) evicted, (\d+) failed writes")


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def fresh(name):
    path = os.path.join(SCRATCH, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


KERNELS = fresh("kernels")


def kernel_file(c, style=0):
    """y[i] = x[i] * c; style 1 is the same kernel written differently."""
    path = os.path.join(KERNELS, f"scale{c}_{style}.mlir")
    if not os.path.exists(path):
        body = (f"xpu.kernel @scale(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %n: i32) {{\n"
                f"  %i = xpu.global_id x\n"
                f"  %n_idx = arith.index_castui %n : i32 to index\n"
                f"  %in = arith.cmpi ult, %i, %n_idx : index\n"
                f"  scf.if %in {{\n"
                f"    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>\n"
                f"    %c = arith.constant {c}.0 : f32\n"
                f"    %r = arith.mulf %xi, %c : f32\n"
                f"    xpu.store %r, %y[%i] : !xpu.buffer<f32>\n"
                f"  }}\n"
                f"  xpu.return\n"
                f"}}\n")
        if style == 1:
            body = "// written differently\n" + body.replace("%xi", "%v").replace("  ", "    ")
        with open(path, "w") as f:
            f.write(body)
        if style == 2:  # re-printed by xpu-opt in MLIR's generic form
            generic = subprocess.run([XPU_OPT, "--mlir-print-op-generic", path],
                                     capture_output=True, text=True, check=True).stdout
            with open(path, "w") as f:
                f.write(generic)
    return path


def environment(cache_dir, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XPU_")}
    env.update(XPU_BACKEND="cpu", XPU_CACHE_STATS="1")
    if cache_dir is not None:
        env["XPU_CACHE_DIR"] = cache_dir
    env.update(extra)
    return env


def start(cache_dir, c, style=0, preexec=None, **extra):
    out = os.path.join(SCRATCH, "out", f"{os.getpid()}-{time.monotonic_ns()}")
    os.makedirs(out)
    args = [XPUJIT, "run", kernel_file(c, style), "--kernel", "scale",
            "--grid", str(N // 64), "--block", "64", "--arg", f"buf:f32[{N}]",
            "--arg", f"buf:f32[{N}]=rand", "--arg", f"u32:{N}", "--seed", str(c + 7),
            "--save", out]
    p = subprocess.Popen(args, env=environment(cache_dir, **extra), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=preexec)
    p.out_dir, p.c, p.what = out, c, f"scale{c} style {style} in {cache_dir}"
    # Buffers are saved under their parameter names: the generic form has none.
    p.names = ("arg0", "arg1") if style == 2 else ("y", "x")
    return p


def finish(p):
    """Waits for a run; checks its result; returns its cache counters."""
    stdout, stderr = p.communicate(timeout=120)
    p.stderr_text = stderr
    if not check(p.returncode == 0, f"{p.what}: exit {p.returncode}\n{stdout}{stderr}"):
        return None
    x = np.fromfile(os.path.join(p.out_dir, p.names[1] + ".in.bin"), dtype=np.float32)
    y = np.fromfile(os.path.join(p.out_dir, p.names[0] + ".out.bin"), dtype=np.float32)
    check(x.size == N and np.array_equal(y, x * np.float32(p.c)),
          f"{p.what}: wrong result")
    shutil.rmtree(p.out_dir)
    m = STATS.search(stderr)
    if not check(m, f"{p.what}: no stats line in stderr:\n{stderr}"):
        return None
    keys = ("memory_hits", "disk_hits", "compiled", "stored", "bad", "evicted", "failed")
    return dict(zip(keys, map(int, m.groups())))


def run(cache_dir, c, style=0, preexec=None, **extra):
    p = start(cache_dir, c, style, preexec, **extra)
    return finish(p), p.stderr_text


def files(cache_dir):
    names = sorted(os.listdir(cache_dir))
    entries = [n for n in names if re.fullmatch(r"[0-9a-f]{32}\.[ks]2", n)]
    temps = [n for n in names if n.startswith(".tmp.")]
    return entries, temps


def tool(*args, env_dir=None, expect=0, **extra):
    env = environment(env_dir, **extra)
    del env["XPU_CACHE_STATS"]
    p = subprocess.run([XPUJIT, *args], env=env, text=True, capture_output=True)
    check(p.returncode == expect,
          f"xpujit {' '.join(args)}: exit {p.returncode}, wanted {expect}\n{p.stdout}{p.stderr}")
    return p


# --- 16 processes at once, same and different kernels, one directory ------
shared = fresh("concurrent")
for round_ in range(2):
    procs = [start(shared, c=i % 4, style=(i // 4) % 2) for i in range(16)]
    results = [finish(p) for p in procs]
    entries, temps = files(shared)
    check(not temps, f"round {round_}: temporary files left: {temps}")
    kernels = [e for e in entries if e.endswith(".k2")]
    sources = [e for e in entries if e.endswith(".s2")]
    check(len(kernels) == 4, f"round {round_}: {len(kernels)} kernel entries, wanted 4")
    check(len(sources) == 8, f"round {round_}: {len(sources)} source entries, wanted 8")
    if round_ == 1:
        check(all(r and r["compiled"] == 0 and r["disk_hits"] == 1 for r in results),
              f"second round compiled: {results}")
v = tool("cache", "verify", env_dir=shared)
check("checked 12 entries: 0 bad, 0 removed" in v.stdout, f"verify: {v.stdout}")

# The same kernel re-printed in generic form has the same key: another
# process finds its code on disk.
stats, _ = run(shared, c=0, style=2)
check(stats and stats["compiled"] == 0 and stats["disk_hits"] == 1, f"generic form: {stats}")

# --- a writer killed half-way through an entry ------------------------------
killed = fresh("killed")
p = start(killed, c=5, XPU_CACHE_TEST_HOOK="stall-write")
said = ""
while "writer stalled in" not in said:
    line = p.stderr.readline()
    if not line:
        break
    said += line
check("writer stalled in" in said, f"the stall hook said: {said!r}")
os.kill(p.pid, signal.SIGKILL)
p.wait()
entries, temps = files(killed)
check(entries == [] and len(temps) == 1, f"after the kill: {entries} {temps}")
stats, _ = run(killed, c=5)
check(stats and stats["compiled"] == 1 and stats["bad"] == 0, f"after the kill: {stats}")
entries, temps = files(killed)
check(len(entries) == 2 and len(temps) == 1, f"young temp kept: {entries} {temps}")
hour_ago = time.time() - 3600
os.utime(os.path.join(killed, temps[0]), (hour_ago, hour_ago))
run(killed, c=6)  # its first write scans the directory
entries, temps = files(killed)
check(temps == [] and len(entries) == 4, f"stale temp removed: {entries} {temps}")

# --- damaged entries: detected, removed, recompiled (never loaded) ----------
damaged = fresh("damaged")
run(damaged, c=3)
entries, _ = files(damaged)
for entry in entries:
    path = os.path.join(damaged, entry)
    with open(path, "rb") as f:
        good = f.read()
    size = len(good)
    mutations = {f"flip@{i}": i for i in (0, 9, 13, 20, 33, 41, 48, size // 2, size - 1)}
    mutations.update({f"cut@{n}": -n - 1 for n in (0, 10, 47, 48, size - 1)})
    for name, where in mutations.items():
        bad = bytearray(good)
        if where >= 0:
            bad[where] ^= 0x20
        else:
            del bad[-where - 1:]
        with open(path, "wb") as f:
            f.write(bad)
        stats, err = run(damaged, c=3)
        what = f"{entry} {name}"
        if stats:
            check(stats["bad"] == 1, f"{what}: not detected: {stats}\n{err}")
            if entry.endswith(".k2"):
                check(stats["compiled"] == 1, f"{what}: not recompiled: {stats}")
            else:
                check(stats["disk_hits"] == 1, f"{what}: kernel entry not used: {stats}")
            check("is damaged" in err, f"{what}: not logged: {err}")
        check(os.path.exists(path), f"{what}: entry not rewritten")
v = tool("cache", "verify", env_dir=damaged)
check(" 0 bad" in v.stdout, f"verify after repairs: {v.stdout}")

# --- `xpujit cache list` and `verify` -----------------------------------------
entries, _ = files(damaged)
victim = os.path.join(damaged, [e for e in entries if e.endswith(".k2")][0])
with open(victim, "r+b") as f:
    f.seek(60)
    byte = f.read(1)
    f.seek(60)
    f.write(bytes([byte[0] ^ 1]))
listing = tool("cache", "list", env_dir=damaged)
check("BAD: payload checksum mismatch" in listing.stdout and "scale" in listing.stdout,
      f"list: {listing.stdout}")
check(os.path.exists(victim), "list removed an entry")
v = tool("cache", "verify", env_dir=damaged)
check(f"bad: {victim}: payload checksum mismatch" in v.stdout and "1 bad, 1 removed" in v.stdout,
      f"verify: {v.stdout}")
check(not os.path.exists(victim), "verify left a bad entry")

# --- unusable locations: the program carries on from memory -----------------
odd = fresh("odd")
with open(os.path.join(odd, "file"), "w") as f:
    f.write("not a directory")
for where, expect in ((os.path.join(odd, "file", "cache"), "cannot create the cache directory"),
                      (os.path.join(odd, "file"), "is not a directory"),
                      ("/tmp/xpujit-cache-test", "temporary directory shared by all users")):
    stats, err = run(where, c=1)
    check(stats and stats["compiled"] == 1, f"{where}: {stats}")
    check(err.count(expect) == 1 and "memory only" in err, f"{where}: {err}")
check(not os.path.exists("/tmp/xpujit-cache-test"), "a cache was made under /tmp")

if os.geteuid() != 0:
    ro = fresh("readonly-dir")
    os.chmod(ro, 0o555)
    stats, err = run(ro, c=1)
    check(stats and stats["compiled"] == 1 and "not writable" in err, f"0555: {stats} {err}")
    os.chmod(ro, 0o755)
else:
    print("skipped: a mode-0555 directory (root writes to it anyway); "
          "RLIMIT_FSIZE and a path through a file cover unwritable locations")


def small_file_limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


full = fresh("filesize")
stats, err = run(full, c=2, preexec=small_file_limit)
check(stats and stats["compiled"] == 1 and stats["failed"] >= 1, f"ulimit -f: {stats}")
check(err.count("file size limit") == 1, f"ulimit -f: {err}")
entries, temps = files(full)
check(not temps and all(os.path.getsize(os.path.join(full, e)) <= 1024 for e in entries),
      f"ulimit -f left {entries} {temps}")
stats, _ = run(full, c=2)  # without the limit: stored now
check(stats and stats["stored"] >= 1, f"after ulimit -f: {stats}")

# A full file system: a small tmpfs, when this process may mount one.
mnt = fresh("tmpfs")
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mnt],
                  capture_output=True).returncode == 0:
    try:
        with open(os.path.join(mnt, "filler"), "wb") as f:
            try:
                f.write(b"\0" * (64 * 1024))
            except OSError:
                pass
        stats, err = run(mnt, c=2)
        check(stats and stats["compiled"] == 1 and stats["failed"] == 1, f"full fs: {stats}")
        check("No space left" in err, f"full fs: {err}")
        check(not files(mnt)[1], "full fs: temporary files left")
    finally:
        subprocess.run(["umount", mnt])
else:
    print("skipped: a full tmpfs (cannot mount here); RLIMIT_FSIZE covers failed writes")

# --- eviction keeps the store under XPU_CACHE_MAX_BYTES ---------------------
small = fresh("evict")
limit = 12 * 1024
evicted = 0
for c in range(10, 22):
    stats, _ = run(small, c=c, XPU_CACHE_MAX_BYTES="12K")
    evicted += stats["evicted"] if stats else 0
    entries, _ = files(small)
    total = sum(os.path.getsize(os.path.join(small, e)) for e in entries)
    check(total <= limit, f"after scale{c}: {total} bytes in the store, limit {limit}")
check(evicted > 0, "nothing was evicted")
stats, _ = run(small, c=21, XPU_CACHE_MAX_BYTES="12K")
check(stats and stats["disk_hits"] == 1, f"the newest kernel was evicted: {stats}")

# --- modes ------------------------------------------------------------------
off = os.path.join(SCRATCH, "off")
shutil.rmtree(off, ignore_errors=True)
stats, _ = run(off, c=1, XPU_CACHE="off")
check(stats and stats["compiled"] == 1 and not os.path.exists(off), f"off: {stats}")
ro = fresh("readonly")
run(ro, c=1)
before = files(ro)[0]
stats, _ = run(ro, c=1, XPU_CACHE="readonly")
check(stats and stats["disk_hits"] == 1, f"readonly hit: {stats}")
stats, _ = run(ro, c=2, XPU_CACHE="readonly")
check(stats and stats["compiled"] == 1 and files(ro)[0] == before, f"readonly wrote: {stats}")
victim = os.path.join(ro, [e for e in before if e.endswith(".k2")][0])
with open(victim, "r+b") as f:
    f.truncate(100)
stats, _ = run(ro, c=1, XPU_CACHE="readonly")
check(stats and stats["bad"] >= 1 and os.path.exists(victim), f"readonly removed: {stats}")
p = tool("cache", "clear", env_dir=ro, expect=1, XPU_CACHE="readonly")
check("XPU_CACHE=readonly: the disk cache is not changed" in p.stderr, p.stderr)
check(files(ro)[0] == before, "clear changed a readonly cache")

# --- bad settings are errors that list what is accepted ---------------------
for var, value, accepted in (("XPU_CACHE", "maybe", "on, off, readonly"),
                             ("XPU_CACHE_MAX_BYTES", "12Q", "K, M, G or T"),
                             ("XPU_CACHE_MAX_BYTES", "0", "positive"),
                             ("XPU_CACHE_STATS", "yes", "0, 1"),
                             ("XPU_CACHE_TEST_HOOK", "x", "stall-write")):
    p = start(shared, c=1, **{var: value})
    stdout, stderr = p.communicate()
    check(p.returncode == 1 and accepted in stderr, f"{var}={value}: {p.returncode} {stderr}")

# --- xpujit cache stats / clear ---------------------------------------------
p = tool("cache", "stats", "--", XPUJIT, "run", kernel_file(1), "--kernel", "scale",
         "--grid", "1", "--block", "1", "--arg", "buf:f32[1]", "--arg", "buf:f32[1]",
         "--arg", "u32:1", env_dir=shared)
check(STATS.search(p.stderr) and f"location  {shared}" in p.stdout and
      "entries   13," in p.stdout, f"stats --: {p.stdout}{p.stderr}")
p = tool("cache", "clear", env_dir=shared)
check("removed 13 files" in p.stdout and files(shared) == ([], []), p.stdout)
p = tool("cache", "stats", env_dir=os.path.join(odd, "file", "x"))
check("mode      memory only" in p.stdout, p.stdout)
tool("cache", "list", env_dir=os.path.join(odd, "file", "x"), expect=1)
tool("cache", "bogus", expect=2)
check("usage: xpujit cache" in tool("cache", "--help").stdout, "cache --help")

shutil.rmtree(os.path.join(SCRATCH, "out"), ignore_errors=True)
if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("cache: all checks passed")
