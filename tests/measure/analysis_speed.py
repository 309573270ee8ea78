#!/usr/bin/env python3
"""Visits per second of `kata-analyze` versus a genmove-style search (`tengen bench --search`)
with the same threads (every core), on the empty board.

Usage: python3 tests/measure/analysis_speed.py [SIZE] [SECONDS] (repository root, release build)."""
import os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TENGEN = os.path.join(ROOT, "target", "release", "tengen")
size = int(sys.argv[1]) if len(sys.argv) > 1 else 9
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
threads = os.cpu_count()

def start(*args):
    return subprocess.Popen([TENGEN, "gtp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

def answer(p, command):
    p.stdin.write(command + "\n"); p.stdin.flush()
    lines = []
    while True:
        line = p.stdout.readline()
        if line.strip() == "" and lines:
            return lines
        if line.strip():
            lines.append(line.strip())

# genmove-style search on the empty board: `tengen bench --search` counts the playouts run.
import json
bench = subprocess.run([TENGEN, "bench", "--search", "--size", str(size), "--threads", str(threads),
                        "--seconds", str(seconds), "--json"], capture_output=True, text=True, check=True)
runs = [json.loads(l) for l in bench.stdout.splitlines() if l.startswith("{")]
genmove = next(r["playouts_per_sec"] for r in runs if r.get("position") in (None, "empty"))

# kata-analyze on the same position, for `seconds`, root visits from rootInfo.
a = start("--level", "medium")
answer(a, f"boardsize {size}")
a.stdin.write("kata-analyze b 50 rootInfo true\n"); a.stdin.flush()
assert a.stdout.readline().startswith("=")
first = a.stdout.readline()
t0, v0 = time.perf_counter(), int(first.split("rootInfo visits ")[1].split()[0])
last = first
while time.perf_counter() - t0 < seconds:
    last = a.stdout.readline()
t1, v1 = time.perf_counter(), int(last.split("rootInfo visits ")[1].split()[0])
a.stdin.write("\n"); a.stdin.flush()
a.stdin.close(); a.wait()
analysis = (v1 - v0) / (t1 - t0)
print(f"{size}x{size}, {threads} threads: genmove {genmove:.0f} playouts/s, "
      f"kata-analyze {analysis:.0f} visits/s ({analysis / genmove:.2f}x)")
