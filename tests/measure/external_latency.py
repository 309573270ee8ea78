#!/usr/bin/env python3
"""Latency tengen adds to an external engine's genmove, and the time from a child's crash to
the fallback's answer. Uses tests/fake-engine.sh as an instant child.

Usage: python3 tests/measure/external_latency.py [GENMOVES] (from the repository root, after
cargo build --release)."""
import os, subprocess, time, sys, statistics, tempfile
def run(cmd, n):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    def send(c):
        p.stdin.write(c + "\n"); p.stdin.flush()
        lines = []
        while True:
            l = p.stdout.readline()
            if l.strip() == "" and lines: break
            if l.strip(): lines.append(l.strip())
        return lines[0]
    send("boardsize 9")
    times = []
    for i in range(n):
        t = time.perf_counter(); r = send("genmove b"); times.append(time.perf_counter() - t)
    p.stdin.close(); p.wait()
    return times
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE = os.path.join(ROOT, "tests", "fake-engine.sh")
TENGEN = os.path.join(ROOT, "target", "release", "tengen")
CONFIG = os.path.join(tempfile.mkdtemp(), "fake.toml")
fake = ["sh", FAKE, "analyze", "0"]
tengen = [TENGEN, "gtp", "--config", CONFIG, "--level", "fake"]
with open(CONFIG, "w") as f:
    f.write(f'[engines.fake]\ncommand = ["sh", "{FAKE}", "analyze", "0"]\n'
            '[levels.fake]\nplayer = "external"\nengine = "fake"\nfallback = ["medium"]\n'
            f'[engines.crash]\ncommand = ["sh", "{FAKE}", "crash", "2"]\n'
            '[levels.crash]\nplayer = "external"\nengine = "crash"\nfallback = ["medium"]\n')
n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
for rep in range(2):
    d = run(fake, n)[1:]; t = run(tengen, n)[1:]
    print(f"direct: median {statistics.median(d)*1000:.3f} ms mean {statistics.mean(d)*1000:.3f}; through tengen: median {statistics.median(t)*1000:.3f} ms mean {statistics.mean(t)*1000:.3f}; added median {(statistics.median(t)-statistics.median(d))*1000:.3f} ms")
# crash to fallback: the 2nd genmove of a fresh crash child
crash = [TENGEN, "gtp", "--config", CONFIG, "--level", "crash"]
cs = []
for rep in range(20):
    ts = run(crash, 2)
    cs.append(ts[1])
print(f"crash to fallback answer (medium): median {statistics.median(cs)*1000:.2f} ms, max {max(cs)*1000:.2f} ms over {len(cs)}")
