#!/usr/bin/python3
"""`xpujit check --target T` is honest: over the differential tester's
corpus (and kernels made to fail), xpu_module_check with a target refuses
exactly the kernels xpu_compile_for_target cannot compile for it, and
each refusal is a located XPU-LOWER error naming the op and the target.
Then the same through the tool for one refused kernel.
    check_target.py XPUJIT [--count N]
The last line reads "N passed, N failed" (kernel x target)."""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

from xpujit import _lib  # noqa: E402
from xpujit.device import context  # noqa: E402
from xpujit.errors import take_diagnostics  # noqa: E402
from kernel import generate, to_mlir  # noqa: E402

lib = _lib.lib
lib.xpu_module_check.restype = ctypes.c_int
lib.xpu_module_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                 ctypes.c_void_p, ctypes.c_void_p]
lib.xpu_compile_for_target.restype = ctypes.c_int
lib.xpu_compile_for_target.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
lib.xpu_compiled_code_free.argtypes = [ctypes.c_void_p]

# A kernel no target lowers today (vector.scan has no lowering in MLIR 22's
# conversions to LLVM or SPIR-V); a kernel check must refuse at the op.
UNLOWERABLE = """xpu.kernel @k(%o: !xpu.buffer<4xi32>, %a: i32) attributes {
    workgroup_size = array<i64: 4, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %i = xpu.global_id x
  %v = vector.broadcast %a : i32 to vector<4xi32>
  %z = vector.broadcast %a : i32 to vector<i32>
  %s, %acc = vector.scan <add>, %v, %z {inclusive = true, reduction_dim = 0 : i64} : vector<4xi32>, vector<i32>
  %p = vector.extract %s[0] : i32 from vector<4xi32>
  xpu.store %p, %o[%i] : !xpu.buffer<4xi32>
  xpu.return
}
"""


def options(target):
    o = _lib.ModuleOptions()
    o.struct_size = ctypes.sizeof(o)
    o.source_name = b"corpus.mlir"
    o.target = target.encode() if target else None
    return o


def check(text, target):
    data = text.encode()
    diags = _lib.handle()
    st = lib.xpu_module_check(context().handle, data, len(data),
                              ctypes.byref(options(target)), ctypes.byref(diags))
    return st, take_diagnostics(diags)


CHIPS = {"nvptx": b"sm_90"}  # PTX assembles with ptxas where it is installed


def compile_for(text, target):
    data = text.encode()
    code, size, diags = ctypes.c_void_p(), ctypes.c_size_t(), _lib.handle()
    st = lib.xpu_compile_for_target(context().handle, data, len(data),
                                    ctypes.byref(options(None)), target.encode(),
                                    CHIPS.get(target),
                                    ctypes.byref(code), ctypes.byref(size),
                                    ctypes.byref(diags))
    lib.xpu_compiled_code_free(code)
    return st, take_diagnostics(diags)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xpujit")
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--seed", type=int, default=50000)
    opts = ap.parse_args()
    corpus = [to_mlir(generate(s)) for s in range(opts.seed, opts.seed + opts.count)]
    corpus.append(UNLOWERABLE)
    passed = failed = refused = 0
    for i, text in enumerate(corpus):
        for target in ("cpu", "spirv", "nvptx"):
            cst, cdiags = check(text, target)
            pst, pdiags = compile_for(text, target)
            problem = None
            if (cst == 0) != (pst == 0):
                first = next((d for d in cdiags + pdiags if d.severity == "error"), None)
                problem = (f"check says {cst}, compile says {pst}: "
                           f"{first.code + ': ' + first.message if first else ''}")
            elif cst:
                refused += 1
                lower = [d for d in cdiags if d.code == "XPU-LOWER"]
                if not lower or not lower[0].line or f"target {target}" not in lower[0].message \
                        or "'" not in lower[0].message:
                    problem = f"refusal is not a located XPU-LOWER error: {cdiags}"
            if i == len(corpus) - 1 and not cst:
                problem = "an unlowerable kernel was admitted"
            if problem:
                failed += 1
                print(f"FAIL kernel {i} target {target}: {problem}\n{text}")
            else:
                passed += 1
    # The tool: exit 1, the diagnostic at the op's line and column.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scan.mlir")
        with open(path, "w") as f:
            f.write(UNLOWERABLE)
        p = subprocess.run([opts.xpujit, "check", path, "--target", "spirv"],
                           capture_output=True, text=True)
        want = f"{path}:6:14: error: XPU-LOWER: cannot be lowered for target spirv"
        if p.returncode == 1 and want in p.stderr and "vector.scan" in p.stderr:
            passed += 1
        else:
            failed += 1
            print(f"FAIL xpujit check --target spirv: rc {p.returncode}: {p.stderr}")
    print(f"{refused} refusals, all located; check and compile agreed on the rest")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
