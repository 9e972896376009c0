"""The Python package over the runtime: devices, buffers, launches with
arguments converted by their declared types, streams and events, and
errors raised as exceptions with status, message and diagnostics."""
import inspect

import numpy as np
import pytest

import xpujit
from conftest import EXAMPLES, compile_or_skip

SAXPY = (EXAMPLES / "saxpy.mlir").read_text()


def test_devices_info_and_capabilities(cpu):
    found = xpujit.devices()
    # CPU always there, after the GPUs; only software Vulkan devices follow it.
    after = found[found.index(cpu) + 1:]
    assert all(d.backend == "vulkan" and "CPU" in d.info.arch for d in after)
    assert xpujit.default_device() in found
    assert xpujit.device("cpu") is cpu and cpu.spec == "cpu:0"
    info = cpu.info
    assert info.backend == "cpu" and info.name and info.wave_width == 1
    assert info.memory_bytes > 0 and info.compute_units >= 1
    caps = cpu.capabilities()
    assert caps and all(c.verdict in ("available", "unavailable", "unknown") for c in caps)
    assert all(c.evidence for c in caps)
    assert cpu.capability("f32.arith" if any(c.name == "f32.arith" for c in caps)
                          else caps[0].name) in caps
    with pytest.raises(xpujit.NotFoundError):
        cpu.capability("no.such.capability")
    with pytest.raises(xpujit.NotFoundError, match="no device 'cpu:7'"):
        xpujit.device("cpu:7")
    assert xpujit.version().startswith("0.1.0")


def test_buffers_round_trip_numpy_arrays(device, rng):
    for dtype in (np.float32, np.int32, np.int8, np.uint16, np.float64, np.bool_):
        a = (rng.integers(-100, 100, (7, 13)) if dtype != np.bool_
             else rng.integers(0, 2, (7, 13))).astype(dtype)
        buf = device.array(a)
        assert (buf.dtype, buf.shape, len(buf), buf.nbytes) == (a.dtype, a.shape, 91, a.nbytes)
        assert np.array_equal(buf.download(), a) and buf.download().dtype == a.dtype
    buf = device.zeros(16, np.int32)
    buf.upload(np.arange(4, dtype=np.int32), offset=8)
    assert list(buf.numpy()) == [0, 0, 0, 1, 2, 3] + [0] * 10
    out = np.empty(16, np.int32)
    assert buf.download(out) is out and out[3] == 1
    with pytest.raises(xpujit.InvalidArgumentError, match="do not fit"):
        buf.upload(np.zeros(17, np.int32))
    raw = device.buffer(10)
    assert raw.dtype is None and len(raw) == 10
    buf.free()
    buf.free()  # freeing twice is harmless


def test_launch_with_numpy_arrays_and_buffers(device, rng):
    k = device.compile(SAXPY).kernel("saxpy")
    assert [str(p) for p in k.params] == [
        "y: buffer of f32", "x: buffer of f32, read-only", "a: f32", "n: i32"]
    assert k.params[1].access == "ro" and k.params[2].dtype == np.float32
    n = 10_007
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    x0, y0 = x.copy(), y.copy()
    # Arrays straight in: copied in, y copied back (x is read-only).
    k.launch(grid=(n + 127) // 128, block=128, args=(y, x, np.float32(1.5), n))
    assert np.array_equal(y, np.float32(1.5) * x0 + y0) and np.array_equal(x, x0)
    # Device buffers, a Python float and a NumPy integer, on a new stream.
    by, bx = device.array(y0), device.array(x0)
    s = device.stream()
    k.launch((n + 127) // 128, (128, 1, 1), (by, bx, 0.25, np.int64(n)), stream=s)
    s.synchronize()
    assert np.array_equal(by.numpy(), np.float32(0.25) * x0 + y0)
    # A strided view is copied back into place.
    z = np.zeros(2 * n, np.float32)
    k.launch((n + 127) // 128, 128, (z[::2], x0, 1.0, n))
    assert np.array_equal(z[::2], x0) and not z[1::2].any()


def test_launch_arguments_are_checked_against_parameters(cpu):
    k = cpu.compile(SAXPY).kernel("saxpy")
    y, x = np.zeros(4, np.float32), np.zeros(4, np.float32)
    cases = [
        ((y, x, 1.0), "takes 4 arguments"),
        ((y, x.astype(np.float64), 1.0, 4), "an array of float64"),
        ((y, x, 1.0, 2**32), "does not fit i32"),
        ((y, x, 1.0, 4.0), "is not an integer"),
        ((y, x, "2", 4), "is not a number"),
        ((y, [0.0] * 4, 1.0, 4), "neither a Buffer nor an array"),
        ((cpu.empty(4, np.int32), x, 1.0, 4), "a buffer of int32"),
    ]
    for args, words in cases:
        with pytest.raises(xpujit.ArgumentMismatchError, match=words) as e:
            k.launch(1, 4, args)
        assert e.value.status == 14 and e.value.status_name == "XPU_ERROR_ARGUMENT_MISMATCH"
    # Unsigned values of the width are accepted for signed parameters.
    k.launch(1, 4, (y, np.ones(4, np.float32), 1.0, 2**32 - 1))
    assert list(y) == [1.0] * 4


SCALARS = """
xpu.kernel @scalars(%o8: !xpu.buffer<i8>, %o16: !xpu.buffer<i16>, %o64: !xpu.buffer<i64>,
                    %of16: !xpu.buffer<f16>, %of64: !xpu.buffer<f64>, %ob: !xpu.buffer<i1>,
                    %ov: !xpu.buffer<i32>,
                    %a: i8, %b: i16, %c: i64, %d: f16, %e: f64, %f: i1, %g: vector<4xi32>) {
  %z = arith.constant 0 : index
  xpu.store %a, %o8[%z] : !xpu.buffer<i8>
  xpu.store %b, %o16[%z] : !xpu.buffer<i16>
  xpu.store %c, %o64[%z] : !xpu.buffer<i64>
  xpu.store %d, %of16[%z] : !xpu.buffer<f16>
  xpu.store %e, %of64[%z] : !xpu.buffer<f64>
  xpu.store %f, %ob[%z] : !xpu.buffer<i1>
  xpu.store %g, %ov[%z] : !xpu.buffer<i32> -> vector<4xi32>
  xpu.return
}
"""


def test_scalar_arguments_take_their_declared_types(device):
    needed = ("i8.storage", "i16.storage", "i64.storage", "f16.storage", "f64.storage")
    missing = [c.name for c in device.capabilities() if c.name in needed and not c.available]
    if missing:
        pytest.skip(f"{device.spec} lacks {', '.join(missing)}")
    k = compile_or_skip(device, SCALARS).kernel("scalars")
    outs = [np.zeros(1, t) for t in (np.int8, np.int16, np.int64, np.float16, np.float64,
                                     np.bool_)] + [np.zeros(4, np.int32)]
    k.launch(1, 1, (*outs, -5, 65535, np.int64(-2**40), 0.1, np.float32(0.1), True,
                    np.array([1, -2, 3, 2**32 - 1])))
    assert [o[0] for o in outs[:6]] == [-5, -1, -2**40, np.float16(0.1), np.float64(np.float32(0.1)), True]
    assert list(outs[6]) == [1, -2, 3, -1]
    with pytest.raises(xpujit.ArgumentMismatchError, match="needs a sequence of 4"):
        k.launch(1, 1, (*outs, 0, 0, 0, 0.0, 0.0, False, [1, 2]))
    with pytest.raises(xpujit.ArgumentMismatchError, match="is not a bool"):
        k.launch(1, 1, (*outs, 0, 0, 0, 0.0, 0.0, 2, [1, 2, 3, 4]))


def test_streams_events_and_async_copies(device, rng):
    k = device.compile(SAXPY).kernel("saxpy")
    n = 4096
    x = rng.uniform(-1, 1, n).astype(np.float32)
    s1, s2 = device.stream(), device.stream()
    bx, by = device.empty(n, np.float32), device.empty(n, np.float32)
    bx.upload_async(x, s1)
    by.upload_async(np.zeros(n, np.float32), s1)
    k.launch(n // 256, 256, (by, bx, 2.0, n), stream=s1)
    done = s1.record()
    s2.wait(done)  # s2's work starts after s1's launch
    # Until s1 is synchronized its buffers stay borrowed, even from s2.
    with pytest.raises(xpujit.BusyError, match="until its stream is synchronized"):
        by.download_async(np.empty(n, np.float32), s2)
    done.synchronize()
    assert done.query() is True
    s1.synchronize()
    out = by.download_async(np.empty(n, np.float32), s2)
    s2.synchronize()
    assert np.array_equal(out, np.float32(2.0) * x)
    e = device.event()
    e.record()
    e.synchronize()
    device.synchronize()


def test_a_borrowed_buffer_is_busy_until_sync(device):
    k = device.compile(SAXPY).kernel("saxpy")
    by, bx = device.zeros(256, np.float32), device.zeros(256, np.float32)
    k.launch(1, 256, (by, bx, 1.0, 256))
    with pytest.raises(xpujit.BusyError, match="borrowed by an in-flight launch of 'saxpy'"):
        by.free()
    # Blocking copies wait instead, as a blocking CUDA copy does.
    by.upload(np.ones(256, np.float32))
    device.synchronize()
    by.free()


def test_compile_errors_carry_located_diagnostics(cpu):
    bad = "xpu.kernel @k(%a: !xpu.buffer<f32>) {\n  %v = xpu.load %a[%nope] : !xpu.buffer<f32>\n  xpu.return\n}\n"
    with pytest.raises(xpujit.ParseError) as e:
        cpu.compile(bad, source_name="bad.mlir")
    err = e.value
    assert err.status == 4 and err.diagnostics
    d = err.diagnostics[0]
    assert (d.severity, d.file, d.line, d.code) == ("error", "bad.mlir", 2, "XPU-PARSE")
    assert "%nope" in err.message and str(d).startswith("bad.mlir:2:")
    assert "xpu.load %a[%nope]" in str(err)  # the source line is shown

    # A deterministic kernel on the default device: XPU-GC002, as in C.
    det = ("xpu.kernel @d(%o: !xpu.buffer<i32>) attributes {profile = \"deterministic-v1\"} {\n"
           "  xpu.return\n}\n")
    with pytest.raises(xpujit.RefusedError) as e:
        xpujit.compile(det)
    assert [d.code for d in e.value.diagnostics] == ["XPU-GC002"]
    assert isinstance(e.value, xpujit.XpuError)


def test_out_of_bounds_accesses_raise_at_synchronize(device):
    k = device.compile("""
      xpu.kernel @oob(%o: !xpu.buffer<i32>) {
        %i = xpu.global_id x
        %v = arith.index_cast %i : index to i32
        xpu.store %v, %o[%i] : !xpu.buffer<i32>
        xpu.return
      }""").kernel("oob")
    out = device.zeros(8, np.int32)
    k.launch(1, 16, (out,))
    with pytest.raises(xpujit.OutOfBoundsError, match="store to 'o'"):
        device.default_stream.synchronize()
    assert list(out.numpy()) == list(range(8))


def test_format_module_ignores_spelling():
    a = xpujit.format_module(SAXPY)
    b = xpujit.format_module("// other names, same IR\n" + SAXPY.replace("%xi", "%q")
                             .replace("%r ", "%t ").replace("%r,", "%t,").replace("  ", " "))
    assert a == b and "xpu.kernel @saxpy(%y: !xpu.buffer<f32>" in a
    with pytest.raises(xpujit.ParseError):
        xpujit.format_module("xpu.kernel @k(")


def test_every_public_name_is_documented():
    for name in xpujit.__all__:
        obj = getattr(xpujit, name)
        assert inspect.getdoc(obj), f"xpujit.{name} has no docstring"
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and (inspect.isfunction(member) or
                                                 isinstance(member, property)):
                    assert inspect.getdoc(member), f"xpujit.{name}.{attr} has no docstring"
    assert inspect.getdoc(xpujit)
