//! Three `tengen serve` sharing one PostgreSQL behind HAProxy, all on loopback: HAProxy runs
//! deploy/haproxy.cfg with the test's addresses put in, whole 9x9 games at `easy` are played
//! through it by clients that resend a request as a real client does (no answer, 502, 503,
//! 504), one server is killed with `kill -9` mid-game and started again, and every game must
//! end with every move the clients were told of stored exactly once, in order.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tengen::board::{Color, Move};
use tengen::game::{Game, Rules};
use tengen::player::sensible_moves;

/// A free loopback port (bound, then released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `tengen serve` on a fixed port (so that it comes back where HAProxy looks for it).
struct Server {
    child: Child,
}

impl Server {
    /// Starts a server on `port`, up to ten times while it stops at once (the port, freed
    /// by a killed server, may be held a moment by a connection that took it as its own, as a
    /// supervisor such as systemd retries).
    fn start(port: u16, store: &str) -> Server {
        let mut tries = 0;
        loop {
            match Server::try_start(port, store) {
                Ok(server) => return server,
                Err(said) if tries < 10 => {
                    eprintln!("tengen serve on port {port} stopped ({said:?}); again");
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(said) => panic!("tengen serve on port {port} stopped: {said:?}"),
            }
        }
    }

    /// Starts a server on `port`; what it said if it stopped before listening.
    fn try_start(port: u16, store: &str) -> Result<Server, Vec<String>> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args([
                "serve",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--store",
                store,
            ])
            .env("PGPASSWORD", common::pg::PASSWORD)
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tengen serve");
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut said = Vec::new();
            for line in stderr.lines().map_while(Result::ok) {
                if line.contains("listening on http://") {
                    let _ = tx.send(Ok(()));
                }
                said.push(line);
            }
            let _ = tx.send(Err(said));
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(Ok(())) => Ok(Server { child }),
            Ok(Err(said)) => Err(said),
            Err(e) => panic!("tengen serve on port {port} does not listen: {e}"),
        }
    }

    /// `kill -9`.
    fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// HAProxy in the foreground, stopped when dropped.
struct Haproxy {
    child: Child,
    /// Its log so far: one line per request (httplog).
    log: Arc<Mutex<Vec<String>>>,
}

impl Haproxy {
    /// The log lines of requests that server `name` answered and that contain `text`.
    fn served(&self, name: &str, text: &str) -> usize {
        let server = format!("tengen/{name} ");
        let log = self.log.lock().unwrap();
        log.iter()
            .filter(|l| l.contains(&server) && l.contains(text))
            .count()
    }

    /// The retries it made: the `retries` field of each request's line (`+N` when it was
    /// sent to another server).
    fn retries(&self) -> usize {
        let log = self.log.lock().unwrap();
        log.iter()
            .filter_map(|line| {
                // ... TR/Tw/Tc/Tr/Ta ... actconn/feconn/beconn/srv_conn/retries ...
                let field = line
                    .split_whitespace()
                    .filter(|w| w.matches('/').count() == 4 && !w.contains(':'))
                    .nth(1)?;
                field
                    .rsplit('/')
                    .next()?
                    .trim_start_matches('+')
                    .parse::<usize>()
                    .ok()
            })
            .sum()
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// deploy/haproxy.cfg listening on `port` and balancing over `servers`: its example servers
/// replaced, and without the `user`/`group` switch (the test runs as whoever it is).
fn haproxy_config(port: u16, servers: &[u16]) -> String {
    let template =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/haproxy.cfg"))
            .unwrap();
    let mut out = String::new();
    for line in template.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("user" | "group") => continue,
            Some("server") => continue,
            Some("bind") => out.push_str(&format!("    bind 127.0.0.1:{port}\n")),
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    assert!(out.contains("balance hash path,field(4,/)"), "{out}");
    for (n, server) in servers.iter().enumerate() {
        out.push_str(&format!("    server tengen{n} 127.0.0.1:{server} check\n"));
    }
    out
}

/// The path of HAProxy, as build.rs found it.
fn haproxy_path() -> &'static str {
    match option_env!("TENGEN_TEST_HAPROXY") {
        Some(path) => path,
        None => panic!("HAProxy is required (TENGEN_REQUIRE_EXTERNAL=1) but is not installed"),
    }
}

fn start_haproxy(config: &std::path::Path, port: u16) -> Haproxy {
    let mut child = Command::new(haproxy_path())
        .arg("-f")
        .arg(config)
        .arg("-db")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start haproxy");
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let lines = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            lines.lock().unwrap().push(line);
        }
    });
    let haproxy = Haproxy { child, log };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "haproxy does not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    haproxy
}

/// One request on a fresh connection: the status and the body; none if no answer came.
fn try_request(port: u16, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .ok()?;
    // One write: a request split in two waits for a delayed ACK (40 ms).
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: tengen\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).ok()?;
    let (head, rest) = raw.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, rest.to_string()))
}

/// Counts of what the clients met on the way.
#[derive(Default, Debug)]
struct Resent {
    unanswered: usize,
    balancer_errors: usize,
}

/// A request as a real client makes it: sent again (unchanged) while no answer comes or
/// the answer is 502, 503 or 504, for up to 20 s; the final status and JSON body.
fn call(port: u16, method: &str, path: &str, body: &Value, resent: &mut Resent) -> (u16, Value) {
    let body = body.to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match try_request(port, method, path, &body) {
            Some((status, text)) if ![502, 503, 504].contains(&status) => {
                let value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{method} {path}: {status} not JSON ({e}): {text}"));
                return (status, value);
            }
            Some(_) => resent.balancer_errors += 1,
            None => resent.unanswered += 1,
        }
        assert!(
            Instant::now() < deadline,
            "{method} {path}: no answer for 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn vertex(mv: Move) -> String {
    match mv {
        Move::Play(p) => p.to_vertex(9),
        Move::Pass => "pass".to_string(),
    }
}

/// Plays a whole 9x9 game at `easy` as Black through the balancer (random sensible moves,
/// passes after move 60, a short pause between moves), checking each answer against the
/// client's record; its key and the moves it was told of.
fn play(port: u16, seed: u64, resent: &mut Resent) -> (String, Vec<String>) {
    let create = json!({"client": format!("c{seed}"), "size": 9, "level": "easy", "color": "B",
                        "request_id": format!("game-{seed}")});
    let (status, mut state) = call(port, "POST", "/api/games", &create, resent);
    assert_eq!(status, 201, "{state}");
    let key = state["key"].as_str().unwrap().to_string();
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
        let body = json!({"move": vertex(mv), "number": number});
        let (status, next) = call(
            port,
            "POST",
            &format!("/api/games/{key}/moves"),
            &body,
            resent,
        );
        assert_eq!(status, 200, "{next}");
        mirror.play(Color::Black, mv).unwrap();
        record.push(vertex(mv));
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
    (key, record)
}

#[test]
#[cfg_attr(
    not(all(postgres_tests, haproxy_tests)),
    ignore = "PostgreSQL's initdb and pg_ctl, or haproxy, not found (apt-get install postgresql haproxy)"
)]
fn games_through_haproxy_ride_out_a_server_killed_and_restarted() {
    let started = Instant::now();
    let cluster = common::pg::Cluster::start();
    let url = cluster.database("games");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let mut servers: Vec<Server> = ports.iter().map(|&p| Server::start(p, &url)).collect();
    let front = free_port();
    let config = std::env::temp_dir().join(format!("tengen-haproxy-{}.cfg", std::process::id()));
    std::fs::write(&config, haproxy_config(front, &ports)).unwrap();
    let haproxy = start_haproxy(&config, front);

    let mut resent = Resent::default();
    let (status, health) = call(front, "GET", "/healthz", &Value::Null, &mut resent);
    assert_eq!((status, &health["store"]), (200, &json!("ok")), "{health}");

    let games = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..6)
            .map(|seed| {
                scope.spawn(move || {
                    let mut resent = Resent::default();
                    let game = play(front, seed, &mut resent);
                    (game, resent)
                })
            })
            .collect();
        // Mid-game, the server that answered the most moves so far dies without a word
        // and comes back a second later.
        std::thread::sleep(Duration::from_millis(700));
        let busiest = (0..servers.len())
            .max_by_key(|&n| haproxy.served(&format!("tengen{n}"), "/moves"))
            .unwrap();
        assert!(haproxy.served(&format!("tengen{busiest}"), "/moves") > 0);
        servers[busiest].kill();
        std::thread::sleep(Duration::from_secs(1));
        servers[busiest] = Server::start(ports[busiest], &url);
        clients
            .into_iter()
            .map(|c| c.join().unwrap())
            .collect::<Vec<_>>()
    });

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
        haproxy.log.lock().unwrap().len()
    );
    let moves: usize = games.iter().map(|((_, r), _)| r.len()).sum();
    let unanswered: usize = games.iter().map(|(_, r)| r.unanswered).sum();
    let balancer_errors: usize = games.iter().map(|(_, r)| r.balancer_errors).sum();
    eprintln!(
        "{} games, {moves} moves stored once each; HAProxy's retries: {retries}; the clients resent: {unanswered} unanswered, {balancer_errors} balancer errors; {:.1} s",
        games.len(),
        started.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_file(&config);
}
