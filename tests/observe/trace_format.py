"""Checks a file against the Trace Event Format (the JSON Object Format
that chrome://tracing and ui.perfetto.dev load): the rules a viewer relies
on, applied to every event. No viewer runs in CI; this is what stands in."""

PHASES = set("BEXiIbnePCMsftNODRcG(){}") | {"P"}
METADATA = {"process_name", "process_labels", "process_sort_index",
            "thread_name", "thread_sort_index"}


def problems(root):
    """Every way `root` (a parsed trace file) breaks the format."""
    out = []
    if not isinstance(root, dict) or not isinstance(root.get("traceEvents"), list):
        return ["the top level is not an object with a traceEvents array"]
    if root.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        out.append("displayTimeUnit must be 'ms' or 'ns'")
    for i, e in enumerate(root["traceEvents"]):
        where = f"event {i} ({e.get('name') if isinstance(e, dict) else e!r})"
        if not isinstance(e, dict):
            out.append(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            out.append(f"{where}: unknown phase {ph!r}")
            continue
        if not isinstance(e.get("name"), str):
            out.append(f"{where}: no name")
        for key in ("pid", "tid"):
            if key in e and not isinstance(e[key], int):
                out.append(f"{where}: {key} is not an integer")
        if "pid" not in e:
            out.append(f"{where}: no pid")
        if "args" in e and not isinstance(e["args"], dict):
            out.append(f"{where}: args is not an object")
        if ph == "M":
            if e["name"] not in METADATA:
                out.append(f"{where}: unknown metadata event")
            elif e["name"].endswith("_name") and not isinstance(
                    e.get("args", {}).get("name"), str):
                out.append(f"{where}: metadata without args.name")
            if e["name"].startswith("thread") and "tid" not in e:
                out.append(f"{where}: thread metadata without tid")
            continue
        if not isinstance(e.get("ts"), (int, float)) or isinstance(e.get("ts"), bool):
            out.append(f"{where}: ts is not a number")
        if "tid" not in e:
            out.append(f"{where}: no tid")
        if "cat" in e and not isinstance(e["cat"], str):
            out.append(f"{where}: cat is not a string")
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, float)) or dur < 0:
                out.append(f"{where}: a complete event needs dur >= 0")
    return out
