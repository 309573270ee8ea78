//! Driving a GTP engine that runs as a child process: spawn it, send a command, read its
//! response with a timeout, notice when it dies, and kill it.
//!
//! One thread reads the child's stdout and turns it into responses on a channel; another drains
//! its stderr into our log, each line prefixed with the engine's label. Commands carry ids, so
//! a response that arrives after its command timed out is recognised and dropped instead of
//! being taken for the answer to the next command. Lines on stdout outside a response are logged
//! and skipped (one warning per response says how many).
//!
//! Nothing a child writes is held without bound: a line is read up to [`MAX_LINE`] bytes, a
//! response's text up to [`MAX_RESPONSE_LINES`] lines and [`MAX_RESPONSE_BYTES`] bytes (lines
//! outside a response count towards the next one), and the reader hands at most a few lines
//! ahead to the client (beyond that the child waits on its pipe). A response over a limit is
//! [`ClientError::Garbled`]; the rest of it is read and dropped.
//!
//! [`sync`] keeps an engine's board in step with a game; [`settings`] is the GTP text of the
//! rules and the clock that an engine is told.

pub mod settings;
pub mod sync;

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use log::{debug, warn};

use crate::ground::lines::read_bounded;

/// The longest line read from a child; a response with a longer line is garbled (and the
/// line is never held whole: a runaway engine cannot make us hold gigabytes).
pub const MAX_LINE: usize = 1 << 20;

/// The most lines a response (with the stray lines before it) may have. `list_commands` of
/// the engines we know has a few hundred; a streamed analysis is not bounded by this, only
/// its lines are.
pub const MAX_RESPONSE_LINES: usize = 10_000;

/// The most bytes a response (with the stray lines before it) may have.
pub const MAX_RESPONSE_BYTES: usize = 4 << 20;

/// How many lines the stdout reader may have handed on that the client has not taken yet
/// (with [`MAX_LINE`], the most memory a child's output can hold in the queue).
const QUEUE: usize = 16;

/// The longest excerpt of a child's text quoted in a log line or an error.
const EXCERPT: usize = 100;

/// How often a stream looks at its stop flag while no line arrives.
const STREAM_POLL: Duration = Duration::from_millis(5);

/// How long [`Client::quit`] waits for the child to exit by itself before killing it.
const QUIT_GRACE: Duration = Duration::from_secs(2);

/// Why a command to a child engine got no answer.
#[derive(Debug)]
pub enum ClientError {
    /// The command line is empty or its quoting is broken.
    BadCommandLine(String),
    /// The program could not be started (missing binary, no permission, ...).
    Spawn {
        /// The program as given.
        program: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// The engine answered `?` with this text.
    Refused(String),
    /// No response within the time allowed.
    Timeout {
        /// The command that got no answer.
        command: String,
        /// How long we waited.
        after: Duration,
    },
    /// The engine closed its stdout or could not be written to: it has exited or crashed.
    Gone {
        /// The command that was being sent.
        command: String,
    },
    /// The answer broke a limit on its size ([`MAX_LINE`], [`MAX_RESPONSE_LINES`],
    /// [`MAX_RESPONSE_BYTES`]); it was read and dropped.
    Garbled {
        /// The command answered.
        command: String,
        /// Which limit, in words.
        why: String,
    },
    /// The deadline had passed before the command was sent (it was not sent).
    Expired {
        /// The command not sent.
        command: String,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::BadCommandLine(line) => {
                write!(f, "cannot parse the command line `{line}`")
            }
            ClientError::Spawn { program, source } => {
                write!(f, "cannot start `{program}`: {source}")
            }
            ClientError::Refused(text) => write!(f, "engine answered `? {}`", excerpt(text)),
            ClientError::Timeout { command, after } => {
                write!(
                    f,
                    "no answer to `{command}` within {:.1} s",
                    after.as_secs_f64()
                )
            }
            ClientError::Gone { command } => write!(f, "engine exited (while sending `{command}`)"),
            ClientError::Garbled { command, why } => write!(f, "answered `{command}` with {why}"),
            ClientError::Expired { command } => {
                write!(f, "no time left to send `{command}`")
            }
        }
    }
}

impl std::error::Error for ClientError {}

/// What the stdout reader passes on: each line of a response as it arrives (for streaming
/// commands), then the whole response.
#[derive(Debug)]
enum Event {
    /// A line of the response being read (the status line's text, if any, then the rest).
    Line { id: Option<u64>, text: String },
    /// A complete response.
    Done(Response),
}

/// One response read from the child.
#[derive(Debug, Default)]
struct Response {
    /// The echoed id, if any.
    id: Option<u64>,
    /// `=` or `?`.
    success: bool,
    /// The text after the status and id, lines joined with `\n` (cut at the limits).
    text: String,
    /// Lines and bytes read for it so far, stray lines before it included.
    lines: usize,
    bytes: usize,
    /// The stray lines (outside a response) before it.
    stray: usize,
    /// It had a line longer than [`MAX_LINE`] (not handed on as an [`Event::Line`]).
    long_line: bool,
    /// It broke [`MAX_RESPONSE_LINES`] or [`MAX_RESPONSE_BYTES`] (its text is cut).
    too_long: bool,
}

impl Response {
    /// Why a whole response is not to be believed, if it is not.
    fn garbled(&self) -> Option<String> {
        let limit = if self.long_line {
            format!("a line longer than {} KiB", MAX_LINE >> 10)
        } else if self.too_long {
            format!(
                "more than {MAX_RESPONSE_LINES} lines or {} KiB",
                MAX_RESPONSE_BYTES >> 10
            )
        } else {
            return None;
        };
        Some(match self.stray {
            0 => limit,
            n => format!("{limit} (with the {n} stdout lines outside a response before it)"),
        })
    }
}

/// A handle that kills a child process from any thread (the one greeting it may be waiting).
#[derive(Clone)]
pub struct Killer(Arc<Mutex<std::process::Child>>);

impl Killer {
    fn lock(&self) -> MutexGuard<'_, std::process::Child> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Kills the process unless it has exited already, and reaps it.
    pub fn kill(&self) {
        let mut child = self.lock();
        if matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
        }
        let _ = child.wait();
    }

    /// Whether the process is still running.
    fn is_running(&self) -> bool {
        matches!(self.lock().try_wait(), Ok(None))
    }
}

/// A GTP engine running as a child process.
pub struct Client {
    label: String,
    child: Killer,
    stdin: Option<ChildStdin>,
    responses: Receiver<Event>,
    next_id: u64,
}

impl Client {
    /// Starts the engine `command_line` (a program and its arguments, split as a POSIX shell
    /// would, without running a shell). `label` prefixes its stderr lines in our log.
    pub fn spawn(command_line: &str, label: &str) -> Result<Client, ClientError> {
        let argv = shell_words::split(command_line)
            .map_err(|_| ClientError::BadCommandLine(command_line.to_string()))?;
        Client::spawn_argv(&argv, label)
    }

    /// Starts the engine `argv[0]` with the arguments `argv[1..]`.
    pub fn spawn_argv(argv: &[String], label: &str) -> Result<Client, ClientError> {
        Client::start(argv, label, None)
    }

    /// Like [`Client::spawn_argv`], with `dir` as the engine's working directory (so relative
    /// paths it is sent, as in `loadsgf`, are read from there).
    pub fn spawn_argv_in(argv: &[String], label: &str, dir: &Path) -> Result<Client, ClientError> {
        Client::start(argv, label, Some(dir))
    }

    fn start(argv: &[String], label: &str, dir: Option<&Path>) -> Result<Client, ClientError> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| ClientError::BadCommandLine(String::new()))?;
        let mut command = Command::new(program);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ClientError::Spawn {
                program: program.clone(),
                source,
            })?;
        let stdin = child.stdin.take();
        let (tx, responses) = mpsc::sync_channel(QUEUE);
        if let Some(stdout) = child.stdout.take() {
            let label = label.to_string();
            thread::spawn(move || read_responses(stdout, &label, |r| tx.send(r).is_ok()));
        }
        if let Some(stderr) = child.stderr.take() {
            let label = label.to_string();
            thread::spawn(move || drain_stderr(stderr, &label));
        }
        Ok(Client {
            label: label.to_string(),
            child: Killer(Arc::new(Mutex::new(child))),
            stdin,
            responses,
            next_id: 1,
        })
    }

    /// The label given at start.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// A handle that kills this child from elsewhere (while another thread greets it).
    pub fn killer(&self) -> Killer {
        self.child.clone()
    }

    /// Like [`Client::send`], answered by `deadline`: a deadline already past sends nothing
    /// and is [`ClientError::Expired`].
    pub fn send_by(&mut self, command: &str, deadline: Instant) -> Result<String, ClientError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ClientError::Expired {
                command: command.to_string(),
            });
        }
        self.send(command, Some(left))
    }

    /// Sends `command` (one line, without id) and waits for its response, at most `timeout`
    /// when given: `Ok(text)` for `=`, [`ClientError::Refused`] for `?`.
    pub fn send(
        &mut self,
        command: &str,
        timeout: Option<Duration>,
    ) -> Result<String, ClientError> {
        let id = self.write_command(command)?;
        let gone = || ClientError::Gone {
            command: command.to_string(),
        };
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let event = match deadline {
                None => self.responses.recv().map_err(|_| gone())?,
                Some(deadline) => {
                    // Checked before each event: a child that writes without end must not
                    // keep us past the deadline.
                    let left = deadline.saturating_duration_since(Instant::now());
                    let event = if left.is_zero() {
                        Err(RecvTimeoutError::Timeout)
                    } else {
                        self.responses.recv_timeout(left)
                    };
                    match event {
                        Ok(event) => event,
                        Err(RecvTimeoutError::Timeout) => {
                            return Err(ClientError::Timeout {
                                command: command.to_string(),
                                after: timeout.unwrap_or_default(),
                            });
                        }
                        Err(RecvTimeoutError::Disconnected) => return Err(gone()),
                    }
                }
            };
            let Event::Done(response) = event else {
                continue;
            };
            match response.id {
                Some(other) if other != id => {
                    debug!(
                        "{}: dropping a late response to command {other}",
                        self.label
                    );
                }
                _ if response.long_line || response.too_long => {
                    return Err(ClientError::Garbled {
                        command: command.to_string(),
                        why: response.garbled().unwrap_or_default(),
                    });
                }
                _ if response.success => return Ok(response.text),
                _ => return Err(ClientError::Refused(response.text)),
            }
        }
    }

    /// Sends a streaming command (`kata-analyze b 50`) and hands each line of its response to
    /// `on_line` as it arrives, until `stop` is set (or `on_line` returns false): then a bare
    /// newline asks the child to end the stream, and the rest of the response is read. Fails
    /// when the child refuses the command, exits, does not end the stream within `grace` of
    /// being asked, or has not finished by `deadline`.
    pub fn send_streaming(
        &mut self,
        command: &str,
        stop: &AtomicBool,
        grace: Duration,
        deadline: Option<Instant>,
        on_line: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(), ClientError> {
        let id = self.write_command(command)?;
        let gone = || ClientError::Gone {
            command: command.to_string(),
        };
        let mut asked_to_end: Option<Instant> = None;
        let mut forwarding = true;
        loop {
            if asked_to_end.is_none() && (stop.load(Ordering::Relaxed) || !forwarding) {
                let stdin = self.stdin.as_mut().ok_or_else(gone)?;
                writeln!(stdin)
                    .and_then(|()| stdin.flush())
                    .map_err(|_| gone())?;
                asked_to_end = Some(Instant::now());
            }
            if asked_to_end.is_some_and(|at| at.elapsed() > grace)
                || deadline.is_some_and(|d| Instant::now() > d)
            {
                return Err(ClientError::Timeout {
                    command: command.to_string(),
                    after: grace,
                });
            }
            match self.responses.recv_timeout(STREAM_POLL) {
                Ok(Event::Line { id: line_id, text }) if line_id.is_none_or(|l| l == id) => {
                    if forwarding && asked_to_end.is_none() {
                        forwarding = on_line(&text);
                    }
                }
                Ok(Event::Line { .. }) => {}
                Ok(Event::Done(response)) => match response.id {
                    Some(other) if other != id => {}
                    // A stream is as long as it runs; only its lines are bounded.
                    _ if response.long_line => {
                        return Err(ClientError::Garbled {
                            command: command.to_string(),
                            why: response.garbled().unwrap_or_default(),
                        });
                    }
                    _ if response.success => return Ok(()),
                    _ => return Err(ClientError::Refused(response.text)),
                },
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(gone()),
            }
        }
    }

    /// Writes `command` with the next id and returns the id.
    fn write_command(&mut self, command: &str) -> Result<u64, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let gone = || ClientError::Gone {
            command: command.to_string(),
        };
        let stdin = self.stdin.as_mut().ok_or_else(gone)?;
        writeln!(stdin, "{id} {command}")
            .and_then(|()| stdin.flush())
            .map_err(|_| gone())?;
        Ok(id)
    }

    /// Whether the child is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.is_running()
    }

    /// Sends `quit`, waits briefly for the child to exit, and kills it if it does not.
    pub fn quit(mut self) {
        let _ = self.send("quit", Some(QUIT_GRACE));
        self.stdin = None;
        let until = Instant::now() + QUIT_GRACE;
        while Instant::now() < until {
            if !self.is_running() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        // Drop kills it.
    }

    /// Kills the child at once and reaps it.
    pub fn kill(&mut self) {
        self.stdin = None;
        self.child.kill();
    }
}

/// How long a program may take to start and answer its whole handshake (a net-based engine
/// such as KataGo loads its weights first).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(120);

/// What a program said about itself in the handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Greeting {
    /// `name version` as it gave them.
    pub describe: String,
    /// The commands it lists (empty when it has no `list_commands`).
    pub commands: HashSet<String>,
}

impl Client {
    /// The handshake: `protocol_version`, `name`, `version`, `list_commands`, all within
    /// [`HANDSHAKE_TIMEOUT`]. Only `name` must be answered (some engines speak an older GTP).
    pub fn greet(&mut self) -> Result<Greeting, ClientError> {
        self.greet_by(Instant::now() + HANDSHAKE_TIMEOUT)
    }

    /// [`Client::greet`], finished by `deadline`.
    pub fn greet_by(&mut self, deadline: Instant) -> Result<Greeting, ClientError> {
        let optional = |answer: Result<String, ClientError>| match answer {
            Ok(text) => Ok(text),
            Err(ClientError::Refused(_)) => Ok(String::new()),
            Err(e) => Err(e),
        };
        optional(self.send_by("protocol_version", deadline))?;
        let name = self.send_by("name", deadline)?;
        let version = optional(self.send_by("version", deadline))?;
        let commands = optional(self.send_by("list_commands", deadline))?
            .lines()
            .map(|line| line.trim().to_string())
            .filter(|line| !line.is_empty())
            .collect();
        Ok(Greeting {
            describe: format!("{} {}", name.trim(), version.trim())
                .trim()
                .to_string(),
            commands,
        })
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads GTP responses from `stdout` and hands each line and each whole response to
/// `deliver` until the stream ends or `deliver` returns false. Lines outside a response are
/// skipped, counted towards the next response's limits, and reported in one warning then.
fn read_responses(stdout: impl Read, label: &str, mut deliver: impl FnMut(Event) -> bool) {
    let mut reader = BufReader::new(stdout);
    let mut current: Option<Response> = None;
    // The stray lines since the last response: how many, their bytes, the first one.
    let mut stray = Response::default();
    let mut first_stray = String::new();
    let mut raw = Vec::new();
    while let Ok(Some(long_line)) = read_bounded(&mut reader, &mut raw, MAX_LINE) {
        let line = String::from_utf8_lossy(&raw);
        let line = line.trim_end_matches(['\n', '\r']);
        match current.as_mut() {
            None if line.trim().is_empty() && !long_line => {}
            None => match parse_status_line(line) {
                Some(mut response) => {
                    response.lines = stray.lines + 1;
                    response.bytes = stray.bytes + raw.len();
                    response.stray = stray.lines;
                    response.long_line = stray.long_line || long_line;
                    response.too_long =
                        response.lines > MAX_RESPONSE_LINES || response.bytes > MAX_RESPONSE_BYTES;
                    if response.long_line || response.too_long {
                        // Its error says it all.
                        response.text.clear();
                    } else {
                        report_stray(label, &stray, &first_stray);
                    }
                    stray = Response::default();
                    if !response.text.is_empty() && !long_line {
                        let (id, text) = (response.id, response.text.clone());
                        if !deliver(Event::Line { id, text }) {
                            return;
                        }
                    }
                    current = Some(response);
                }
                None => {
                    if stray.lines == 0 {
                        first_stray = excerpt(line).into_owned();
                    }
                    debug!("{label}: stdout line outside a response: {}", excerpt(line));
                    stray.lines += 1;
                    stray.bytes += raw.len();
                    stray.long_line |= long_line;
                }
            },
            Some(_) if line.trim().is_empty() && !long_line => {
                if let Some(response) = current.take()
                    && !deliver(Event::Done(response))
                {
                    return;
                }
            }
            Some(response) => {
                response.lines += 1;
                response.bytes += raw.len();
                response.long_line |= long_line;
                response.too_long |=
                    response.lines > MAX_RESPONSE_LINES || response.bytes > MAX_RESPONSE_BYTES;
                if !response.too_long && !response.long_line {
                    response.text.push('\n');
                    response.text.push_str(line);
                }
                if !long_line {
                    let (id, text) = (response.id, line.to_string());
                    if !deliver(Event::Line { id, text }) {
                        return;
                    }
                }
            }
        }
    }
    report_stray(label, &stray, &first_stray);
    // A last response cut off by EOF still counts.
    if let Some(response) = current {
        deliver(Event::Done(response));
    }
}

/// One warning for the `stray` lines seen outside a response, if any.
fn report_stray(label: &str, stray: &Response, first: &str) {
    match stray.lines {
        0 => {}
        1 => warn!("{label}: ignored a stdout line outside a response: {first}"),
        n => warn!(
            "{label}: ignored {n} stdout lines ({} bytes) outside a response; the first: {first}",
            stray.bytes
        ),
    }
}

/// The start of `text` for a log line: its first line, at most [`EXCERPT`] characters.
pub fn excerpt(text: &str) -> Cow<'_, str> {
    let text = text.trim();
    let first = text.lines().next().unwrap_or("");
    match first.char_indices().nth(EXCERPT) {
        None if first.len() == text.len() => Cow::Borrowed(first),
        None => Cow::Owned(format!("{} …", first.trim_end())),
        Some((cut, _)) => Cow::Owned(format!("{} …", &first[..cut])),
    }
}

/// Parses the first line of a response: `=`/`?`, an optional id, the text.
fn parse_status_line(line: &str) -> Option<Response> {
    let success = match line.as_bytes().first()? {
        b'=' => true,
        b'?' => false,
        _ => return None,
    };
    let rest = &line[1..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let id = rest[..digits].parse().ok();
    let text = rest[digits..].trim().to_string();
    Some(Response {
        id,
        success,
        text,
        ..Response::default()
    })
}

/// Logs each stderr line of a child (at most [`MAX_LINE`] bytes of it) at debug level,
/// prefixed with its label.
pub fn drain_stderr(stderr: impl Read, label: &str) {
    let mut reader = BufReader::new(stderr);
    let mut raw = Vec::new();
    while let Ok(Some(_)) = read_bounded(&mut reader, &mut raw, MAX_LINE) {
        debug!("{label}: {}", String::from_utf8_lossy(&raw).trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(stdout: &str) -> Vec<(Option<u64>, bool, String)> {
        let mut out = Vec::new();
        read_responses(stdout.as_bytes(), "test", |event| {
            if let Event::Done(r) = event {
                out.push((r.id, r.success, r.text));
            }
            true
        });
        out
    }

    #[test]
    fn responses_keep_ids_status_and_all_their_lines() {
        let got = parse("=1 D4\n\n?2 illegal move\n\n= \nA\nB\n\nnoise\n=\n\n");
        assert_eq!(
            got,
            vec![
                (Some(1), true, "D4".to_string()),
                (Some(2), false, "illegal move".to_string()),
                (None, true, "\nA\nB".to_string()),
                (None, true, String::new()),
            ]
        );
    }

    #[test]
    fn a_response_cut_off_by_eof_is_delivered() {
        assert_eq!(
            parse("=7 pass\n"),
            vec![(Some(7), true, "pass".to_string())]
        );
    }

    fn parse_full(stdout: &[u8]) -> Vec<Response> {
        let mut out = Vec::new();
        read_responses(stdout, "test", |event| {
            if let Event::Done(r) = event {
                out.push(r);
            }
            true
        });
        out
    }

    #[test]
    fn an_overlong_line_is_skipped_whole_and_garbles_its_response() {
        let mut stdout = b"=1 ".to_vec();
        stdout.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        stdout.extend(b"\nmore\n\n=2 D4\n\n");
        let got = parse_full(&stdout);
        assert_eq!(got.len(), 2);
        assert!(
            got[0].long_line && got[0].text.len() < MAX_LINE,
            "{:?}",
            got[0].id
        );
        assert!(got[0].garbled().unwrap().contains("line longer"));
        assert_eq!((got[1].id, got[1].text.as_str()), (Some(2), "D4"));
        assert!(got[1].garbled().is_none());
    }

    #[test]
    fn too_many_lines_garble_a_response_stray_lines_before_it_included() {
        let mut long = "=1\n".to_string();
        for _ in 0..MAX_RESPONSE_LINES + 5 {
            long.push_str("line\n");
        }
        long.push_str("\n=2 ok\n\n");
        let got = parse_full(long.as_bytes());
        assert!(got[0].too_long && got[0].text.lines().count() <= MAX_RESPONSE_LINES);
        assert!(got[1].garbled().is_none());
        let mut stray = "noise\n".repeat(MAX_RESPONSE_LINES);
        stray.push_str("=3 pass\n\n=4 pass\n\n");
        let got = parse_full(stray.as_bytes());
        let why = got[0].garbled().unwrap();
        assert!(
            why.contains(&format!("{MAX_RESPONSE_LINES} stdout lines")),
            "{why}"
        );
        assert!(got[1].garbled().is_none(), "the count starts again");
        // A few stray lines are only logged.
        let got = parse_full(b"noise\nnoise\n=5 pass\n\n");
        assert_eq!((got[0].text.as_str(), got[0].stray), ("pass", 2));
        assert!(got[0].garbled().is_none());
    }

    #[test]
    fn excerpts_are_one_short_line() {
        assert_eq!(excerpt("  pass \n"), "pass");
        assert_eq!(excerpt("a\nb"), "a …");
        let long = "é".repeat(3 * EXCERPT);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT + 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_writes_without_end_does_not_hold_send_past_its_deadline() {
        let mut client = shell("read line; exec yes 'no GTP at all'");
        let started = Instant::now();
        let answer = client.send("genmove b", Some(Duration::from_millis(300)));
        assert!(
            matches!(answer, Err(ClientError::Timeout { .. })),
            "{answer:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(matches!(
            client.send_by("name", Instant::now()),
            Err(ClientError::Expired { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_killer_stops_a_child_another_thread_is_waiting_on() {
        let mut client = shell("exec sleep 60");
        let killer = client.killer();
        let waiting = thread::spawn(move || client.greet());
        thread::sleep(Duration::from_millis(100));
        killer.kill();
        let greeted = waiting.join().unwrap();
        assert!(
            matches!(greeted, Err(ClientError::Gone { .. })),
            "{greeted:?}"
        );
        assert!(!killer.is_running());
    }

    #[cfg(unix)]
    fn shell(script: &str) -> Client {
        Client::spawn_argv(&["sh".into(), "-c".into(), script.into()], "sh").unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn a_late_answer_is_not_taken_for_the_next_one() {
        // Answers every command, echoing its id, but only after the second one arrives.
        let mut client = shell(
            "read a; read b; set -- $a; x=$1; set -- $b; y=$1; \
             printf '=%s first\\n\\n=%s second\\n\\n' $x $y; sleep 5",
        );
        let first = client.send("one", Some(Duration::from_millis(100)));
        assert!(
            matches!(first, Err(ClientError::Timeout { .. })),
            "{first:?}"
        );
        assert_eq!(
            client.send("two", Some(Duration::from_secs(5))).unwrap(),
            "second"
        );
        client.kill();
        assert!(!client.is_running());
    }

    #[cfg(unix)]
    #[test]
    fn a_dead_engine_is_reported_not_waited_for() {
        let mut client = shell("exit 0");
        let answer = client.send("name", Some(Duration::from_secs(10)));
        assert!(
            matches!(answer, Err(ClientError::Gone { .. })),
            "{answer:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_stream_is_forwarded_line_by_line_and_ended_with_a_newline() {
        // Streams two lines, waits for the bare newline, then one more line and the end.
        let mut client = shell(
            "read id cmd rest; printf '=%s\\ninfo a\\ninfo b\\n' $id; read nl; \
             printf 'info c\\n\\n'; read id2 cmd2; printf '=%s ok\\n\\n' $id2",
        );
        let stop = AtomicBool::new(false);
        let mut seen = Vec::new();
        client
            .send_streaming(
                "kata-analyze b 10",
                &stop,
                Duration::from_secs(5),
                None,
                &mut |line| {
                    seen.push(line.to_string());
                    if seen.len() == 2 {
                        stop.store(true, Ordering::Relaxed);
                    }
                    true
                },
            )
            .unwrap();
        assert_eq!(seen, ["info a", "info b"]);
        assert_eq!(
            client.send("name", Some(Duration::from_secs(5))).unwrap(),
            "ok"
        );
    }

    #[test]
    fn a_missing_program_and_bad_quoting_are_errors() {
        assert!(matches!(
            Client::spawn("/no/such/engine --mode gtp", "x"),
            Err(ClientError::Spawn { .. })
        ));
        assert!(matches!(
            Client::spawn("gnugo \"unclosed", "x"),
            Err(ClientError::BadCommandLine(_))
        ));
        assert!(matches!(
            Client::spawn("   ", "x"),
            Err(ClientError::BadCommandLine(_))
        ));
    }
}
