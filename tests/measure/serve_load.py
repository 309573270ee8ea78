#!/usr/bin/env python3
"""Load benchmark for `tengen serve` (issue 32): many concurrent games over loopback.

Starts target/release/tengen serve on 127.0.0.1 (a fresh store in a temporary directory, the
repository's engines.toml) and plays GAMES concurrent 9x9 games, half at `easy` and half at
`medium` (--levels), with MCTS games at `mcts` beside them, one client thread and one
keep-alive HTTP connection per game. Each client plays Black: random empty points (an illegal
one, answered 422, is replaced by another) for a number of moves drawn between 1 and twice
--moves, so that games end at different times, then passes until the game is over, then opens
a new game; it pauses between its moves for --think seconds (uniform between 0 and twice
that). It stops after --seconds (the games in progress are left as they are) or after
--max-requests.

It reports, per level, p50/p99/max latency of the move requests (the client's move and the
AI's reply in one answer; `end`: those whose answer ends the game, and so waited for the
scorer), and of game creation; the p50/p99 of every easy/medium reply, moves and ends
together; the p99 of the easy/medium moves in each 10 s of the run;
requests per second; the server's RSS (peak and at the end); the CPU used by the server and by
the client, and the load average before the start (they share the machine with whatever else
runs).

The store is a SQLite file (the default), or with --store postgres a PostgreSQL cluster of the
benchmark's own (Debian's `postgresql` package: initdb and pg_ctl, run as the `postgres` user
when run as root, in a temporary directory on a free loopback port, synchronous_commit on).
With --servers N (PostgreSQL only) N servers share that store behind HAProxy, configured as
deploy/haproxy.cfg is (its servers and address replaced); --haproxy puts one server behind it.
--mcts-playouts N gives the mcts games a level of N playouts a move (a copy of engines.toml
with that level added), so that AI moves/s at mcts measure a fixed amount of search.

Nothing lost or duplicated: every answer's `moves` must be the client's record plus its move
and the reply; at the end every game is read back (GET) and, after the servers are stopped,
read from the store, and both must equal the client's record move for move.

Usage (from the repository root, after cargo build --release):
    python3 tests/measure/serve_load.py [--games 200] [--levels easy,medium] [--mcts 2]
        [--seconds 60] [--think 1] [--moves 30] [--workers N] [--max-requests N] [--seed 1]
        [--store sqlite|postgres] [--servers N] [--haproxy] [--mcts-playouts N]
Standard library only."""
import argparse
import http.client
import json
import os
import random
import glob
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TENGEN = os.path.join(ROOT, "target", "release", "tengen")
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=200, help="concurrent easy/medium games")
    p.add_argument("--levels", default="easy,medium", help="the levels the GAMES take in turn")
    p.add_argument("--mcts", type=int, default=2, help="concurrent mcts games beside them")
    p.add_argument("--seconds", type=float, default=60, help="how long to play")
    p.add_argument("--max-requests", type=int, default=200_000, help="stop after this many")
    p.add_argument("--think", type=float, default=1.0, help="mean pause between a client's moves (s)")
    p.add_argument("--moves", type=int, default=30, help="mean client moves on the board before passing")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--workers", type=int, default=None, help="tengen serve --workers (default: its own)")
    p.add_argument("--move-time", type=float, default=None, help="tengen serve --move-time")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite",
                   help="a SQLite file, or a PostgreSQL cluster started for the run")
    p.add_argument("--servers", type=int, default=1,
                   help="servers sharing the store behind HAProxy (more than one: --store postgres)")
    p.add_argument("--haproxy", action="store_true", help="HAProxy in front even of one server")
    p.add_argument("--mcts-playouts", type=int, default=None,
                   help="playouts a move of the mcts games (default: the config's mcts level)")
    p.add_argument("--tengen", default=TENGEN,
                   help="the tengen binary (default: target/release/tengen), to compare two builds")
    return p.parse_args()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency = {}  # (kind, level) -> [seconds]
        self.timeline = []  # (when it was sent, seconds) of easy/medium/... moves, not mcts
        self.started = time.perf_counter()
        self.requests = 0
        self.errors = []  # unexpected answers and mismatches
        self.illegal = 0  # 422s (expected: the clients pick empty points blindly)
        self.finished = 0

    def add(self, kind, level, seconds):
        with self.lock:
            self.latency.setdefault((kind, level), []).append(seconds)
            self.requests += 1
            if kind == "move" and level != "mcts":
                self.timeline.append((time.perf_counter() - seconds - self.started, seconds))

    def error(self, text):
        with self.lock:
            if len(self.errors) < 20:
                self.errors.append(text)
            else:
                self.errors[-1] = "... and more"


class Client(threading.Thread):
    """One game at a time, as one client, on one keep-alive connection."""

    def __init__(self, n, level, args, port, stats, stop):
        super().__init__(daemon=True)
        self.n, self.level, self.args, self.port = n, level, args, port
        # What the server is asked for: the mcts games may play a level of fixed playouts.
        self.asked_level = args.mcts_level if level == "mcts" else level
        self.stats, self.stop = stats, stop
        self.rng = random.Random(args.seed * 1_000_003 + n)
        self.conn = None
        self.games = []  # (key, the client's record of its moves)

    def call(self, method, path, body=None):
        for attempt in (1, 2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                data = json.dumps(body) if body is not None else None
                start = time.perf_counter()
                self.conn.request(method, path, data, {"Content-Type": "application/json"} if data else {})
                response = self.conn.getresponse()
                raw = response.read()
                elapsed = time.perf_counter() - start
                return response.status, json.loads(raw), elapsed
            except (ConnectionError, http.client.HTTPException) as e:
                self.conn = None
                if attempt == 2:
                    raise
                # Only a connection the server closed while idle is retried; a request that
                # may have been received is not (the move could be applied twice otherwise).
                if not isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError)):
                    raise

    def run(self):
        try:
            # Clients arrive over the first pause rather than all at once.
            if self.stop.wait(self.rng.uniform(0, 2 * self.args.think)):
                return
            while not self.stop.is_set():
                self.play_game()
        except Exception as e:  # reported, and counted as a failure
            self.stats.error(f"client {self.n} ({self.level}): {type(e).__name__}: {e}")

    def play_game(self):
        size = self.args.size
        status, state, t = self.call("POST", "/api/games", {
            "client": f"load-{self.n}", "size": size, "level": self.asked_level, "color": "B"})
        self.stats.add("open", self.level, t)
        if status != 201:
            self.stats.error(f"open: {status} {state}")
            self.stop.wait(1)
            return
        key = state["key"]
        record = []
        on_board = self.rng.randint(1, 2 * self.args.moves)
        self.games.append((key, record))
        while not state["over"] and not self.stop.is_set():
            if self.args.think > 0:
                if self.stop.wait(self.rng.uniform(0, 2 * self.args.think)):
                    return
            number = len(record) + 1
            if state["number"] != number or not state["your_turn"]:
                self.stats.error(f"{key}: state says number {state['number']}, the client {number}")
                return
            empty = [(x, y) for y, row in enumerate(state["board"]) for x, c in enumerate(row) if c == "."]
            self.rng.shuffle(empty)
            candidates = [f"{LETTERS[x]}{size - y}" for x, y in empty] if number <= 2 * on_board else []
            candidates.append("pass")
            for move in candidates:
                status, answer, t = self.call("POST", f"/api/games/{key}/moves", {"move": move, "number": number})
                if status == 422:
                    self.stats.add("illegal", self.level, t)
                    with self.stats.lock:
                        self.stats.illegal += 1
                    continue
                break
            if status != 200:
                self.stats.error(f"{key} move {number} {move}: {status} {answer}")
                return
            # A move that ends the game waits for the scorer as well: counted apart.
            self.stats.add("end" if answer["over"] else "move", self.level, t)
            record.append(move)
            if answer.get("reply") not in (None, "resign"):  # a resignation is not a move
                record.append(answer["reply"])
            if answer["moves"] != record:
                self.stats.error(f"{key}: the server's moves {answer['moves'][-4:]} are not the client's {record[-4:]}")
                return
            state = answer
            if self.stats.requests >= self.args.max_requests:
                self.stop.set()
        if state["over"]:
            with self.stats.lock:
                self.stats.finished += 1


def rss_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A PostgreSQL cluster of the run's own under TMP, on a free loopback port."""

    def __init__(self, tmp):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            sys.exit("--store postgres needs initdb and pg_ctl (Debian: apt install postgresql)")
        self.bin = os.path.dirname(found[-1])
        self.dir = os.path.join(tmp, "pg")
        os.mkdir(self.dir)
        self.as_postgres = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            os.chmod(tmp, 0o755)
            shutil.chown(self.dir, "postgres", "postgres")
            self.as_postgres = ["runuser", "-u", "postgres", "--"]
        self.data = os.path.join(self.dir, "data")
        self.run("initdb", "-D", self.data, "-U", "tengen", "-A", "trust", "-N", "-E", "UTF8", "--locale=C")
        self.port = free_port()
        self.run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w",
                 "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1", "start")
        self.psql("postgres", "CREATE DATABASE tengen")
        self.url = f"postgres://tengen@127.0.0.1:{self.port}/tengen"

    def run(self, program, *args):
        subprocess.run(self.as_postgres + [os.path.join(self.bin, program), *args], check=True,
                       stdout=subprocess.DEVNULL)

    def psql(self, database, sql):
        return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tengen",
                               "-d", database, "-qAt", "-F", "\t", "-c", sql],
                              check=True, capture_output=True, text=True).stdout

    def moves(self):
        rows = self.psql("tengen", "SELECT key, number, move FROM moves ORDER BY key, number")
        return [(key, int(number), move) for key, number, move in
                (line.split("\t") for line in rows.splitlines())]

    def stop(self):
        self.run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")


def sqlite_moves(path):
    db = sqlite3.connect(path)
    rows = list(db.execute("SELECT key, number, move FROM moves ORDER BY key, number"))
    db.close()
    return rows


def config_with_mcts_level(args, tmp):
    """The repository's engines.toml, plus a level of --mcts-playouts playouts when asked for."""
    config = os.path.join(ROOT, "engines.toml")
    args.mcts_level = "mcts"
    if args.mcts_playouts is None:
        return config
    args.mcts_level = f"mcts{args.mcts_playouts}"
    copy = os.path.join(tmp, "engines.toml")
    with open(config) as f, open(copy, "w") as out:
        out.write(f.read())
        out.write(f'\n[levels.{args.mcts_level}]\nplayer = "mcts"\nplayouts = {args.mcts_playouts}\n')
    return copy


def start_server(args, store, config, tmp):
    """A `tengen serve` on a free port: the process, its port, and its workers as it says."""
    cmd = [args.tengen, "serve", "--bind", "127.0.0.1:0", "--store", store, "--config", config,
           "--max-games-per-client", "8", "--idle-timeout", "1h"]
    if args.workers:
        cmd += ["--workers", str(args.workers)]
    if args.move_time:
        cmd += ["--move-time", str(args.move_time)]
    server = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, cwd=tmp)
    port, workers = None, "?"
    for line in server.stderr:
        if "workers" in line:
            workers = line.rsplit(";", 1)[-1].strip()
        if "listening on http://" in line:
            port = int(line.rsplit(":", 1)[1])
            break
    if port is None:
        sys.exit("tengen serve did not start")
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
    return server, port, workers


def start_haproxy(tmp, ports):
    """HAProxy with deploy/haproxy.cfg's settings in front of PORTS: the process and its port."""
    haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin")
    if haproxy is None:
        sys.exit("--servers and --haproxy need HAProxy (Debian: apt install haproxy)")
    port = free_port()
    lines = []
    with open(os.path.join(ROOT, "deploy", "haproxy.cfg")) as f:
        for line in f:
            words = line.split()
            if words and words[0] in ("user", "group", "server"):
                continue
            lines.append(f"    bind 127.0.0.1:{port}\n" if words[:1] == ["bind"] else line)
    lines += [f"    server tengen{n} 127.0.0.1:{p} check\n" for n, p in enumerate(ports)]
    config = os.path.join(tmp, "haproxy.cfg")
    with open(config, "w") as f:
        f.writelines(lines)
    process = subprocess.Popen([haproxy, "-f", config, "-db"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit("haproxy did not start")
            time.sleep(0.05)


def main():
    args = parse_args()
    if not os.access(args.tengen, os.X_OK):
        sys.exit(f"{args.tengen} is missing: cargo build --release first")
    if args.servers < 1 or (args.servers > 1 and args.store != "postgres"):
        sys.exit("--servers N: at least 1, and more than 1 share a store only with --store postgres")
    tmp = tempfile.mkdtemp(prefix="tengen-load-")
    postgres, servers, balancer = None, [], None
    try:
        config = config_with_mcts_level(args, tmp)
        if args.store == "postgres":
            postgres = Postgres(tmp)
            store, read_store = postgres.url, postgres.moves
        else:
            path = os.path.join(tmp, "games.sqlite")
            store, read_store = path, lambda: sqlite_moves(path)
        for _ in range(args.servers):
            servers.append(start_server(args, store, config, tmp))
        port = servers[0][1]
        if args.servers > 1 or args.haproxy:
            balancer, port = start_haproxy(tmp, [p for _, p, _ in servers])
        report(args, [s for s, _, _ in servers], port, servers[0][2], read_store,
               "HAProxy" if balancer else "no balancer")
    finally:
        for process in [s for s, _, _ in servers] + ([balancer] if balancer else []):
            if process.poll() is None:
                process.kill()
        if postgres:
            postgres.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def report(args, servers, port, workers, read_store, balancer):
    stats, stop = Stats(), threading.Event()
    levels = args.levels.split(",")
    clients = [Client(i, levels[i % len(levels)], args, port, stats, stop) for i in range(args.games)]
    clients += [Client(args.games + i, "mcts", args, port, stats, stop) for i in range(args.mcts)]
    load_before = os.getloadavg()[0]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    stats.started = wall0
    server_cpu0 = sum(server_cpu(s.pid) for s in servers)
    for c in clients:
        c.start()
    while time.perf_counter() - wall0 < args.seconds and not stop.is_set():
        time.sleep(0.25)
    stop.set()
    for c in clients:
        c.join(timeout=150)
    wall = time.perf_counter() - wall0
    client_cpu = time.process_time() - cpu0
    cpu_of_server = sum(server_cpu(s.pid) for s in servers) - server_cpu0
    end_rss = [rss_kib(s.pid, "VmRSS") for s in servers]
    hwm = [rss_kib(s.pid, "VmHWM") for s in servers]

    # Every game read back from the server, then from the store after a clean stop.
    games = [g for c in clients for g in c.games]
    checker = Client(-1, "check", args, port, stats, threading.Event())
    lost = 0
    for key, record in games:
        status, state, _ = checker.call("GET", f"/api/games/{key}")
        if status != 200 or state["moves"] != record:
            lost += 1
            stats.error(f"{key}: read back {status} {state.get('moves', state)[-4:]}, the client has {record[-4:]}")
    for s in servers:
        s.terminate()
    for s in servers:
        s.wait(timeout=30)
    stored_moves = {}
    for key, number, move in read_store():
        stored_moves.setdefault(key, []).append((number, move))
    for key, record in games:
        stored = stored_moves.get(key, [])
        if [m for _, m in stored] != record or [n for n, _ in stored] != list(range(1, len(record) + 1)):
            lost += 1
            stats.error(f"{key}: the store has {len(stored)} moves, the client {len(record)}")

    moves = sum(len(r) for _, r in games)
    print(f"tengen serve load: {args.games} {'/'.join(levels)} games + {args.mcts} mcts games at once, "
          f"{args.size}x{args.size}, think {args.think} s, {len(servers)} server(s) ({balancer}) "
          f"with {workers} each, store {args.store}, {os.cpu_count()} cores "
          f"(load average {load_before:.1f} before)")
    print(f"{wall:.1f} s: {stats.requests} requests ({stats.requests / wall:.0f}/s), "
          f"{len(games)} games opened, {stats.finished} finished, {moves} moves stored, "
          f"{stats.illegal} illegal tries (422, expected)")
    print(f"{'request':<8} {'level':<7} {'count':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for (kind, level), values in sorted(stats.latency.items()):
        print(f"{kind:<8} {level:<7} {len(values):>7} {1000 * statistics.median(values):>8.1f} "
              f"{1000 * pct(values, 0.99):>8.1f} {1000 * max(values):>8.1f}")
    replies = [v for (kind, level), values in stats.latency.items()
               if kind in ("move", "end") and level in levels for v in values]
    if replies:
        print(f"every {'/'.join(levels)} reply (moves and game ends): {len(replies)}, "
              f"p50 {1000 * statistics.median(replies):.1f} ms, p99 {1000 * pct(replies, 0.99):.1f} ms")
    windows = {}
    for when, seconds in stats.timeline:
        windows.setdefault(int(when // 10), []).append(seconds)
    print("move p99 (not mcts) by 10 s from the start, ms: " + " ".join(
        f"{1000 * pct(windows[w], 0.99):.0f}" for w in sorted(windows)))
    mcts_moves = sum(len(v) for (kind, level), v in stats.latency.items()
                     if kind in ("move", "end") and level == "mcts")
    if args.mcts:
        print(f"AI moves at {args.mcts_level}: {mcts_moves} ({mcts_moves / wall:.2f}/s)")
    print(f"server RSS: peak {' + '.join(f'{k / 1024:.0f}' for k in hwm)} MiB, at the end "
          f"{' + '.join(f'{k / 1024:.0f}' for k in end_rss)} MiB; "
          f"server CPU {cpu_of_server:.1f} s, client CPU {client_cpu:.1f} s over {wall:.1f} s")
    print(f"lost or duplicated moves: {lost} games differ between client, server and store")
    for e in stats.errors:
        print("ERROR", e)
    sys.exit(1 if stats.errors or lost else 0)


def server_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


if __name__ == "__main__":
    main()
