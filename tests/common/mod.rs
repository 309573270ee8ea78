//! A small GTP client for integration tests: drives the real `tengen` binary (or GNU Go)
//! over pipes.
#![allow(dead_code)] // each test file uses a different part

pub mod balancer;
pub mod clients;
pub mod nets;
pub mod pg;
pub mod temp;

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A GTP engine running as a child process.
pub struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Gtp {
    /// Starts `program` with `args`, stderr discarded.
    pub fn spawn(program: &str, args: &[&str]) -> Gtp {
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        Gtp::from_child(child)
    }

    /// Takes over a child started with piped stdin and stdout.
    pub fn from_child(mut child: Child) -> Gtp {
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Gtp {
            child,
            stdin,
            stdout,
        }
    }

    /// Starts tengen at `level`.
    pub fn tengen(level: &str) -> Gtp {
        Gtp::spawn(tengen_path(), &["gtp", "--level", level])
    }

    /// Sends raw text (may hold several lines or none).
    pub fn send_raw(&mut self, text: &str) {
        self.stdin
            .write_all(text.as_bytes())
            .expect("write to engine");
        self.stdin.flush().expect("flush");
    }

    /// Reads one response: `Ok(text)` for `=`, `Err(text)` for `?`; the id is dropped.
    /// Panics if anything but a response appears on stdout.
    pub fn read_response(&mut self) -> Result<String, String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read from engine");
            assert!(n > 0, "engine closed stdout mid-response after {lines:?}");
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            if line.is_empty() {
                if lines.is_empty() {
                    panic!("empty line before a response");
                }
                break;
            }
            lines.push(line);
        }
        let first = &lines[0];
        let ok = match first.chars().next() {
            Some('=') => true,
            Some('?') => false,
            _ => panic!("not a GTP response: {lines:?}"),
        };
        let head = first[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        let mut text = head.strip_prefix(' ').unwrap_or(head).to_string();
        for l in &lines[1..] {
            text.push('\n');
            text.push_str(l);
        }
        if ok { Ok(text) } else { Err(text) }
    }

    /// Reads one raw line of output without its newline (for streamed responses).
    pub fn read_line(&mut self) -> String {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read from engine");
        assert!(n > 0, "engine closed stdout");
        line.trim_end_matches(['\n', '\r']).to_string()
    }

    /// Sends raw bytes, which need not be UTF-8.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write to engine");
        self.stdin.flush().expect("flush");
    }

    /// Sends one command and reads its response.
    pub fn send(&mut self, command: &str) -> Result<String, String> {
        self.send_raw(&format!("{command}\n"));
        self.read_response()
    }

    /// Sends a command that must succeed.
    pub fn ok(&mut self, command: &str) -> String {
        self.send(command)
            .unwrap_or_else(|e| panic!("`{command}` failed: {e}"))
    }

    /// Sends `quit` and waits for the process; returns its exit code.
    pub fn quit(mut self) -> Option<i32> {
        let _ = self.send("quit");
        self.child.wait().ok().and_then(|s| s.code())
    }

    /// Sends `quit` and waits for a process started with stderr piped; returns its exit code
    /// and everything it wrote to stderr.
    pub fn finish(mut self) -> (Option<i32>, String) {
        let _ = self.send("quit");
        let output = self.child.wait_with_output().expect("wait for engine");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// Closes stdin and waits for the process; returns its exit code.
    pub fn close(self) -> Option<i32> {
        let Gtp {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        child.wait().ok().and_then(|s| s.code())
    }
}

/// The tengen binary built for these tests.
pub fn tengen_path() -> &'static str {
    env!("CARGO_BIN_EXE_tengen")
}

/// GNU Go's path, as build.rs found it. Tests that call this carry
/// `#[cfg_attr(not(gnugo_tests), ignore = "...")]`, so they run only when GNU Go was found, or
/// when TENGEN_REQUIRE_EXTERNAL=1 asks for it: then a missing GNU Go fails them here.
pub fn gnugo() -> PathBuf {
    match option_env!("TENGEN_TEST_GNUGO") {
        Some(path) => {
            let path = PathBuf::from(path);
            assert!(
                path.is_file(),
                "{} (where build.rs found GNU Go) is gone: touch build.rs",
                path.display()
            );
            path
        }
        None => panic!("GNU Go is required (TENGEN_REQUIRE_EXTERNAL=1) but not installed"),
    }
}

/// Whether this run rewrites the recorded results it checks (the golden searches, the list of
/// known failures) instead of comparing with them: `TENGEN_BLESS=1`.
pub fn bless() -> bool {
    blesses(std::env::var_os("TENGEN_BLESS").as_deref())
}

/// Whether `TENGEN_BLESS` set to `value` rewrites: `1` only; unset, empty, `0` or anything else
/// compares.
pub fn blesses(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| v == "1")
}

/// A result as (margin for Black, komi included); `0` is a draw. Accepts `B+3`, `W+2.5`,
/// `B+3.0` (GNU Go's form) and `0`.
pub fn margin(result: &str) -> f64 {
    let result = result.trim();
    if result == "0" {
        return 0.0;
    }
    let (sign, rest) = match result.split_at(2) {
        ("B+", rest) => (1.0, rest),
        ("W+", rest) => (-1.0, rest),
        _ => panic!("not a score: {result}"),
    };
    sign * rest
        .parse::<f64>()
        .unwrap_or_else(|_| panic!("not a score: {result}"))
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    free_ports::<1>()[0]
}

/// `N` different free loopback ports: each stays bound until all are chosen, so that none
/// is picked twice.
pub fn free_ports<const N: usize>() -> [u16; N] {
    let listeners: [std::net::TcpListener; N] =
        std::array::from_fn(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap());
    listeners.map(|l| l.local_addr().unwrap().port())
}
