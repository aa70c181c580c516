#!/usr/bin/env python3
"""Load an HTML page in headless Chromium and check it as a reader's browser would.

usage: check_page.py CHROMIUM PAGE.html SCREENSHOT.png

Drives the browser over the DevTools protocol on a pipe (--remote-debugging-pipe:
commands on fd 3, replies on fd 4, NUL-separated JSON), so only the Python standard
library is needed. Collects console messages, uncaught exceptions and browser log
entries (a failed image or link load is logged there), waits for the load event
and then, lazy images set to eager as a reader's scrolling would fetch them,
(up to 30 s) for every <img> to be complete, reads every <img>'s naturalWidth, saves a
screenshot of the page's top (at most SHOT_HEIGHT CSS pixels: the whole gallery is over
50,000 pixels tall, a bitmap of some 270 MB that a loaded machine's browser may not
survive), and prints one JSON object:
{"images": [[src, naturalWidth], ...], "errors": [...], "title": ..., "retried": ...}.
Exits 1 if any image has naturalWidth 0 or anything was logged at error level,
2 on any other failure (usage, the browser, the protocol, the screenshot file),
then printing one JSON object {"error": "..."} on stdout, so a caller always
gets JSON to show.

If the browser dies mid-check (its pipe closes, or it stops answering), the check
starts a fresh browser once and says so in "retried" (the first failure, with the
step it was on and the end of the browser's own log); a page that kills the browser
every time still fails, with both failures in "error".
"""

import base64
import json
import os
import subprocess
import sys
import tempfile
import time

SHOT_HEIGHT = 8000


class BrowserDied(Exception):
    """The browser closed its pipe or stopped answering: worth one fresh start."""


def fail(message):
    print(json.dumps({"error": message}))
    return 2


def main():
    try:
        return check(sys.argv[1:])
    except Exception as e:  # noqa: BLE001 - every failure becomes a JSON error object
        return fail(f"{type(e).__name__}: {e}")


def check(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return fail("usage: check_page.py CHROMIUM PAGE.html SCREENSHOT.png")
    chromium, page, shot = argv
    url = "file://" + os.path.abspath(page)
    try:
        report = run_browser(chromium, url, shot)
    except BrowserDied as first:
        try:
            report = run_browser(chromium, url, shot)
        except BrowserDied as second:
            return fail(f"the browser died twice: first {first}; then {second}")
        report["retried"] = str(first)
    print(json.dumps(report))
    return 1 if report["broken_images"] or report["errors"] else 0


def run_browser(chromium, url, shot):
    """One browser, one check: the report, or BrowserDied, or any other error."""
    profile = tempfile.mkdtemp(prefix="privpost-chromium-")
    log_path = os.path.join(profile, "browser-stderr.log")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def child_fds():
        # via fresh descriptors, in case a pipe end already sits at 3 or 4
        r, w = os.dup(to_browser_r), os.dup(from_browser_w)
        os.dup2(r, 3)
        os.dup2(w, 4)

    args = [
        chromium,
        "--headless",
        "--remote-debugging-pipe",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",  # a container's small /dev/shm must not kill it
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--user-data-dir=" + profile,
        "about:blank",
    ]
    log = open(log_path, "wb")
    try:
        proc = subprocess.Popen(
            args,
            pass_fds=(3, 4),
            preexec_fn=child_fds,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    except BaseException:
        log.close()
        subprocess.run(["rm", "-rf", profile], check=False)
        raise
    os.close(to_browser_r)
    os.close(from_browser_w)
    out = os.fdopen(to_browser_w, "wb", buffering=0)
    inp = os.fdopen(from_browser_r, "rb", buffering=0)
    buf = b""
    events = []
    next_id = [0]
    step = ["starting"]
    deadline = time.time() + 120

    def died(what):
        proc.poll()
        log.flush()
        with open(log_path, "rb") as f:
            tail = f.read().decode("utf-8", "replace").strip().splitlines()[-5:]
        status = "running" if proc.returncode is None else f"exit status {proc.returncode}"
        return BrowserDied(
            f"{what} during {step[0]} (browser {status}; its log ends: {' | '.join(tail) or 'empty'})"
        )

    def read_message():
        nonlocal buf
        while b"\0" not in buf:
            if time.time() > deadline:
                raise died("no reply from the browser within 120 s")
            chunk = inp.read(1 << 16)
            if not chunk:
                raise died("the browser closed the pipe")
            buf += chunk
        msg, buf = buf.split(b"\0", 1)
        return json.loads(msg)

    def send(method, params=None, session=None):
        next_id[0] += 1
        mid = next_id[0]
        step[0] = method
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            out.write(json.dumps(msg).encode() + b"\0")
        except BrokenPipeError:
            raise died("the browser closed the pipe") from None
        while True:
            m = read_message()
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            events.append(m)

    def wait_event(name, session):
        step[0] = "waiting for " + name
        seen = 0
        while True:
            for e in events[seen:]:
                if e.get("method") == name and e.get("sessionId") == session:
                    return e
            seen = len(events)
            events.append(read_message())

    def evaluate(expression, session):
        return send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session
        )["result"].get("value")

    try:
        target = send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}
        )["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            send(domain + ".enable", session=session)
        send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        send("Page.navigate", {"url": url}, session)
        wait_event("Page.loadEventFired", session)
        time.sleep(0.5)  # late console messages
        # lazy images (the gallery's thumbnails) below the viewport are not fetched
        # until a reader scrolls to them, and whether the browser has them by now
        # depends on timing: ask for all of them, as scrolling would, then wait (up to
        # 30 s) until every image is complete, loaded or failed, before reading widths
        evaluate("Array.from(document.images).forEach(i => { i.loading = 'eager'; })", session)
        settle = time.time() + 30
        while time.time() < settle:
            if evaluate("Array.from(document.images).every(i => i.complete)", session) is True:
                break
            time.sleep(0.2)
        page_info = json.loads(
            evaluate(
                "JSON.stringify({title: document.title, width: "
                "document.documentElement.scrollWidth, height: "
                "document.documentElement.scrollHeight, images: "
                "Array.from(document.images).map(i => [i.getAttribute('src'), "
                "i.complete ? i.naturalWidth : 0])})",
                session,
            )
        )
        clip = {
            "x": 0,
            "y": 0,
            "width": max(1, min(page_info["width"], 1280)),
            "height": max(1, min(page_info["height"], SHOT_HEIGHT)),
            "scale": 1,
        }
        shot_data = send(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": clip},
            session,
        )["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(shot_data))
        errors = []
        for e in events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append("console.error: " + json.dumps(p.get("args", []))[:300])
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                entry = p["entry"]
                errors.append(f"log: {entry.get('text')} ({entry.get('url', '')})")
        broken = [src for src, width in page_info["images"] if not width]
        try:
            send("Browser.close")
        except (BrowserDied, RuntimeError):
            pass
        return {
            "title": page_info["title"],
            "images": page_info["images"],
            "broken_images": broken,
            "errors": errors,
            "page_height": page_info["height"],
        }
    finally:
        for f in (out, inp):
            f.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        subprocess.run(["rm", "-rf", profile], check=False)


if __name__ == "__main__":
    sys.exit(main())
