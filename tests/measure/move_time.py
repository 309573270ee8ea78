#!/usr/bin/env python3
"""How long a genmove without a clock takes: times each `genmove` of a GTP engine on 19x19
(from sending the line to the answer, the net already loaded) on the empty board and after
50, 100 and 150 moves of an SGF record, once for each colour, and prints the times, their
mean and their largest. It measures; it asserts nothing.

    python3 tests/measure/move_time.py --sgf game.sgf \
        --engine "target/release/tengen gtp --level net --threads 1 --no-ponder"
"""
import argparse
import shlex
import subprocess
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", required=True, help="the GTP engine's command line")
    parser.add_argument("--sgf", required=True, help="a 19x19 record of at least 151 moves")
    args = parser.parse_args()
    engine = subprocess.Popen(shlex.split(args.engine), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def gtp(command):
        engine.stdin.write(command + "\n")
        engine.stdin.flush()
        lines = []
        while True:
            line = engine.stdout.readline()
            if not line:
                raise SystemExit(f"the engine quit at: {command}")
            if line == "\n" and lines:
                break
            lines.append(line)
        answer = "".join(lines).strip()
        if answer.startswith("?"):
            raise SystemExit(f"{command}: {answer}")
        return answer

    gtp("boardsize 19")
    gtp("komi 7.5")
    times = []
    for moves in [0, 50, 100, 150]:
        gtp("clear_board")
        if moves:
            gtp(f"loadsgf {args.sgf} {moves + 1}")
        for color in "bw":
            start = time.monotonic()
            gtp(f"genmove {color}")
            times.append(time.monotonic() - start)
            gtp("undo")
    gtp("quit")
    print("seconds a move:", " ".join(f"{t:.2f}" for t in times))
    print(f"mean {sum(times) / len(times):.2f}, largest {max(times):.2f}")


if __name__ == "__main__":
    main()
