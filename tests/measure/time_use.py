#!/usr/bin/env python3
"""How tengen uses its clock: plays one self-play game through GTP under a time control and
reports the time each genmove took as the controller sees it (from sending the line to the
answer), per phase of the game, and whether a flag fell.

    python3 tests/measure/time_use.py --size 19 --time 0+1/1     # byo-yomi of 1 s a move
    python3 tests/measure/time_use.py --size 19 --time 60        # sudden death, 60 s a side
    python3 tests/measure/time_use.py --size 9 --time 30 --engine "target/release/tengen gtp --level mcts --threads 1"
    python3 tests/measure/time_use.py --size 19 --time 10+1f    # Fischer: 10 s, 1 s more a move

The controller is GTP's: `time_settings MAIN PERIOD STONES` (Canadian; one stone a period is
Japanese byo-yomi of one period), then `time_left` before every genmove, the clock charged
with the measured time like `tengen match` does. Under Fischer (`MAIN+INCf[,MAX]`) it is
gtp2ogs's: `kata-time_settings fischer-capped MAIN INC MAX -1` and `time_left COLOR SECONDS 0`,
the increment added after each move. It measures; it asserts nothing.
"""
import argparse
import shlex
import statistics
import subprocess
import sys
import time


def parse_time(text):
    """(main, period, stones) for Canadian time, or a Fischer clock for MAIN+INCf[,MAX]."""
    main, _, byo = text.partition("+")
    inc, _, cap = byo.partition(",")
    if inc.endswith("f"):
        return Fischer(float(main), float(inc[:-1]), float(cap) if cap else None)
    period, stones = (byo.split("/") + ["0"])[:2] if byo else ("0", "0")
    return float(main), float(period), int(stones)


class Clock:
    def __init__(self, main, period, stones):
        self.main, self.period, self.stones = main, period, stones
        self.main_left, self.period_left, self.stones_left = main, period, stones

    def time_left(self):
        if self.main_left > 0:
            return int(self.main_left), 0
        return int(self.period_left), self.stones_left

    def available(self):
        return self.main_left + (self.period_left if self.stones else 0.0)

    def spend(self, used):
        """Charges a move; False when it ran past the time available."""
        from_main = min(used, self.main_left)
        self.main_left -= from_main
        used -= from_main
        if used == 0:
            return True
        if not self.stones or used > self.period_left:
            return False
        self.period_left -= used
        self.stones_left -= 1
        if self.stones_left == 0:
            self.period_left, self.stones_left = self.period, self.stones
        return True


class Fischer:
    """The time in hand, `increment` more after each move, never more than `cap`."""

    def __init__(self, main, increment, cap):
        self.main, self.increment, self.cap = main, increment, cap
        self.main_left = main

    def settings(self):
        cap = -1 if self.cap is None else self.cap
        return f"kata-time_settings fischer-capped {self.main:g} {self.increment:g} {cap:g} -1"

    def fresh(self):
        return Fischer(self.main, self.increment, self.cap)

    def time_left(self):
        return f"{int(self.main_left * 10) / 10:g}", 0

    def available(self):
        return self.main_left

    def spend(self, used):
        if used > self.main_left:
            return False
        self.main_left = self.main_left - used + self.increment
        if self.cap is not None:
            self.main_left = min(self.main_left, self.cap)
        return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default="target/release/tengen gtp --level mcts --threads 1 --no-ponder")
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--time", default="0+1/1", help="MAIN, MAIN+PERIOD/STONES or MAIN+INCf[,MAX], seconds")
    ap.add_argument("--max-moves", type=int, default=0, help="default: size x size")
    args = ap.parse_args()
    fischer = parse_time(args.time)
    if isinstance(fischer, Fischer):
        main_t, period, stones = fischer.main, 0.0, 0
        settings = fischer.settings()
    else:
        main_t, period, stones = fischer
        fischer = None
        settings = f"time_settings {int(main_t)} {int(period)} {stones}"
    engine = subprocess.Popen(shlex.split(args.engine), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        reply = []
        while True:
            out = engine.stdout.readline()
            if not out:
                sys.exit(f"engine closed its output after: {line}")
            if out.strip() == "" and reply:
                break
            if out.strip():
                reply.append(out.strip())
        if not reply[0].startswith("="):
            sys.exit(f"{line}: {reply}")
        return reply[0][1:].strip()

    for line in (f"boardsize {args.size}", "clear_board", f"komi {args.komi}",
                 settings):
        send(line)
    if fischer:
        clocks = {"b": fischer.fresh(), "w": fischer.fresh()}
    else:
        clocks = {"b": Clock(main_t, period, stones), "w": Clock(main_t, period, stones)}
    times = []  # (move number, seconds, in overtime)
    flags = 0
    passes = 0
    max_moves = args.max_moves or args.size * args.size
    color = "b"
    for number in range(1, max_moves + 1):
        clock = clocks[color]
        seconds, count = clock.time_left()
        send(f"time_left {color} {seconds} {count}")
        overtime = not fischer and clock.main_left <= 0
        started = time.monotonic()
        move = send(f"genmove {color}")
        used = time.monotonic() - started
        if not clock.spend(used):
            flags += 1
            print(f"move {number} ({color}): {used:.3f} s, flag fell "
                  f"({clock.available():.3f} s were left)")
        times.append((number, used, overtime))
        if move.lower() == "resign":
            break
        passes = passes + 1 if move.lower() == "pass" else 0
        if passes == 2:
            break
        color = "w" if color == "b" else "b"
    send("quit")
    engine.wait(timeout=10)

    print(f"{args.engine} | {args.size}x{args.size} | --time {args.time} | "
          f"{len(times)} moves | flags fallen: {flags}")
    phases = [(1, 20), (21, 60), (61, 100), (101, 180), (181, 10_000)]
    print("moves    | genmoves | median s | max s | total s")
    for lo, hi in phases:
        part = [t for n, t, _ in times if lo <= n <= hi]
        if part:
            print(f"{lo:>3}-{min(hi, len(times)):<4} | {len(part):>8} | {statistics.median(part):8.3f} "
                  f"| {max(part):5.3f} | {sum(part):7.2f}")
    over = [t for _, t, o in times if o]
    if over and period > 0:
        per_move = period / stones
        share = sorted(t / per_move for t in over)
        print(f"overtime moves: {len(over)}, median {statistics.median(share):.0%} of "
              f"{per_move:.2f} s a stone, quartiles {share[len(share) // 4]:.0%}-"
              f"{share[3 * len(share) // 4]:.0%}, max {share[-1]:.0%}")
    if fischer:
        share = sorted(t / fischer.increment for _, t, _ in times) if fischer.increment else []
        if share:
            print(f"increment {fischer.increment:g} s: a move took a median {statistics.median(share):.0%} "
                  f"of it, quartiles {share[len(share) // 4]:.0%}-{share[3 * len(share) // 4]:.0%}, "
                  f"max {share[-1]:.0%}")
    for color in "bw":
        left = clocks[color]
        print(f"{color}: {'time in hand' if fischer else 'main left'} {left.main_left:.1f} s")


if __name__ == "__main__":
    main()
