#!/usr/bin/env python3
"""Drives Debian's chromium (headless, through Playwright) for Lector's tests and benchmarks.

One JSON command per line on stdin, one JSON answer per line on stdout:
  {"cmd": "open", "url": "http://127.0.0.1:4711/?token=..."}          -> {"ok": true}
  {"cmd": "eval", "js": "document.title"}                              -> {"ok": true, "value": "..."}
  {"cmd": "waitFor", "js": "window.lectorView.view.chapter >= 0", "timeout": 10}
  {"cmd": "click", "selector": "#play"}   {"cmd": "press", "key": " "}
  {"cmd": "clickText", "offset": 120}     (clicks the character at that scalar offset of the chapter)
  {"cmd": "scroll", "y": 2000}            {"cmd": "screenshot", "path": "/tmp/x.png"}
  {"cmd": "viewport", "width": 1100, "height": 900}                    (the window's size; 1200x800 at first)
  {"cmd": "request", "url": "...", "method": "GET", "headers": {...}}  -> {"status": 403, "body": "..."}
  {"cmd": "console"}                                                   -> messages and page errors so far
An error is {"ok": false, "error": "..."}. The browser closes at end of input.
"""
import json
import os
import sys
import time
from playwright.sync_api import sync_playwright


def main():
    executable = os.environ.get("LECTOR_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1200, "height": 800})
        page = context.new_page()
        messages = []
        page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                command = json.loads(line)
                answer = {"ok": True, "value": run(page, context, command, messages)}
            except Exception as error:  # the test reads the message
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        browser.close()


def run(page, context, command, messages):
    kind = command["cmd"]
    if kind == "open":
        page.goto(command["url"], wait_until="load")
        return page.url
    if kind == "eval":
        return page.evaluate(command["js"])
    if kind == "waitFor":
        # Polled with evaluate (CDP, not the page's own eval): the page's Content-Security-Policy
        # forbids string eval, which wait_for_function needs, and it stays on in tests.
        deadline = time.monotonic() + command.get("timeout", 10)
        while True:
            value = page.evaluate(command["js"])
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"not true within {command.get('timeout', 10)} s: {command['js']}")
            page.wait_for_timeout(20)
    if kind == "click":
        page.click(command["selector"])
        return None
    if kind == "press":
        page.keyboard.press(command["key"])
        return None
    if kind == "focus":
        page.focus(command["selector"])
        return None
    if kind == "clickText":
        box = page.evaluate("""(offset) => {
            const v = window.lectorView.view;
            const i = v.offsets.findLastIndex((o) => o <= offset);
            const span = v.spans[i];
            const text = span.firstChild.data;
            let units = 0, scalars = offset - v.offsets[i];
            while (scalars-- > 0) units += text.codePointAt(units) > 0xffff ? 2 : 1;
            const range = new Range();
            range.setStart(span.firstChild, units);
            range.setEnd(span.firstChild, units + 1);
            range.startContainer.parentElement.scrollIntoView({block: "center"});
            const r = range.getBoundingClientRect();
            return {x: r.left + r.width / 2, y: r.top + r.height / 2};
        }""", command["offset"])
        page.mouse.click(box["x"], box["y"])
        return box
    if kind == "scroll":
        page.mouse.wheel(0, command["y"])
        return None
    if kind == "viewport":
        page.set_viewport_size({"width": command["width"], "height": command["height"]})
        return None
    if kind == "screenshot":
        page.screenshot(path=command["path"], full_page=command.get("fullPage", False))
        return command["path"]
    if kind == "request":
        response = context.request.fetch(command["url"], method=command.get("method", "GET"),
                                         headers=command.get("headers", {}), data=command.get("data"),
                                         max_redirects=0)
        return {"status": response.status, "headers": response.headers, "body": response.text()[:2000]}
    if kind == "console":
        return list(messages)
    raise ValueError(f"unknown command {kind}")


if __name__ == "__main__":
    main()
