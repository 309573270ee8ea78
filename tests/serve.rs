//! `tengen serve` over loopback: the real binary, a plain HTTP/1.1 client, and a store in a
//! temporary directory per test. Full games at `easy` and `medium`, every error case, the
//! resync path, the per-client limits (games and requests), undo, expiry, a restart after
//! `kill -9`, a long search beside an easy game, requests sent twice (retries), two servers
//! sharing one SQLite file whose copies of a game follow the store's, and two servers sharing
//! one PostgreSQL that goes away and comes back.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::temp::TempDir;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tengen::engine::player::sensible_moves;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

/// A running `tengen serve`, killed when dropped.
struct Server {
    child: Child,
    address: String,
    /// Its stderr's lines so far.
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Server {
    /// Starts `tengen serve --bind 127.0.0.1:0 --store DIR/games.sqlite ARGS` in `dir` (so no
    /// engines.toml is picked up) and waits for the address it prints.
    fn start(dir: &Path, args: &[&str]) -> Server {
        Server::start_at(dir, dir.join("games.sqlite").as_os_str(), args)
    }

    /// Starts `tengen serve --store STORE ARGS` in `dir` (with PGPASSWORD set for a test
    /// cluster's store).
    fn start_at(dir: &Path, store: &std::ffi::OsStr, args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["serve", "--bind", "127.0.0.1:0", "--store"])
            .arg(store)
            .args(args)
            .env("PGPASSWORD", common::pg::PASSWORD)
            .env("RUST_LOG", "warn,tengen::front::serve::api=info")
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tengen serve");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lines = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on http://") {
                    let _ = tx.send(line[at + "listening on http://".len()..].trim().to_string());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let address = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("tengen serve prints the address it listens on");
        Server {
            child,
            address,
            log,
        }
    }

    /// `kill -9`.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String, String) {
        request(&self.address, method, path, body)
    }

    /// A request whose answer is JSON: its status and body.
    fn json(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let body = body.map(|b| b.to_string());
        let (status, _, text) = self.request(method, path, body.as_deref());
        let value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {text}"));
        (status, value)
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.json("POST", path, Some(body))
    }

    fn get(&self, path: &str) -> (u16, Value) {
        self.json("GET", path, None)
    }

    /// Opens a game; its state.
    fn open(&self, body: Value) -> Value {
        let (status, state) = self.post("/api/games", body);
        assert_eq!(status, 201, "{state}");
        state
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request on a fresh connection: status, headers and body.
fn request(address: &str, method: &str, path: &str, body: Option<&str>) -> (u16, String, String) {
    match try_request(address, method, path, body) {
        Ok(answer) => answer,
        Err(Unanswered::Unsent(e) | Unanswered::Cut(e)) => panic!("{method} {path}: {e}"),
    }
}

/// A request that got no answer.
#[derive(Debug)]
enum Unanswered {
    /// It could not be sent: no connection, or the write failed.
    Unsent(String),
    /// It was sent, and the connection ended before a whole answer.
    Cut(String),
}

/// [`request`], or why no answer came.
fn try_request(
    address: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<(u16, String, String), Unanswered> {
    let unsent = |e: std::io::Error| Unanswered::Unsent(e.to_string());
    let mut stream = TcpStream::connect(address).map_err(unsent)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(unsent)?;
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .map_err(unsent)?;
    let mut raw = Vec::new();
    let read = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let cut = |why: &str| Unanswered::Cut(format!("{why} after {} bytes", raw.len()));
    if let Err(e) = read {
        return Err(cut(&e.to_string()));
    }
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| cut("no header"))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| cut("no status"))?;
    let head = head.to_ascii_lowercase();
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    Ok((status, head, body))
}

fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = text.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        text = &rest[size + 2..];
    }
}

fn key(state: &Value) -> String {
    state["key"].as_str().unwrap().to_string()
}

fn moves(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// The board of `game` as the state draws it.
fn rows(game: &Game) -> Vec<String> {
    let size = game.size();
    let board = game.board();
    (0..size)
        .rev()
        .map(|row| {
            (0..size)
                .map(
                    |col| match board.color_at(tengen::rules::board::Point::new(size, col, row)) {
                        Some(Color::Black) => 'X',
                        Some(Color::White) => 'O',
                        None => '.',
                    },
                )
                .collect()
        })
        .collect()
}

/// Plays a whole 9x9 game as Black against `level`: random sensible moves for 60 moves, then
/// passes; checks every state against a local replay; returns the last state.
fn play_a_game(server: &Server, level: &str, seed: u64) -> Value {
    let state = server.open(json!({"client": "t", "size": 9, "level": level, "color": "B"}));
    let key = key(&state);
    let mut mirror = Game::new(9, Rules::chinese(7.5));
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut state = state;
    while !state["over"].as_bool().unwrap() {
        assert!(state["your_turn"].as_bool().unwrap(), "{state}");
        let number = state["number"].as_u64().unwrap();
        let choices = sensible_moves(&mirror, Color::Black);
        let mv = if number > 60 || choices.is_empty() {
            Move::Pass
        } else {
            Move::Play(choices[rng.random_range(0..choices.len())])
        };
        let text = match mv {
            Move::Play(p) => p.to_vertex(9),
            Move::Pass => "pass".to_string(),
        };
        let (status, next) = server.post(
            &format!("/api/games/{key}/moves"),
            json!({"move": text, "number": number}),
        );
        assert_eq!(status, 200, "{next}");
        mirror.play(Color::Black, mv).unwrap();
        if let Some(reply) = next["reply"].as_str()
            && reply != "resign"
        {
            let reply = Move::parse(reply, 9).unwrap();
            mirror
                .play(Color::White, reply)
                .expect("the AI's reply is legal");
        }
        let played: Vec<String> = mirror
            .moves()
            .iter()
            .map(|&(_, m)| match m {
                Move::Play(p) => p.to_vertex(9),
                Move::Pass => "pass".to_string(),
            })
            .collect();
        assert_eq!(moves(&next), played);
        assert_eq!(next["board"], json!(rows(&mirror)));
        assert_eq!(next["number"].as_u64().unwrap() as usize, played.len() + 1);
        state = next;
    }
    let result = state["result"].as_str().unwrap();
    assert!(
        result == "0" || result.starts_with("B+") || result.starts_with("W+"),
        "{result}"
    );
    // The state read back, and the SGF, agree with the last answer.
    let (status, read) = server.get(&format!("/api/games/{key}"));
    assert_eq!(status, 200);
    assert_eq!(
        read,
        state
            .as_object()
            .map(|o| {
                let mut o = o.clone();
                o.remove("reply");
                Value::Object(o)
            })
            .unwrap()
    );
    let (status, head, sgf) = server.request("GET", &format!("/api/games/{key}/sgf"), None);
    assert_eq!(status, 200);
    assert!(head.contains("application/x-go-sgf"), "{head}");
    assert!(sgf.contains(&format!("RE[{result}]")), "{sgf}");
    let replayed = tengen::rules::sgf::load_game(&sgf, None, Rules::chinese(7.5)).unwrap();
    assert_eq!(replayed.moves(), mirror.moves());
    state
}

#[test]
fn a_full_game_at_easy_and_at_medium_ends_with_a_result() {
    let dir = TempDir::new("serve-full");
    let server = Server::start(dir.path(), &[]);
    play_a_game(&server, "easy", 1);
    play_a_game(&server, "medium", 2);
}

#[test]
fn the_ai_moves_first_when_asked_and_handicap_gives_white_the_first_move() {
    let dir = TempDir::new("serve-first");
    let server = Server::start(dir.path(), &[]);
    // The client plays White: it asks for move 1.
    let state = server.open(json!({"client": "t", "size": 9, "level": "easy", "color": "W"}));
    let key = key(&state);
    assert_eq!(state["your_turn"], false);
    let (status, body) = server.post(
        &format!("/api/games/{key}/moves"),
        json!({"move": "E5", "number": 1}),
    );
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["expected"], 1);
    let (status, state) = server.post(&format!("/api/games/{key}/genmove"), json!({"number": 1}));
    assert_eq!(status, 200, "{state}");
    assert_eq!(moves(&state), [state["reply"].as_str().unwrap()]);
    assert_eq!(state["your_turn"], true);
    // genmove on the client's turn is refused.
    let (status, _) = server.post(&format!("/api/games/{key}/genmove"), json!({"number": 2}));
    assert_eq!(status, 409);
    // Handicap: Black's stones are placed, White moves first: here that is the client.
    let state = server
        .open(json!({"client": "t", "size": 13, "level": "easy", "color": "W", "handicap": 4}));
    assert_eq!(state["handicap_stones"].as_array().unwrap().len(), 4);
    assert_eq!(state["komi"], 0.5);
    assert_eq!(state["to_move"], "W");
    assert_eq!(state["your_turn"], true);
    let (status, state) = server.post(
        &format!("/api/games/{}/moves", key_of(&state)),
        json!({"move": "G7", "number": 1}),
    );
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["moves"].as_array().unwrap().len(), 2);
}

fn key_of(state: &Value) -> String {
    key(state)
}

#[test]
fn every_bad_request_gets_a_json_error_naming_its_field() {
    let dir = TempDir::new("serve-errors");
    let server = Server::start(dir.path(), &[]);
    let good = json!({"client": "t", "size": 9, "level": "easy", "color": "B"});
    let with = |field: &str, value: Value| {
        let mut body = good.clone();
        body[field] = value;
        body
    };
    let cases = [
        (with("size", json!(26)), "size", 400),
        (with("size", json!(1)), "size", 400),
        (with("size", json!(-9)), "size", 400),
        (with("size", json!("9")), "size", 400),
        (with("size", json!(9.5)), "size", 400),
        (with("level", json!("grandmaster")), "level", 400),
        (with("color", json!("red")), "color", 400),
        (with("komi", json!(0.3)), "komi", 400),
        (with("komi", json!(1e9)), "komi", 400),
        (with("handicap", json!(1)), "handicap", 400),
        (with("handicap", json!(10)), "handicap", 400),
        (with("client", json!("")), "client", 400),
        (with("client", json!("x".repeat(200))), "client", 400),
        (with("moves", json!(["E5", "E5"])), "moves[1]", 422),
        (with("moves", json!(["E5", 7])), "moves[1]", 400),
        (with("moves", json!(["Z9"])), "moves[0]", 400),
        (with("moves", json!(vec!["pass"; 325])), "moves", 400),
        (with("colour", json!("B")), "colour", 400),
        (
            json!({"size": 9, "level": "easy", "color": "B"}),
            "client",
            400,
        ),
    ];
    for (body, field, status) in cases {
        let (got, answer) = server.post("/api/games", body.clone());
        assert_eq!(got, status, "{body} -> {answer}");
        assert_eq!(answer["field"], field, "{body} -> {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(field),
            "{answer}"
        );
    }
    // Not JSON at all, or trailing rubbish: 400 with an error.
    for body in ["", "{", "[1,2]", "{\"client\":\"t\"} x", "null"] {
        let (status, _, text) = server.request("POST", "/api/games", Some(body));
        assert_eq!(status, 400, "{body}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert!(answer["error"].is_string());
    }
    // A body over the limit.
    let big = format!("{{\"client\": \"{}\"}}", "x".repeat(100_000));
    let (status, _, text) = server.request("POST", "/api/games", Some(&big));
    assert_eq!(status, 413, "{text}");
    assert!(serde_json::from_str::<Value>(&text).unwrap()["error"].is_string());

    let state = server.open(good.clone());
    let key = key(&state);
    let moves_path = format!("/api/games/{key}/moves");
    let (status, state) = server.post(&moves_path, json!({"move": "E5", "number": 1}));
    assert_eq!(status, 200);
    let next = state["number"].as_u64().unwrap();
    let before = server.get(&format!("/api/games/{key}")).1;
    let move_cases = [
        (json!({"move": "E5", "number": next}), "move", 422),
        (json!({"move": "E5", "number": next + 1}), "number", 409),
        // A move numbered as one stored, but another move: not a retry.
        (json!({"move": "D4", "number": 1}), "number", 409),
        (json!({"move": "E5", "number": -1}), "number", 400),
        (json!({"move": "E5", "number": "3"}), "number", 400),
        (json!({"move": "E5"}), "number", 400),
        (json!({"number": next}), "move", 400),
        (json!({"move": "Z1", "number": next}), "move", 400),
        (json!({"move": "E10", "number": next}), "move", 400),
        (json!({"move": "", "number": next}), "move", 400),
        (json!({"move": 5, "number": next}), "move", 400),
        (
            json!({"move": "F5", "number": next, "color": "B"}),
            "color",
            400,
        ),
    ];
    for (body, field, status) in move_cases {
        let (got, answer) = server.post(&moves_path, body.clone());
        assert_eq!(got, status, "{body} -> {answer}");
        assert_eq!(answer["field"], field, "{body} -> {answer}");
        if status == 409 {
            assert_eq!(answer["expected"], next);
        }
        if status == 422 {
            assert_eq!(answer["reason"], "occupied");
        }
    }
    // Nothing changed.
    assert_eq!(server.get(&format!("/api/games/{key}")).1, before);
    // genmove and undo check their number too.
    let (status, answer) =
        server.post(&format!("/api/games/{key}/genmove"), json!({"number": "x"}));
    assert_eq!((status, answer["field"].as_str()), (400, Some("number")));
    let (status, answer) = server.post(&format!("/api/games/{key}/undo"), json!({"number": 1}));
    assert_eq!((status, answer["expected"].as_u64()), (409, Some(next)));
    // Unknown keys: 404 with resync, on every route.
    for (method, path, body) in [
        ("GET", "/api/games/0123", None),
        ("GET", "/api/games/0123/sgf", None),
        ("DELETE", "/api/games/0123", None),
        (
            "POST",
            "/api/games/0123/moves",
            Some(r#"{"move":"D4","number":1}"#),
        ),
        ("POST", "/api/games/0123/genmove", Some(r#"{"number":1}"#)),
        ("POST", "/api/games/%ff%fe/undo", Some(r#"{"number":1}"#)),
    ] {
        let (status, _, text) = server.request(method, path, body);
        assert_eq!(status, 404, "{method} {path}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["resync"], true, "{method} {path}");
    }
    // Unknown paths and methods.
    let (status, _, text) = server.request("GET", "/api/nothing", None);
    assert_eq!(status, 404);
    assert!(serde_json::from_str::<Value>(&text).unwrap()["error"].is_string());
    let (status, _, text) = server.request("PUT", &format!("/api/games/{key}"), Some("{}"));
    assert_eq!(status, 405);
    assert!(serde_json::from_str::<Value>(&text).unwrap()["error"].is_string());
    // A resigned game takes no more moves.
    let (status, state) = server.post(&moves_path, json!({"move": "resign", "number": next}));
    assert_eq!(status, 200);
    assert_eq!(state["result"], "W+R");
    let (status, answer) = server.post(&moves_path, json!({"move": "D4", "number": next}));
    assert_eq!(status, 409);
    assert_eq!(answer["result"], "W+R");
}

#[test]
fn a_lost_game_is_resent_with_its_moves_and_goes_on() {
    let dir = TempDir::new("serve-resync");
    let server = Server::start(dir.path(), &[]);
    let state =
        server.open(json!({"client": "t", "size": 9, "level": "easy", "color": "B", "komi": 6.5}));
    let key = key(&state);
    let (_, state) = server.post(
        &format!("/api/games/{key}/moves"),
        json!({"move": "C3", "number": 1}),
    );
    let played = moves(&state);
    let next = unplayed(&[&state]);
    // The server loses the game (here: it is deleted).
    let (status, _) = server.json("DELETE", &format!("/api/games/{key}"), None);
    assert_eq!(status, 200);
    let (status, answer) = server.post(
        &format!("/api/games/{key}/moves"),
        json!({"move": next, "number": 3}),
    );
    assert_eq!(status, 404);
    assert_eq!(answer["resync"], true);
    // The client resends the game and plays on with the same numbers.
    let restored = server.open(json!({
        "client": "t", "size": 9, "level": "easy", "color": "B", "komi": 6.5, "moves": played
    }));
    assert_ne!(key_of(&restored), key);
    assert_eq!(moves(&restored), played);
    assert_eq!(restored["board"], state["board"]);
    assert_eq!(restored["number"], 3);
    assert_eq!(restored["komi"], 6.5);
    let (status, state) = server.post(
        &format!("/api/games/{}/moves", key_of(&restored)),
        json!({"move": next, "number": 3}),
    );
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["number"], 5);
}

#[test]
fn a_client_holds_at_most_eight_unfinished_games() {
    let dir = TempDir::new("serve-limit");
    let server = Server::start(dir.path(), &[]);
    let body = json!({"client": "alice", "size": 9, "level": "easy", "color": "B"});
    let keys: Vec<String> = (0..8).map(|_| key(&server.open(body.clone()))).collect();
    let (status, answer) = server.post("/api/games", body.clone());
    assert_eq!(status, 429, "{answer}");
    assert_eq!(answer["field"], "client");
    // Another client is not held up.
    server.open(json!({"client": "bob", "size": 9, "level": "easy", "color": "B"}));
    // A finished game no longer counts; a deleted one neither.
    let (status, _) = server.post(
        &format!("/api/games/{}/moves", keys[0]),
        json!({"move": "resign", "number": 1}),
    );
    assert_eq!(status, 200);
    server.open(body.clone());
    let (status, _) = server.post("/api/games", body.clone());
    assert_eq!(status, 429);
    server.json("DELETE", &format!("/api/games/{}", keys[1]), None);
    server.open(body);
}

/// Requests sent back to back before a refusal is called missing: nominally a few milliseconds
/// each, so a limiter of one a second with a burst of two refuses one of them unless they take
/// eight seconds, hundreds of times their nominal time.
const TRIES: u32 = 10;

#[test]
fn a_client_over_its_request_rate_is_told_to_wait() {
    let dir = TempDir::new("serve-rate");
    // One request a second: a burst of 2, then one a second.
    let server = Server::start(dir.path(), &["--requests-per-client", "1"]);
    let started = Instant::now();
    let state = server.open(json!({"client": "carol", "size": 9, "level": "easy", "color": "B"}));
    let path = format!("/api/games/{}", key(&state));
    // Requests until one is refused: at least the burst is served, and no more than the
    // bucket held at the start and refilled since, however slowly they went.
    let mut served: u32 = 1;
    let (headers, body) = loop {
        let (status, headers, body) = server.request("GET", &path, None);
        match status {
            200 => served += 1,
            429 => break (headers, body),
            _ => panic!("{status} {body}"),
        }
        assert!(served < TRIES, "{served} requests served, none refused");
    };
    let seconds = started.elapsed().as_secs_f64();
    assert!(
        (2.0..=2.0 + seconds).contains(&f64::from(served)),
        "{served} requests served in {seconds:.3} s"
    );
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["field"], "client", "{answer}");
    let wait = answer["retry_after_ms"].as_u64().expect("retry_after_ms");
    assert!((1..=1000).contains(&wait), "{answer}");
    assert!(headers.contains("retry-after: 1"), "{headers}");
    // Another client is not held up.
    server.open(json!({"client": "dave", "size": 9, "level": "easy", "color": "B"}));
    // A game's moves count against its client too: sent with a stale number, they are refused
    // for the number (409) while the client has tokens, then for the rate.
    let stale = json!({"move": "E5", "number": 3});
    let mut wait = None;
    for _ in 0..TRIES {
        let (status, answer) = server.post(&format!("{path}/moves"), stale.clone());
        match status {
            409 => continue,
            429 => {
                wait = answer["retry_after_ms"].as_u64();
                break;
            }
            _ => panic!("{status} {answer}"),
        }
    }
    let wait = wait.expect("a move refused for the rate");
    // After the wait it named, the client is served again.
    std::thread::sleep(Duration::from_millis(wait + 50));
    let (status, answer) =
        server.post(&format!("{path}/moves"), json!({"move": "E5", "number": 1}));
    assert_eq!(status, 200, "{answer}");
}

#[test]
fn undo_takes_back_the_clients_move_and_the_reply() {
    let dir = TempDir::new("serve-undo");
    let server = Server::start(dir.path(), &[]);
    let state = server.open(json!({"client": "t", "size": 9, "level": "easy", "color": "B"}));
    let key = key(&state);
    let (_, first) = server.post(
        &format!("/api/games/{key}/moves"),
        json!({"move": "E5", "number": 1}),
    );
    let (_, second) = server.post(
        &format!("/api/games/{key}/moves"),
        json!({"move": "pass", "number": 3}),
    );
    assert_eq!(second["number"], 5);
    let (status, undone) = server.post(&format!("/api/games/{key}/undo"), json!({"number": 5}));
    assert_eq!(status, 200, "{undone}");
    assert_eq!(undone["moves"], first["moves"]);
    assert_eq!(undone["board"], first["board"]);
    assert_eq!(undone["your_turn"], true);
    // The same undo sent again does nothing more, and answers the same.
    let (status, again) = server.post(&format!("/api/games/{key}/undo"), json!({"number": 5}));
    assert_eq!((status, &again), (200, &undone));
    let (status, undone) = server.post(&format!("/api/games/{key}/undo"), json!({"number": 3}));
    assert_eq!(status, 200);
    assert_eq!(undone["number"], 1);
    let (status, _) = server.post(&format!("/api/games/{key}/undo"), json!({"number": 1}));
    assert_eq!(status, 409);
}

/// What a client playing one game until the server went away was told: the moves of the last
/// state it was sent, and how each move it sent fared.
#[derive(Debug)]
struct Tally {
    key: String,
    acknowledged: Vec<String>,
    /// Moves sent.
    sent: usize,
    /// Moves answered 200.
    accepted: usize,
    /// Moves answered with an error (all sent with a stale number, on purpose).
    refused: usize,
    /// The move whose request got no answer, which ended the client's play.
    unanswered: Option<(String, Unanswered)>,
}

/// The move number from which a client of the kill test sends its moves with a stale number
/// only (refused, the game left as it is), so that no game ends before the kill however long
/// a loaded machine takes to store the slow game's first move; before it, no game can end.
const HOLD_FROM: u64 = 41;

/// Plays Black in the game `key` (9x9, its state `state`) until a move goes unanswered: random
/// sensible moves; before every third move, and every move from [`HOLD_FROM`] on, the same move
/// with a stale number, which must be refused. Counts each answer in `accepted` as it comes.
fn play_until_cut_off(
    address: &str,
    state: Value,
    seed: u64,
    accepted: &std::sync::atomic::AtomicUsize,
) -> Tally {
    let key = key(&state);
    let path = format!("/api/games/{key}/moves");
    let mut tally = Tally {
        key,
        acknowledged: moves(&state),
        sent: 0,
        accepted: 0,
        refused: 0,
        unanswered: None,
    };
    let mut mirror = Game::new(9, Rules::chinese(7.5));
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut number = state["number"].as_u64().unwrap();
    while tally.unanswered.is_none() {
        let choices = sensible_moves(&mirror, Color::Black);
        let mv = if choices.is_empty() {
            Move::Pass
        } else {
            Move::Play(choices[rng.random_range(0..choices.len())])
        };
        let vertex = mv.to_vertex(9);
        let holding = number >= HOLD_FROM;
        if holding {
            // Waiting for the kill, without filling the log.
            std::thread::sleep(Duration::from_millis(10));
        }
        let stale = holding || tally.sent.is_multiple_of(3);
        let sent_number = if stale { number + 2 } else { number };
        let body = json!({"move": vertex, "number": sent_number}).to_string();
        tally.sent += 1;
        let (status, next) = match try_request(address, "POST", &path, Some(&body)) {
            Ok((status, _, text)) => (status, serde_json::from_str::<Value>(&text).unwrap()),
            Err(e) => {
                tally.unanswered = Some((vertex, e));
                break;
            }
        };
        if stale {
            assert_eq!(status, 409, "{next}");
            tally.refused += 1;
            continue;
        }
        assert_eq!(status, 200, "{next}");
        tally.accepted += 1;
        accepted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        mirror.play(Color::Black, mv).unwrap();
        if let Some(reply) = next["reply"].as_str() {
            mirror
                .play(Color::White, Move::parse(reply, 9).unwrap())
                .unwrap();
        }
        tally.acknowledged = moves(&next);
        number = next["number"].as_u64().unwrap();
        assert!(
            !next["over"].as_bool().unwrap(),
            "the game ended before the kill: {next}"
        );
    }
    tally
}

#[test]
fn after_kill_9_and_a_restart_every_acknowledged_move_is_there() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = TempDir::new("serve-restart");
    // The slow level thinks for a minute on one thread: a move sent in its game is still
    // unanswered when the kill comes.
    std::fs::write(
        dir.path().join("slow.toml"),
        "[levels.slow]\nplayer = \"mcts\"\nplayouts = 100000000\nthreads = 1\nbook = false\n",
    )
    .unwrap();
    let args = [
        "--config",
        "slow.toml",
        "--workers",
        "4",
        "--move-time",
        "60",
    ];
    let server = Server::start(dir.path(), &args);
    // Three clients play easy games as fast as they are answered; a fourth plays the slow one.
    // Moves accepted in each game.
    let accepted: [AtomicUsize; 4] = Default::default();
    let address = server.address.clone();
    let mut slow_key = String::new();
    let tallies = std::thread::scope(|scope| {
        let mut clients = Vec::new();
        for (n, level) in ["easy", "easy", "easy", "slow"].into_iter().enumerate() {
            let state = server
                .open(json!({"client": format!("c{n}"), "size": 9, "level": level, "color": "B"}));
            slow_key = key(&state);
            let (address, accepted) = (&address, &accepted[n]);
            clients
                .push(scope.spawn(move || play_until_cut_off(address, state, n as u64, accepted)));
        }
        // Kill when the easy games have moves acknowledged (each one, so that its first,
        // stale, move has been refused) and more on their way, and the slow game's first move
        // is stored and its reply being searched.
        let start = Instant::now();
        let easy_games_under_way = || {
            let counts: Vec<usize> = accepted[..3]
                .iter()
                .map(|a| a.load(Ordering::SeqCst))
                .collect();
            counts.iter().sum::<usize>() >= 13 && !counts.contains(&0)
        };
        while !easy_games_under_way()
            || moves(&server.get(&format!("/api/games/{slow_key}")).1).is_empty()
        {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "no moves accepted"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server.kill();
        clients
            .into_iter()
            .map(|c| c.join().unwrap())
            .collect::<Vec<Tally>>()
    });
    eprintln!("{tallies:#?}");
    let server = Server::start(dir.path(), &args);
    for tally in &tallies {
        let (status, read) = server.get(&format!("/api/games/{}", tally.key));
        assert_eq!(status, 200, "{read}");
        let stored = moves(&read);
        // Every move sent was either accepted, refused, or left unanswered by the kill.
        let (vertex, _) = tally.unanswered.as_ref().expect("play ended by the kill");
        assert_eq!(tally.sent, tally.accepted + tally.refused + 1, "{tally:?}");
        assert!(tally.refused >= 1, "{tally:?}");
        // The acknowledged moves are all there; beyond them, at most the unanswered move and
        // the AI's reply to it; no refused move.
        assert_eq!(
            stored[..tally.acknowledged.len().min(stored.len())],
            tally.acknowledged[..],
            "{tally:?}"
        );
        let extra = &stored[tally.acknowledged.len()..];
        assert!(
            extra.len() <= 2 && extra.first().is_none_or(|m| m == vertex),
            "{tally:?} stored {stored:?}"
        );
    }
    // The easy games go on from the next number (the AI's reply first where the kill came
    // before it).
    for tally in &tallies[..3] {
        let path = format!("/api/games/{}", tally.key);
        let mut read = server.get(&path).1;
        if read["your_turn"] == false {
            let (status, state) = server.post(
                &format!("{path}/genmove"),
                json!({"number": read["number"]}),
            );
            assert_eq!(status, 200, "{state}");
            read = state;
        }
        let (status, next) = server.post(
            &format!("{path}/moves"),
            json!({"move": "pass", "number": read["number"]}),
        );
        assert_eq!(status, 200, "{next}");
    }
    // The three easy games had moves acknowledged. The slow game's move was stored, then
    // its answer cut off by the kill: it is there after the restart, though never
    // acknowledged.
    assert!(tallies[..3].iter().map(|t| t.accepted).sum::<usize>() >= 13);
    let slow = &tallies[3];
    assert_eq!((slow.accepted, slow.refused), (0, 1), "{slow:?}");
    let Some((vertex, Unanswered::Cut(_))) = &slow.unanswered else {
        panic!("the slow game's move was not cut off: {slow:?}");
    };
    assert_eq!(
        moves(&server.get(&format!("/api/games/{slow_key}")).1),
        [vertex.as_str()]
    );
}

/// A point of the 9x9 board that none of `states` has played.
fn unplayed(states: &[&Value]) -> String {
    ["C3", "G7", "C7", "G3", "D4", "F6", "D6", "F4"]
        .into_iter()
        .find(|p| states.iter().all(|s| !moves(s).contains(&p.to_string())))
        .unwrap()
        .to_string()
}

/// Two servers on one store, each holding copies of the games: what one changes, the other
/// shows and plays on from, though its copy is older.
fn copies_follow_the_store(one: &Server, two: &Server) {
    // A move on one server, then a read of the game on the other, which held a copy from
    // before the move: the store's state.
    let game = one.open(json!({"client": "v", "size": 9, "level": "easy", "color": "B"}));
    let path = format!("/api/games/{}", key(&game));
    assert_eq!(two.get(&path), (200, game));
    let (status, played) = one.post(&format!("{path}/moves"), json!({"move": "E5", "number": 1}));
    assert_eq!(status, 200, "{played}");
    let (status, read) = two.get(&path);
    assert_eq!((status, moves(&read)), (200, moves(&played)), "{read}");

    // An undo and a move in its place on the other server, then a move on the first, whose
    // copy (of before the undo) has the store's number of moves: judged on the store's game.
    let (status, first_copy) = one.post(
        &format!("{path}/moves"),
        json!({"move": unplayed(&[&played]), "number": 3}),
    );
    assert_eq!((status, moves(&first_copy).len()), (200, 4), "{first_copy}");
    let (status, undone) = two.post(&format!("{path}/undo"), json!({"number": 5}));
    assert_eq!((status, moves(&undone).len()), (200, 2), "{undone}");
    let instead = unplayed(&[&first_copy]);
    let (status, replayed) = two.post(
        &format!("{path}/moves"),
        json!({"move": instead, "number": 3}),
    );
    assert_eq!((status, moves(&replayed).len()), (200, 4), "{replayed}");
    assert_eq!(moves(&replayed)[2], instead);
    let next = unplayed(&[&first_copy, &replayed]);
    let (status, answer) = one.post(&format!("{path}/moves"), json!({"move": next, "number": 5}));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        moves(&answer)[..5],
        [&moves(&replayed)[..], &[next]].concat()[..]
    );

    // A game over in one server's copy, undone and played on on the other: a move with the
    // number the copy expects is judged on the store's game, not refused as over.
    let ended = one.open(
        json!({"client": "v", "size": 9, "level": "easy", "color": "B", "moves": ["pass", "pass"]}),
    );
    assert_eq!(ended["over"], true, "{ended}");
    let path = format!("/api/games/{}", key(&ended));
    let (status, undone) = two.post(&format!("{path}/undo"), json!({"number": 3}));
    assert_eq!((status, &undone["number"]), (200, &json!(1)), "{undone}");
    let (status, replayed) = two.post(&format!("{path}/moves"), json!({"move": "E5", "number": 1}));
    assert_eq!(
        (status, &replayed["number"]),
        (200, &json!(3)),
        "{replayed}"
    );
    let next = unplayed(&[&replayed]);
    let (status, answer) = one.post(&format!("{path}/moves"), json!({"move": next, "number": 3}));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        moves(&answer)[..3],
        [&moves(&replayed)[..], &[next]].concat()[..]
    );
}

#[test]
fn two_servers_on_one_sqlite_file_answer_and_play_as_the_store_holds_the_game() {
    let dir = TempDir::new("serve-shared-file");
    let one = Server::start(dir.path(), &[]);
    let two = Server::start(dir.path(), &[]);
    copies_follow_the_store(&one, &two);
}

/// Every way of sending a request twice that a client retrying after a timeout meets.
fn check_retries(first: &Server, again: &Server) {
    // A creation with a request id, sent again (to either server), is the same game.
    let body =
        json!({"client": "r", "size": 9, "level": "easy", "color": "B", "request_id": "new-1"});
    let created = first.open(body.clone());
    let key = key(&created);
    let (status, resent) = again.post("/api/games", body.clone());
    assert_eq!((status, &resent), (201, &created));
    // The same id for other settings is refused; without an id, each creation is new.
    let mut other = body.clone();
    other["size"] = json!(13);
    let (status, answer) = again.post("/api/games", other);
    assert_eq!(
        (status, answer["field"].as_str()),
        (409, Some("request_id")),
        "{answer}"
    );
    let plain = json!({"client": "r", "size": 9, "level": "easy", "color": "B"});
    assert_ne!(
        key_of(&first.open(plain.clone())),
        key_of(&first.open(plain))
    );

    // A move sent again answers the state and the same reply; another move with a taken
    // number is still refused.
    let moves_path = format!("/api/games/{key}/moves");
    let (status, played) = first.post(&moves_path, json!({"move": "E5", "number": 1}));
    assert_eq!(status, 200, "{played}");
    assert!(played["reply"].is_string(), "{played}");
    for server in [first, again] {
        let (status, resent) = server.post(&moves_path, json!({"move": "e5", "number": 1}));
        assert_eq!((status, &resent), (200, &played));
    }
    let (status, answer) = again.post(&moves_path, json!({"move": "D4", "number": 1}));
    assert_eq!(
        (status, answer["expected"].as_u64()),
        (409, Some(3)),
        "{answer}"
    );
    // Also a resent move some moves back answers its own reply, with the state as it is.
    let (_, later) = again.post(&moves_path, json!({"move": "pass", "number": 3}));
    let (status, resent) = first.post(&moves_path, json!({"move": "E5", "number": 1}));
    assert_eq!(status, 200);
    assert_eq!(
        (&resent["reply"], &resent["moves"]),
        (&played["reply"], &later["moves"])
    );

    // An undo sent again takes back nothing more.
    let undo_path = format!("/api/games/{key}/undo");
    let (status, undone) = first.post(&undo_path, json!({"number": 5}));
    assert_eq!((status, moves(&undone).len()), (200, 2), "{undone}");
    let (status, resent) = again.post(&undo_path, json!({"number": 5}));
    assert_eq!((status, &resent), (200, &undone));

    // genmove sent again answers the same move.
    let white = again.open(json!({"client": "r", "size": 9, "level": "easy", "color": "W"}));
    let genmove_path = format!("/api/games/{}/genmove", key_of(&white));
    let (status, moved) = again.post(&genmove_path, json!({"number": 1}));
    assert_eq!(status, 200, "{moved}");
    let (status, resent) = first.post(&genmove_path, json!({"number": 1}));
    assert_eq!((status, &resent), (200, &moved));
    // Not a move of the AI's: still a conflict.
    let white_moves = format!("/api/games/{}/moves", key_of(&white));
    let (status, _) = again.post(
        &white_moves,
        json!({"move": unplayed(&[&moved]), "number": 2}),
    );
    assert_eq!(status, 200);
    let (status, _) = first.post(&genmove_path, json!({"number": 2}));
    assert_eq!(status, 409);

    // A resignation sent again.
    let (status, resigned) = again.post(&moves_path, json!({"move": "resign", "number": 3}));
    assert_eq!(
        (status, resigned["result"].as_str()),
        (200, Some("W+R")),
        "{resigned}"
    );
    let (status, resent) = first.post(&moves_path, json!({"move": "resign", "number": 3}));
    assert_eq!((status, &resent), (200, &resigned));
    let (status, _) = first.post(&moves_path, json!({"move": "D4", "number": 3}));
    assert_eq!(status, 409);
}

#[test]
fn requests_sent_twice_answer_the_same_and_change_nothing_more() {
    let dir = TempDir::new("serve-retries");
    let server = Server::start(dir.path(), &[]);
    check_retries(&server, &server);
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn two_servers_share_games_through_postgres_and_ride_out_its_restart() {
    let dir = TempDir::new("serve-postgres");
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let one = Server::start_at(dir.path(), url.as_ref(), &[]);
    let two = Server::start_at(dir.path(), url.as_ref(), &["--store-timeout", "2s"]);
    // Requests resent to the other server (as a balancer's retry does) are safe too; each
    // server loads the games the other made when first asked, and reloads a copy the other
    // changed since.
    check_retries(&one, &two);
    copies_follow_the_store(&one, &two);
    let game = one.open(json!({"client": "p", "size": 9, "level": "easy", "color": "B"}));
    let path = format!("/api/games/{}/moves", key_of(&game));
    let (_, on_two) = two.post(&path, json!({"move": "E5", "number": 1}));
    let next = unplayed(&[&on_two]);
    let (status, on_one) = one.post(&path, json!({"move": next, "number": 3}));
    assert_eq!(status, 200, "{on_one}");
    assert_eq!(moves(&on_one)[..2], moves(&on_two)[..]);
    // A move illegal in the copy held here is checked again on the store's: the number is
    // what is wrong, not the point (the AI's first reply, taken in both).
    let taken = &moves(&on_two)[1];
    let (status, answer) = two.post(&path, json!({"move": taken, "number": 3}));
    assert_eq!(
        (status, answer["expected"].as_u64()),
        (409, Some(5)),
        "{answer}"
    );
    let (status, answer) = two.post(&path, json!({"move": "F6", "number": 3}));
    assert_eq!(
        (status, answer["expected"].as_u64()),
        (409, Some(5)),
        "{answer}"
    );

    // The limit of unfinished games holds across the servers.
    let many = json!({"client": "many", "size": 9, "level": "easy", "color": "B"});
    for n in 0..8 {
        [&one, &two][n % 2].open(many.clone());
    }
    let (status, answer) = one.post("/api/games", many.clone());
    assert_eq!(
        (status, answer["field"].as_str()),
        (429, Some("client")),
        "{answer}"
    );
    let (status, _) = two.post("/api/games", many);
    assert_eq!(status, 429);

    // A game deleted on one server is gone on the other, which held a copy.
    let doomed = one.open(json!({"client": "p", "size": 9, "level": "easy", "color": "B"}));
    let doomed_path = format!("/api/games/{}", key_of(&doomed));
    let (status, _) = two.post(
        &format!("{doomed_path}/moves"),
        json!({"move": "E5", "number": 1}),
    );
    assert_eq!(status, 200);
    assert_eq!(one.json("DELETE", &doomed_path, None).0, 200);
    let (status, answer) = two.post(
        &format!("{doomed_path}/moves"),
        json!({"move": "D4", "number": 3}),
    );
    assert_eq!((status, &answer["resync"]), (404, &json!(true)), "{answer}");
    assert_eq!(two.get(&doomed_path).0, 404);

    // The database goes away: a move is answered 503 with Retry-After, and nothing is
    // stored; once it is back, the same move goes through.
    // /healthz stays 200 on both (a balancer keeps them in its pool) and names the outage.
    assert_eq!(
        two.get("/healthz"),
        (200, json!({"serving": true, "store": "ok"}))
    );
    cluster.stop();
    let after_outage = unplayed(&[&on_one]);
    let body = json!({"move": after_outage, "number": 5}).to_string();
    let (status, head, text) = two.request("POST", &path, Some(&body));
    assert_eq!(status, 503, "{text}");
    assert!(head.contains("retry-after: 1"), "{head}");
    let (status, _, text) = one.request("POST", "/api/games", Some(&game_body()));
    assert_eq!(status, 503, "{text}");
    // A game this server does not hold needs the store to be found.
    let unseen = format!("/api/games/{}", "0".repeat(32));
    let (status, head, text) = one.request("GET", &unseen, None);
    assert_eq!(status, 503, "{text}");
    assert!(head.contains("retry-after: 1"), "{head}");
    for server in [&one, &two] {
        let (status, health) = server.get("/healthz");
        assert_eq!(status, 200, "{health}");
        assert_eq!(health["store"], "unreachable", "{health}");
        assert!(
            health["error"]
                .as_str()
                .is_some_and(|e| e.contains("postgresql")),
            "{health}"
        );
    }
    cluster.restart();
    // Service resumes by itself: each server's pool reconnects.
    let deadline = Instant::now() + Duration::from_secs(20);
    for server in [&one, &two] {
        while server.get("/healthz").1["store"] != "ok" {
            assert!(
                Instant::now() < deadline,
                "the store stays unreachable after the restart"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let (status, state) = two.post(&path, json!({"move": after_outage, "number": 5}));
    assert_eq!(status, 200, "{state}");
    assert_eq!(moves(&state).len(), 6);
    assert_eq!(moves(&state)[..4], moves(&on_one)[..]);
    let (status, _, _) = one.request("POST", "/api/games", Some(&game_body()));
    assert_eq!(status, 201);
}

#[test]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL's initdb and pg_ctl not found (apt-get install postgresql)"
)]
fn a_move_sent_to_two_servers_at_once_gets_one_ai_reply_computed_once() {
    let dir = TempDir::new("serve-lease");
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let servers = [
        Server::start_at(dir.path(), url.as_ref(), &["--move-time", "2"]),
        Server::start_at(dir.path(), url.as_ref(), &["--move-time", "2"]),
    ];
    let game = servers[0].open(json!({"client": "p", "size": 9, "level": "mcts", "color": "B"}));
    let path = format!("/api/games/{}/moves", key_of(&game));
    let mut mv = "E5".to_string();
    for number in [1, 3] {
        let body = json!({"move": mv, "number": number}).to_string();
        let answers: Vec<(u16, String, String)> = std::thread::scope(|scope| {
            let sent: Vec<_> = servers
                .iter()
                .map(|server| scope.spawn(|| server.request("POST", &path, Some(&body))))
                .collect();
            sent.into_iter().map(|s| s.join().unwrap()).collect()
        });
        let states: Vec<Value> = answers
            .iter()
            .map(|(status, _, text)| {
                assert_eq!(*status, 200, "{text}");
                serde_json::from_str(text).unwrap()
            })
            .collect();
        assert_eq!(states[0]["reply"], states[1]["reply"], "{states:?}");
        assert_eq!(moves(&states[0]), moves(&states[1]));
        assert_eq!(moves(&states[0]).len(), number + 1);
        let computed: Vec<String> = servers
            .iter()
            .flat_map(|s| s.log.lock().unwrap().clone())
            .filter(|line| line.contains(&format!("the AI's move {} at mcts", number + 1)))
            .collect();
        assert_eq!(computed.len(), 1, "{computed:?}");
        mv = unplayed(&[&states[0]]);
    }
}

fn game_body() -> String {
    json!({"client": "p", "size": 9, "level": "easy", "color": "B"}).to_string()
}

#[test]
fn a_move_resent_after_the_server_stopped_before_replying_gets_the_reply_made_then() {
    use tengen::front::serve::store::{SqliteStore, Store, StoredGame};
    let dir = TempDir::new("serve-unanswered");
    // The store as a server leaves it when it dies after storing the client's move and
    // before the AI's reply.
    let last_active = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    SqliteStore::open(&dir.path().join("games.sqlite"))
        .unwrap()
        .create(&StoredGame {
            key: "0a1b2c".to_string(),
            client: "t".to_string(),
            size: 9,
            level: "easy".to_string(),
            color: 'B',
            komi: 7.5,
            handicap: 0,
            moves: vec!["E5".to_string()],
            ending: None,
            last_active,
            request_id: None,
            undone_from: None,
            version: 0,
        })
        .unwrap();
    let server = Server::start(dir.path(), &[]);
    let path = "/api/games/0a1b2c/moves";
    let (status, answered) = server.post(path, json!({"move": "E5", "number": 1}));
    assert_eq!(status, 200, "{answered}");
    let reply = answered["reply"]
        .as_str()
        .expect("the AI's reply, made now");
    assert_eq!(moves(&answered), ["E5", reply]);
    assert_eq!(answered["your_turn"], true);
    // Sent once more, the same reply, stored.
    let (status, again) = server.post(path, json!({"move": "E5", "number": 1}));
    assert_eq!((status, &again), (200, &answered));
}

#[test]
fn idle_games_expire() {
    let dir = TempDir::new("serve-expiry");
    let server = Server::start(dir.path(), &["--idle-timeout", "3s"]);
    let idle = key(&server.open(json!({"client": "t", "size": 9, "level": "easy", "color": "B"})));
    let busy = key(&server.open(json!({"client": "t", "size": 9, "level": "easy", "color": "B"})));
    // The busy game is read every 300 ms until the sweeper has expired a game (a loose
    // bound, however slow the machine), the idle one never.
    let start = Instant::now();
    let expired = || {
        let log = server.log.lock().unwrap();
        log.iter().any(|line| line.contains("idle games expired"))
    };
    while !expired() {
        assert!(start.elapsed() < Duration::from_secs(60), "nothing expired");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(server.get(&format!("/api/games/{busy}")).0, 200);
    }
    assert_eq!(server.get(&format!("/api/games/{busy}")).0, 200);
    let (status, answer) = server.get(&format!("/api/games/{idle}"));
    assert_eq!(status, 404);
    assert_eq!(answer["resync"], true);
    // A restart does not bring it back.
    drop(server);
    let server = Server::start(dir.path(), &["--idle-timeout", "3s"]);
    assert_eq!(server.get(&format!("/api/games/{idle}")).0, 404);
}

#[test]
fn a_long_search_does_not_hold_up_an_easy_game() {
    let dir = TempDir::new("serve-workers");
    // Without the book, which would answer the first move on 19x19 at once.
    std::fs::write(
        dir.path().join("slow.toml"),
        "[levels.slow]\nplayer = \"mcts\"\nplayouts = 100000000\nbook = false\n",
    )
    .unwrap();
    let server = Server::start(
        dir.path(),
        &[
            "--config",
            "slow.toml",
            "--workers",
            "2",
            "--move-time",
            "60",
        ],
    );
    let slow = key(&server.open(json!({"client": "t", "size": 19, "level": "slow", "color": "W"})));
    let address = server.address.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let answer = request(
            &address,
            "POST",
            &format!("/api/games/{slow}/genmove"),
            Some(r#"{"number":1}"#),
        );
        let _ = tx.send(answer);
    });
    std::thread::sleep(Duration::from_millis(300));
    let easy = key(&server.open(json!({"client": "t", "size": 9, "level": "easy", "color": "B"})));
    let started = Instant::now();
    for number in [1, 3, 5] {
        let (status, state) = server.post(
            &format!("/api/games/{easy}/moves"),
            json!({"move": "pass", "number": number}),
        );
        assert_eq!(status, 200, "{state}");
    }
    // A loose bound: the easy game did not wait for the minute-long search.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(rx.try_recv().is_err(), "the slow search was still running");
}

#[test]
fn the_page_and_the_levels_are_served() {
    let dir = TempDir::new("serve-page");
    let server = Server::start(dir.path(), &[]);
    let (status, head, page) = server.request("GET", "/", None);
    assert_eq!(status, 200);
    assert!(head.contains("text/html"));
    assert!(page.contains("/api/games"));
    let (status, levels) = server.get("/api/levels");
    assert_eq!(status, 200);
    assert_eq!(levels["default"], "hard");
    for level in ["easy", "medium", "mcts", "net", "hard"] {
        assert!(levels["levels"].as_array().unwrap().contains(&json!(level)));
        assert!(levels["plays"][level].is_string(), "{levels}");
    }
    // What plays at each level, the net by its file's name only.
    assert_eq!(levels["plays"]["medium"], "a one-ply heuristic");
    let plays = levels["plays"]["net"].as_str().unwrap();
    assert!(plays.starts_with("tengen's search with"), "{plays}");
    assert!(!plays.contains('/'), "no path of the server's: {plays}");
    // The rank levels, weakest first, each a player of its rank.
    let ranks = levels["ranks"].as_array().unwrap();
    assert_eq!(ranks.first(), Some(&json!("20k")), "{levels}");
    assert_eq!(ranks.last(), Some(&json!("3d")), "{levels}");
    assert_eq!(ranks.len(), 10, "{levels}");
    let plays = levels["plays"]["8k"].as_str().unwrap();
    assert!(plays.starts_with("rank 8k, from the"), "{plays}");
    // The board after the first moves of a game, for the page's graph.
    let game = server.open(json!({"client": "c", "size": 9, "level": "easy", "color": "B"}));
    let key = game["key"].as_str().unwrap();
    let (status, _) = server.post(
        &format!("/api/games/{key}/moves"),
        json!({"move": "E5", "number": 1}),
    );
    assert_eq!(status, 200);
    let (status, before) = server.get(&format!("/api/games/{key}/board?moves=0"));
    assert_eq!(status, 200, "{before}");
    assert_eq!(before["board"], json!(vec![".".repeat(9); 9]));
    assert_eq!(before["last_move"], Value::Null);
    let (_, first) = server.get(&format!("/api/games/{key}/board?moves=1"));
    assert_eq!(first["last_move"], "E5");
    assert_eq!(first["board"][4], "....X....");
    for bad in ["moves=3", "moves=-1", "moves=x", "", "number=1"] {
        let (status, answer) = server.get(&format!("/api/games/{key}/board?{bad}"));
        assert_eq!(status, 400, "{bad}: {answer}");
    }
    assert_eq!(
        server.get("/healthz"),
        (200, json!({"serving": true, "store": "ok"}))
    );
}

/// The moves that fill a 9x9 board with one living group of `owner`'s, every point but five
/// one-point eyes (A1, J1, E5, A9, J9), while the other side passes: 76 stones, `owner`'s
/// move last.
fn one_huge_group(owner: Color) -> Vec<String> {
    let eyes = ["A1", "J1", "E5", "A9", "J9"];
    let mut moves = Vec::new();
    if owner == Color::White {
        moves.push("pass".to_string());
    }
    for row in 0..9 {
        for col in 0..9 {
            let vertex = tengen::rules::board::Point::new(9, col, row).to_vertex(9);
            if eyes.contains(&vertex.as_str()) {
                continue;
            }
            if moves.len() % 2 != usize::from(owner == Color::White) {
                moves.push("pass".to_string());
            }
            moves.push(vertex);
        }
    }
    moves
}

/// Checks the shape of an analysis of a 9x9 position whose next move is `number`; its
/// ownership.
fn check_analysis(analysis: &Value, key: &str, number: u64, to_move: &str) -> Vec<f64> {
    assert_eq!(analysis["key"], key, "{analysis}");
    assert_eq!(analysis["number"], number, "{analysis}");
    assert_eq!(analysis["to_move"], to_move, "{analysis}");
    let winrate = analysis["black_winrate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&winrate), "{analysis}");
    assert!(analysis["black_lead"].is_f64() || analysis["black_lead"].is_null());
    let playouts = analysis["playouts"].as_u64().unwrap();
    assert!(playouts > 0, "{analysis}");
    let ownership: Vec<f64> = analysis["ownership"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_f64().unwrap())
        .collect();
    assert_eq!(ownership.len(), 81);
    assert!(
        ownership.iter().all(|o| (-1.0..=1.0).contains(o)),
        "{analysis}"
    );
    let moves = analysis["moves"].as_array().unwrap();
    assert!(!moves.is_empty() && moves.len() <= 5, "{analysis}");
    for m in moves {
        Move::parse(m["move"].as_str().unwrap(), 9).expect("a vertex or pass");
        assert!((0.0..=1.0).contains(&m["black_winrate"].as_f64().unwrap()));
        assert!(m["visits"].as_u64().unwrap() > 0);
        assert_eq!(m["pv"][0], m["move"]);
    }
    ownership
}

#[test]
fn the_analysis_gives_the_win_rate_the_ownership_and_the_best_moves() {
    let dir = TempDir::new("serve-analysis");
    let server = Server::start(dir.path(), &[]);
    // An opening at easy, which cannot analyse: the mcts level analyses for it.
    let state = server.open(
        json!({"client": "t", "size": 9, "level": "easy", "color": "B", "moves": ["E5", "C3", "D5"]}),
    );
    let opening = key(&state);
    let path = format!("/api/games/{opening}/analysis");
    let (status, analysis) = server.get(&format!("{path}?playouts=400&max_ms=5000"));
    assert_eq!(status, 200, "{analysis}");
    let ownership = check_analysis(&analysis, &opening, 4, "W");
    assert!(analysis["playouts"].as_u64().unwrap() <= 400, "{analysis}");
    assert_eq!(analysis["max_playouts"], 400);
    // Black's stones on E5 and D5 lean Black's way (rows top first: E5 is row 4, column 4).
    assert!(
        ownership[4 * 9 + 4] > 0.0 && ownership[4 * 9 + 3] > 0.0,
        "{analysis}"
    );
    // The defaults, and the same question again.
    let (status, first) = server.get(&path);
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        (first["max_playouts"].as_u64(), first["max_ms"].as_u64()),
        (Some(1500), Some(500))
    );
    assert_eq!(server.get(&path), (200, first));

    // One side owns the board with a huge living group: the analysis says so, whichever side
    // it is and whoever is to move.
    for (owner, sign, to_move) in [(Color::Black, 1.0, "W"), (Color::White, -1.0, "B")] {
        let moves = one_huge_group(owner);
        let state = server.open(
            json!({"client": "t", "size": 9, "level": "medium", "color": "B", "moves": moves}),
        );
        let key = key(&state);
        let (status, analysis) = server.get(&format!("/api/games/{key}/analysis?playouts=500"));
        assert_eq!(status, 200, "{analysis}");
        let ownership = check_analysis(&analysis, &key, moves.len() as u64 + 1, to_move);
        assert!(
            ownership.iter().all(|o| sign * o > 0.5),
            "{owner:?} owns every point: {analysis}"
        );
        let black = analysis["black_winrate"].as_f64().unwrap();
        let winner = if owner == Color::Black {
            black
        } else {
            1.0 - black
        };
        assert!(winner > 0.9, "{owner:?} wins: {analysis}");
        let lead = analysis["black_lead"].as_f64().unwrap();
        assert!(
            sign * lead > 50.0,
            "{owner:?} leads by the board: {analysis}"
        );
    }

    // Errors: an unknown key asks for a resync; bad query values name their parameter.
    let (status, body) = server.get("/api/games/0123456789abcdef0123456789abcdef/analysis");
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["resync"], true);
    for (query, field) in [
        ("playouts=0", "playouts"),
        ("playouts=100001", "playouts"),
        ("playouts=-5", "playouts"),
        ("playouts=", "playouts"),
        ("max_ms=abc", "max_ms"),
        ("max_ms=10001", "max_ms"),
        ("playouts=10&depth=3", "depth"),
    ] {
        let (status, body) = server.get(&format!("{path}?{query}"));
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["field"], field, "{query}: {body}");
        assert!(body["error"].as_str().unwrap().starts_with(field), "{body}");
    }
    // The game goes on after its analysis, and the next analysis is of the new position.
    let (status, state) = server.post(
        &format!("/api/games/{opening}/genmove"),
        json!({"number": 4}),
    );
    assert_eq!(status, 200, "{state}");
    let (status, analysis) = server.get(&format!("{path}?playouts=200"));
    assert_eq!(status, 200, "{analysis}");
    check_analysis(&analysis, &opening, 5, "B");
}
