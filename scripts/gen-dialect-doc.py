#!/usr/bin/env python3
"""Writes docs/dialect.md from the xpu dialect's ODS definitions with
mlir-tblgen's doc generator, or with --check fails when the file is not
what the definitions give (the test docs.dialect) or an op has no example.

usage: scripts/gen-dialect-doc.py [--check] [--tblgen PATH]"""
import argparse
import difflib
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TD = ROOT / "mlir/include/xpu/Dialect/XPU/IR/XPUOps.td"
DOC = ROOT / "docs/dialect.md"
HEADER = ("<!-- docs/dialect.md: generated from mlir/include/xpu/Dialect/XPU/IR/*.td by\n"
          "     scripts/gen-dialect-doc.py (mlir-tblgen -gen-dialect-doc); edit the .td\n"
          "     files, then run the script. The test docs.dialect keeps them in sync. -->\n\n")


def generate(tblgen):
    # MLIR's own .td files live beside the tool: <prefix>/bin/mlir-tblgen.
    mlir_include = pathlib.Path(tblgen).resolve().parent.parent / "include"
    # Op examples are in the .td files under XPU_DOC_EXAMPLES: for the docs
    # only, so that the generated C++ (and what depends on it) is unchanged.
    out = subprocess.run([tblgen, "-gen-dialect-doc", "-dialect=xpu", "-D", "XPU_DOC_EXAMPLES",
                          "-I", str(ROOT / "mlir/include"), "-I", str(mlir_include),
                          str(TD)], capture_output=True, text=True, check=True).stdout
    return HEADER + out


def ops_without_example(doc):
    sections = re.split(r"\n(?=### `xpu\.)", doc)[1:]
    return [s.split("\n", 1)[0] for s in sections if "```mlir" not in s]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tblgen", default="/usr/lib/llvm-22/bin/mlir-tblgen")
    args = ap.parse_args()
    doc = generate(args.tblgen)
    missing = ops_without_example(doc)
    if missing:
        print("ops whose description has no ```mlir example:\n  " + "\n  ".join(missing))
        return 1
    if not args.check:
        DOC.write_text(doc)
        print(f"wrote {DOC.relative_to(ROOT)}")
        return 0
    have = DOC.read_text() if DOC.exists() else ""
    if have != doc:
        diff = difflib.unified_diff(have.splitlines(), doc.splitlines(), "docs/dialect.md",
                                    "generated", lineterm="", n=1)
        print("\n".join(list(diff)[:60]))
        print("docs/dialect.md is not what the .td files give: run scripts/gen-dialect-doc.py")
        return 1
    print(f"docs/dialect.md matches the ODS definitions ({doc.count('### `xpu.')} ops, "
          "each with an example)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
