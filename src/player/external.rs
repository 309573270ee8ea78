//! Another GTP engine (KataGo, GNU Go, Leela Zero) as a child process, kept in sync with our
//! [`Game`] incrementally: only new moves are sent; an undo or a switch to another line uses
//! the child's `undo` when it lists it, else `clear_board` and a replay.
//!
//! The child starts lazily, in the background: the first `genmove` that needs it waits for it
//! only as long as that move's budget allows. A child that hangs or dies is killed and a fresh
//! one is started in the background; after [`MAX_RESTARTS`] restarts in one game it is left
//! alone until the next game. A child that cannot be started at all is tried again at the
//! next game.

use std::collections::HashSet;
use std::fmt;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use log::{debug, info, warn};

use super::{Answer, Limits};
use crate::board::{Color, Move, Point};
use crate::clock::Clock;
use crate::game::{Game, KoRule, Rules, Scoring};
use crate::gtp::client::{Client, ClientError};

/// Restarts of a hung or crashed child allowed in one game.
pub const MAX_RESTARTS: u32 = 3;

/// How long a child may take to start and answer its handshake (KataGo loads a net first).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(120);

/// Commands that set up or sync a position: quick for any engine.
const SYNC_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the child gave no usable move.
#[derive(Debug)]
pub enum ExternalError {
    /// It is not running and will not be tried again before the next game.
    Unavailable,
    /// It is still starting.
    Starting,
    /// It could not be started (the reason, once).
    StartFailed(String),
    /// It did not answer within the move's budget.
    Timeout,
    /// It exited or broke a pipe.
    Crashed(String),
    /// It answered something that is not a legal move here.
    BadAnswer(String),
}

impl fmt::Display for ExternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalError::Unavailable => f.write_str("not available in this game"),
            ExternalError::Starting => f.write_str("still starting"),
            ExternalError::StartFailed(why) => write!(f, "cannot start: {why}"),
            ExternalError::Timeout => f.write_str("no answer in time; restarting it"),
            ExternalError::Crashed(why) => write!(f, "crashed ({why}); restarting it"),
            ExternalError::BadAnswer(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for ExternalError {}

/// A started child and what it has been told.
struct Child {
    client: Client,
    /// `name version`.
    describe: String,
    /// The commands it lists.
    commands: HashSet<String>,
    /// The position it holds, if known.
    mirror: Option<Mirror>,
    /// The last rules and time settings commands it accepted or refused.
    rules_sent: Option<String>,
    time_sent: Option<String>,
}

/// The position a child holds: set-up and moves.
#[derive(Clone, PartialEq)]
struct Mirror {
    size: usize,
    komi: f64,
    /// Stones before the first move.
    setup: Vec<(Point, Color)>,
    /// Handicap stones were placed with `set_free_handicap`.
    handicap: bool,
    moves: Vec<(Color, Move)>,
}

impl Mirror {
    /// The set-up of `game` with no moves.
    fn of(game: &Game) -> Mirror {
        let board = game.initial_board();
        let setup = board
            .points()
            .filter_map(|p| board.color_at(p).map(|c| (p, c)))
            .collect();
        Mirror {
            size: game.size(),
            komi: game.rules().komi,
            setup,
            handicap: game.handicap() > 0,
            moves: Vec::new(),
        }
    }

    /// Whether `other` starts from the same set-up.
    fn same_start(&self, other: &Mirror) -> bool {
        self.size == other.size
            && self.komi == other.komi
            && self.setup == other.setup
            && self.handicap == other.handicap
    }
}

/// Where the child is.
enum State {
    /// Not started (or killed): start it when needed.
    Idle,
    /// Starting in the background.
    Starting(Receiver<Result<Child, ClientError>>),
    /// Ready.
    Running(Box<Child>),
    /// Not to be tried again before the next game.
    Disabled,
}

/// An external engine behind a level.
pub struct ExternalEngine {
    name: String,
    command: Option<Vec<String>>,
    move_timeout: Duration,
    state: State,
    restarts: u32,
    /// The last child's `name version`, for `version`.
    describe: Option<String>,
}

impl ExternalEngine {
    /// The engine `name` run as `command` (`None` when the config names no such engine), each
    /// move bounded by `move_timeout`.
    pub fn new(name: &str, command: Option<Vec<String>>, move_timeout: Duration) -> ExternalEngine {
        ExternalEngine {
            name: name.to_string(),
            command,
            move_timeout,
            state: State::Idle,
            restarts: 0,
            describe: None,
        }
    }

    /// The engine's name in the config.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The most one move may take.
    pub fn move_timeout(&self) -> Duration {
        self.move_timeout
    }

    /// The child's `name version` once one has started.
    pub fn describe(&self) -> Option<&str> {
        self.describe.as_deref()
    }

    /// Asks the child for `color`'s move in `game`, answered by `deadline` (resigning only if
    /// `limits` allow it; the clock in `limits` is passed on).
    pub fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        deadline: Instant,
        limits: &Limits,
    ) -> Result<Answer, ExternalError> {
        if game.moves().is_empty() {
            // A new game: a child that failed gets another chance.
            self.restarts = 0;
            if matches!(self.state, State::Disabled) {
                self.state = State::Idle;
            }
        }
        let child = self.ready_child(deadline)?;
        let result = ask(child, game, color, deadline, limits);
        match &result {
            Err(ExternalError::Timeout | ExternalError::Crashed(_)) => self.restart(),
            Err(_) => {
                // The child's position is no longer known.
                if let State::Running(child) = &mut self.state {
                    child.mirror = None;
                }
            }
            Ok(_) => {}
        }
        result
    }

    /// The running child, started (or waited for) within `deadline`.
    fn ready_child(&mut self, deadline: Instant) -> Result<&mut Child, ExternalError> {
        if let State::Idle = self.state {
            let Some(command) = self.command.clone() else {
                self.state = State::Disabled;
                return Err(ExternalError::StartFailed(format!(
                    "no engine `{}` in the config",
                    self.name
                )));
            };
            self.state = State::Starting(start_in_background(command, self.name.clone()));
        }
        if let State::Starting(receiver) = &self.state {
            let wait = deadline.saturating_duration_since(Instant::now());
            match receiver.recv_timeout(wait) {
                Ok(Ok(child)) => {
                    info!("{}: started {}", self.name, child.describe);
                    self.describe = Some(child.describe.clone());
                    self.state = State::Running(Box::new(child));
                }
                Ok(Err(e)) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(e.to_string()));
                }
                Err(RecvTimeoutError::Timeout) => return Err(ExternalError::Starting),
                Err(RecvTimeoutError::Disconnected) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(
                        "the start-up thread died".into(),
                    ));
                }
            }
        }
        match &mut self.state {
            State::Running(child) => Ok(child),
            _ => Err(ExternalError::Unavailable),
        }
    }

    /// Kills the child and starts a fresh one in the background, unless this game has seen
    /// too many restarts.
    fn restart(&mut self) {
        if let State::Running(child) = &mut self.state {
            child.client.kill();
        }
        self.restarts += 1;
        self.state = match &self.command {
            Some(command) if self.restarts <= MAX_RESTARTS => {
                State::Starting(start_in_background(command.clone(), self.name.clone()))
            }
            _ => {
                warn!(
                    "{}: {} restarts in this game; not used again before the next game",
                    self.name, MAX_RESTARTS
                );
                State::Disabled
            }
        };
    }
}

/// Starts `command` and greets it on a thread of its own.
fn start_in_background(command: Vec<String>, name: String) -> Receiver<Result<Child, ClientError>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(start(&command, &name));
    });
    rx
}

/// Spawns the child and runs the handshake: `protocol_version`, `name`, `version`,
/// `list_commands`.
fn start(command: &[String], name: &str) -> Result<Child, ClientError> {
    let mut client = Client::spawn_argv(command, name)?;
    let timeout = Some(HANDSHAKE_TIMEOUT);
    let optional = |answer: Result<String, ClientError>| match answer {
        Ok(text) => Ok(text),
        Err(ClientError::Refused(_)) => Ok(String::new()),
        Err(e) => Err(e),
    };
    optional(client.send("protocol_version", timeout))?;
    let engine_name = client.send("name", timeout)?;
    let version = optional(client.send("version", timeout))?;
    let commands = optional(client.send("list_commands", timeout))?
        .lines()
        .map(|line| line.trim().to_string())
        .collect();
    Ok(Child {
        client,
        describe: format!("{} {}", engine_name.trim(), version.trim())
            .trim()
            .to_string(),
        commands,
        mirror: None,
        rules_sent: None,
        time_sent: None,
    })
}

/// Syncs `child` with `game` and asks it for `color`'s move.
fn ask(
    child: &mut Child,
    game: &Game,
    color: Color,
    deadline: Instant,
    limits: &Limits,
) -> Result<Answer, ExternalError> {
    sync(child, game).map_err(failure)?;
    pass_on_rules(child, game.rules()).map_err(failure)?;
    if let Some(clock) = &limits.clock {
        pass_on_clock(child, clock, color).map_err(failure)?;
    }
    let budget = deadline.saturating_duration_since(Instant::now());
    let word = color_word(color);
    let answer = child
        .client
        .send(&format!("genmove {word}"), Some(budget))
        .map_err(failure)?;
    let answer = answer.trim();
    if answer.eq_ignore_ascii_case("resign") {
        return if limits.may_resign {
            Ok(Answer::Resign)
        } else {
            Err(ExternalError::BadAnswer(
                "resigned where resigning is not allowed".into(),
            ))
        };
    }
    let mv = Move::parse(answer, game.size()).map_err(|_| {
        ExternalError::BadAnswer(format!("answered `{answer}`, which is not a move"))
    })?;
    // The child has played it on its board, legal or not.
    if let Some(mirror) = &mut child.mirror {
        mirror.moves.push((color, mv));
    }
    game.legality(color, mv).map_err(|why| {
        ExternalError::BadAnswer(format!(
            "answered the illegal move {} ({why})",
            mv.to_vertex(game.size())
        ))
    })?;
    Ok(Answer::Move(mv))
}

/// Tells the child the rules when they changed: `kata-set-rules` or `kgs-rules`, whichever it
/// lists (an engine that lists neither plays its own rules).
fn pass_on_rules(child: &mut Child, rules: &Rules) -> Result<(), ClientError> {
    let name = match (rules.scoring, rules.ko, rules.suicide_allowed) {
        (_, _, true) => "new_zealand",
        (Scoring::Territory, _, _) => "japanese",
        (Scoring::Area, KoRule::SituationalSuperko, _) => "aga",
        (Scoring::Area, _, _) => "chinese",
    };
    let command = if child.commands.contains("kata-set-rules") {
        let kata = if name == "new_zealand" {
            "tromp-taylor"
        } else {
            name
        };
        format!("kata-set-rules {kata}")
    } else if child.commands.contains("kgs-rules") {
        format!("kgs-rules {name}")
    } else {
        return Ok(());
    };
    send_once(child.rules_sent.as_ref(), &mut child.client, &command)?;
    child.rules_sent = Some(command);
    Ok(())
}

/// Tells the child the time system when it changed, and `color`'s time left when known.
fn pass_on_clock(child: &mut Child, clock: &Clock, color: Color) -> Result<(), ClientError> {
    let settings = clock.gtp_settings(child.commands.contains("kgs-time_settings"));
    send_once(child.time_sent.as_ref(), &mut child.client, &settings)?;
    child.time_sent = Some(settings);
    if let Some(left) = clock.gtp_time_left(color) {
        match child.client.send(&left, Some(SYNC_TIMEOUT)) {
            Ok(_) | Err(ClientError::Refused(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Sends `command` unless it is `sent` already; a refusal is no error (the engine keeps its
/// own settings).
fn send_once(sent: Option<&String>, client: &mut Client, command: &str) -> Result<(), ClientError> {
    if sent.map(String::as_str) == Some(command) {
        return Ok(());
    }
    match client.send(command, Some(SYNC_TIMEOUT)) {
        Ok(_) => Ok(()),
        Err(ClientError::Refused(why)) => {
            debug!("`{command}` refused: {why}");
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// A failed command as an [`ExternalError`].
fn failure(e: ClientError) -> ExternalError {
    match e {
        ClientError::Timeout { .. } => ExternalError::Timeout,
        ClientError::Refused(text) => {
            ExternalError::BadAnswer(format!("refused a command: {text}"))
        }
        other => ExternalError::Crashed(other.to_string()),
    }
}

/// Brings the child to `game`'s position: new moves only when it holds an earlier position of
/// the same game, `undo`s when it went down another line and lists `undo`, else a reset.
fn sync(child: &mut Child, game: &Game) -> Result<(), ClientError> {
    let wanted = Mirror::of(game);
    let timeout = Some(SYNC_TIMEOUT);
    let moves = game.moves();
    let kept = match &child.mirror {
        Some(mirror) if mirror.same_start(&wanted) => {
            let common = mirror
                .moves
                .iter()
                .zip(moves)
                .take_while(|(a, b)| a == b)
                .count();
            let extra = mirror.moves.len() - common;
            if extra == 0 {
                Some(common)
            } else if child.commands.contains("undo") {
                let undone =
                    (0..extra).try_for_each(|_| child.client.send("undo", timeout).map(drop));
                match undone {
                    Ok(()) => Some(common),
                    Err(ClientError::Refused(_)) => None,
                    Err(e) => return Err(e),
                }
            } else {
                None
            }
        }
        _ => None,
    };
    let kept = match kept {
        Some(kept) => kept,
        None => {
            child.mirror = None;
            reset(&mut child.client, &wanted)?;
            0
        }
    };
    let mut mirror = wanted;
    mirror.moves = moves[..kept].to_vec();
    child.mirror = None;
    for &(c, mv) in &moves[kept..] {
        let vertex = mv.to_vertex(game.size());
        child
            .client
            .send(&format!("play {} {vertex}", color_word(c)), timeout)?;
        mirror.moves.push((c, mv));
    }
    child.mirror = Some(mirror);
    Ok(())
}

/// A fresh board with `start`'s size, komi and set-up.
fn reset(client: &mut Client, start: &Mirror) -> Result<(), ClientError> {
    let timeout = Some(SYNC_TIMEOUT);
    client.send(&format!("boardsize {}", start.size), timeout)?;
    client.send("clear_board", timeout)?;
    client.send(&format!("komi {}", start.komi), timeout)?;
    let vertex = |p: Point| p.to_vertex(start.size);
    if start.handicap && start.setup.iter().all(|&(_, c)| c == Color::Black) {
        let points: Vec<String> = start.setup.iter().map(|&(p, _)| vertex(p)).collect();
        client.send(&format!("set_free_handicap {}", points.join(" ")), timeout)?;
    } else {
        for &(p, c) in &start.setup {
            client.send(&format!("play {} {}", color_word(c), vertex(p)), timeout)?;
        }
    }
    Ok(())
}

/// `black` or `white`.
fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::clock::TimeSystem;

    /// A GTP engine in sh that lists the rules and time commands, logs every command to
    /// `log`, and passes.
    fn logging_engine(log: &std::path::Path) -> Vec<String> {
        let script = format!(
            "while read -r id cmd rest; do echo \"$cmd $rest\" >> {}; \
             case $cmd in \
               list_commands) printf '=%s genmove\\nkata-set-rules\\nkgs-time_settings\\nundo\\n\\n' $id ;; \
               genmove) printf '=%s pass\\n\\n' $id ;; \
               name) printf '=%s logger\\n\\n' $id ;; \
               *) printf '=%s\\n\\n' $id ;; \
             esac; done",
            log.display()
        );
        vec!["sh".into(), "-c".into(), script]
    }

    #[test]
    fn rules_time_and_moves_are_passed_on_once() {
        let log = std::env::temp_dir().join(format!("tengen-external-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&log);
        let mut engine = ExternalEngine::new(
            "logger",
            Some(logging_engine(&log)),
            Duration::from_secs(20),
        );
        let mut game = Game::new(9, Rules::japanese(6.5));
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Byoyomi {
            main: 60.0,
            period: 10.0,
            periods: 5,
        });
        clock.set_left(Color::Black, 42.0, 0);
        let limits = Limits {
            may_resign: true,
            clock: Some(clock),
            ..Limits::default()
        };
        let deadline = || Instant::now() + Duration::from_secs(20);
        game.play(Color::Black, Move::parse("E5", 9).unwrap())
            .unwrap();
        let answer = engine
            .genmove(&game, Color::White, deadline(), &limits)
            .unwrap();
        assert_eq!(answer, Answer::Move(Move::Pass));
        game.play(Color::White, Move::Pass).unwrap();
        game.play(Color::Black, Move::parse("D4", 9).unwrap())
            .unwrap();
        engine
            .genmove(&game, Color::White, deadline(), &limits)
            .unwrap();
        // Another line: back to before D4, then C3.
        let mut other = Game::new(9, Rules::japanese(6.5));
        other
            .play(Color::Black, Move::parse("E5", 9).unwrap())
            .unwrap();
        other.play(Color::White, Move::Pass).unwrap();
        other
            .play(Color::Black, Move::parse("C3", 9).unwrap())
            .unwrap();
        engine
            .genmove(&other, Color::White, deadline(), &limits)
            .unwrap();
        let sent = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_file(&log);
        let lines: Vec<&str> = sent.lines().map(str::trim).collect();
        let count = |wanted: &str| lines.iter().filter(|l| **l == wanted).count();
        assert_eq!(count("kata-set-rules japanese"), 1, "{sent}");
        assert_eq!(count("kgs-time_settings byoyomi 60 10 5"), 1, "{sent}");
        assert_eq!(count("komi 6.5"), 1, "{sent}");
        assert_eq!(count("play black E5"), 1, "{sent}");
        assert_eq!(count("play black D4"), 1, "{sent}");
        // The child's own pass after D4, then D4 are taken back with undo.
        assert_eq!(count("undo"), 2, "{sent}");
        assert_eq!(count("play black C3"), 1, "{sent}");
        assert!(
            count("time_left white 0 0") == 0 && count("genmove white") == 3,
            "{sent}"
        );
    }
}
