//! The [`Player`] protocol on the child: its moves (plain or streamed through its
//! genmove-analyze command) and its analysis, each after bringing it to our position, rules
//! and clock; an early pass reconsidered (see [`early_pass`]).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use log::{debug, info, warn};

use super::child::{Child, State};
use super::{ExternalEngine, ExternalError, early_pass};
use crate::engine::gtp_client::settings::TimeCommands;
use crate::engine::gtp_client::sync::{Limits, Start, SyncError};
use crate::engine::gtp_client::{Client, ClientError, excerpt, settings};
use crate::engine::player::{
    AnalysisRequest, Answer, Budget, Player, PlayerError, Progress, Update,
};
use crate::rules::board::{Color, Move};
use crate::rules::game::clock::Clock;
use crate::rules::game::{Game, Rules};

/// How long a child may take to end an analysis stream once asked.
const STREAM_END_GRACE: Duration = Duration::from_secs(5);

/// Commands that set up or sync a position: quick for any engine. Each is bounded by this
/// and by the move's deadline; a sync for analysis (no move's deadline) by this in all.
const SYNC_TIMEOUT: Duration = Duration::from_secs(10);

/// Below this much time left, `genmove` is not sent (no engine answers that fast, and a child
/// that times out is restarted).
const MIN_ASK: Duration = Duration::from_millis(50);

impl ExternalEngine {
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
            Err(
                e @ SyncError::Failed {
                    error: ClientError::Expired { .. },
                    ..
                },
            ) => {
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
    sync(child, game, deadline).map_err(sync_failure)?;
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
    child.mirror.played(color, mv);
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
        Err(SyncError::Failed {
            error: ClientError::Expired { .. },
            ..
        }) => return pass,
        Err(e) => return Err(sync_failure(e)),
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
    match analysis.played {
        Some(played) => child.mirror.played(color, played),
        // What it played is not known: reset it before the next move.
        None => child.mirror.forget(),
    }
    Ok(Answer::Move(
        analysis.best_non_pass(game, color).unwrap_or(Move::Pass),
    ))
}

/// Tells the child the rules when they changed, in the command it lists for them (an engine
/// that lists none plays its own rules).
fn pass_on_rules(child: &mut Child, rules: &Rules, deadline: Instant) -> Result<(), ClientError> {
    match settings::rules(rules, &child.commands) {
        Some(command) => send_once(&mut child.client, &mut child.rules_sent, command, deadline),
        None => Ok(()),
    }
}

/// Tells the child the time system when it changed, and `color`'s time left when known.
fn pass_on_clock(
    child: &mut Child,
    clock: &Clock,
    color: Color,
    deadline: Instant,
) -> Result<(), ClientError> {
    let takes = TimeCommands::listed(&child.commands);
    let command = settings::time_settings(clock.system(), takes);
    send_once(&mut child.client, &mut child.time_sent, command, deadline)?;
    if let Some((seconds, count)) = clock.recorded_left(color) {
        let left = settings::time_left(clock.system(), takes, color, seconds, count);
        match within(deadline).send(&mut child.client, &left) {
            Ok(_) | Err(ClientError::Refused(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Sends `command` unless it is the one `sent` last, and notes it as sent; a refusal is no
/// error (the engine keeps its own settings).
fn send_once(
    client: &mut Client,
    sent: &mut Option<String>,
    command: String,
    deadline: Instant,
) -> Result<(), ClientError> {
    if sent.as_ref() == Some(&command) {
        return Ok(());
    }
    match within(deadline).send(client, &command) {
        Ok(_) => {}
        Err(ClientError::Refused(why)) => debug!("`{command}` refused: {}", excerpt(&why)),
        Err(e) => return Err(e),
    }
    *sent = Some(command);
    Ok(())
}

/// The limits of a set-up command, which any engine answers at once: [`SYNC_TIMEOUT`], and
/// `deadline`.
fn within(deadline: Instant) -> Limits {
    Limits {
        each: SYNC_TIMEOUT,
        by: Some(deadline),
    }
}

/// Brings the child to `game`'s position by `deadline`.
fn sync(child: &mut Child, game: &Game, deadline: Instant) -> Result<(), SyncError> {
    child.mirror.sync(
        &mut child.client,
        &Start::of(game),
        game.moves(),
        within(deadline),
    )
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

/// A failed sync as an [`ExternalError`].
fn sync_failure(e: SyncError) -> ExternalError {
    match e {
        SyncError::Failed {
            command,
            error: ClientError::Refused(text),
        } => ExternalError::BadAnswer(format!("refused `{command}`: {}", excerpt(&text))),
        SyncError::Failed { error, .. } => failure(error),
        misplaced @ SyncError::Misplaced { .. } => ExternalError::BadAnswer(misplaced.to_string()),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::engine::player::Silent;
    use crate::engine::player::external::early_pass::tests::walls;
    use crate::rules::game::Rules;
    use crate::rules::game::clock::TimeSystem;

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
        let mut game = walls(if filled { 'X' } else { '.' }, 'O');
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
