"""pytest set-up for the interop tests (kernels imported from the gpu
dialect): the package from the source tree, the device of the backend named
by XPU_TEST_BACKEND (cpu when unset; a backend without a device ends the
run with exit code 77, which CTest reports as skipped), and fresh random
inputs. On Vulkan, when XPU_DUMP_DIR is set (CTest sets it), every SPIR-V
module the session compiled is validated with spirv-val at its end: an
invalid module fails the run even when the driver accepted it (lavapipe
does; NVIDIA's driver crashed on OpIsFinite)."""
import os
import pathlib
import shutil
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
try:
    import xpujit
except ImportError:
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import xpujit

sys.path.insert(0, str(ROOT / "tests" / "vulkan"))
from spirv_check import invalid_modules, spirv_val  # noqa: E402

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"
BACKEND = os.environ.get("XPU_TEST_BACKEND", "cpu")
SPIRV_DUMP = os.environ.get("XPU_DUMP_DIR") if BACKEND == "vulkan" else None


def pytest_sessionstart(session):
    if not xpujit.devices(BACKEND):
        print(f"SKIP: no {BACKEND} device: {xpujit.backend_note(BACKEND) or 'none found'}")
        pytest.exit(f"no {BACKEND} device", returncode=77)
    if SPIRV_DUMP:
        shutil.rmtree(SPIRV_DUMP, ignore_errors=True)
        os.makedirs(SPIRV_DUMP)


def pytest_sessionfinish(session, exitstatus):
    if not SPIRV_DUMP or exitstatus == 77:
        return
    validator = spirv_val()
    if not validator:
        print("\nSKIP: spirv-val not found (Debian: spirv-tools): SPIR-V not validated")
        return
    count, failures = invalid_modules(SPIRV_DUMP, validator)
    for failure in failures:
        print(f"\nFAIL: invalid SPIR-V {failure}")
    if failures or not count:
        print(f"\nFAIL: {len(failures)} of {count} dumped SPIR-V modules invalid")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    else:
        print(f"\nspirv-val: all {count} SPIR-V modules of the session valid")


@pytest.fixture(scope="session")
def device():
    """The first device of the backend under test."""
    return xpujit.devices(BACKEND)[0]


@pytest.fixture
def rng():
    """Fresh random data each run; the seed is printed (shown on failure)
    and XPU_TEST_SEED repeats it."""
    seed = int(os.environ.get("XPU_TEST_SEED") or np.random.SeedSequence().entropy % 2**32)
    print(f"random seed {seed} (XPU_TEST_SEED repeats it)")
    return np.random.default_rng(seed)
