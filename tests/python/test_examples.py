"""The example script runs and checks itself; so does the package after
`pip install` (offline, into a scratch directory), finding the library it
bundled without XPU_LIBRARY."""
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import xpujit
from conftest import EXAMPLES, ROOT


def run_example(env, *args):
    p = subprocess.run([sys.executable, str(EXAMPLES / "saxpy.py"), *args],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_saxpy_example(device):
    # The script imports the package this test imported, installed or not.
    package_parent = str(pathlib.Path(xpujit.__file__).resolve().parents[1])
    path = [package_parent] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    assert "match NumPy" in run_example(env, device.spec)


def test_pip_install_bundles_the_library(tmp_path):
    missing = [m for m in ("pip", "setuptools") if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed")
    # Build from a copy so the source tree stays clean.
    src = tmp_path / "src"
    shutil.copytree(ROOT / "bindings" / "python", src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__",
                                                  "libxpujit.so*"))
    site = tmp_path / "site"
    env = dict(os.environ, XPU_LIBRARY=xpujit.library_path)
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index",
                        "--no-build-isolation", "--no-deps", "--quiet",
                        "--target", str(site), str(src)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert list((site / "xpujit").glob("libxpujit.so"))
    env = {k: v for k, v in os.environ.items() if k not in ("XPU_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    probe = subprocess.run([sys.executable, "-c", "import xpujit; print(xpujit.library_path)"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert probe.stdout.strip() == str(site / "xpujit" / "libxpujit.so"), probe.stderr
    assert "match NumPy" in run_example(env, "cpu")
