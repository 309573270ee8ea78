#!/usr/bin/env python3
"""Measures tengen's analysis as GUIs see it (a measurement, not a test).

1. Interrupt latency: `lz-analyze B 10` until its first report line, then `protocol_version`
   (Sabaki's interrupt); the time from writing that line to reading the blank line that ends the
   stream. N interrupts on 9x9 and on 19x19 (after a few moves), median / p95 / max.
2. Search speed: visits per second of `kata-analyze … rootInfo true` (the growth of the root's
   visits between report lines) against `genmove` (playouts and seconds from tengen's log line)
   at `--level mcts --threads T`, same position, same threads.

Usage: python3 tests/measure/interrupt_latency.py [TENGEN] [--interrupts N] [--threads T]
(default TENGEN: $CARGO_TARGET_DIR or ./target, release/tengen).
"""

import argparse
import os
import re
import statistics
import subprocess
import time

OPENING = ["B D4", "W F6", "B F4", "W D6"]
OPENING_19 = ["B Q16", "W D4", "B Q3", "W D16", "B R10"]


class Engine:
    """tengen gtp over pipes; stderr is kept in a file for the genmove log line."""

    def __init__(self, tengen, args, log):
        self.log = log
        self.proc = subprocess.Popen(
            [tengen, "gtp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env={**os.environ, "RUST_LOG": "info"},
            bufsize=0,
        )

    def write(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def read_line(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("tengen closed stdout")
        return line.decode().rstrip("\r\n")

    def command(self, line):
        self.write(line)
        answer = self.read_line()
        while True:
            more = self.read_line()
            if more == "":
                break
            answer += "\n" + more
        if not answer.startswith("="):
            raise RuntimeError(f"{line}: {answer}")
        return answer[1:].strip()

    def close(self):
        self.write("quit")
        self.proc.wait(timeout=10)


def setup(engine, size, moves):
    engine.command(f"boardsize {size}")
    engine.command("clear_board")
    engine.command("komi 7")
    for move in moves:
        engine.command(f"play {move}")


def interrupt_latencies(tengen, size, moves, count):
    engine = Engine(tengen, ["--level", "medium"], subprocess.DEVNULL)
    setup(engine, size, moves)
    latencies = []
    for _ in range(count):
        engine.write("lz-analyze B 10")
        if engine.read_line() != "=":
            raise RuntimeError("lz-analyze did not answer =")
        first = engine.read_line()
        if not first.startswith("info "):
            raise RuntimeError(f"lz-analyze: {first}")
        sent = time.perf_counter()
        engine.write("protocol_version")
        while engine.read_line() != "":
            pass
        latencies.append((time.perf_counter() - sent) * 1000)
        if engine.read_line() != "= 2" or engine.read_line() != "":
            raise RuntimeError("protocol_version was not answered after the stream")
    engine.close()
    return latencies


def analysis_rate(tengen, threads, seconds, size, moves):
    engine = Engine(tengen, ["--level", "mcts", "--threads", str(threads)], subprocess.DEVNULL)
    setup(engine, size, moves)
    engine.write("kata-analyze W 50 rootInfo true")
    engine.read_line()
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        line = engine.read_line()
        match = re.search(r"rootInfo visits (\d+)", line)
        if match:
            samples.append((time.perf_counter(), int(match.group(1))))
    engine.write("protocol_version")
    while engine.read_line() != "":
        pass
    engine.read_line(), engine.read_line()
    engine.close()
    (t0, v0), (t1, v1) = samples[0], samples[-1]
    return (v1 - v0) / (t1 - t0)


def genmove_rate(tengen, threads, playouts, size, moves, log_path):
    with open(log_path, "w") as log:
        engine = Engine(
            tengen, ["--level", "mcts", "--threads", str(threads), "--playouts", str(playouts)], log
        )
        setup(engine, size, moves)
        engine.command("genmove W")
        engine.close()
    with open(log_path) as log:
        text = log.read()
    match = re.search(r"after (\d+) playouts in ([0-9.]+) s", text)
    if match is None:
        raise RuntimeError(f"no playout log line in: {text[-500:]}")
    return int(match.group(1)) / float(match.group(2))


def summary(values):
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.2f} ms, p95 {p95:.2f} ms, max {ordered[-1]:.2f} ms"


def main():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tengen", nargs="?", default=os.path.join(target, "release", "tengen"))
    parser.add_argument("--interrupts", type=int, default=50)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=4.0, help="analysis time per rate")
    parser.add_argument("--playouts", type=int, default=20000, help="genmove playouts per rate")
    args = parser.parse_args()

    for size, moves in ((9, OPENING), (19, OPENING_19)):
        latencies = interrupt_latencies(args.tengen, size, moves, args.interrupts)
        print(f"lz-analyze interrupt-to-end, {size}x{size}, {len(latencies)} interrupts: {summary(latencies)}")
    for size, moves in ((9, OPENING), (19, OPENING_19)):
        analysis = analysis_rate(args.tengen, args.threads, args.seconds, size, moves)
        genmove = genmove_rate(args.tengen, args.threads, args.playouts, size, moves, "/tmp/tengen-measure.log")
        print(
            f"{size}x{size}, --level mcts --threads {args.threads}: kata-analyze {analysis:.0f} visits/s, "
            f"genmove {genmove:.0f} playouts/s (ratio {analysis / genmove:.2f})"
        )


if __name__ == "__main__":
    main()
