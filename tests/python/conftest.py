"""pytest set-up for the Python package: import it from the source tree
when it is not installed, and give tests the devices to run on -- the CPU
always, and each GPU backend (Vulkan: lavapipe in CI) where the library
finds a device."""
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

EXAMPLES = ROOT / "examples"


def _backend_device(backend):
    found = xpujit.devices(backend)
    if not found:
        pytest.skip(f"no {backend} device: {xpujit.backend_note(backend) or 'none found'}")
    return found[0]


@pytest.fixture(params=["cpu", "vulkan", "cuda", "hip"])
def device(request):
    """Each backend's first device; a backend without one is skipped with
    the library's reason."""
    return _backend_device(request.param)


@pytest.fixture
def cpu():
    """The CPU device (always present)."""
    return _backend_device("cpu")


@pytest.fixture
def rng():
    """Fresh random data each run; the seed is printed (shown on failure)
    and XPU_TEST_SEED repeats it."""
    seed = int(os.environ.get("XPU_TEST_SEED") or np.random.SeedSequence().entropy % 2**32)
    print(f"random seed {seed} (XPU_TEST_SEED repeats it)")
    return np.random.default_rng(seed)


def compile_or_skip(device, source):
    """Compiles for `device`; a capability refusal (the device lacks what the
    kernel needs) skips the test with the library's diagnostic."""
    try:
        return device.compile(source)
    except xpujit.RefusedError as e:
        if any(d.code.startswith("XPU-CAP") for d in e.diagnostics):
            pytest.skip(f"{device.spec}: {e.message}")
        raise
