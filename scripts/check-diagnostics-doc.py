#!/usr/bin/env python3
"""Checks docs/diagnostics.md against the diagnostic codes the code can
emit: every code in a string literal of the library's sources (src/,
mlir/lib, mlir/include, backends/, cache/) must have an entry with its
meaning and a fix, and every entry must be a code the code emits. A
printf-style code ("XPU-GC%03u") stands for its family, which the RFC
numbers XPU-GC001..XPU-GC013 (DESIGN.md section 4).

usage: scripts/check-diagnostics-doc.py [--list]"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ["src", "mlir/lib", "mlir/include", "backends", "cache"]
DOC = ROOT / "docs/diagnostics.md"
FAMILIES = {"XPU-GC": [f"XPU-GC{n:03d}" for n in range(1, 14)]}
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
CODE = re.compile(r"XPU-[A-Z]+[0-9]*(?:%0?[0-9]*[du])?")


def emitted():
    """Code -> the files whose string literals contain it."""
    found = {}
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in (".cpp", ".h", ".inc") or not path.is_file():
                continue
            text = path.read_text(errors="replace")
            # Comments are not emitted: drop them (string contents survive).
            text = re.sub(r"//[^\n]*", "", text)
            for literal in STRING.findall(text):
                for code in CODE.findall(literal):
                    codes = FAMILIES.get(code.split("%")[0], []) if "%" in code else [code]
                    for c in codes:
                        found.setdefault(c, set()).add(str(path.relative_to(ROOT)))
    return found


def documented():
    """Code -> its entry's text, from '## XPU-...' headings."""
    entries, code = {}, None
    for line in DOC.read_text().splitlines():
        m = re.match(r"^### (XPU-[A-Z]+[0-9]*)\s*$", line)
        if m:
            code = m.group(1)
            entries[code] = ""
        elif line.startswith("#"):
            code = None
        elif code:
            entries[code] += line + "\n"
    return entries


def main():
    codes, docs = emitted(), documented()
    if "--list" in sys.argv:
        for c in sorted(codes):
            print(c, " ".join(sorted(codes[c])))
        return 0
    problems = []
    for c in sorted(set(codes) - set(docs)):
        problems.append(f"{c} is emitted ({', '.join(sorted(codes[c]))}) but not in "
                        "docs/diagnostics.md")
    for c in sorted(set(docs) - set(codes)):
        problems.append(f"docs/diagnostics.md documents {c}, which nothing emits")
    for c, text in sorted(docs.items()):
        if "**Meaning**" not in text or "**Fix**" not in text:
            problems.append(f"the entry for {c} needs a **Meaning** and a **Fix**")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"docs/diagnostics.md documents all {len(codes)} codes the sources can emit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
