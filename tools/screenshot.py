#!/usr/bin/env python3
"""Makes the README's picture of `tengen serve`'s page: docs/images/serve-analysis.png.

Starts `tengen serve` on a free loopback port with a store in a temporary directory, opens a
9x9 game against the level medium through the JSON API with the moves of
tools/screenshot-game.sgf (the `moves` field of POST /api/games, so the position does not
depend on the AI's replies), then drives headless chromium through chromedriver (WebDriver, as
tests/browser.rs does): opens the page on that game with Analysis ticked, waits until the
win-rate bar and the ownership squares of that position are drawn, and saves the window as a
PNG. The analysis is a search limited by time as well as playouts, so its figures may differ
slightly between runs; the position and the layout do not.

Run it by hand after a change to the page (the tests never do):

    cargo build --release && tools/screenshot.py [OUTPUT.png]

Needs python3, chromium and chromedriver on PATH (apt-get install chromium chromium-driver);
TENGEN names another binary than target/release/tengen.
"""

import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "docs", "images", "serve-analysis.png")
# The browser window, in CSS pixels, before it is made as tall as the page: the page is at
# most 640 wide.
WINDOW = (640, 860)
# The game shown, 9x9 (tools/gogui-screenshot.sh shows the same one in GoGui).
GAME = os.path.join(ROOT, "tools", "screenshot-game.sgf")
# The longest any step may take: the machine may be busy, and chromium starts slowly.
TIMEOUT = 120


def fail(message):
    sys.exit(f"screenshot.py: {message}")


def start(command, marker, what, cwd):
    """Starts `command` in a new process group; returns it and the rest of the first line of
    its stdout or stderr that contains `marker`."""
    process = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)
    found = []
    ready = threading.Event()

    def read():
        for line in process.stdout:
            if not found and marker in line:
                found.append(line.split(marker, 1)[1].strip())
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(TIMEOUT) or not found:
        stop(process)
        fail(f"{what} did not print {marker!r} within {TIMEOUT} s")
    return process, found[0]


def stop(process):
    """Ends `process` and its group."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def request(method, url, body=None):
    """An HTTP request with a JSON body; the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        fail(f"{method} {url}: {error.code} {error.read().decode(errors='replace')}")


def game_moves():
    """The moves of GAME as GTP vertices, Black first, colours alternating."""
    with open(GAME) as file:
        sgf = file.read()
    moves = []
    for number, (colour, x, y) in enumerate(re.findall(r";([BW])\[([a-i])([a-i])\]", sgf)):
        if colour != "BW"[number % 2]:
            fail(f"{GAME}: move {number + 1} is not {'BW'[number % 2]}'s")
        moves.append("ABCDEFGHJ"[ord(x) - ord("a")] + str(9 - (ord(y) - ord("a"))))
    return moves


def main():
    output = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    tengen = os.environ.get("TENGEN", os.path.join(ROOT, "target", "release", "tengen"))
    if not os.access(tengen, os.X_OK):
        fail(f"{tengen} not found: cargo build --release first")
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            fail(f"{program} not found: apt-get install chromium chromium-driver")

    with tempfile.TemporaryDirectory(prefix="tengen-screenshot-") as tmp:
        processes = []
        try:
            server, address = start(
                [tengen, "serve", "--bind", "127.0.0.1:0", "--store",
                 os.path.join(tmp, "games.sqlite"), "--config",
                 os.path.join(ROOT, "engines.toml")],
                "listening on http://", "tengen serve", tmp)
            processes.append(server)
            base = f"http://{address}"
            client = "screenshot"
            moves = game_moves()
            state = request("POST", f"{base}/api/games", {
                "client": client, "size": 9, "level": "medium", "color": "B",
                "moves": moves})
            if state["moves"] != moves or not state["your_turn"]:
                fail(f"the server did not take the moves as given: {state}")

            driver, port = start(["chromedriver", "--port=0"],
                                 "started successfully on port ", "chromedriver", tmp)
            processes.append(driver)
            webdriver = f"http://127.0.0.1:{port.rstrip('.')}"
            session = request("POST", f"{webdriver}/session", {"capabilities": {"alwaysMatch": {
                "goog:chromeOptions": {"args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
                    f"--window-size={WINDOW[0]},{WINDOW[1]}",
                    f"--user-data-dir={os.path.join(tmp, 'profile')}"]}}}})
            browser = f"{webdriver}/session/{session['value']['sessionId']}"
            try:
                shoot(browser, base, client, state, output)
            finally:
                request("DELETE", browser)
        finally:
            for process in reversed(processes):
                stop(process)
    print(f"{output}: {os.path.getsize(output)} bytes")


def shoot(browser, base, client, state, output):
    """Opens the page on the game `state` with Analysis on; saves the window once the
    analysis of that position is drawn."""
    def run(script, *args):
        return request("POST", f"{browser}/execute/sync",
                       {"script": script, "args": list(args)})["value"]

    # The page reopens the game it remembers and keeps the Analysis box as it was left:
    # remember both, as after a person's visit, and load the page again.
    request("POST", f"{browser}/url", {"url": f"{base}/"})
    run("""localStorage.setItem("tengen.client", arguments[0]);
           localStorage.setItem("tengen.game", arguments[1]);
           localStorage.setItem("tengen.analysis", "on");""",
        client, json.dumps({key: state[key] for key in
                            ("key", "size", "level", "color", "komi", "handicap", "moves")}))
    request("POST", f"{browser}/url", {"url": f"{base}/"})
    deadline = time.monotonic() + TIMEOUT
    while True:
        shown = run("""return {
            number: document.getElementById("winrate").dataset.number || "",
            text: document.getElementById("wr-text").textContent,
            squares: document.querySelectorAll("#board rect.own").length,
            error: document.getElementById("error").textContent };""")
        if shown["number"] == str(state["number"]) and shown["squares"] > 0:
            break
        if shown["error"] or shown["text"].startswith("Analysis failed"):
            fail(f"the page shows an error: {shown}")
        if time.monotonic() > deadline:
            fail(f"no analysis of move {state['number']} after {TIMEOUT} s: {shown}")
        time.sleep(0.2)
    # The window made as tall as the page (its frame outside the page counted), so that the
    # picture ends under the last line.
    height = run("return document.documentElement.scrollHeight"
                 " + window.outerHeight - window.innerHeight")
    request("POST", f"{browser}/window/rect", {"width": WINDOW[0], "height": height})
    time.sleep(0.5)  # the bar's width slides into place
    png = base64.b64decode(request("GET", f"{browser}/screenshot")["value"])
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with open(output, "wb") as file:
        file.write(png)


if __name__ == "__main__":
    main()
