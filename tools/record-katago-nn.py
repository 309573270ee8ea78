#!/usr/bin/env python3
"""Record KataGo's `kata-raw-nn` answers for a list of positions, through KataGo's GTP.

Reads position headers (lines starting with `position`, any other line is ignored, so a
recorded file can be read back) and writes each header followed by KataGo's answer, in the
format of tests/data/nets/README.md.

Header:  position N size S komi K [handicap V V ...] moves (- | C V C V ...) [command GTP...]

Each position is set up as tests/data/nets/README.md says: `boardsize S`, `clear_board`,
`kgs-rules chinese`, `komi K`, `set_free_handicap V ...` when the header has handicap stones,
`play C V` for every move in order, then the header's command (`kata-raw-nn 0` when absent).
Blank lines inside KataGo's answer (between the symmetries of `kata-raw-nn all`) are dropped,
so a blank line only ends a position.

Usage:
  record-katago-nn.py --katago KATAGO --model NET.bin.gz --config GTP.cfg POSITIONS > OUT
"""

import argparse
import subprocess
import sys


class Gtp:
    """A KataGo GTP child; commands carry ids so answers with blank lines are read whole."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.next_id = 1

    def ask(self, command):
        """Sends one command and returns (ok, answer lines); the answer is read up to the
        answer of a following `protocol_version`, so blank lines inside it do not end it."""
        cmd_id = self.next_id
        fence_id = cmd_id + 1
        self.next_id += 2
        self.proc.stdin.write(f"{cmd_id} {command}\n{fence_id} protocol_version\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise RuntimeError(f"KataGo exited while answering {command!r}")
            line = line.rstrip("\n")
            if line.startswith(f"={fence_id}") or line.startswith(f"?{fence_id}"):
                self.proc.stdout.readline()  # the blank line ending the fence's answer
                break
            lines.append(line)
        while lines and lines[-1] == "":
            lines.pop()
        if not lines:
            raise RuntimeError(f"no answer to {command!r}")
        first = lines[0]
        ok = first.startswith(f"={cmd_id}")
        if not ok and not first.startswith(f"?{cmd_id}"):
            raise RuntimeError(f"unexpected answer to {command!r}: {first!r}")
        lines[0] = first[len(str(cmd_id)) + 1 :].lstrip(" ")
        return ok, lines

    def must(self, command):
        ok, lines = self.ask(command)
        if not ok:
            raise RuntimeError(f"KataGo refused {command!r}: {' '.join(lines)}")
        return lines

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=60)


def parse_header(line):
    """Returns (size, komi, handicap vertices, moves as (color, vertex), command)."""
    tokens = line.split()
    if len(tokens) < 7 or tokens[0] != "position" or tokens[2] != "size" or tokens[4] != "komi":
        raise ValueError(f"bad header: {line!r}")
    size = int(tokens[3])
    komi = tokens[5]
    i = 6
    handicap = []
    if tokens[i] == "handicap":
        i += 1
        while i < len(tokens) and tokens[i] != "moves":
            handicap.append(tokens[i])
            i += 1
    if i >= len(tokens) or tokens[i] != "moves":
        raise ValueError(f"no moves in header: {line!r}")
    i += 1
    rest = tokens[i:]
    command = "kata-raw-nn 0"
    if "command" in rest:
        at = rest.index("command")
        command = " ".join(rest[at + 1 :])
        rest = rest[:at]
    if rest == ["-"]:
        rest = []
    if len(rest) % 2 != 0:
        raise ValueError(f"odd move list in header: {line!r}")
    moves = [(rest[j], rest[j + 1]) for j in range(0, len(rest), 2)]
    return size, komi, handicap, moves, command


def record(gtp, header):
    size, komi, handicap, moves, command = parse_header(header)
    gtp.must(f"boardsize {size}")
    gtp.must("clear_board")
    gtp.must("kgs-rules chinese")
    gtp.must(f"komi {komi}")
    if handicap:
        gtp.must("set_free_handicap " + " ".join(handicap))
    for color, vertex in moves:
        gtp.must(f"play {color} {vertex}")
    ok, lines = gtp.ask(command)
    if not ok:
        raise RuntimeError(f"KataGo refused {command!r} at {header!r}: {' '.join(lines)}")
    return [line for line in lines if line.strip() != ""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--katago", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--override-config", default="")
    parser.add_argument("positions")
    args = parser.parse_args()
    argv = [args.katago, "gtp", "-model", args.model, "-config", args.config]
    if args.override_config:
        argv += ["-override-config", args.override_config]
    with open(args.positions) as f:
        headers = [line.rstrip("\n") for line in f if line.startswith("position ")]
    gtp = Gtp(argv)
    out = sys.stdout
    for n, header in enumerate(headers):
        answer = record(gtp, header)
        if n > 0:
            out.write("\n")
        out.write(header + "\n")
        for line in answer:
            out.write(line + "\n")
        out.flush()
    gtp.close()


if __name__ == "__main__":
    main()
