#!/usr/bin/env python3
"""Loads an install page in headless Chromium as an iPhone, an iPad in desktop mode, a desktop
browser and an in-app browser, with the network blocked, over the DevTools protocol.

  browser_check.py [--shot-prefix=NAME] PAGE.html|URL ARTIFACTS_DIR [DEVICE...]

Prints one JSON object: for each device, the data-device attribute the page's script set, the
Install link's href, whether the QR code is there, which device notes and install messages are
visible, whether the page's stylesheet applied, the app icon
image (loaded, natural width, where it is drawn) or the letter placeholder, whether the Install
link and the QR card are visible, the text of every [data-field] element (and how many elements
are inside them), JavaScript errors, and every request that left the page. Saves a screenshot per
device in ARTIFACTS_DIR, named NAME-DEVICE.png (NAME: install-page unless --shot-prefix says).
A PAGE given as file://… keeps its query.
"""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket  # websocket-client, from PyPI

IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
             "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
DEVICES = {
    "iphone": dict(ua=IPHONE_UA, platform="iPhone", width=390, height=844, mobile=True, touch=5, scale=3),
    # iPadOS Safari in desktop mode claims to be a Mac; only the touch points give it away.
    "ipad-desktop-mode": dict(ua="Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                                 "Version/17.0 Safari/605.1.15", platform="MacIntel", width=820, height=1180, mobile=True,
                              touch=5, scale=2),
    "desktop": dict(ua="Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
                    platform="Linux x86_64", width=1280, height=900, mobile=False, touch=0, scale=1),
    "in-app": dict(ua=IPHONE_UA.replace(" Safari/604.1", "") + " Instagram 300.0.0.0", platform="iPhone", width=390,
                   height=844, mobile=True, touch=5, scale=3),
}

PROBE = r"""
(() => {
  const visible = el => el && getComputedStyle(el).display !== 'none';
  const install = document.getElementById('install');
  return JSON.stringify({
    device: document.documentElement.getAttribute('data-device'),
    installHref: install ? install.getAttribute('href') : null,
    qr: !!document.querySelector('.qr svg path'),
    visibleNotes: [...document.querySelectorAll('.device-note')].filter(visible).map(el => el.className),
    installMessages: [...document.querySelectorAll('#install-help, .device-note, #cannot-install')].filter(visible)
      .map(el => el.id || el.className),
    stylesheetApplied: !!install && getComputedStyle(install).display === 'block',
    desktopMessage: visible(document.getElementById('desktop-message')),
    inAppMessage: visible(document.getElementById('in-app-message')),
    qrBeforeDetails: (() => {
      const qr = document.querySelector('.qr-card'), details = document.getElementById('details-title');
      return qr && details ? qr.getBoundingClientRect().top < details.getBoundingClientRect().top : null;
    })(),
    title: document.title,
    appIcon: (() => {
      const img = document.querySelector('.app img');
      if (!img) return null;
      const r = img.getBoundingClientRect();
      return {src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0, naturalWidth: img.naturalWidth,
              x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height};
    })(),
    placeholderIcon: !!document.querySelector('.app .placeholder-icon'),
    installVisible: visible(install),
    qrVisible: (() => { const qr = document.querySelector('.qr-card'); return !!qr && visible(qr); })(),
    fields: Object.fromEntries([...document.querySelectorAll('[data-field]')].map(el => [el.getAttribute('data-field'), el.textContent])),
    fieldElements: document.querySelectorAll('[data-field] *').length,
    factsVisible: visible(document.getElementById('device-facts')),
  });
})()
"""


class DevTools:
    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=30)
        self.counter = 0
        self.events = []

    def call(self, method, **params):
        self.counter += 1
        ident = self.counter
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait(self, method, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.socket.settimeout(max(0.1, deadline - time.time()))
            try:
                self.events.append(json.loads(self.socket.recv()))
            except websocket.WebSocketTimeoutException:
                break
        raise RuntimeError(f"no {method} within {timeout} s")


def main():
    arguments = sys.argv[1:]
    prefix = "install-page"
    if arguments and arguments[0].startswith("--shot-prefix="):
        prefix = arguments.pop(0).split("=", 1)[1]
    target, artifacts = arguments[0], arguments[1]
    wanted = arguments[2:] or list(DEVICES)
    page_url = target if target.startswith(("http://", "https://", "file://")) else "file://" + os.path.abspath(target)
    os.makedirs(artifacts, exist_ok=True)
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not browser:
        sys.exit("no Chromium (apt-get install chromium)")
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    profile = tempfile.mkdtemp(prefix="adhocbuild-chromium-")
    process = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                "--no-default-browser-check", f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
                                # Only this machine is reachable; a local test server's certificate is self-made.
                                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost", "--ignore-certificate-errors",
                                "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = {}
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        for name in wanted:
            device = DEVICES[name]
            request = urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT")
            target = json.load(urllib.request.urlopen(request, timeout=10))
            tools = DevTools(target["webSocketDebuggerUrl"])
            for domain in ("Network", "Runtime", "Log", "Page"):
                tools.call(f"{domain}.enable")
            tools.call("Emulation.setUserAgentOverride", userAgent=device["ua"], platform=device["platform"])
            tools.call("Emulation.setDeviceMetricsOverride", width=device["width"], height=device["height"],
                       deviceScaleFactor=device["scale"], mobile=device["mobile"])
            tools.call("Emulation.setTouchEmulationEnabled", enabled=device["touch"] > 0, maxTouchPoints=max(1, device["touch"]))
            tools.events.clear()
            tools.call("Page.navigate", url=page_url)
            tools.wait("Page.loadEventFired")
            state = json.loads(tools.call("Runtime.evaluate", expression=PROBE, returnByValue=True)["result"]["value"])
            shot = tools.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            with open(os.path.join(artifacts, f"{prefix}-{name}.png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            state["errors"] = [e["params"]["exceptionDetails"].get("text", "") + " " +
                               json.dumps(e["params"]["exceptionDetails"].get("exception", {}).get("description", ""))
                               for e in tools.events if e.get("method") == "Runtime.exceptionThrown"]
            state["errors"] += [e["params"]["entry"]["text"] for e in tools.events
                                if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error"]
            state["requests"] = [e["params"]["request"]["url"] for e in tools.events
                                 if e.get("method") == "Network.requestWillBeSent"
                                 and e["params"]["request"]["url"] not in (page_url,)
                                 and not e["params"]["request"]["url"].startswith("data:")]
            results[name] = state
            tools.socket.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(results, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
