"""The corpus: gpu.module kernels written the way MLIR front ends write them
(corpus/*.mlir), each run on the backend under test with fresh random
inputs and every output element checked against a host reference; and,
where the machine has more than one backend, the same inputs on every
device give identical integer results."""
import numpy as np
import pytest

import xpujit
from conftest import CORPUS
from corpus_cases import CASES


def test_every_corpus_kernel_has_a_case():
    files = sorted(p.stem for p in CORPUS.glob("*.mlir"))
    assert files == sorted(CASES), "corpus/*.mlir and corpus_cases.CASES differ"
    assert len(files) >= 25


def run(device, name, case):
    kernel = device.compile((CORPUS / f"{name}.mlir").read_text(),
                            source_name=f"{name}.mlir").kernel(name)
    # Outputs start from the case's contents on every device; inputs are
    # passed as they are (a strided NumPy view stays one).
    outputs = set(case.expect) | set(case.invariants)
    args = [a.copy() if i in outputs else a for i, a in enumerate(case.args)]
    kernel.launch(case.grid, case.block, args, dynamic_shared_bytes=case.dynamic_shared)
    device.synchronize()
    return args


def check(case, args):
    for i, want in case.expect.items():
        got = args[i]
        if i in case.tolerance:
            np.testing.assert_allclose(got, want, *case.tolerance[i], equal_nan=True)
        else:
            np.testing.assert_array_equal(got, np.asarray(want).astype(got.dtype))
    for i, invariant in case.invariants.items():
        invariant(args[i])


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_kernel(device, rng, name):
    case = CASES[name](rng)
    check(case, run(device, name, case))


@pytest.mark.parametrize("name", sorted(CASES))
def test_backends_agree(device, rng, name):
    """Every other device of the machine computes the same outputs from the
    same inputs (integers bit for bit; outputs that depend on the wave width
    only through their invariants)."""
    found = xpujit.devices()
    if device.backend != found[0].backend:
        pytest.skip(f"compared once, by the run of the first backend ({found[0].backend})")
    others = [d for d in found if d.backend != device.backend]
    if not others:
        pytest.skip(f"no device of another backend than {device.backend}")
    case = CASES[name](rng)
    mine = run(device, name, case)
    for other in others:
        theirs = run(other, name, case)
        check(case, theirs)
        for i in case.expect:
            if np.asarray(mine[i]).dtype.kind in "iub":
                np.testing.assert_array_equal(mine[i], theirs[i],
                                              f"{device.spec} vs {other.spec}")
