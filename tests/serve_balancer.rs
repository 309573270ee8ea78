//! Three `tengen serve` sharing one PostgreSQL behind HAProxy, all on loopback: HAProxy runs
//! deploy/haproxy.cfg with the test's addresses put in, and clients that resend a request as a
//! real client does (no answer, 502, 503, 504) play 9x9 games through it: six whole games at
//! `easy`, and one at a level whose every reply takes `--move-time`. The server searching
//! that game's first reply is killed with `kill -9` and started again: the move it was
//! answering is resent (by HAProxy, or the client) to another server, which finds the move
//! stored and answers it with a reply of its own (the dead server's lease on the reply run
//! out). Every game must end with every move the clients were told of stored exactly once,
//! in order. And two servers on one PostgreSQL hold a client to one request rate between
//! them, and a server with an older copy of a game answers as the store says.

mod common;

use std::time::{Duration, Instant};

use common::balancer::{Haproxy, Resent, Server, call, try_request};
use common::temp::TempDir;
use common::{free_port, free_ports};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tengen::engine::player::sensible_moves;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

fn vertex(mv: Move) -> String {
    match mv {
        Move::Play(p) => p.to_vertex(9),
        Move::Pass => "pass".to_string(),
    }
}

/// A level whose reply is searched for the whole `--move-time`.
const SLOW: &str =
    "[levels.slow]\nplayer = \"mcts\"\nplayouts = 100000000\nthreads = 1\nbook = false\n";

/// `--move-time`, in seconds: an AI lease lasts 5 s more.
const MOVE_TIME: &str = "2";

/// A new 9x9 game of client `seed` at `level`, Black, through the balancer; its key.
fn open(port: u16, seed: u64, level: &str, resent: &mut Resent) -> String {
    let create = json!({"client": format!("c{seed}"), "size": 9, "level": level, "color": "B",
                        "request_id": format!("game-{seed}")});
    let (status, state) = call(port, "POST", "/api/games", &create, resent);
    assert_eq!(status, 201, "{state}");
    state["key"].as_str().unwrap().to_string()
}

/// Plays the game `key` as Black through the balancer to its end (random sensible moves, a
/// short pause between moves; passes after move 60, or resigns at move `resign_at`),
/// checking each answer against the client's record; the moves it was told of.
fn play(port: u16, key: &str, seed: u64, resign_at: u64, resent: &mut Resent) -> Vec<String> {
    let path = format!("/api/games/{key}");
    let (status, mut state) = call(port, "GET", &path, &Value::Null, resent);
    assert_eq!(status, 200, "{state}");
    let mut mirror = Game::new(9, Rules::chinese(7.5));
    let mut record: Vec<String> = Vec::new();
    let mut rng = SmallRng::seed_from_u64(seed);
    while !state["over"].as_bool().unwrap() {
        let number = state["number"].as_u64().unwrap();
        let choices = sensible_moves(&mirror, Color::Black);
        let mv = if number > 60 || choices.is_empty() {
            Move::Pass
        } else {
            Move::Play(choices[rng.random_range(0..choices.len())])
        };
        let text = if number >= resign_at {
            "resign".to_string()
        } else {
            vertex(mv)
        };
        let body = json!({"move": text, "number": number});
        let (status, next) = call(port, "POST", &format!("{path}/moves"), &body, resent);
        assert_eq!(status, 200, "move {number} of game {key}: {next}");
        if text != "resign" {
            mirror.play(Color::Black, mv).unwrap();
            record.push(text);
        }
        if let Some(reply) = next["reply"].as_str()
            && reply != "resign"
        {
            let reply = Move::parse(reply, 9).unwrap();
            mirror.play(Color::White, reply).expect("a legal reply");
            record.push(vertex(reply));
        }
        let told: Vec<String> = next["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert_eq!(told, record, "game {key}");
        state = next;
        std::thread::sleep(Duration::from_millis(15));
    }
    assert!(state["result"].as_str().is_some(), "{state}");
    record
}

#[test]
#[cfg_attr(
    not(all(postgres_tests, haproxy_tests)),
    ignore = "PostgreSQL's initdb and pg_ctl, or haproxy, not found (apt-get install postgresql haproxy)"
)]
fn a_move_cut_off_by_kill_9_is_resent_to_another_server_and_every_game_ends_whole() {
    let started = Instant::now();
    let dir = TempDir::new("balancer-kill");
    let levels = dir.path().join("slow.toml");
    std::fs::write(&levels, SLOW).unwrap();
    let args = [
        "--config",
        levels.to_str().unwrap(),
        "--move-time",
        MOVE_TIME,
    ];
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let ports = free_ports::<3>();
    let mut servers: Vec<Server> = ports
        .iter()
        .map(|&p| Server::start(p, &url, &args))
        .collect();
    let front = free_port();
    let haproxy = Haproxy::start(front, &ports);

    let mut resent = Resent::default();
    let (status, health) = call(front, "GET", "/healthz", &Value::Null, &mut resent);
    assert_eq!((status, &health["store"]), (200, &json!("ok")), "{health}");

    // Game 0 is the slow one: three moves, then Black resigns.
    let levels_played = ["slow", "easy", "easy", "easy", "easy", "easy", "easy"];
    let keys: Vec<String> = (0..levels_played.len())
        .map(|seed| open(front, seed as u64, levels_played[seed], &mut resent))
        .collect();
    // Logged by the server that searches the slow game's first reply, as it starts.
    let searching = format!("game {}: the AI's move 2 at slow", keys[0]);
    let games = std::thread::scope(|scope| {
        let clients: Vec<_> = keys
            .iter()
            .enumerate()
            .map(|(seed, key)| {
                let resign_at = if seed == 0 { 7 } else { u64::MAX };
                scope.spawn(move || {
                    let mut resent = Resent::default();
                    let record = play(front, key, seed as u64, resign_at, &mut resent);
                    ((key.clone(), record), resent)
                })
            })
            .collect();
        // The server searching the slow game's reply dies without a word, the client's move
        // stored and its answer not sent, and comes back a second later.
        let waited = Instant::now();
        let victim = loop {
            if let Some(n) = (0..servers.len()).find(|&n| !servers[n].said(&searching).is_empty()) {
                break n;
            }
            assert!(
                waited.elapsed() < Duration::from_secs(60),
                "no server searched the slow game's reply"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        servers[victim].kill();
        std::thread::sleep(Duration::from_secs(1));
        servers[victim] = Server::start(ports[victim], &url, &args);
        clients
            .into_iter()
            .map(|c| c.join().unwrap())
            .collect::<Vec<_>>()
    });

    // The move cut off was answered by another server, which searched the reply again.
    assert!(
        servers.iter().any(|s| !s.said(&searching).is_empty()),
        "no server answered the slow game's move after the kill"
    );
    // Every move the clients were told of is stored once, in order, and nothing more.
    let mut db = cluster.client("games");
    for ((key, record), _) in &games {
        let stored: Vec<String> = db
            .query(
                "SELECT move FROM moves WHERE key = $1 ORDER BY number",
                &[key],
            )
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert_eq!(&stored, record, "game {key}");
        let numbers: Vec<i32> = db
            .query(
                "SELECT number FROM moves WHERE key = $1 ORDER BY number",
                &[key],
            )
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert_eq!(numbers, (1..=record.len() as i32).collect::<Vec<_>>());
        let ended: Option<String> = db
            .query_one("SELECT result FROM games WHERE key = $1", &[key])
            .unwrap()
            .get(0);
        assert!(ended.is_some(), "game {key} has no result");
    }
    // The kill was felt: HAProxy resent requests of the dead server's games.
    let retries = haproxy.retries();
    assert!(
        retries > 0,
        "no retries in HAProxy's {} log lines",
        haproxy.logged()
    );
    let moves: usize = games.iter().map(|((_, r), _)| r.len()).sum();
    let unanswered: usize = games.iter().map(|(_, r)| r.unanswered).sum();
    let balancer_errors: usize = games.iter().map(|(_, r)| r.balancer_errors()).sum();
    eprintln!(
        "{} games, {moves} moves stored once each; HAProxy's retries: {retries}; the clients resent: {unanswered} unanswered, {balancer_errors} balancer errors; {:.1} s",
        games.len(),
        started.elapsed().as_secs_f64()
    );
}

/// Two servers started with `args` on one new PostgreSQL: the cluster, their ports, and
/// the servers (bound last, so dropped first).
fn two_servers(args: &[&str]) -> (common::pg::Cluster, [u16; 2], Vec<Server>) {
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let ports = free_ports::<2>();
    let servers = ports
        .iter()
        .map(|&port| Server::start(port, &url, args))
        .collect();
    (cluster, ports, servers)
}

/// A request straight to the server on `port`: its status and JSON body.
fn ask(port: u16, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let answer = try_request(port, method, path, &body).unwrap();
    let value = serde_json::from_str(&answer.body)
        .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {}", answer.body));
    (answer.status, value)
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn a_clients_request_rate_holds_across_two_servers_sharing_the_database() {
    let rate = 5;
    let (cluster, ports, _servers) = two_servers(&["--requests-per-client", &rate.to_string()]);
    // One game of one client on each server.
    let keys: Vec<String> = ports
        .iter()
        .map(|&port| {
            let create = json!({"client": "spread", "size": 9, "level": "easy", "color": "B"});
            let (status, state) = ask(port, "POST", "/api/games", &create);
            assert_eq!(status, 201, "{state}");
            state["key"].as_str().unwrap().to_string()
        })
        .collect();
    // The seconds of the creations pass.
    std::thread::sleep(Duration::from_millis(2100));
    let mut admitted = 0;
    let mut refused = [0; 2];
    let began = Instant::now();
    while began.elapsed() < Duration::from_millis(2500) {
        for (n, (&port, key)) in ports.iter().zip(&keys).enumerate() {
            let answer = try_request(port, "GET", &format!("/api/games/{key}"), "").unwrap();
            match answer.status {
                200 => admitted += 1,
                429 => {
                    refused[n] += 1;
                    let error: Value = serde_json::from_str(&answer.body).unwrap();
                    assert_eq!(error["field"], "client", "{error}");
                    let wait = error["retry_after_ms"].as_u64().unwrap();
                    assert!((1..=1000).contains(&wait), "{error}");
                    assert_eq!(answer.retry_after, Some(1));
                }
                status => panic!("{status}: {}", answer.body),
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Two and a half seconds span at most four whole seconds of the database's clock, in which the
    // client gets at most twice its rate in each two; each server counting alone would
    // admit a burst and the rate each, some 50.
    assert!(
        (2 * rate..=4 * rate).contains(&admitted),
        "{admitted} admitted, {refused:?} refused"
    );
    assert!(
        refused.iter().all(|&n| n > 0),
        "{admitted} admitted, {refused:?} refused"
    );
    // The database gone, the servers count in their memory: a game held answers, no 500.
    cluster.stop();
    let answer = try_request(ports[0], "GET", &format!("/api/games/{}", keys[0]), "").unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    eprintln!(
        "two servers, one client at {rate}/s: {admitted} admitted in 2.5 s, {refused:?} refused"
    );
}

/// A new game of client `client` on the server on `port`, Black's first move played there
/// (so that the server holds a copy); its key.
fn game_with_a_move(port: u16, client: &str) -> String {
    let create = json!({"client": client, "size": 9, "level": "easy", "color": "B"});
    let (status, state) = ask(port, "POST", "/api/games", &create);
    assert_eq!(status, 201, "{state}");
    let key = state["key"].as_str().unwrap().to_string();
    let (status, state) = ask(
        port,
        "POST",
        &format!("/api/games/{key}/moves"),
        &json!({"move": "E5", "number": 1}),
    );
    assert_eq!((status, &state["number"]), (200, &json!(3)), "{state}");
    key
}

/// Game `key` (Black to play move 3) resigned by the client on the server on `port`; the
/// key and the state answered.
fn resigned_on(port: u16, key: String) -> (String, Value) {
    let resign = json!({"move": "resign", "number": 3});
    let (status, state) = ask(port, "POST", &format!("/api/games/{key}/moves"), &resign);
    assert_eq!((status, &state["result"]), (200, &json!("W+R")), "{state}");
    (key, state)
}

/// A point of the 9x9 board that `state` shows empty.
fn empty_point(state: &Value) -> String {
    let moves = state["moves"].as_array().unwrap();
    ["C3", "G7", "C7", "G3", "D4"]
        .into_iter()
        .find(|p| !moves.contains(&json!(p)))
        .unwrap()
        .to_string()
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn a_server_holding_a_copy_answers_as_the_store_says_after_another_ended_or_lost_the_game() {
    let (cluster, [held, other], _servers) = two_servers(&["--idle-timeout", "4"]);
    let mut db = cluster.client("games");
    let result_in_store = |db: &mut postgres::Client, key: &str| -> Option<String> {
        db.query_one("SELECT result FROM games WHERE key = $1", &[&key])
            .unwrap()
            .get(0)
    };

    // The client resigns on the other server; the next move sent to the server with the
    // older copy is refused as the store says (the game is over), and leaves it over.
    let (key, state) = resigned_on(other, game_with_a_move(held, "copies"));
    let body = json!({"move": empty_point(&state), "number": 3});
    let (status, refused) = ask(held, "POST", &format!("/api/games/{key}/moves"), &body);
    assert_eq!(
        (status, &refused["result"]),
        (409, &json!("W+R")),
        "{refused}"
    );
    assert_eq!(result_in_store(&mut db, &key).as_deref(), Some("W+R"));
    let (status, state) = ask(held, "GET", &format!("/api/games/{key}"), &Value::Null);
    assert_eq!((status, &state["result"]), (200, &json!("W+R")), "{state}");

    // Likewise an undo: a resignation is not taken back.
    let (key, _) = resigned_on(other, game_with_a_move(held, "copies"));
    let (status, refused) = ask(
        held,
        "POST",
        &format!("/api/games/{key}/undo"),
        &json!({"number": 3}),
    );
    assert_eq!(status, 409, "{refused}");
    assert_eq!(result_in_store(&mut db, &key).as_deref(), Some("W+R"));

    // A game only read on one server, for longer than --idle-timeout: the reads keep it in
    // the store, so the other server's expiry leaves it.
    let key = game_with_a_move(held, "reader");
    let path = format!("/api/games/{key}");
    let began = Instant::now();
    while began.elapsed() < Duration::from_secs(7) {
        let (status, state) = ask(held, "GET", &path, &Value::Null);
        assert_eq!(status, 200, "{state}");
        std::thread::sleep(Duration::from_millis(500));
    }
    let (status, state) = ask(other, "GET", &path, &Value::Null);
    assert_eq!((status, &state["number"]), (200, &json!(3)), "{state}");
    // Gone from the store (as if expired by another server): within a quarter of the idle
    // timeout the server holding a copy says so too.
    db.execute("DELETE FROM games WHERE key = $1", &[&key])
        .unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let (status, gone) = ask(held, "GET", &path, &Value::Null);
    assert_eq!((status, &gone["resync"]), (404, &json!(true)), "{gone}");
}
