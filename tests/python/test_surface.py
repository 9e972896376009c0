"""The kernel surface (issue 14) from Python: wave operations made with the
builder print in the library's form and compute, lane by lane, what a host
model of waves says (consecutive invocations, the last wave partial), on
fresh random data."""
import numpy as np

import xpujit
from xpujit import buffer
from conftest import compile_or_skip


def build_waves(b):
    with b.kernel("waves") as k:
        out = k.param("out", buffer("i32"))
        inp = k.param("in", buffer("i32", access="ro"))
        i = b.global_id("x")
        v = inp[i]
        results = [
            b.wave_shuffle("xor", v, 1),
            b.wave_reduce("add", v),
            b.wave_scan("umax", v, "exclusive"),
            b.wave_broadcast(v, 0),
            b.cast("extui", b.wave_any(v < 0), "i32"),
            b.cast("extui", b.wave_all(v < 0), "i32"),
            b.extract(b.wave_ballot(v < 0), 0),
            b.cast("index_cast", b.wave_width(), "i32"),
        ]
        base = i * b.constant(8, "index")
        for j, r in enumerate(results):
            out[base + j] = r


def test_wave_operations(device, rng):
    b = xpujit.Builder()
    build_waves(b)
    text = b.text
    assert "xpu.wave_shuffle xor" in text and "xpu.wave_scan umax" in text
    assert text == xpujit.format_module(text)
    k = compile_or_skip(device, text).kernel("waves")
    groups, block = 3, 72
    n = groups * block
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    out = np.zeros(n * 8, dtype=np.int32)
    k.launch(groups, block, (out, x))
    got = out.reshape(n, 8)
    width = int(got[0, 7])
    assert width >= 1 and (got[:, 7] == width).all()
    for i in range(n):
        t = i % block
        lane, start = t % width, i - t % width
        count = min(width, block - (t - lane))
        wave = x[start:start + count]
        src = lane ^ 1
        want = [
            int(wave[src] if src < count else x[i]),
            int(wave.astype(np.int64).sum()) & 0xFFFFFFFF,
            int(wave[:lane].view(np.uint32).max()) if lane else 0,
            int(wave[0]),
            int((wave < 0).any()),
            int((wave < 0).all()),
            sum(1 << l for l in range(min(count, 32)) if wave[l] < 0),
            width,
        ]
        want = np.array(want, dtype=np.int64).astype(np.uint32).view(np.int32)
        assert (got[i] == want).all(), f"invocation {i} lane {lane}: {got[i]} != {want}"
