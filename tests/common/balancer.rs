//! Several `tengen serve` on loopback behind HAProxy: servers on fixed ports (so that one
//! killed with `kill -9` comes back where HAProxy looks for it), HAProxy running
//! deploy/haproxy.cfg with the test's addresses put in, and an HTTP client that resends a
//! request as a real client does.
//!
//! Tests that use it carry `#[cfg_attr(not(haproxy_tests), ignore = "...")]`: build.rs sets
//! the cfg when it finds `haproxy`, or when TENGEN_REQUIRE_EXTERNAL=1 asks for it, and then a
//! missing program fails the test here.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A `tengen serve` on a fixed port, killed when dropped. It logs at `warn`, and the API's
/// `info` lines too (the AI's moves computed, the writes the store refused).
pub struct Server {
    child: Child,
    /// What it wrote on stderr so far.
    said: Arc<Mutex<Vec<String>>>,
    /// Told once the reader of its stderr has read it all (the process is gone).
    drained: Receiver<bool>,
}

impl Server {
    /// Starts a server on `port` over `store` with the extra arguments `args`, up to ten
    /// times while it stops at once (the port, freed by a killed server, may be held a moment
    /// by a connection that took it as its own, as a supervisor such as systemd retries).
    pub fn start(port: u16, store: &str, args: &[&str]) -> Server {
        let mut tries = 0;
        loop {
            match Server::try_start(port, store, args) {
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
    fn try_start(port: u16, store: &str, args: &[&str]) -> Result<Server, Vec<String>> {
        let mut child = Command::new(super::tengen_path())
            .args([
                "serve",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--store",
                store,
            ])
            .args(args)
            .env("PGPASSWORD", super::pg::PASSWORD)
            .env("RUST_LOG", "warn,tengen::front::serve::api=info")
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tengen serve");
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let said = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&said);
        // `true` once it listens, `false` once its stderr is read to the end.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let listening = line.contains("listening on http://");
                lines.lock().unwrap().push(line);
                if listening {
                    let _ = tx.send(true);
                }
            }
            let _ = tx.send(false);
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(true) => Ok(Server {
                child,
                said,
                drained: rx,
            }),
            Ok(false) => Err(said.lock().unwrap().clone()),
            Err(e) => panic!("tengen serve on port {port} does not listen: {e}"),
        }
    }

    /// `kill -9`; returns once all it wrote on stderr has been read, so that [`Server::said`]
    /// holds its last words.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let drained = self.drained.recv_timeout(Duration::from_secs(10));
        assert_eq!(drained, Ok(false), "its stderr was not read to the end");
    }

    /// The lines of its stderr so far that contain `text`.
    pub fn said(&self, text: &str) -> Vec<String> {
        let said = self.said.lock().unwrap();
        said.iter().filter(|l| l.contains(text)).cloned().collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// HAProxy in the foreground, stopped when dropped.
pub struct Haproxy {
    child: Child,
    /// Its log so far: one line per request (httplog).
    log: Arc<Mutex<Vec<String>>>,
    config: std::path::PathBuf,
}

impl Haproxy {
    /// Starts HAProxy on `port` in front of the servers on `servers` (deploy/haproxy.cfg,
    /// see [`config`]); waits (10 s at most) until it listens.
    pub fn start(port: u16, servers: &[u16]) -> Haproxy {
        let config =
            std::env::temp_dir().join(format!("tengen-haproxy-{}-{port}.cfg", std::process::id()));
        std::fs::write(&config, self::config(port, servers)).unwrap();
        let mut child = Command::new(haproxy_path())
            .arg("-f")
            .arg(&config)
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
        let haproxy = Haproxy { child, log, config };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "haproxy does not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        haproxy
    }

    /// The log lines of requests that server `name` answered and that contain `text`.
    pub fn served(&self, name: &str, text: &str) -> usize {
        let server = format!("tengen/{name} ");
        let log = self.log.lock().unwrap();
        log.iter()
            .filter(|l| l.contains(&server) && l.contains(text))
            .count()
    }

    /// The requests it logged.
    pub fn logged(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// The retries it made: the `retries` field of each request's line (`+N` when it was
    /// sent to another server).
    pub fn retries(&self) -> usize {
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
        let _ = std::fs::remove_file(&self.config);
    }
}

/// deploy/haproxy.cfg listening on `port` and balancing over `servers`: its example servers
/// replaced, and without the `user`/`group` switch (the test runs as whoever it is).
pub fn config(port: u16, servers: &[u16]) -> String {
    let template =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/haproxy.cfg"))
            .unwrap();
    let mut out = String::new();
    for line in template.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("user" | "group" | "server") => continue,
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

/// An answer to one request.
pub struct Answer {
    pub status: u16,
    /// `Retry-After`, in seconds.
    pub retry_after: Option<u64>,
    pub body: String,
}

/// One request on a fresh connection; none if no answer came (refused, closed, or nothing
/// within a minute).
pub fn try_request(port: u16, method: &str, path: &str, body: &str) -> Option<Answer> {
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
    let retry_after = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("retry-after")
            .then(|| value.trim().parse().ok())?
    });
    Some(Answer {
        status,
        retry_after,
        body: rest.to_string(),
    })
}

/// What a client met on the way and resent for.
#[derive(Default, Debug, Clone)]
pub struct Resent {
    /// Requests with no answer (the connection refused or closed).
    pub unanswered: usize,
    /// HAProxy's own 502, 503 and 504 (no server answered), by status.
    pub balancer: BTreeMap<u16, usize>,
    /// tengen's 503s (its store down; JSON, with `Retry-After`).
    pub store_down: usize,
}

impl Resent {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Resent) {
        self.unanswered += other.unanswered;
        for (status, n) in &other.balancer {
            *self.balancer.entry(*status).or_default() += n;
        }
        self.store_down += other.store_down;
    }

    /// The balancer's errors, all statuses.
    pub fn balancer_errors(&self) -> usize {
        self.balancer.values().sum()
    }
}

/// How long [`call`] resends one request at most: past two AI leases at the longest
/// `--move-time` the tests use, and a database restart.
pub const RESEND_FOR: Duration = Duration::from_secs(60);

/// A request as a real client makes it: sent again, unchanged, while no answer comes or the
/// answer is 502, 503 or 504, after a pause that doubles from 50 ms to 1 s (or the
/// `Retry-After` asked for, up to 2 s), for up to [`RESEND_FOR`]; the final status and JSON
/// body. A 500 fails the test at once.
pub fn call(
    port: u16,
    method: &str,
    path: &str,
    body: &Value,
    resent: &mut Resent,
) -> (u16, Value) {
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    let deadline = Instant::now() + RESEND_FOR;
    let mut pause = Duration::from_millis(50);
    loop {
        let mut wait = pause;
        match try_request(port, method, path, &body) {
            Some(answer) if ![502, 503, 504].contains(&answer.status) => {
                assert_ne!(answer.status, 500, "{method} {path}: {}", answer.body);
                let value = serde_json::from_str(&answer.body).unwrap_or_else(|e| {
                    panic!(
                        "{method} {path}: {} not JSON ({e}): {}",
                        answer.status, answer.body
                    )
                });
                return (answer.status, value);
            }
            Some(answer) => {
                if answer.status == 503 && serde_json::from_str::<Value>(&answer.body).is_ok() {
                    resent.store_down += 1;
                } else {
                    *resent.balancer.entry(answer.status).or_default() += 1;
                }
                if let Some(seconds) = answer.retry_after {
                    wait = wait.max(Duration::from_secs(seconds.min(2)));
                }
            }
            None => resent.unanswered += 1,
        }
        assert!(
            Instant::now() + wait < deadline,
            "{method} {path}: no answer for {} s",
            RESEND_FOR.as_secs()
        );
        std::thread::sleep(wait);
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}
