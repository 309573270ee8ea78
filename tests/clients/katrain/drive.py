#!/usr/bin/env python3
"""Drives tengen with KaTrain's own engine class, headless.

Usage: drive.py TENGEN KATRAIN_DIR

KATRAIN_DIR is an unpacked KaTrain wheel (`pip download --no-deps katrain`, unzip) with pysgf
unpacked beside it (`pip download --no-deps "pysgf<2"`, unzip into the same folder). KaTrain's
GUI toolkit, kivy, is not needed: the three names the core modules import from it are stubbed.

The script starts `katrain.core.engine.KataGoEngine` with tengen as the `katago` executable and
KaTrain's own analysis_config.cfg, builds a small handicap game with KaTrain's GameNode (via
pysgf's SGF parser, as KaTrain loads files), asks for analysis through `GameNode.analyze` (which
calls `KataGoEngine.request_analysis` with `GameNode.set_analysis` as the callback), and then
checks what KaTrain reads from the result: root winrate/scoreLead/visits, candidate moves with
their points lost, the ownership grid and the policy ranking. It also sends a ponder query and
cancels it the way KaTrain does, and a sweep query for one next move (`next_move`).

Exits 0 when every check holds, 1 with a message on stderr otherwise.
"""

import math
import os
import sys
import threading
import time
import types

TIMEOUT_S = 60.0


def stub_kivy():
    """The kivy names KaTrain's core imports: `kivy.utils.platform`, `kivy._event.Observable`."""

    class Observable:
        def __init__(self, *args, **kwargs):
            pass

        def fbind(self, *args, **kwargs):
            return None

        def funbind(self, *args, **kwargs):
            return None

    kivy = types.ModuleType("kivy")
    utils = types.ModuleType("kivy.utils")
    utils.platform = "linux"
    event = types.ModuleType("kivy._event")
    event.Observable = Observable
    kivy.utils = utils
    kivy._event = event
    sys.modules.update({"kivy": kivy, "kivy.utils": utils, "kivy._event": event})


class Headless:
    """Stands in for the KaTrain app object: the engine only calls `log` and `__call__`."""

    def __init__(self):
        self.errors = []
        self.lines = []

    def log(self, message, level=0):
        self.lines.append(str(message))
        from katrain.core.constants import OUTPUT_ERROR

        if level == OUTPUT_ERROR:
            self.errors.append(str(message))

    def __call__(self, message, *args):
        # The recovery popup and other GUI messages: record them as errors.
        self.errors.append(f"{message} {args}")


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def wait_for(predicate, what, app):
    deadline = time.time() + TIMEOUT_S
    while time.time() < deadline:
        if predicate():
            return
        if app.errors:
            raise Failure(f"KaTrain logged errors while waiting for {what}: {app.errors}")
        time.sleep(0.05)
    raise Failure(f"timed out after {TIMEOUT_S:.0f} s waiting for {what}")


def check_analysis(node, size, label):
    """The fields KaTrain's GameNode and its GUI read after `set_analysis`."""
    check(node.analysis_complete, f"{label}: analysis not complete")
    root = node.analysis["root"]
    for key in ("winrate", "scoreLead", "visits"):
        check(key in root, f"{label}: rootInfo lacks {key}: {root}")
    check(0.0 <= node.winrate <= 1.0, f"{label}: root winrate {node.winrate} out of range")
    check(math.isfinite(node.score), f"{label}: root scoreLead {node.score} not finite")
    check(node.root_visits > 0, f"{label}: no root visits")
    # format_* are what the status bar shows; they use i18n and the values' signs.
    check(node.format_winrate() and node.format_score(), f"{label}: formatting failed")

    moves = node.candidate_moves
    check(moves, f"{label}: no candidate moves")
    for move in moves:
        for key in ("move", "visits", "winrate", "scoreLead", "order", "pv", "pointsLost", "winrateLost"):
            check(key in move, f"{label}: candidate {move.get('move')} lacks {key}")
        check(0.0 <= move["winrate"] <= 1.0, f"{label}: move winrate {move['winrate']}")
        check(move["pv"] and move["pv"][0] == move["move"], f"{label}: pv does not start with the move")
    check(moves[0]["order"] == 0, f"{label}: first candidate has order {moves[0]['order']}")

    ownership = node.ownership
    check(ownership is not None and len(ownership) == size * size, f"{label}: ownership not {size}x{size}")
    check(all(-1.0 <= v <= 1.0 for v in ownership), f"{label}: ownership outside -1..1")

    policy = node.policy
    check(policy is not None and len(policy) == size * size + 1, f"{label}: policy not {size}x{size}+1")
    ranking = node.policy_ranking
    top_prior, top_move = ranking[0]
    check(0.0 < top_prior <= 1.0, f"{label}: top policy {top_prior}")
    legal = [p for p in policy if p >= 0]
    check(abs(sum(legal) - 1.0) < 0.02, f"{label}: legal policy sums to {sum(legal)}")
    return moves, top_move


def run(tengen, katrain_dir):
    stub_kivy()
    sys.path.insert(0, katrain_dir)
    from pysgf import BaseGoGame
    from katrain.core.engine import KataGoEngine
    from katrain.core.game_node import GameNode

    class Sgf(BaseGoGame):
        NODE_TYPE = GameNode

    app = Headless()
    config = {
        "katago": tengen,
        "altcommand": "",
        "backend": "local",
        "model": "katrain/models/unused.bin.gz",
        "config": "katrain/KataGo/analysis_config.cfg",
        "max_visits": 150,
        "fast_visits": 25,
        "max_time": 8.0,
        "wide_root_noise": 0.04,
        "_enable_ownership": True,
    }
    engine = KataGoEngine(app, config)
    check(engine.katago_process is not None, f"KataGoEngine did not start: {app.errors}")
    try:
        # Two handicap stones (AB: KaTrain sends them as initialStones), then White moves first.
        root = Sgf.parse_sgf("(;GM[1]FF[4]SZ[9]KM[0.5]RU[japanese]HA[2]AB[cc][gg];W[gc];B[cg];W[ee])")
        nodes = [root]
        while nodes[-1].children:
            nodes.append(nodes[-1].children[0])
        last = nodes[-1]
        check(len(nodes) == 4 and last.next_player == "B", "the test game did not parse as expected")

        # What KaTrain does for each node of a loaded game: analyze every node.
        for node in nodes:
            node.analyze(engine)
        wait_for(lambda: all(n.analysis_complete for n in nodes), "analysis of every node", app)
        for number, node in enumerate(nodes):
            check_analysis(node, 9, f"node {number}")
        # With two handicap stones and komi 0.5 Black should not be losing badly at the root.
        check(nodes[0].winrate > 0.3, f"handicap root winrate for Black is {nodes[0].winrate}")
        # set_analysis copies each node's root into its parent's move list: W E5 shows up there.
        check("E5" in nodes[2].analysis["moves"], "parent did not receive the child's root as a move")

        # Sweep query (next_move): KaTrain's "refine move" path.
        from pysgf import Move

        refined = []
        engine.request_analysis(
            last,
            callback=lambda result, partial: refined.append((result, partial)),
            visits=30,
            next_move=Move.from_gtp("D4", player="B"),
        )
        wait_for(lambda: any(not partial for _, partial in refined), "the next-move query", app)
        result = [r for r, partial in refined if not partial][-1]
        check(result["rootInfo"]["visits"] > 0, "next-move query has no visits")
        check(result["turnNumber"] == 4, f"next-move query turnNumber {result['turnNumber']}")

        # Ponder: unlimited visits with reports every 0.25 s, stopped by a terminate action.
        pondering = []
        engine.request_analysis(last, callback=lambda r, partial: pondering.append(partial), ponder=True)
        wait_for(lambda: len(pondering) >= 2, "two pondering reports", app)
        check(all(pondering), "a pondering report was final before the query was stopped")
        engine.stop_pondering()
        wait_for(lambda: False in pondering, "the final report after terminate", app)
        wait_for(engine.is_idle, "the engine to be idle", app)
        check(not app.errors, f"KaTrain logged errors: {app.errors}")
        moves = last.candidate_moves
        print(
            f"ok: {len(nodes)} nodes analysed; last node winrate {last.winrate:.3f} "
            f"scoreLead {last.score:.2f} visits {last.root_visits}; best {moves[0]['move']} "
            f"pv {' '.join(moves[0]['pv'][:4])}; {len(pondering)} ponder reports"
        )
    finally:
        engine.shutdown(finish=False)


def main():
    if len(sys.argv) != 3:
        print("usage: drive.py TENGEN KATRAIN_DIR", file=sys.stderr)
        return 2
    tengen, katrain_dir = sys.argv[1], sys.argv[2]
    try:
        run(os.path.abspath(tengen), os.path.abspath(katrain_dir))
    except Failure as failure:
        print(f"FAIL: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    threading.excepthook = lambda args: print(f"thread error: {args.exc_value}", file=sys.stderr)
    sys.exit(main())
