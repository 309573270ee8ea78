//! Driving a GTP engine that runs as a child process: spawn it, send a command, read its
//! response with a timeout, notice when it dies, and kill it.
//!
//! One thread reads the child's stdout and turns it into responses on a channel; another drains
//! its stderr into our log, each line prefixed with the engine's label. Commands carry ids, so
//! a response that arrives after its command timed out is recognised and dropped instead of
//! being taken for the answer to the next command. Lines on stdout outside a response are logged
//! and skipped.

use std::collections::HashSet;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use log::{debug, warn};

/// The longest stdout line kept from a child; longer ones are cut (a runaway engine cannot make
/// us hold gigabytes).
const MAX_LINE: u64 = 1 << 20;

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
            ClientError::Refused(text) => write!(f, "engine answered `? {text}`"),
            ClientError::Timeout { command, after } => {
                write!(
                    f,
                    "no answer to `{command}` within {:.1} s",
                    after.as_secs_f64()
                )
            }
            ClientError::Gone { command } => write!(f, "engine exited (while sending `{command}`)"),
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
#[derive(Debug)]
struct Response {
    /// The echoed id, if any.
    id: Option<u64>,
    /// `=` or `?`.
    success: bool,
    /// The text after the status and id, lines joined with `\n`.
    text: String,
}

/// A GTP engine running as a child process.
pub struct Client {
    label: String,
    child: Child,
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
        let (tx, responses) = mpsc::channel();
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
            child,
            stdin,
            responses,
            next_id: 1,
        })
    }

    /// The label given at start.
    pub fn label(&self) -> &str {
        &self.label
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
                    let left = deadline.saturating_duration_since(Instant::now());
                    match self.responses.recv_timeout(left) {
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
        matches!(self.child.try_wait(), Ok(None))
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
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How long a program may take to start and answer its handshake (a net-based engine such as
/// KataGo loads its weights first).
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
    /// The handshake: `protocol_version`, `name`, `version`, `list_commands`, each within
    /// [`HANDSHAKE_TIMEOUT`]. Only `name` must be answered (some engines speak an older GTP).
    pub fn greet(&mut self) -> Result<Greeting, ClientError> {
        let timeout = Some(HANDSHAKE_TIMEOUT);
        let optional = |answer: Result<String, ClientError>| match answer {
            Ok(text) => Ok(text),
            Err(ClientError::Refused(_)) => Ok(String::new()),
            Err(e) => Err(e),
        };
        optional(self.send("protocol_version", timeout))?;
        let name = self.send("name", timeout)?;
        let version = optional(self.send("version", timeout))?;
        let commands = optional(self.send("list_commands", timeout))?
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
        if self.is_running() {
            self.kill();
        } else {
            let _ = self.child.wait();
        }
    }
}

/// Reads GTP responses from `stdout` and hands each line and each whole response to
/// `deliver` until the stream ends or `deliver` returns false.
fn read_responses(stdout: impl Read, label: &str, mut deliver: impl FnMut(Event) -> bool) {
    let mut reader = BufReader::new(stdout);
    let mut current: Option<Response> = None;
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if raw.last() != Some(&b'\n') && raw.len() as u64 == MAX_LINE {
            // Skip the rest of an overlong line.
            let mut rest = Vec::new();
            let _ = reader.read_until(b'\n', &mut rest);
        }
        let line = String::from_utf8_lossy(&raw);
        let line = line.trim_end_matches(['\n', '\r']);
        match current.as_mut() {
            None if line.trim().is_empty() => {}
            None => match parse_status_line(line) {
                Some(response) => {
                    if !response.text.is_empty() {
                        let (id, text) = (response.id, response.text.clone());
                        if !deliver(Event::Line { id, text }) {
                            return;
                        }
                    }
                    current = Some(response);
                }
                None => warn!("{label}: ignoring stdout line outside a response: {line}"),
            },
            Some(_) if line.trim().is_empty() => {
                if let Some(response) = current.take()
                    && !deliver(Event::Done(response))
                {
                    return;
                }
            }
            Some(response) => {
                response.text.push('\n');
                response.text.push_str(line);
                let (id, text) = (response.id, line.to_string());
                if !deliver(Event::Line { id, text }) {
                    return;
                }
            }
        }
    }
    // A last response cut off by EOF still counts.
    if let Some(response) = current {
        deliver(Event::Done(response));
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
    Some(Response { id, success, text })
}

/// Logs each stderr line of a child, prefixed with its label.
fn drain_stderr(stderr: impl Read, label: &str) {
    let reader = BufReader::new(stderr);
    for line in reader.split(b'\n') {
        let Ok(line) = line else { break };
        debug!("{label}: {}", String::from_utf8_lossy(&line).trim_end());
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
