"""The package's own PEP 517 build back end: it needs nothing but the
standard library, so `pip install ./bindings/python` works offline with any
pip and any Python 3.8+ (no setuptools or wheel to fetch), writes nothing into
the source tree, and makes a platform wheel, because the wheel carries the
built libxpujit.so (an x86-64 Linux ELF object, not pure Python).

The library is taken from XPU_LIBRARY, else from XPU_BUILD_DIR/src, else from
the checkout's build/src; building a wheel without one is an error."""
import base64
import csv
import hashlib
import io
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sysconfig
import tempfile
import zipfile

HERE = pathlib.Path(__file__).resolve().parent.parent
NAME = "xpujit"

# ELF e_machine values of the platforms a wheel tag can name.
_ELF_MACHINES = {62: "x86_64", 183: "aarch64"}


def _project():
    """name, version, summary and requirements from pyproject.toml's
    [project] table (read with a regular expression: tomllib is 3.11+)."""
    text = (HERE / "pyproject.toml").read_text()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]

    def field(key):
        m = re.search(rf'^{key}\s*=\s*"([^"]*)"', table, re.M)
        return m.group(1) if m else None

    deps = re.search(r"^dependencies\s*=\s*\[([^\]]*)\]", table, re.M)
    return {
        "version": field("version"),
        "summary": field("description"),
        "requires_python": field("requires-python"),
        "dependencies": re.findall(r'"([^"]+)"', deps.group(1)) if deps else [],
    }


def _library():
    env = os.environ.get("XPU_LIBRARY")
    if env:
        candidates = [pathlib.Path(env)]
    else:
        build = os.environ.get("XPU_BUILD_DIR") or HERE.parents[1] / "build"
        candidates = [pathlib.Path(build) / "src" / "libxpujit.so"]
    for c in candidates:
        if c.exists():
            return c.resolve()
    raise RuntimeError(
        "xpujit: no built libxpujit.so to put in the wheel (looked for "
        + ", ".join(str(c) for c in candidates)
        + "). Build the library first (./scripts/build.sh), or set XPU_LIBRARY "
        "or XPU_BUILD_DIR.")


def _stripped(library):
    """The library's bytes without its static symbol table (LLVM's and MLIR's,
    about a third of the file), when a strip tool is found."""
    tool = next((t for t in ("llvm-strip-22", "llvm-strip", "strip") if shutil.which(t)), None)
    if tool is None:
        return library.read_bytes()
    with tempfile.TemporaryDirectory() as scratch:
        copy = pathlib.Path(scratch) / "libxpujit.so"
        shutil.copyfile(library, copy)
        subprocess.run([tool, "--strip-all", str(copy)], check=True)
        return copy.read_bytes()


def _platform_tag(library):
    """linux_<arch> of the library's own ELF header, checked against this
    interpreter's platform: a wheel must not claim a platform it cannot run on."""
    header = library.read_bytes()[:20]
    if header[:4] != b"\x7fELF":
        raise RuntimeError(f"xpujit: {library} is not an ELF shared object")
    machine = _ELF_MACHINES.get(int.from_bytes(header[18:20], "little"))
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    if machine is None or platform != f"linux_{machine}":
        raise RuntimeError(f"xpujit: {library} is built for {machine or 'an unknown machine'}"
                           f", this Python runs on {platform}")
    return platform


def _metadata(project):
    lines = ["Metadata-Version: 2.1", f"Name: {NAME}", f"Version: {project['version']}",
             f"Summary: {project['summary']}"]
    if project["requires_python"]:
        lines.append(f"Requires-Python: {project['requires_python']}")
    lines += [f"Requires-Dist: {d}" for d in project["dependencies"]]
    lines += ["Description-Content-Type: text/markdown", "", (HERE / "README.md").read_text()]
    return "\n".join(lines)


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return [path, "sha256=" + digest.decode(), str(len(data))]


def _write_wheel(wheel_directory, files, tag, root_is_purelib):
    """files: [(path in the wheel, bytes, executable)]. Returns the name."""
    project = _project()
    dist_info = f"{NAME}-{project['version']}.dist-info"
    files = list(files) + [
        (f"{dist_info}/METADATA", _metadata(project).encode(), False),
        (f"{dist_info}/WHEEL", (
            "Wheel-Version: 1.0\nGenerator: xpujit_build\n"
            f"Root-Is-Purelib: {'true' if root_is_purelib else 'false'}\nTag: {tag}\n").encode(), False),
        (f"{dist_info}/top_level.txt", f"{NAME}\n".encode(), False),
    ]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data, _ in files:
        writer.writerow(_record_line(path, data))
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    name = f"{NAME}-{project['version']}-{tag}.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data, executable in files + [(f"{dist_info}/RECORD", record.getvalue().encode(), False)]:
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return name


def _sources():
    for p in sorted((HERE / NAME).glob("*.py")):
        yield (f"{NAME}/{p.name}", p.read_bytes(), False)


# PEP 517 hooks.

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    library = _library()
    files = list(_sources()) + [(f"{NAME}/libxpujit.so", _stripped(library), True)]
    return _write_wheel(wheel_directory, files, f"py3-none-{_platform_tag(library)}",
                        root_is_purelib=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """An editable install points at this source tree; the package then finds
    the library in the checkout's build tree (or through XPU_LIBRARY)."""
    pth = (str(HERE) + "\n").encode()
    return _write_wheel(wheel_directory, [(f"__editable__.{NAME}.pth", pth, False)],
                        "py3-none-any", root_is_purelib=True)
