"""f16 conversions in CPU kernels, against NumPy's (each rounded once, to
nearest even): f64 -> f16 directly, f32 -> f16 and f16 -> f32, with ties,
subnormals, the overflow boundary, infinities, NaN and signed zeros. On the
CPU they call routines the library defines in its JIT (python3 has no
libgcc_s conversions to lend it); a fresh process compiles without a word
on stderr."""
import os
import subprocess
import sys

import numpy as np

from conftest import ROOT

def converting(name, src, dst, op):
    """A kernel @name storing `op` (arith.truncf / extf) of each src element as dst."""
    return f"""
xpu.kernel @{name}(%o: !xpu.buffer<{dst}>, %x: !xpu.buffer<{src}, ro>) {{
  %i = xpu.global_id x
  %n = xpu.buffer_size %o : !xpu.buffer<{dst}>
  %in = arith.cmpi ult, %i, %n : index
  scf.if %in {{
    %v = xpu.load %x[%i] : !xpu.buffer<{src}, ro>
    %h = {op} %v : {src} to {dst}
    xpu.store %h, %o[%i] : !xpu.buffer<{dst}>
  }}
  xpu.return
}}"""


CONVERT = (converting("narrow64", "f64", "f16", "arith.truncf")
           + converting("narrow32", "f32", "f16", "arith.truncf")
           + converting("widen", "f16", "f32", "arith.extf"))


def edge_cases():
    h = np.finfo(np.float16)
    tiny_sub = float(np.float16(2.0 ** -24))
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.99, 65520.0, 65536.0, 1e300,
            float(h.tiny), float(h.tiny) * (1 - 2 ** -12), tiny_sub, tiny_sub / 2,
            tiny_sub / 2 * (1 + 2 ** -30), tiny_sub * 1.5, tiny_sub * 2.5, 1e-300]
    # Ties between neighbouring halves, and values just beside them.
    for base in (1.0, 1.5, 1000.0, 3.0e-5):
        ulp = float(np.spacing(np.float16(base)))
        vals += [base + ulp / 2, base + 3 * ulp / 2, base + ulp / 2 * (1 + 2 ** -40),
                 base + ulp / 2 * (1 - 2 ** -40)]
    return np.array(vals + [-v for v in vals], np.float64)


def same_bits(got, want):
    g, w = got.view(np.uint16), want.view(np.uint16)
    return (g == w) | (np.isnan(got) & np.isnan(want))


def test_f16_conversions_round_like_numpy(cpu, rng):
    m = cpu.compile(CONVERT)
    x64 = np.concatenate([edge_cases(), rng.uniform(-7e4, 7e4, 4000),
                          np.ldexp(rng.uniform(-1, 1, 4000), rng.integers(-30, 17, 4000))])
    out = np.zeros(x64.size, np.float16)
    m.kernel("narrow64").launch((x64.size + 63) // 64, 64, [out, x64])
    with np.errstate(over="ignore"):
        want = x64.astype(np.float16)
    bad = ~same_bits(out, want)
    assert not bad.any(), f"f64->f16: {x64[bad][:5]} gave {out[bad][:5]}, want {want[bad][:5]}"
    with np.errstate(over="ignore"):
        x32 = x64.astype(np.float32)
    m.kernel("narrow32").launch((x32.size + 63) // 64, 64, [out, x32])
    with np.errstate(over="ignore"):
        want = x32.astype(np.float16)
    bad = ~same_bits(out, want)
    assert not bad.any(), f"f32->f16: {x32[bad][:5]} gave {out[bad][:5]}, want {want[bad][:5]}"
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    wide = np.zeros(halves.size, np.float32)
    m.kernel("widen").launch(halves.size // 64, 64, [wide, halves])
    want = halves.astype(np.float32)
    bad = ~((wide.view(np.uint32) == want.view(np.uint32)) | (np.isnan(wide) & np.isnan(want)))
    assert not bad.any(), f"f16->f32: {halves[bad][:5]} gave {wide[bad][:5]}"


def test_a_fresh_process_compiles_for_the_cpu_silently(tmp_path):
    script = ("import xpujit\n"
              "xpujit.device('cpu').compile(open(%r).read())\n" % str(ROOT / "examples" / "saxpy.mlir"))
    env = dict(os.environ, XPU_CACHE_DIR=str(tmp_path), XPU_CACHE="off",
               PYTHONPATH=str(ROOT / "bindings" / "python"))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stderr == "", run.stderr
