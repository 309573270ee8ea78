//! `tengen net`: the real binary fetches nets from an HTTP server on loopback that this test
//! runs (answering as told: whole, cut short, resumed with a range, a 200 over a range, 404,
//! redirects in a loop, stalled), checks them, and names them only when whole and checked;
//! every failure is one line and a non-zero exit, with no net file left where nets are looked
//! for. Also `net info` and `net list`.

mod common;

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use std::{fs, thread};

use common::nets;
use common::temp::TempDir;
use common::tengen_path;
use tengen::knowledge::net::model::synthetic;

/// The published name of the real net common::nets reads, which tengen knows with its sha256.
const KNOWN_FILE: &str = "g170-b6c96-s175395328-d26788732.bin.gz";

fn net_bytes() -> Vec<u8> {
    fs::read(nets::net(nets::G170)).expect("the real g170-b6c96")
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
struct Request {
    path: String,
    headers: Vec<(String, String)>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a connection.
enum Answer {
    /// Writes these bytes and closes.
    Send(Vec<u8>),
    /// Writes these bytes, then waits this long before closing.
    Stall(Vec<u8>, Duration),
}

/// An HTTP response: the status line's code and reason, headers, then `body` (Content-Length
/// the body's length unless `length` says otherwise).
fn response(
    status: &str,
    headers: &[(&str, String)],
    body: &[u8],
    length: Option<usize>,
) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head += &format!("{name}: {value}\r\n");
    }
    head += &format!("Content-Length: {}\r\n\r\n", length.unwrap_or(body.len()));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// An HTTP server on loopback answering one connection at a time as `answer` says (given the
/// request's number from 0), for at most two minutes.
struct Server {
    port: u16,
    seen: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn start(answer: impl Fn(usize, &Request) -> Answer + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port on loopback");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().expect("its address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen_here, stop_here) = (seen.clone(), stop.clone());
        thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(120);
            while !stop_here.load(Ordering::Relaxed) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let Some(request) = read_request(&stream) else {
                            continue;
                        };
                        let n = {
                            let mut seen = seen_here.lock().unwrap();
                            seen.push(request.clone());
                            seen.len() - 1
                        };
                        write_answer(stream, answer(n, &request));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Server { port, seen, stop }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn read_request(mut stream: &TcpStream) -> Option<Request> {
    stream.set_nonblocking(false).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 65536 {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.lines();
    let path = lines.next()?.split_whitespace().nth(1)?.to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Some(Request { path, headers })
}

fn write_answer(mut stream: TcpStream, answer: Answer) {
    let (bytes, wait) = match answer {
        Answer::Send(bytes) => (bytes, Duration::ZERO),
        Answer::Stall(bytes, wait) => (bytes, wait),
    };
    // The client may have gone (a timeout): what it did not read does not matter.
    let _ = stream.write_all(&bytes).and_then(|()| stream.flush());
    thread::sleep(wait);
}

/// A directory of its own for one test, empty.
/// What a run of tengen ended with.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The one error line of a failed `tengen net get`, checked to be one and the last.
    fn error(&self) -> &str {
        assert_ne!(
            self.code,
            Some(0),
            "a failure exits non-zero: {}",
            self.stderr
        );
        let errors: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| l.starts_with("tengen net"))
            .collect();
        assert_eq!(errors.len(), 1, "one error line: {}", self.stderr);
        assert_eq!(
            self.stderr.lines().last(),
            Some(errors[0]),
            "{}",
            self.stderr
        );
        errors[0]
    }
}

/// `tengen net ARGS` with `home` as its home and data directory, no proxy.
fn tengen(args: &[&OsStr], home: &Path) -> Run {
    let net: &OsStr = "net".as_ref();
    run_in(&[&[net], args].concat(), home, "")
}

/// `tengen ARGS` in `home`, its home, config (`home/config`) and data directory (`home/data`),
/// with `input` on stdin; no proxy, and no KataGo on `PATH`.
fn run_in(args: &[&OsStr], home: &Path, input: &str) -> Run {
    let mut command = Command::new(tengen_path());
    command.args(args);
    // Not the repository's directory, whose engines.toml would be read.
    if home.is_dir() {
        command.current_dir(home);
    }
    command
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("TENGEN_CONFIG")
        .env_remove("KATAGO_CONFIG")
        .stdin(std::process::Stdio::piped());
    for var in [
        "ALL_PROXY",
        "all_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
        "KATAGO_MODEL",
        "RUST_LOG",
    ] {
        command.env_remove(var);
    }
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tengen runs");
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    let out = child.wait_with_output().expect("tengen runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `tengen net get URL --to DIR EXTRA...`.
fn get(url: &str, dir: &Path, extra: &[&str]) -> Run {
    let mut args: Vec<&OsStr> = vec!["get".as_ref(), url.as_ref(), "--to".as_ref(), dir.as_ref()];
    args.extend(extra.iter().map(|a| OsStr::new(*a)));
    tengen(&args, dir)
}

/// The names in `dir` that tengen would take for nets (*.bin.gz, *.txt.gz).
fn nets_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| n.ends_with(".bin.gz") || n.ends_with(".txt.gz"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Serves `body` whole at every path, with an ETag.
fn serving(body: Vec<u8>) -> Server {
    Server::start(move |_, _| {
        Answer::Send(response(
            "200 OK",
            &[("ETag", "\"v1\"".into())],
            &body,
            None,
        ))
    })
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_net_is_fetched_checked_named_listed_and_described() {
    let temp = TempDir::new("net-get-whole");
    let home = temp.path();
    let net = net_bytes();
    let server = serving(net.clone());
    let url = server.url(KNOWN_FILE);
    // Into the nets directory of the data directory.
    let run = tengen(&["get".as_ref(), url.as_ref()], home);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let nets = home.join("data/tengen/nets");
    let path = nets.join(KNOWN_FILE);
    assert_eq!(run.stdout.trim(), path.display().to_string());
    assert_eq!(fs::read(&path).unwrap(), net);
    assert!(run.stderr.contains("sha256 as expected"), "{}", run.stderr);
    assert_eq!(fs::read_dir(&nets).unwrap().count(), 1, "no .part left");
    // Again: it is there, checked, and not fetched.
    let again = tengen(&["get".as_ref(), url.as_ref()], home);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(again.stderr.contains("here already"), "{}", again.stderr);
    assert_eq!(server.requests().len(), 1);

    let info = tengen(&["info".as_ref(), path.as_ref()], home);
    assert_eq!(info.code, Some(0), "{}", info.stderr);
    for line in [
        "name:          g170-b6c96-s175395328-d26788732",
        "model version: 8",
        "trunk:         conv 6x96",
        "blocks:        4 ordinary, 2 global pooling",
        "known as:      g170-b6c96 (g170-b6c96-s175395328-d26788732.bin.gz)",
        "this build:    reads it and evaluates the empty board",
    ] {
        assert!(
            info.stdout.lines().any(|l| l == line),
            "{line}\n{}",
            info.stdout
        );
    }

    let list = tengen(&["list".as_ref()], home);
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    let here = list
        .stdout
        .lines()
        .find(|l| l.contains(KNOWN_FILE) && l.contains(&*home.to_string_lossy()))
        .unwrap_or_else(|| panic!("{}", list.stdout));
    assert!(
        here.ends_with("loads: conv 6x96, model version 8 (g170-b6c96)"),
        "{here}"
    );
    let transformer = list
        .stdout
        .lines()
        .find(|l| l.contains("b10c384h6nbttflrs"))
        .unwrap_or_else(|| panic!("{}", list.stdout));
    assert!(transformer.contains("transformer 10x384"), "{transformer}");
    assert!(
        list.stdout.contains(&format!(
            "The levels play with (tengen's nets directory):\n  {}",
            path.display()
        )),
        "{}",
        list.stdout
    );

    // Then it is what the default level, hard, plays with while KataGo is not here.
    let config = run_in(&["config".as_ref()], home, "");
    assert!(
        config.stdout.contains(&format!(
            "network: {} (tengen's nets directory)",
            path.display()
        )),
        "{}",
        config.stdout
    );
    let session = "boardsize 19\ngenmove b\nkata-raw-nn 0\nquit\n";
    let game = run_in(&[], home, session);
    assert_eq!(game.code, Some(0), "{}", game.stderr);
    let answers: Vec<&str> = game.stdout.split("\n\n").collect();
    let vertex = answers[1].trim_start_matches("= ");
    assert!(
        vertex.len() >= 2 && vertex != "PASS" && vertex != "resign",
        "{}",
        game.stdout
    );
    assert!(
        answers[2].starts_with("= symmetry 0\nwhiteWin"),
        "searched with a net: {}",
        game.stdout
    );
}

/// A server whose first answer is `first` (200 with an ETag, cut after `cut` bytes) and whose
/// next answers `then` gives.
fn cut_then(
    net: &[u8],
    cut: usize,
    then: impl Fn(&Request, &[u8]) -> Vec<u8> + Send + 'static,
) -> Server {
    let net = net.to_vec();
    Server::start(move |n, request| {
        if n == 0 {
            let whole = response("200 OK", &[("ETag", "\"v1\"".into())], &net, None);
            let head = whole.len() - net.len();
            Answer::Send(whole[..head + cut].to_vec())
        } else {
            Answer::Send(then(request, &net))
        }
    })
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_body_cut_short_is_kept_and_resumed_with_a_range() {
    let temp = TempDir::new("net-get-resume");
    let dir = temp.path();
    let net = net_bytes();
    let half = net.len() / 2;
    let server = cut_then(&net, half, |request, net| {
        let from: usize = request
            .header("Range")
            .and_then(|r| r.strip_prefix("bytes="))
            .and_then(|r| r.strip_suffix('-'))
            .and_then(|r| r.parse().ok())
            .expect("a range");
        assert_eq!(request.header("If-Range"), Some("\"v1\""));
        let range = format!("bytes {from}-{}/{}", net.len() - 1, net.len());
        response(
            "206 Partial Content",
            &[("Content-Range", range)],
            &net[from..],
            None,
        )
    });
    let url = server.url(KNOWN_FILE);
    let cut = get(&url, dir, &[]);
    let error = cut.error();
    assert!(
        error.contains(&format!("after {half} of the {} bytes", net.len())),
        "{error}"
    );
    assert!(error.contains("again goes on"), "{error}");
    assert!(nets_in(dir).is_empty(), "{:?}", nets_in(dir));
    let part = dir.join(format!("{KNOWN_FILE}.part"));
    assert_eq!(fs::read(&part).unwrap(), net[..half]);

    let resumed = get(&url, dir, &[]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert_eq!(fs::read(dir.join(KNOWN_FILE)).unwrap(), net);
    assert!(!part.exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].header("Range"),
        Some(&*format!("bytes={half}-"))
    );
    assert_eq!(requests[1].path, format!("/{KNOWN_FILE}"));
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_200_over_a_range_starts_again_from_zero() {
    let temp = TempDir::new("net-get-restart");
    let dir = temp.path();
    let net = net_bytes();
    let server = cut_then(&net, 1000, |_, net| {
        response("200 OK", &[("ETag", "\"v2\"".into())], net, None)
    });
    let url = server.url(KNOWN_FILE);
    get(&url, dir, &[]).error();
    let run = get(&url, dir, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Appended after the 1000 bytes, the sha256 would differ and the file be refused.
    assert_eq!(fs::read(dir.join(KNOWN_FILE)).unwrap(), net);
    assert_eq!(server.requests()[1].header("Range"), Some("bytes=1000-"));
}

#[test]
fn a_404_is_one_line_and_leaves_nothing() {
    let temp = TempDir::new("net-get-404");
    let dir = temp.path();
    let server = Server::start(|_, _| Answer::Send(response("404 Not Found", &[], b"gone", None)));
    let error = get(&server.url("net.bin.gz"), dir, &[]).error().to_string();
    assert!(
        error.ends_with("the server answered 404 Not Found"),
        "{error}"
    );
    assert!(error.contains(&server.url("net.bin.gz")), "{error}");
    assert_eq!(fs::read_dir(dir).unwrap().count(), 0);
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_checksum_that_differs_deletes_the_download() {
    let temp = TempDir::new("net-get-sha");
    let dir = temp.path();
    let mut net = net_bytes();
    let middle = net.len() / 2;
    net[middle] ^= 0xff;
    let server = serving(net);
    let error = get(&server.url(KNOWN_FILE), dir, &[]).error().to_string();
    assert!(error.contains("its sha256 is"), "{error}");
    assert!(error.contains("not f5d32604e367"), "{error}");
    assert!(error.ends_with("it is deleted"), "{error}");
    assert_eq!(fs::read_dir(dir).unwrap().count(), 0);

    // --sha256 checks a file tengen does not know.
    let good = serving(net_bytes());
    let wrong = "0".repeat(64);
    let error = get(&good.url("mine.bin.gz"), dir, &["--sha256", &wrong])
        .error()
        .to_string();
    assert!(error.contains(&format!("not {wrong}")), "{error}");
    assert_eq!(fs::read_dir(dir).unwrap().count(), 0);
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_stalled_server_runs_into_the_read_timeout() {
    let temp = TempDir::new("net-get-stall");
    let dir = temp.path();
    let net = net_bytes();
    let server = Server::start(move |n, _| {
        let whole = response("200 OK", &[], &net, None);
        let sent = if n == 0 {
            whole.len() - net.len() + 1000
        } else {
            // No answer at all.
            0
        };
        Answer::Stall(whole[..sent].to_vec(), Duration::from_secs(20))
    });
    let started = Instant::now();
    let run = get(&server.url("slow.bin.gz"), dir, &["--read-timeout", "1"]);
    let error = run.error();
    assert!(
        error.contains("no data for 1 s after 1000 of the"),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(nets_in(dir).is_empty());

    let started = Instant::now();
    let run = get(&server.url("slow.bin.gz"), dir, &["--read-timeout", "1"]);
    assert!(
        run.error().ends_with("no answer within 1 s"),
        "{}",
        run.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(nets_in(dir).is_empty());
}

#[test]
fn a_redirect_loop_is_one_line() {
    let temp = TempDir::new("net-get-loop");
    let dir = temp.path();
    let server = Server::start(|_, request| {
        let next = if request.path == "/a.bin.gz" {
            "/b.bin.gz"
        } else {
            "/a.bin.gz"
        };
        Answer::Send(response(
            "302 Found",
            &[("Location", next.into())],
            b"",
            None,
        ))
    });
    let error = get(&server.url("a.bin.gz"), dir, &[]).error().to_string();
    assert!(
        error.ends_with("more than 10 redirects (a redirect loop?)"),
        "{error}"
    );
    assert_eq!(fs::read_dir(dir).unwrap().count(), 0);
}

#[test]
fn no_server_is_one_line() {
    let temp = TempDir::new("net-get-refused");
    let dir = temp.path();
    // A port that was free a moment ago, and nobody listens on now.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/net.bin.gz");
    let error = get(&url, dir, &[]).error().to_string();
    assert!(
        error.ends_with("cannot connect: the connection was refused"),
        "{error}"
    );
    assert_eq!(fs::read_dir(dir).unwrap().count(), 0);
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_nets_directory_that_cannot_be_made_is_one_line() {
    let temp = TempDir::new("net-get-nodir");
    let dir = temp.path();
    // Its parent is a file: not even root makes it.
    fs::write(dir.join("file"), b"").unwrap();
    let server = serving(net_bytes());
    let target = dir.join("file/nets");
    let error = get(&server.url(KNOWN_FILE), &target, &[])
        .error()
        .to_string();
    assert!(error.contains("cannot make the nets directory"), "{error}");
    assert!(error.contains(&*target.to_string_lossy()), "{error}");
    assert!(server.requests().is_empty(), "nothing fetched");
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// A transformer net whose first feed-forward block has no SwiGLU, which no KataGo backend
/// evaluates either.
fn transformer() -> Vec<u8> {
    let net = synthetic::transformer_net(15, true, synthetic::transformer_seed(15));
    let (plain, gated) = (b"blocks.1\n24\n32\n1\n", b"blocks.1\n24\n32\n0\n");
    let at = net
        .windows(plain.len())
        .position(|w| w == plain)
        .expect("the feed-forward block's header");
    let mut net = net;
    net[at..at + gated.len()].copy_from_slice(gated);
    gzip(&net)
}

#[test]
fn files_that_are_no_net_this_build_reads_are_refused_and_deleted() {
    let temp = TempDir::new("net-get-notnet");
    let dir = temp.path();
    let cases = [
        (
            "garbage.bin.gz",
            b"not a network at all\n".repeat(10),
            "bad gzip stream",
        ),
        (
            "words.bin.gz",
            gzip(b"hello world\n"),
            "it is not a net this build reads",
        ),
        (
            "transformer.bin.gz",
            transformer(),
            "it is a transformer 4x24 net (synthetic-transformer-v15), which this build cannot read: \
             a feed-forward block without SwiGLU (blocks.1) is not supported",
        ),
    ];
    for (name, body, why) in cases {
        let server = serving(body);
        let error = get(&server.url(name), dir, &[]).error().to_string();
        assert!(error.contains(why), "{name}: {error}");
        assert_eq!(fs::read_dir(dir).unwrap().count(), 0, "{name}");
    }
    // Nor is a name tengen would not take for a net's.
    let zip = get("http://127.0.0.1:1/net.zip", dir, &[])
        .error()
        .to_string();
    assert!(zip.contains("a .zip must be unpacked first"), "{zip}");
    let unknown = get("b99c9", dir, &[]).error().to_string();
    assert!(unknown.contains("no known net is named b99c9"), "{unknown}");
}

#[test]
fn net_info_says_what_a_refused_file_is_and_why() {
    let temp = TempDir::new("net-get-info");
    let dir = temp.path();
    let file = dir.join("no-swiglu.bin.gz");
    fs::write(&file, transformer()).unwrap();
    let run = tengen(&["info".as_ref(), file.as_ref()], dir);
    let error = run.error();
    assert!(
        error.contains(
            "this build cannot read it: a feed-forward block without SwiGLU (blocks.1) is not supported"
        ),
        "{error}"
    );
    for line in [
        "name:          synthetic-transformer-v15",
        "model version: 15",
        "trunk:         transformer 4x24",
        "blocks:        1 ordinary, 1 global pooling, 1 nested bottleneck, 3 transformer attention, 2 transformer feed-forward",
        "trunk norm:    RMSNorm",
        "known as:      none of the known nets",
    ] {
        assert!(
            run.stdout.lines().any(|l| l == line),
            "{line}\n{}",
            run.stdout
        );
    }
    let missing = tengen(&["info".as_ref(), dir.join("none.bin.gz").as_ref()], dir);
    assert!(
        missing.error().contains("No such file"),
        "{}",
        missing.stderr
    );
}
