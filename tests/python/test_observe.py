"""Observing from Python: Module.report() and a trace of a launch, both
checked against their formats (docs/observe.md)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import xpujit
from conftest import EXAMPLES

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "observe"))
import trace_format  # noqa: E402

SAXPY = (EXAMPLES / "saxpy.mlir").read_text()


def test_module_report_names_the_module_and_its_device(cpu):
    report = cpu.compile(SAXPY, source_name="saxpy-py.mlir").report()
    assert report["schema"] == "xpujit.module-report" and report["version"] == 1
    assert report["source"]["name"] == "saxpy-py.mlir"
    assert report["source"]["bytes"] == len(SAXPY.encode())
    assert report["device"]["backend"] == "cpu" and report["target"]["kind"] == "cpu"
    assert [k["name"] for k in report["kernels"]] == ["saxpy"]
    assert report["build"]["origin"] in ("compiled", "disk", "memory")


def test_trace_of_a_launch_is_a_valid_trace(cpu, rng, tmp_path):
    path = tmp_path / "trace.json"
    xpujit.start_trace(path)
    try:
        with pytest.raises(xpujit.BusyError):
            xpujit.start_trace(tmp_path / "second.json")
        k = cpu.compile(SAXPY).kernel("saxpy")
        n = 3001
        x = rng.uniform(-1, 1, n).astype(np.float32)
        y = rng.uniform(-1, 1, n).astype(np.float32)
        want = np.float32(0.5) * x + y
        k.launch(grid=(n + 63) // 64, block=64, args=(y, x, np.float32(0.5), n))
        assert np.array_equal(y, want)
    finally:
        xpujit.stop_trace()
    trace = json.loads(path.read_text())
    assert trace_format.problems(trace) == []
    # (NumPy arrays reach the CPU device without copies: no copy events.)
    cats = {e.get("cat") for e in trace["traceEvents"]}
    assert {"compile", "launch", "device", "sync"} <= cats
    with pytest.raises(xpujit.InvalidArgumentError):
        xpujit.stop_trace()


@pytest.mark.parametrize("target,chip,magic", [("cpu", None, b"\x7fELF"),
                                                ("spirv", None, b"\x03\x02\x23\x07"),
                                                ("amdgcn", "gfx942", b"\x7fELF")])
def test_offline_compile_returns_code_and_its_report(target, chip, magic):
    code, report = xpujit.compile_for_target(SAXPY, target, chip, source_name="saxpy-off.mlir",
                                             report=True)
    assert code[:4] == magic
    assert code == xpujit.compile_for_target(SAXPY, target, chip)
    assert report["schema"] == "xpujit.module-report" and report["version"] == 1
    assert report["offline"] is True and "device" not in report and "limits" not in report
    assert report["source"]["name"] == "saxpy-off.mlir"
    assert [k["name"] for k in report["kernels"]] == ["saxpy"]
    assert "cache" not in report["build"]
    if chip:
        assert report["target"]["chip"] == chip


def test_offline_compile_errors_carry_located_diagnostics():
    with pytest.raises(xpujit.ParseError) as e:
        xpujit.compile_for_target("xpu.kernel @k( {", "cpu", source_name="bad.mlir", report=True)
    assert any(d.file == "bad.mlir" and d.line == 1 for d in e.value.diagnostics)
    with pytest.raises(xpujit.XpuError):
        xpujit.compile_for_target(SAXPY, "no-such-target")
