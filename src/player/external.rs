//! Another GTP engine (KataGo, GNU Go, Leela Zero) as a child process, kept in sync with our
//! [`Game`] incrementally: only new moves are sent; an undo or a switch to another line uses
//! the child's `undo` when it lists it, else `clear_board` and a replay.
//!
//! One deadline per move: the move's, `min(move_timeout, clock - reserve)`
//! ([`ExternalEngine::deadline`]). Starting the child, its handshake, syncing the position and
//! `genmove` all fit inside it; what does not is the fallback's move.
//!
//! The child starts lazily, in the background: the first `genmove` that needs it waits for it
//! only as long as that move's deadline allows. A start that misses that deadline goes on in
//! the background, but no later move waits for it: each takes the child up once it is ready
//! (and asks it when at least half the move's time is left), the fallback plays until then.
//! A handshake not finished within [`HANDSHAKE_TIMEOUT`] fails the start: the child is killed
//! and left alone until the next game. A child that hangs or dies is killed and a fresh one
//! started in the background; after [`MAX_RESTARTS`] restarts in one game it is left alone
//! until the next game. A new game is noticed whoever moves first (see
//! [`starts_new_game`]).
//!
//! With `avoid_early_pass`, a pass that answers the opponent's pass while dame or ataris are
//! left is taken back and the child is asked once more, for its analysed candidates
//! (see [`early_pass`]).

pub mod early_pass;

use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use log::{debug, info, warn};

use super::{AnalysisRequest, Answer, Budget, Player, PlayerError, Progress, Update};
use crate::board::{Color, Move, Point};
use crate::game::clock::Clock;
use crate::game::{Game, KoRule, Rules, Scoring};
use crate::gtp_client::{Client, ClientError, Greeting, HANDSHAKE_TIMEOUT, Killer, excerpt};

/// Restarts of a hung or crashed child allowed in one game.
pub const MAX_RESTARTS: u32 = 3;

/// How long a child may take to end an analysis stream once asked.
const STREAM_END_GRACE: Duration = Duration::from_secs(5);

/// Commands that set up or sync a position: quick for any engine. Each is bounded by this
/// and by the move's deadline; a sync for analysis (no move's deadline) by this in all.
const SYNC_TIMEOUT: Duration = Duration::from_secs(10);

/// Below this much time left, `genmove` is not sent (no engine answers that fast, and a child
/// that times out is restarted).
const MIN_ASK: Duration = Duration::from_millis(50);

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
    /// The move's time ran out before it could be asked (it is kept for the next move).
    OutOfTime,
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
            ExternalError::OutOfTime => f.write_str("no time left in this move to ask it"),
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

/// A child spawned and being greeted on a thread of its own.
struct Starting {
    /// The greeted child, or why it failed.
    receiver: Receiver<Result<Child, ClientError>>,
    /// Kills the child when the start is given up (until the child is taken over).
    killer: Option<Killer>,
    /// A move has waited for it until its deadline: later ones do not wait.
    waited: bool,
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(killer) = self.killer.take() {
            killer.kill();
        }
    }
}

/// Where the child is.
enum State {
    /// Not started (or killed): start it when needed.
    Idle,
    /// Starting in the background.
    Starting(Starting),
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
    /// Whether a pass that would end the game too early is reconsidered.
    avoid_early_pass: bool,
    /// The game of the last `genmove` (to notice a new one).
    seen: Option<Mirror>,
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
            avoid_early_pass: true,
            seen: None,
        }
    }

    /// This engine with `avoid_early_pass` on or off (on by default): when the opponent has
    /// just passed and the child passes too while tengen's scorer sees dame or a living
    /// string in atari, the child's pass is taken back and its best non-pass candidate from
    /// `kata-genmove_analyze` or `lz-genmove_analyze` is played (one retry per move; a child
    /// with neither command keeps its pass).
    pub fn with_avoid_early_pass(mut self, on: bool) -> ExternalEngine {
        self.avoid_early_pass = on;
        self
    }

    /// When a move is due: the budget's deadline or the move timeout, whichever comes first.
    fn deadline(&self, budget: &Budget) -> Instant {
        let timeout = Instant::now() + self.move_timeout;
        budget.deadline.map_or(timeout, |d| d.min(timeout))
    }

    /// Notes the game of a `genmove`; at a new game a child that failed gets another chance.
    fn note_game(&mut self, game: &Game) {
        if starts_new_game(self.seen.as_ref(), game) {
            self.restarts = 0;
            if matches!(self.state, State::Disabled) {
                debug!("{}: a new game; trying the engine again", self.name);
                self.state = State::Idle;
            }
        }
        let mut seen = Mirror::of(game);
        seen.moves = game.moves().to_vec();
        self.seen = Some(seen);
    }

    /// Asks the child for `color`'s move in `game`, answered by `deadline` (resigning only if
    /// `budget` allows it; the clock in `budget` is passed on).
    fn ask_move(
        &mut self,
        game: &Game,
        color: Color,
        deadline: Instant,
        budget: &Budget,
    ) -> Result<Answer, ExternalError> {
        let avoid_early_pass = self.avoid_early_pass;
        let starting = !matches!(self.state, State::Running(_));
        let span = deadline.saturating_duration_since(Instant::now());
        let child = self.ready_child(deadline)?;
        if starting && deadline.saturating_duration_since(Instant::now()) < span / 2 {
            // Ready late in this move: asking it now would likely time out and kill it.
            return Err(ExternalError::OutOfTime);
        }
        let result = ask(child, game, color, deadline, budget).and_then(|answer| {
            let opponent_passed = game.moves().last() == Some(&(color.opponent(), Move::Pass));
            if avoid_early_pass && opponent_passed && answer == Answer::Move(Move::Pass) {
                reconsider_pass(child, game, color, deadline)
            } else {
                Ok(answer)
            }
        });
        self.after_answer(&result);
        result
    }

    /// Streams the analysis command `line` (named `name`, e.g. `kata-analyze b 50`) from the
    /// child on `game`'s position, each line to `out`, until `stop` is set. False when no
    /// running child lists `name`, or it refused before saying anything: then tengen's own
    /// search answers.
    fn stream_analysis(
        &mut self,
        game: &Game,
        name: &str,
        line: &str,
        stop: &AtomicBool,
        out: &mut dyn FnMut(&str) -> bool,
    ) -> bool {
        let Ok(child) = self.ready_child(Instant::now()) else {
            return false;
        };
        if !child.commands.contains(name) {
            return false;
        }
        match sync(child, game, Instant::now() + SYNC_TIMEOUT) {
            Ok(()) => {}
            Err(e @ ClientError::Expired { .. }) => {
                warn!("{}: cannot sync for analysis: {e}", self.name);
                return false;
            }
            Err(e) => {
                warn!(
                    "{}: cannot sync for analysis: {e}; restarting it",
                    self.name
                );
                self.restart();
                return false;
            }
        }
        let mut forwarded = false;
        let result = child
            .client
            .send_streaming(line, stop, STREAM_END_GRACE, None, &mut |text| {
                forwarded = true;
                out(text)
            });
        match result {
            Ok(()) => true,
            Err(ClientError::Refused(why)) => {
                debug!("{}: `{line}` refused: {why}", self.name);
                forwarded
            }
            Err(e) => {
                warn!("{}: analysis failed: {e}; restarting it", self.name);
                self.restart();
                forwarded
            }
        }
    }

    /// Like [`ExternalEngine::ask_move`], through the child's genmove-analyze command `line`
    /// (named `name`) with its analysis lines streamed to `out`; `None` when no running child
    /// lists `name`.
    fn ask_move_streamed(
        &mut self,
        game: &Game,
        color: Color,
        (name, line): (&str, &str),
        deadline: Instant,
        budget: &Budget,
        out: &mut dyn FnMut(&str) -> bool,
    ) -> Option<Result<Answer, ExternalError>> {
        let child = self.ready_child(Instant::now()).ok()?;
        if !child.commands.contains(name) {
            return None;
        }
        let result = ask_streamed(child, game, color, line, deadline, budget, out);
        self.after_answer(&result);
        Some(result)
    }

    /// Restarts a hung or crashed child; forgets the position of one that answered nonsense.
    fn after_answer(&mut self, result: &Result<Answer, ExternalError>) {
        match result {
            Err(ExternalError::Timeout | ExternalError::Crashed(_)) => self.restart(),
            // What it holds is known: the sync keeps its mirror move by move.
            Err(ExternalError::OutOfTime) => {}
            Err(_) => {
                if let State::Running(child) = &mut self.state {
                    child.mirror = None;
                }
            }
            Ok(_) => {}
        }
    }

    /// The running child, started (or waited for) within `deadline`. Only the first move
    /// of a start waits for it; later ones only look whether it is ready.
    fn ready_child(&mut self, deadline: Instant) -> Result<&mut Child, ExternalError> {
        if let State::Idle = self.state {
            let Some(command) = &self.command else {
                self.state = State::Disabled;
                return Err(ExternalError::StartFailed(format!(
                    "no engine `{}` in the config",
                    self.name
                )));
            };
            match start_in_background(command, &self.name) {
                Ok(starting) => self.state = State::Starting(starting),
                Err(e) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(e.to_string()));
                }
            }
        }
        if let State::Starting(starting) = &mut self.state {
            let wait = if starting.waited {
                Duration::ZERO
            } else {
                deadline.saturating_duration_since(Instant::now())
            };
            match starting.receiver.recv_timeout(wait) {
                Ok(Ok(child)) => {
                    starting.killer = None;
                    info!("{}: started {}", self.name, child.describe);
                    self.describe = Some(child.describe.clone());
                    self.state = State::Running(Box::new(child));
                }
                Ok(Err(e)) => {
                    self.state = State::Disabled;
                    return Err(ExternalError::StartFailed(e.to_string()));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if !wait.is_zero() {
                        starting.waited = true;
                        warn!(
                            "{}: not ready by the move's deadline; the fallback plays until it \
                             is (it may take {} s to start)",
                            self.name,
                            HANDSHAKE_TIMEOUT.as_secs()
                        );
                    }
                    return Err(ExternalError::Starting);
                }
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
                match start_in_background(command, &self.name) {
                    Ok(starting) => State::Starting(starting),
                    Err(e) => {
                        warn!("{}: cannot start it again: {e}", self.name);
                        State::Disabled
                    }
                }
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

/// Whether `game` is another game than `seen`, the game of the last `genmove`, so that a
/// child that failed gets another chance: an empty game, another board or set-up, or a game
/// of one move that does not continue `seen` (the opponent moved first: `clear_board`, `play b
/// E5`, `genmove w`). Taking back every move but the first and playing another counts too.
fn starts_new_game(seen: Option<&Mirror>, game: &Game) -> bool {
    let Some(seen) = seen else {
        return true;
    };
    let now = Mirror::of(game);
    let moves = game.moves();
    moves.is_empty()
        || now.size != seen.size
        || now.setup != seen.setup
        || now.handicap != seen.handicap
        || (moves.len() == 1 && !moves.starts_with(&seen.moves))
}

/// Spawns `command` and greets it on a thread of its own, the whole handshake within
/// [`HANDSHAKE_TIMEOUT`] (after it the child is killed and the start fails).
fn start_in_background(command: &[String], name: &str) -> Result<Starting, ClientError> {
    let mut client = Client::spawn_argv(command, name)?;
    let killer = client.killer();
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    let (tx, receiver) = mpsc::channel();
    thread::spawn(move || {
        let started = match client.greet_by(deadline) {
            Ok(Greeting { describe, commands }) => Ok(Child {
                client,
                describe,
                commands,
                mirror: None,
                rules_sent: None,
                time_sent: None,
            }),
            Err(e) => Err(e),
        };
        let _ = tx.send(started);
    });
    Ok(Starting {
        receiver,
        killer: Some(killer),
        waited: false,
    })
}

impl Player for ExternalEngine {
    /// The child's move, due by the budget's deadline or the move timeout, whichever comes
    /// first; through the genmove-analyze command `progress` asks for when the child lists
    /// it, its analysis lines passed on verbatim.
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError> {
        let deadline = self.deadline(budget);
        self.note_game(game);
        let streamed = match progress.command() {
            Some((name, line)) if progress.listening() => {
                let (name, line) = (name.to_string(), line.to_string());
                self.ask_move_streamed(game, color, (&name, &line), deadline, budget, &mut |text| {
                    progress.update(Update::Line(text))
                })
            }
            _ => None,
        };
        let result = match streamed {
            Some(result) => result,
            None => self.ask_move(game, color, deadline, budget),
        };
        result.map_err(|error| PlayerError::Engine {
            name: self.name.clone(),
            error,
        })
    }

    /// The child's own answer to the analysis command `progress` asks for, passed on
    /// verbatim, when the child lists it; else [`PlayerError::CannotAnalyze`].
    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        progress: &mut dyn Progress,
    ) -> Result<(), PlayerError> {
        let Some((name, line)) = progress.command() else {
            return Err(PlayerError::CannotAnalyze);
        };
        let (name, line) = (name.to_string(), line.to_string());
        let never = AtomicBool::new(false);
        let stop = request.budget.stop.as_deref().unwrap_or(&never);
        let streamed = self.stream_analysis(game, &name, &line, stop, &mut |text| {
            progress.update(Update::Line(text))
        });
        if streamed {
            Ok(())
        } else {
            Err(PlayerError::CannotAnalyze)
        }
    }

    fn describe(&self) -> Option<String> {
        self.describe.clone()
    }
}

/// Syncs `child` with `game` and asks it for `color`'s move, all by `deadline`.
fn ask(
    child: &mut Child,
    game: &Game,
    color: Color,
    deadline: Instant,
    budget: &Budget,
) -> Result<Answer, ExternalError> {
    prepare(child, game, color, deadline, budget)?;
    let answer = child
        .client
        .send_by(&format!("genmove {color}"), deadline)
        .map_err(failure)?;
    accept(child, game, color, &answer, budget.may_resign)
}

/// Sends the genmove-analyze command `line` to `child`, streams its analysis lines to `out`
/// and takes its final `play X` as the answer.
fn ask_streamed(
    child: &mut Child,
    game: &Game,
    color: Color,
    line: &str,
    deadline: Instant,
    budget: &Budget,
    out: &mut dyn FnMut(&str) -> bool,
) -> Result<Answer, ExternalError> {
    prepare(child, game, color, deadline, budget)?;
    let mut played = None;
    let never = AtomicBool::new(false);
    child
        .client
        .send_streaming(
            line,
            &never,
            STREAM_END_GRACE,
            Some(deadline),
            &mut |text| {
                match text.trim().strip_prefix("play ") {
                    Some(answer) => played = Some(answer.trim().to_string()),
                    None => {
                        out(text);
                    }
                }
                true
            },
        )
        .map_err(failure)?;
    let answer =
        played.ok_or_else(|| ExternalError::BadAnswer(format!("`{line}` ended without `play`")))?;
    accept(child, game, color, &answer, budget.may_resign)
}

/// Brings `child` to `game`'s position, rules and clock by `deadline`, with time left to ask
/// it for a move.
fn prepare(
    child: &mut Child,
    game: &Game,
    color: Color,
    deadline: Instant,
    budget: &Budget,
) -> Result<(), ExternalError> {
    sync(child, game, deadline).map_err(failure)?;
    pass_on_rules(child, game.rules(), deadline).map_err(failure)?;
    if let Some(clock) = &budget.clock {
        pass_on_clock(child, clock, color, deadline).map_err(failure)?;
    }
    if deadline.saturating_duration_since(Instant::now()) < MIN_ASK {
        return Err(ExternalError::OutOfTime);
    }
    Ok(())
}

/// Checks a move the child answered (and has played on its board).
fn accept(
    child: &mut Child,
    game: &Game,
    color: Color,
    answer: &str,
    may_resign: bool,
) -> Result<Answer, ExternalError> {
    let answer = answer.trim();
    if answer.eq_ignore_ascii_case("resign") {
        return if may_resign {
            Ok(Answer::Resign)
        } else {
            Err(ExternalError::BadAnswer(
                "resigned where resigning is not allowed".into(),
            ))
        };
    }
    let mv = Move::parse(answer, game.size()).map_err(|_| {
        ExternalError::BadAnswer(format!(
            "answered `{}`, which is not a move",
            excerpt(answer)
        ))
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

/// The child passed after the opponent's pass: unless the game is settled or the child has no
/// analysis command, takes its pass back and asks once more for its candidates, and answers
/// the best legal non-pass one (a pass when there is none).
fn reconsider_pass(
    child: &mut Child,
    game: &Game,
    color: Color,
    deadline: Instant,
) -> Result<Answer, ExternalError> {
    let pass = Ok(Answer::Move(Move::Pass));
    let Some(command) = ["kata-genmove_analyze", "lz-genmove_analyze"]
        .into_iter()
        .find(|c| child.commands.contains(*c))
    else {
        return pass;
    };
    let open = early_pass::open_points(game, color);
    if open.is_empty() {
        return pass;
    }
    let size = game.size();
    info!(
        "{}: passed with {} point(s) still open ({}); asking again",
        child.client.label(),
        open.len(),
        open.iter()
            .take(5)
            .map(|p| p.to_vertex(size))
            .collect::<Vec<_>>()
            .join(" ")
    );
    // The child has played its pass: syncing with `game` takes it back.
    match sync(child, game, deadline) {
        Ok(()) => {}
        // No time to ask again: the pass stands (the next sync plays it again).
        Err(ClientError::Expired { .. }) => return pass,
        Err(e) => return Err(failure(e)),
    }
    // KataGo can leave pass out of the search altogether.
    let avoid = if command.starts_with("kata-") {
        format!(" avoid {color} pass 1")
    } else {
        String::new()
    };
    if deadline.saturating_duration_since(Instant::now()) < MIN_ASK {
        return pass;
    }
    let request = format!(
        "{command} {color} {}{avoid}",
        early_pass::REPORT_INTERVAL_CS
    );
    // Streamed, keeping only the last report and the move: a long think is many reports.
    let (mut report, mut played) = (String::new(), String::new());
    let never = AtomicBool::new(false);
    let answered = child.client.send_streaming(
        &request,
        &never,
        STREAM_END_GRACE,
        Some(deadline),
        &mut |line| {
            let line = line.trim();
            if line.starts_with("play ") {
                played = line.to_string();
            } else if line.starts_with("info ") {
                report = line.to_string();
            }
            true
        },
    );
    match answered {
        Ok(()) => {}
        Err(ClientError::Refused(why)) => {
            debug!("`{request}` refused: {}; keeping the pass", excerpt(&why));
            return pass;
        }
        Err(e) => return Err(failure(e)),
    }
    let analysis = early_pass::Analysis::parse(&format!("{report}\n{played}"), size);
    match (&mut child.mirror, analysis.played) {
        (Some(mirror), Some(played)) => mirror.moves.push((color, played)),
        // What it played is not known: reset it before the next move.
        _ => child.mirror = None,
    }
    Ok(Answer::Move(
        analysis.best_non_pass(game, color).unwrap_or(Move::Pass),
    ))
}

/// Tells the child the rules when they changed: `kata-set-rules` or `kgs-rules`, whichever it
/// lists (an engine that lists neither plays its own rules).
fn pass_on_rules(child: &mut Child, rules: &Rules, deadline: Instant) -> Result<(), ClientError> {
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
    send_once(
        child.rules_sent.as_ref(),
        &mut child.client,
        &command,
        deadline,
    )?;
    child.rules_sent = Some(command);
    Ok(())
}

/// Tells the child the time system when it changed, and `color`'s time left when known.
fn pass_on_clock(
    child: &mut Child,
    clock: &Clock,
    color: Color,
    deadline: Instant,
) -> Result<(), ClientError> {
    let settings = clock.gtp_settings(child.commands.contains("kgs-time_settings"));
    send_once(
        child.time_sent.as_ref(),
        &mut child.client,
        &settings,
        deadline,
    )?;
    child.time_sent = Some(settings);
    if let Some(left) = clock.gtp_time_left(color) {
        match quick(&mut child.client, &left, deadline) {
            Ok(_) | Err(ClientError::Refused(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Sends `command` unless it is `sent` already; a refusal is no error (the engine keeps its
/// own settings).
fn send_once(
    sent: Option<&String>,
    client: &mut Client,
    command: &str,
    deadline: Instant,
) -> Result<(), ClientError> {
    if sent.map(String::as_str) == Some(command) {
        return Ok(());
    }
    match quick(client, command, deadline) {
        Ok(_) => Ok(()),
        Err(ClientError::Refused(why)) => {
            debug!("`{command}` refused: {}", excerpt(&why));
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Sends a set-up command that any engine answers at once: within [`SYNC_TIMEOUT`] and by
/// `deadline`.
fn quick(client: &mut Client, command: &str, deadline: Instant) -> Result<String, ClientError> {
    client.send_by(command, deadline.min(Instant::now() + SYNC_TIMEOUT))
}

/// A failed command as an [`ExternalError`].
fn failure(e: ClientError) -> ExternalError {
    match e {
        ClientError::Timeout { .. } => ExternalError::Timeout,
        ClientError::Expired { .. } => ExternalError::OutOfTime,
        ClientError::Refused(text) => {
            ExternalError::BadAnswer(format!("refused a command: {}", excerpt(&text)))
        }
        garbled @ ClientError::Garbled { .. } => ExternalError::BadAnswer(garbled.to_string()),
        other => ExternalError::Crashed(other.to_string()),
    }
}

/// Brings the child to `game`'s position by `deadline`: new moves only when it holds an
/// earlier position of the same game, `undo`s when it went down another line and lists `undo`,
/// else a reset. The mirror follows each command answered, so a sync cut short by the
/// deadline goes on from there next time.
fn sync(child: &mut Child, game: &Game, deadline: Instant) -> Result<(), ClientError> {
    let wanted = Mirror::of(game);
    let moves = game.moves();
    let kept = match &mut child.mirror {
        Some(mirror) if mirror.same_start(&wanted) => {
            let common = mirror
                .moves
                .iter()
                .zip(moves)
                .take_while(|(a, b)| a == b)
                .count();
            if mirror.moves.len() == common {
                Some(common)
            } else if child.commands.contains("undo") {
                let mut undone = Ok(());
                while mirror.moves.len() > common {
                    undone = quick(&mut child.client, "undo", deadline).map(drop);
                    if undone.is_err() {
                        break;
                    }
                    mirror.moves.pop();
                }
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
            reset(&mut child.client, &wanted, deadline)?;
            child.mirror = Some(wanted);
            0
        }
    };
    for &(c, mv) in &moves[kept..] {
        let vertex = mv.to_vertex(game.size());
        match quick(&mut child.client, &format!("play {c} {vertex}"), deadline) {
            Ok(_) => {
                if let Some(mirror) = &mut child.mirror {
                    mirror.moves.push((c, mv));
                }
            }
            Err(e) => {
                if !matches!(e, ClientError::Expired { .. }) {
                    // Whether it played the move is not known.
                    child.mirror = None;
                }
                return Err(e);
            }
        }
    }
    Ok(())
}

/// A fresh board with `start`'s size, komi and set-up, by `deadline`.
fn reset(client: &mut Client, start: &Mirror, deadline: Instant) -> Result<(), ClientError> {
    quick(client, &format!("boardsize {}", start.size), deadline)?;
    quick(client, "clear_board", deadline)?;
    quick(client, &format!("komi {}", start.komi), deadline)?;
    let vertex = |p: Point| p.to_vertex(start.size);
    if start.handicap && start.setup.iter().all(|&(_, c)| c == Color::Black) {
        let points: Vec<String> = start.setup.iter().map(|&(p, _)| vertex(p)).collect();
        quick(
            client,
            &format!("set_free_handicap {}", points.join(" ")),
            deadline,
        )?;
    } else {
        for &(p, c) in &start.setup {
            quick(client, &format!("play {c} {}", vertex(p)), deadline)?;
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::game::clock::TimeSystem;
    use crate::player::Silent;

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

    /// Like [`logging_engine`], listing `kata-genmove_analyze` when `analyze`, which reports
    /// pass first and E5, D4 (occupied) and a garbled candidate after it, then plays pass.
    fn analysing_engine(log: &std::path::Path, analyze: bool) -> Vec<String> {
        let listed = if analyze {
            "kata-genmove_analyze\\n"
        } else {
            ""
        };
        let script = format!(
            "while read -r id cmd rest; do echo \"$cmd $rest\" >> {}; \
             case $cmd in \
               list_commands) printf '=%s genmove\\n{listed}undo\\n\\n' $id ;; \
               genmove) printf '=%s pass\\n\\n' $id ;; \
               kata-genmove_analyze) printf '=%s\\ninfo move pass visits 9 pv pass\\n\
info move pass visits 30 order 0 pv pass info move D4 visits 5 order 1 pv D4 \
info move E5 visits 4 order 2 pv E5 info move Q99 visits 8 pv Q99\\nplay pass\\n\\n' $id ;; \
               *) printf '=%s\\n\\n' $id ;; \
             esac; done",
            log.display()
        );
        vec!["sh".into(), "-c".into(), script]
    }

    /// A 9x9 game with a dame at E5 (or none when `filled`), where Black has just passed.
    fn game_after_black_passed(filled: bool) -> Game {
        let e5 = if filled { 'X' } else { '.' };
        let row5 = format!("...X{e5}O...");
        let mut game = Game::from_rows(
            &[
                "...XO....",
                "...XO....",
                "...XO....",
                "...XO....",
                &row5,
                "...XO....",
                "...XO....",
                "...XO....",
                "...XO....",
            ],
            Rules::default(),
        );
        game.play(Color::Black, Move::Pass).unwrap();
        game
    }

    /// White's answer after Black's pass and the commands the child was sent.
    fn answer_to_pass(analyze: bool, filled: bool, avoid: bool) -> (Answer, Vec<String>) {
        let log = std::env::temp_dir().join(format!(
            "tengen-early-pass-{}-{analyze}-{filled}-{avoid}.log",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&log);
        let mut engine = ExternalEngine::new(
            "analyser",
            Some(analysing_engine(&log, analyze)),
            Duration::from_secs(20),
        )
        .with_avoid_early_pass(avoid);
        let game = game_after_black_passed(filled);
        let budget = Budget {
            deadline: Some(Instant::now() + Duration::from_secs(20)),
            ..Budget::default()
        };
        let answer = engine
            .genmove(&game, Color::White, &budget, &mut Silent)
            .unwrap();
        let sent = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        (answer, sent.lines().map(|l| l.trim().to_string()).collect())
    }

    #[test]
    fn an_early_pass_is_taken_back_and_the_best_candidate_played() {
        let (answer, sent) = answer_to_pass(true, false, true);
        assert_eq!(
            answer,
            Answer::Move(Move::parse("E5", 9).unwrap()),
            "{sent:?}"
        );
        let genmove = sent.iter().position(|l| l == "genmove white");
        let undo = sent.iter().rposition(|l| l == "undo");
        let analyze = sent
            .iter()
            .position(|l| l == "kata-genmove_analyze white 10 avoid white pass 1");
        assert!(
            genmove < undo && undo < analyze && genmove.is_some(),
            "{sent:?}"
        );
    }

    #[test]
    fn a_pass_stands_when_settled_without_analysis_or_when_switched_off() {
        for (analyze, filled, avoid) in [
            (true, true, true),
            (false, false, true),
            (true, false, false),
        ] {
            let (answer, sent) = answer_to_pass(analyze, filled, avoid);
            assert_eq!(
                answer,
                Answer::Move(Move::Pass),
                "{analyze} {filled} {avoid}"
            );
            assert!(
                !sent
                    .iter()
                    .any(|l| l.starts_with("kata-genmove_analyze") || l == "undo"),
                "{sent:?}"
            );
        }
    }

    #[test]
    fn a_new_game_is_noticed_whoever_moves_first() {
        let game = |moves: &[&str]| {
            let mut game = Game::new(9, Rules::default());
            for (i, mv) in moves.iter().enumerate() {
                let c = if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                game.play(c, Move::parse(mv, 9).unwrap()).unwrap();
            }
            game
        };
        let seen = |moves: &[&str]| {
            let g = game(moves);
            let mut mirror = Mirror::of(&g);
            mirror.moves = g.moves().to_vec();
            mirror
        };
        let long = seen(&["E5", "C3", "G7", "D4"]);
        // Tengen moves first, or second after the opponent's first move.
        assert!(starts_new_game(Some(&long), &game(&[])));
        assert!(starts_new_game(Some(&long), &game(&["E5"])));
        assert!(starts_new_game(Some(&seen(&["C3"])), &game(&["E5"])));
        assert!(starts_new_game(None, &game(&["E5", "C3"])));
        assert!(starts_new_game(
            Some(&long),
            &Game::new(13, Rules::default())
        ));
        // The same game going on (tengen played E5 and is asked for White's move too), or
        // taken back a few moves.
        assert!(!starts_new_game(Some(&seen(&[])), &game(&["E5"])));
        assert!(!starts_new_game(Some(&seen(&["E5"])), &game(&["E5"])));
        assert!(!starts_new_game(
            Some(&seen(&["E5"])),
            &game(&["E5", "C3", "G7"])
        ));
        assert!(!starts_new_game(Some(&long), &game(&["E5", "C3"])));
        assert!(!starts_new_game(
            Some(&long),
            &game(&["E5", "C3", "G7", "D4", "F6"])
        ));
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
        let budget = || Budget {
            deadline: Some(Instant::now() + Duration::from_secs(20)),
            may_resign: true,
            clock: Some(clock),
            ..Budget::default()
        };
        game.play(Color::Black, Move::parse("E5", 9).unwrap())
            .unwrap();
        let answer = engine
            .genmove(&game, Color::White, &budget(), &mut Silent)
            .unwrap();
        assert_eq!(answer, Answer::Move(Move::Pass));
        game.play(Color::White, Move::Pass).unwrap();
        game.play(Color::Black, Move::parse("D4", 9).unwrap())
            .unwrap();
        engine
            .genmove(&game, Color::White, &budget(), &mut Silent)
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
            .genmove(&other, Color::White, &budget(), &mut Silent)
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
