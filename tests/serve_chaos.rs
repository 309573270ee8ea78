//! The chaos test: three `tengen serve` sharing one PostgreSQL behind HAProxy (running
//! deploy/haproxy.cfg), all on loopback. Sixty clients play whole 9x9 games through the
//! balancer at `easy` and `medium`, four at `mcts` (64 playouts), resending a request as a
//! real client does (no answer, 502, 503, 504: the same request again after a pause that
//! grows; a 409: the game's state read again and play resumed from it), while a server is
//! killed with `kill -9` every few seconds and started again, and the database is stopped
//! (`pg_ctl stop -m fast`) and started once.
//!
//! Afterwards, read from the database itself: every game ended; its stored moves are exactly
//! the moves the client was told of, each once, numbered 1, 2, ... in order; they replay
//! legally under tengen's rules and end with two passes or a resignation. No client met a
//! 500, nor a 409 (each game has one client, so a 409 means a resent request was refused),
//! and no server panicked. It prints one line: games, moves, kills, what the clients resent
//! by cause, HAProxy's own retries.
//!
//! Bounded: every request is resent for a minute at most, every game has a move limit, and
//! the whole test a deadline.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::balancer::{Haproxy, Resent, Server, call};
use common::{free_port, free_ports};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tengen::engine::player::sensible_moves;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

/// Clients, one game each.
const CLIENTS: usize = 60;
/// Every this many clients, one plays `mcts`; the others alternate `easy` and `medium`.
const MCTS_EVERY: usize = 15;
/// Black passes from this move number on.
const LAST_PLAYED_MOVE: u64 = 50;
/// A game longer than this has not ended as it should.
const MAX_MOVES: usize = 300;
/// A client's pause between its moves.
const THINK: Duration = Duration::from_millis(200);
/// A server is killed this often (one at a time, in turn).
const KILL_EVERY: Duration = Duration::from_millis(2000);
/// How long a killed server stays down.
const DOWN_FOR: Duration = Duration::from_millis(500);
/// When the database is restarted, from the start of play.
const RESTART_DATABASE_AT: Duration = Duration::from_secs(4);
/// How long the database stays down.
const DATABASE_DOWN_FOR: Duration = Duration::from_secs(1);
/// The whole test's deadline, from the start of play.
const DEADLINE: Duration = Duration::from_secs(300);

/// The `mcts` level the servers play: few playouts, one thread.
const LEVELS: &str =
    "[levels.mcts]\nplayer = \"mcts\"\nplayouts = 64\nthreads = 1\nponder = false\n";

fn vertex(mv: Move) -> String {
    match mv {
        Move::Play(p) => p.to_vertex(9),
        Move::Pass => "pass".to_string(),
    }
}

/// The level of client `n`.
fn level(n: usize) -> &'static str {
    if n.is_multiple_of(MCTS_EVERY) {
        "mcts"
    } else if n.is_multiple_of(2) {
        "easy"
    } else {
        "medium"
    }
}

/// A game as its client saw it.
struct Played {
    key: String,
    level: &'static str,
    /// Every move the client was told was stored, in order.
    record: Vec<String>,
    result: String,
    resent: Resent,
    /// The 409s it met (and resynced after).
    conflicts: Vec<String>,
}

/// `moves` (vertices, Black first) replayed under tengen's rules; panics at an illegal one.
fn replay(key: &str, moves: &[String]) -> Game {
    let mut game = Game::new(9, Rules::chinese(7.5));
    for (n, text) in moves.iter().enumerate() {
        let color = if n % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let mv = Move::parse(text, 9).unwrap_or_else(|e| panic!("game {key}: {text}: {e}"));
        game.play(color, mv)
            .unwrap_or_else(|e| panic!("game {key}: move {} {text} is illegal: {e}", n + 1));
    }
    game
}

/// The moves of a state, as strings.
fn moves_of(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .unwrap_or_else(|| panic!("no moves in {state}"))
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// Client `n` plays a whole game as Black through the balancer at `port`: random sensible
/// moves, passes from [`LAST_PLAYED_MOVE`] on; after a 409 it reads the game's state, which
/// must begin with every move it was told of, and goes on from there.
fn play(port: u16, n: usize, deadline: Instant) -> Played {
    let level = level(n);
    let mut resent = Resent::default();
    let mut conflicts = Vec::new();
    let create = json!({"client": format!("chaos{n}"), "size": 9, "level": level, "color": "B",
                        "request_id": format!("chaos-game-{n}")});
    let (status, mut state) = call(port, "POST", "/api/games", &create, &mut resent);
    assert_eq!(status, 201, "{state}");
    let key = state["key"].as_str().unwrap().to_string();
    let games = format!("/api/games/{key}");
    let mut mirror = Game::new(9, Rules::chinese(7.5));
    let mut record: Vec<String> = Vec::new();
    let mut rng = SmallRng::seed_from_u64(n as u64);
    while !state["over"].as_bool().unwrap() {
        assert!(
            Instant::now() < deadline,
            "game {key}: not over by the deadline"
        );
        assert!(record.len() < MAX_MOVES, "game {key}: {record:?}");
        let number = state["number"].as_u64().unwrap();
        let (status, next) = if state["your_turn"].as_bool().unwrap() {
            let choices = sensible_moves(&mirror, Color::Black);
            let mv = if number >= LAST_PLAYED_MOVE || choices.is_empty() {
                Move::Pass
            } else {
                Move::Play(choices[rng.random_range(0..choices.len())])
            };
            let body = json!({"move": vertex(mv), "number": number});
            let (status, next) = call(port, "POST", &format!("{games}/moves"), &body, &mut resent);
            if status == 200 {
                mirror.play(Color::Black, mv).unwrap();
                record.push(vertex(mv));
            }
            (status, next)
        } else {
            // After a resync: the AI is to move.
            let body = json!({"number": number});
            call(
                port,
                "POST",
                &format!("{games}/genmove"),
                &body,
                &mut resent,
            )
        };
        match status {
            200 => {
                if let Some(reply) = next["reply"].as_str()
                    && reply != "resign"
                {
                    let reply = Move::parse(reply, 9).unwrap();
                    mirror.play(Color::White, reply).expect("a legal reply");
                    record.push(vertex(reply));
                }
                assert_eq!(moves_of(&next), record, "game {key}");
                state = next;
            }
            409 => {
                conflicts.push(format!("move {number}: {next}"));
                let (status, now) = call(port, "GET", &games, &Value::Null, &mut resent);
                assert_eq!(status, 200, "{now}");
                let stored = moves_of(&now);
                assert!(
                    stored.starts_with(&record),
                    "game {key}: the moves told {record:?} are not all in {stored:?}"
                );
                mirror = replay(&key, &stored);
                record = stored;
                state = now;
            }
            _ => panic!("game {key}: {status} {next}"),
        }
        std::thread::sleep(THINK);
    }
    let result = state["result"].as_str().unwrap().to_string();
    Played {
        key,
        level,
        record,
        result,
        resent,
        conflicts,
    }
}

#[test]
#[cfg_attr(
    not(all(postgres_tests, haproxy_tests)),
    ignore = "PostgreSQL's initdb and pg_ctl, or haproxy, not found (apt-get install postgresql haproxy)"
)]
fn sixty_games_end_whole_while_servers_are_killed_and_the_database_restarts() {
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let levels =
        std::env::temp_dir().join(format!("tengen-chaos-levels-{}.toml", std::process::id()));
    std::fs::write(&levels, LEVELS).unwrap();
    let args = [
        "--config",
        levels.to_str().unwrap(),
        "--move-time",
        "3",
        "--workers",
        "2",
    ];
    let ports = free_ports::<3>();
    let mut servers: Vec<Server> = ports
        .iter()
        .map(|&p| Server::start(p, &url, &args))
        .collect();
    let front = free_port();
    let haproxy = Haproxy::start(front, &ports);

    let began = Instant::now();
    let deadline = began + DEADLINE;
    let finished = AtomicUsize::new(0);
    let done = AtomicBool::new(false);
    // What the killed servers wrote about panics, and when the database came back.
    let panics = Mutex::new(Vec::new());
    let (games, kills, database_back) = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|n| {
                let finished = &finished;
                scope.spawn(move || {
                    let played = play(front, n, deadline);
                    finished.fetch_add(1, Ordering::Relaxed);
                    played
                })
            })
            .collect();
        let chaos = scope.spawn(|| {
            let (mut kills, mut database_back) = (0, None);
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
                if database_back.is_none() && began.elapsed() >= RESTART_DATABASE_AT {
                    cluster.stop_fast();
                    std::thread::sleep(DATABASE_DOWN_FOR);
                    cluster.restart();
                    database_back = Some(finished.load(Ordering::Relaxed));
                } else if last.elapsed() >= KILL_EVERY {
                    let victim = kills % servers.len();
                    servers[victim].kill();
                    panics
                        .lock()
                        .unwrap()
                        .extend(servers[victim].said("panicked"));
                    std::thread::sleep(DOWN_FOR);
                    servers[victim] = Server::start(ports[victim], &url, &args);
                    kills += 1;
                    last = Instant::now();
                }
            }
            (kills, database_back)
        });
        let games: Vec<Played> = clients.into_iter().map(|c| c.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        let (kills, database_back) = chaos.join().unwrap();
        (games, kills, database_back)
    });
    let _ = std::fs::remove_file(&levels);
    // Stopped first, so that all each wrote has been read.
    for server in &mut servers {
        server.kill();
        panics.lock().unwrap().extend(server.said("panicked"));
    }

    // Every game is in the store as its client saw it: each move told of stored once, in
    // order, nothing more; it replays legally and ended.
    let mut db = cluster.client("games");
    for game in &games {
        let rows = db
            .query(
                "SELECT number, move FROM moves WHERE key = $1 ORDER BY number",
                &[&game.key],
            )
            .unwrap();
        let numbers: Vec<i32> = rows.iter().map(|row| row.get(0)).collect();
        let stored: Vec<String> = rows.iter().map(|row| row.get(1)).collect();
        assert_eq!(stored, game.record, "game {}", game.key);
        assert_eq!(numbers, (1..=stored.len() as i32).collect::<Vec<_>>());
        let result: Option<String> = db
            .query_one("SELECT result FROM games WHERE key = $1", &[&game.key])
            .unwrap()
            .get(0);
        assert_eq!(
            result.as_deref(),
            Some(game.result.as_str()),
            "game {}",
            game.key
        );
        let replayed = replay(&game.key, &stored);
        let two_passes = replayed.moves().len() >= 2
            && replayed
                .moves()
                .iter()
                .rev()
                .take(2)
                .all(|m| m.1 == Move::Pass);
        assert!(
            two_passes || game.result.ends_with("+R"),
            "game {} ended {} without two passes: {stored:?}",
            game.key,
            game.result
        );
    }
    let stored_games: i64 = db
        .query_one("SELECT count(*) FROM games", &[])
        .unwrap()
        .get(0);
    assert_eq!(stored_games, CLIENTS as i64, "a game stored twice");

    let mut resent = Resent::default();
    for game in &games {
        resent.add(&game.resent);
    }
    let moves: usize = games.iter().map(|g| g.record.len()).sum();
    let mcts_moves: usize = games
        .iter()
        .filter(|g| g.level == "mcts")
        .map(|g| g.record.len())
        .sum();
    eprintln!(
        "chaos: {} games ({mcts_moves} of the {moves} moves at mcts) stored whole, {kills} servers killed, the database restarted with {} games over; the clients resent {} unanswered, {} after tengen's 503 (store down), balancer {:?}; HAProxy retried {}; {:.1} s",
        games.len(),
        database_back.unwrap_or(0),
        resent.unanswered,
        resent.store_down,
        resent.balancer,
        haproxy.retries(),
        began.elapsed().as_secs_f64()
    );
    let conflicts: Vec<&String> = games.iter().flat_map(|g| &g.conflicts).collect();
    assert!(
        conflicts.is_empty(),
        "409s, where each game has one client (a resent request refused): {conflicts:?}"
    );
    let panics = panics.into_inner().unwrap();
    assert!(panics.is_empty(), "{panics:?}");
    // The chaos happened while games were played.
    assert!(kills >= 3, "only {kills} servers killed");
    assert!(
        database_back.is_some_and(|over| over < CLIENTS),
        "the database was not restarted mid-play"
    );
}
