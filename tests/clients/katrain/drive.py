"""Drives tengen's `analysis` subcommand with KaTrain's own engine class (katrain.core.engine
.KataGoEngine) and game tree (GameNode), headless: the GUI toolkit (kivy) and KaTrain's theme
are stubbed. Usage: python3 drive.py TENGEN_BINARY KATRAIN_DIR, where KATRAIN_DIR holds the
unpacked katrain, pysgf and chardet packages (fetch.sh makes one). Exits non-zero on failure."""
import sys, types, time, os
sys.path.insert(0, sys.argv[2])
# Stub the GUI toolkit KaTrain's core imports (kivy) and its theme.
class Observable:  # kivy._event.Observable
    pass
for name in ["kivy", "kivy.utils", "kivy._event", "katrain.gui", "katrain.gui.theme"]:
    sys.modules[name] = types.ModuleType(name)
sys.modules["kivy.utils"].platform = "linux"
sys.modules["kivy._event"].Observable = Observable
class Theme:
    def __getattr__(self, name):
        return None
sys.modules["katrain.gui.theme"].Theme = Theme()
from katrain.core.engine import KataGoEngine
from katrain.core.game_node import GameNode
from pysgf import Move

tengen = sys.argv[1]
logs = []
class FakeKaTrain:
    """What KataGoEngine calls on the app: log lines and (error) popups."""
    def log(self, message, level=0):
        logs.append((level, str(message)))
    def __call__(self, *args, **kwargs):
        logs.append(("popup", args))

config = {
    "katago": tengen, "model": "kata1-any.bin.gz", "config": "analysis_config.cfg",
    "max_visits": 200, "fast_visits": 25, "max_time": 8.0, "wide_root_noise": 0.04,
    "_enable_ownership": True, "allow_recovery": False, "backend": "local",
}
engine = KataGoEngine(FakeKaTrain(), config)
root = GameNode(properties={"SZ": "9", "KM": "6.5", "RU": "japanese"})
node = root
for player, gtp in [("B", "E5"), ("W", "C3"), ("B", "G7")]:
    node = node.play(Move.from_gtp(gtp, player=player))
results, errors = [], []
engine.request_analysis(node, callback=lambda analysis, partial: results.append((analysis, partial)),
                        error_callback=lambda e: errors.append(e))
deadline = time.time() + 60
while not any(not partial for _, partial in results) and time.time() < deadline and not errors:
    time.sleep(0.05)
assert not errors, errors
finals = [a for a, partial in results if not partial]
assert finals, f"no final analysis; logs: {logs[-5:]}"
analysis = finals[-1]
root_info = analysis["rootInfo"]
for key in ["visits", "winrate", "scoreLead"]:
    assert key in root_info, key
infos = analysis["moveInfos"]
assert infos and all(k in infos[0] for k in ["move", "visits", "winrate", "scoreLead", "order", "pv", "prior"])
assert len(analysis["ownership"]) == 81 and len(analysis["policy"]) == 82
# KaTrain's own node code takes the result in.
node.set_analysis(analysis, None, None, False)
assert node.analysis_exists, "GameNode did not accept the analysis"
candidates = node.candidate_moves
assert candidates and candidates[0]["move"] == infos[0]["move"]
print(f"katrain client: {root_info['visits']} visits, best {candidates[0]['move']} "
      f"winrate {candidates[0]['winrate']:.3f} scoreLead {candidates[0]['scoreLead']:.1f}; "
      f"{len(candidates)} candidates; all checks passed")
engine.shutdown(finish=False)
os._exit(0)
