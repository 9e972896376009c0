"""Zero-copy host access: mapped buffers, NumPy arrays used in place, DLPack
both ways, the CUDA array interface (PyTorch and CuPy where installed), and
reads that wait for the work that writes them."""
import ctypes

import numpy as np
import pytest

import xpujit

DOUBLE = """
xpu.kernel @double(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %ok = arith.cmpi ult, %i, %n_idx : index
  scf.if %ok {
    %v = xpu.load %in[%i] : !xpu.buffer<f32, ro>
    %r = arith.addf %v, %v : f32
    xpu.store %r, %out[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
"""
N = 1 << 14


def _run(device, out, inp, n=N, stream=None):
    k = device.compile(DOUBLE).kernel("double")
    k.launch((n + 255) // 256, 256, (out, inp, n), stream=stream)


def test_numpy_after_an_async_launch_waits_for_it(device, rng):
    x = rng.standard_normal(N).astype(np.float32)
    bx, by = device.array(x), device.empty(N, np.float32)
    s = device.stream()
    _run(device, by, bx, stream=s)
    assert np.array_equal(by.numpy(), x * 2)  # no BusyError: it waited
    assert np.array_equal(np.asarray(by), x * 2)  # a copy, not an object array
    s.synchronize()


def test_freeing_a_borrowed_buffer_still_cannot_wait(device):
    by, bx = device.zeros(N, np.float32), device.zeros(N, np.float32)
    s = device.stream()
    _run(device, by, bx, stream=s)
    with pytest.raises(xpujit.BusyError):
        by.free()
    s.synchronize()
    by.free()


def _host_buffer(device, n):
    try:
        return device.empty(n, np.float32, memory="host")
    except xpujit.UnsupportedError as e:
        pytest.skip(f"{device.spec}: no host-visible memory ({e})")


def test_a_mapped_buffer_is_a_numpy_view(device, rng):
    bin_, bout = _host_buffer(device, N), _host_buffer(device, N)
    assert bin_.mappable
    x = rng.standard_normal(N).astype(np.float32)
    with bin_.map("w") as view:
        view[...] = x  # written in place
        with pytest.raises(xpujit.BusyError, match="mapped"):
            _run(device, bout, bin_)
    _run(device, bout, bin_)
    m = bout.map("r")
    a = np.asarray(m)
    assert a.shape == (N,) and a.dtype == np.float32
    assert np.array_equal(a, x * 2)
    assert a.ctypes.data == m.pointer  # the buffer's own memory
    with pytest.raises(ValueError):
        a[0] = 1.0  # a read mapping is read-only
    del a
    m.unmap()
    with pytest.raises(xpujit.InvalidArgumentError):
        bout.map("x")


def test_plain_buffers_map_only_where_the_host_sees_them(device):
    b = device.empty(16, np.float32)
    if device.info.backend == "cpu":
        assert b.mappable
    if not b.mappable:
        with pytest.raises(xpujit.UnsupportedError, match="XPU_MEMORY_HOST_VISIBLE"):
            b.map()


def test_numpy_arrays_launch_in_place_on_the_cpu(cpu, rng, monkeypatch):
    x = rng.standard_normal(N).astype(np.float32)
    out = np.full(N, np.nan, np.float32)
    with monkeypatch.context() as m:
        def no_copies(*args, **kwargs):
            raise AssertionError("an aligned array was copied")
        m.setattr(xpujit.Buffer, "from_array", classmethod(no_copies))
        _run(cpu, out, x)
    assert np.array_equal(out, x * 2)
    # Misaligned or strided arrays are copied instead, with the same result.
    raw = np.zeros(N + 1, np.float32)
    shifted = raw[1:]
    assert shifted.ctypes.data % 16 != 0
    _run(cpu, shifted, x)
    assert np.array_equal(shifted, x * 2)
    strided = np.zeros(2 * N, np.float32)[::2]
    _run(cpu, strided, x)
    assert np.array_equal(strided, x * 2)


def test_dlpack_with_numpy_both_ways(cpu, rng):
    x = rng.standard_normal((64, 256)).astype(np.float32)
    bx = xpujit.from_dlpack(x)
    assert bx.device.info.backend == "cpu" and bx.shape == x.shape
    assert bx.address == x.ctypes.data  # no copy
    by = cpu.empty(x.shape, np.float32)
    _run(cpu, by, bx, n=x.size)
    y = np.from_dlpack(by)
    assert y.ctypes.data == by.address  # NumPy views the buffer's memory
    assert np.array_equal(y, x * 2)
    with pytest.raises(xpujit.BusyError):
        _run(cpu, by, bx, n=x.size)  # the host holds it while the view lives
    del y
    import gc
    gc.collect()
    _run(cpu, by, bx, n=x.size)
    with pytest.raises(xpujit.InvalidArgumentError, match="C-contiguous"):
        xpujit.from_dlpack(np.zeros((8, 8), np.float32).T)


def _cuda():
    found = xpujit.devices("cuda")
    if not found:
        pytest.skip(f"no cuda device: {xpujit.backend_note('cuda') or 'none found'}")
    return found[0]


def test_pytorch_tensors_go_in_and_out_without_a_copy(rng):
    torch = pytest.importorskip("torch")
    dev = _cuda()
    x = torch.from_numpy(rng.standard_normal(N).astype(np.float32)).cuda()
    y = torch.full((N,), float("nan"), device="cuda")
    _run(dev, y, x)  # tensors straight into a launch
    assert torch.equal(y, x * 2)
    bx = xpujit.from_dlpack(x)
    assert bx.address == x.data_ptr()
    by = dev.empty(N, np.float32)
    _run(dev, by, bx)
    t = torch.from_dlpack(by)
    assert t.data_ptr() == by.address
    assert torch.equal(t, x * 2)
    del t


def test_cupy_through_the_cuda_array_interface(rng):
    cp = pytest.importorskip("cupy")
    dev = _cuda()
    x = cp.asarray(rng.standard_normal(N).astype(np.float32))
    bx = xpujit.from_cuda_array_interface(x)
    assert bx.address == x.data.ptr
    by = dev.empty(N, np.float32)
    _run(dev, by, bx)
    y = cp.asarray(by)  # reads __cuda_array_interface__
    assert y.data.ptr == by.address
    assert bool(cp.all(y == x * 2))
    z = cp.from_dlpack(by)
    assert z.data.ptr == by.address
