#!/usr/bin/env python3
"""Screenshot of an xpujit trace in Catapult's trace viewer (the viewer
chrome://tracing embedded), as docs/images/trace-saxpy-catapult.png was made:

    xpujit run examples/saxpy.mlir ... --trace t.json
    python3 CATAPULT/tracing/bin/trace2html t.json --output t.html
    xvfb-run -a -s "-screen 0 1600x900x24" scripts/trace_screenshot.py t.html out.png

Needs Chromium (Debian: chromium, xvfb) and a checkout of
catapult-project/catapult. Drives Chromium over --remote-debugging-pipe
(DevTools protocol: commands on fd 3, replies on fd 4, NUL-terminated
JSON), selects the launch's host and device slices, and captures the page."""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time

html, png = sys.argv[1], sys.argv[2]
to_chrome, from_chrome = os.pipe(), os.pipe()


def wire_fds():
    os.dup2(to_chrome[0], 3)
    os.dup2(from_chrome[1], 4)


profile = tempfile.mkdtemp()
chrome = subprocess.Popen(
    ["chromium", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
     f"--user-data-dir={profile}", "--window-size=1600,900", "about:blank"],
    pass_fds=(3, 4), preexec_fn=wire_fds, stderr=subprocess.DEVNULL)
os.close(to_chrome[0])
os.close(from_chrome[1])
out = os.fdopen(to_chrome[1], "wb", buffering=0)
inp = os.fdopen(from_chrome[0], "rb", buffering=0)
pending, next_id = b"", 0


def send(method, params=None, session=None):
    """One DevTools command; returns its result (events in between are dropped)."""
    global pending, next_id
    next_id += 1
    msg = {"id": next_id, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    out.write(json.dumps(msg).encode() + b"\0")
    while True:
        while b"\0" not in pending:
            chunk = inp.read(65536)
            if not chunk:
                sys.exit("chromium exited")
            pending += chunk
        reply, pending = pending.split(b"\0", 1)
        reply = json.loads(reply)
        if reply.get("id") == next_id:
            if "error" in reply:
                sys.exit(f"{method}: {reply['error']}")
            return reply.get("result", {})


time.sleep(3)  # the first page target appears once the browser is up
page = next(t for t in send("Target.getTargets")["targetInfos"] if t["type"] == "page")
session = send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
send("Page.navigate", {"url": "file://" + os.path.abspath(html)}, session=session)
time.sleep(4)
select = """(() => {
  const view = document.querySelector('tr-ui-timeline-view');
  const launches = [...view.model.getDescendantEvents()].filter(
      e => e.category === 'launch' || e.category === 'device');
  view.brushingStateController.changeSelectionFromTimeline(new tr.model.EventSet(launches));
  return launches.length;
})()"""
found = send("Runtime.evaluate", {"expression": select, "returnByValue": True}, session=session)
if not found.get("result", {}).get("value"):
    sys.exit(f"no launch slices in the viewer: {found}")
time.sleep(2)
shot = send("Page.captureScreenshot", {"format": "png"}, session=session)
with open(png, "wb") as f:
    f.write(base64.b64decode(shot["data"]))
chrome.kill()
