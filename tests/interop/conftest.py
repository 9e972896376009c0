"""pytest set-up for the interop tests (kernels imported from the gpu
dialect): the package from the source tree, the device of the backend named
by XPU_TEST_BACKEND (cpu when unset; a backend without a device ends the
run with exit code 77, which CTest reports as skipped), and fresh random
inputs."""
import os
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
try:
    import xpujit
except ImportError:
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    import xpujit

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"
BACKEND = os.environ.get("XPU_TEST_BACKEND", "cpu")


def pytest_sessionstart(session):
    if not xpujit.devices(BACKEND):
        print(f"SKIP: no {BACKEND} device: {xpujit.backend_note(BACKEND) or 'none found'}")
        pytest.exit(f"no {BACKEND} device", returncode=77)


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
