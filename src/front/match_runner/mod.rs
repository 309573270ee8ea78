//! `tengen match`: bot-vs-bot games between two GTP engines, every move checked by tengen's own
//! [`Game`], results scored by a referee, the engines or tengen's scorer, one SGF per game, and
//! win rates with confidence intervals, Elo and an optional SPRT at the end.
//!
//! Engine A is the one given as `--black`, engine B the one given as `--white`; with
//! `--alternate` they swap colours every game. Each of the `--concurrency` workers runs its own
//! pair of engine processes (and referee), restarting an engine after it crashed or hung.

mod engine;
mod play;
mod report;
mod scoring;
pub mod stats;
pub mod time_control;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use log::warn;

use crate::engine::gtp_client::ClientError;
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::{Rules, fixed_handicap_points, max_fixed_handicap};
use crate::rules::sgf::{self, RecordInfo};
use engine::Contestant;
use play::{Ending, Fault, GameSetup, PlayedGame, play_game};
pub use report::{GameRecord, MatchReport};
use stats::Sprt;
use time_control::TimeControl;

/// Everything `tengen match` is asked to do.
pub struct MatchOptions {
    /// Engine A's command line (Black in the first game).
    pub black: String,
    /// Engine B's command line (White in the first game).
    pub white: String,
    /// Games to play (fewer when the SPRT decides first).
    pub games: usize,
    /// Board size.
    pub size: usize,
    /// Komi.
    pub komi: f64,
    /// Handicap stones for Black on the GTP spec's fixed points (0: an even game).
    pub handicap: usize,
    /// Swap colours every game.
    pub alternate: bool,
    /// Games played at once.
    pub concurrency: usize,
    /// Where to write one SGF per game.
    pub sgf_dir: Option<PathBuf>,
    /// Moves after which a game is stopped and scored (default 3·size²).
    pub max_moves: Option<usize>,
    /// A GTP engine that scores finished games with `final_score`.
    pub referee: Option<String>,
    /// An SGF file, or a directory of them, with openings to start games from.
    pub openings: Option<PathBuf>,
    /// Moves of each opening record played (after its setup stones); the rest is dropped.
    pub opening_moves: usize,
    /// The time control, if any.
    pub time: Option<TimeControl>,
    /// How long a move may take when there is no time control.
    pub move_timeout: Duration,
    /// Stop early when this SPRT decides.
    pub sprt: Option<Sprt>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Keep the games already in `sgf_dir` (`game-NNNN.sgf`) and play only the others.
    pub resume: bool,
}

/// Why a match could not be run.
#[derive(Debug)]
pub enum MatchError {
    /// An engine (or the referee) could not be started or did not answer its handshake.
    Engine {
        /// Which: `--black`, `--white` or `--referee`.
        role: &'static str,
        /// What went wrong.
        error: ClientError,
    },
    /// An opening file cannot be used.
    Opening(PathBuf, String),
    /// The SGF directory cannot be written.
    SgfDir(PathBuf, std::io::Error),
    /// A game record to resume from cannot be read.
    Record(PathBuf, String),
    /// An argument out of range.
    BadArgument(String),
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Engine { role, error } => write!(f, "{role} engine: {error}"),
            MatchError::Opening(path, why) => write!(f, "opening {}: {why}", path.display()),
            MatchError::SgfDir(path, e) => write!(f, "cannot write to {}: {e}", path.display()),
            MatchError::Record(path, why) => write!(f, "record {}: {why}", path.display()),
            MatchError::BadArgument(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for MatchError {}

/// Runs the match and returns its report.
pub fn run(options: &MatchOptions) -> Result<MatchReport, MatchError> {
    if !(crate::rules::board::MIN_SIZE..=crate::rules::board::MAX_SIZE).contains(&options.size) {
        return Err(MatchError::BadArgument(format!(
            "--size {} is not a board size tengen plays (2 to 25)",
            options.size
        )));
    }
    let handicap = handicap_points(options)?;
    let openings = load_openings(options)?;
    if let Some(dir) = &options.sgf_dir {
        std::fs::create_dir_all(dir).map_err(|e| MatchError::SgfDir(dir.clone(), e))?;
    }
    let workers = options.concurrency.clamp(1, options.games.max(1));
    // Start every process before the first game, so a wrong command fails at once.
    let mut crews = Vec::with_capacity(workers);
    for _ in 0..workers {
        crews.push(Crew::start(options)?);
    }
    let names = [crews[0].engines[0].name(), crews[0].engines[1].name()];
    let names = report::distinct_names(names);
    let mut report = MatchReport::new(options, names.clone());
    let mut finished = std::collections::HashSet::new();
    if options.resume
        && let Some(dir) = &options.sgf_dir
    {
        for record in resumed_games(dir, options)? {
            finished.insert(record.number - 1);
            report.add(record);
        }
    }
    let bar = progress_bar(options);
    bar.set_position(report.games.len() as u64);
    let next_game = AtomicUsize::new(0);
    // A resumed match whose SPRT has decided plays no more games.
    let stop = AtomicBool::new(report.sprt_decided());
    let started = Instant::now();
    thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for mut crew in crews {
            let tx = tx.clone();
            let (next_game, stop, openings, names) = (&next_game, &stop, &openings, &names);
            let handicap = &handicap;
            let finished = &finished;
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= options.games {
                        break;
                    }
                    if finished.contains(&index) {
                        continue;
                    }
                    let record = crew.play(options, index, handicap, openings, names);
                    if tx.send(record).is_err() {
                        break;
                    }
                }
                crew.quit();
            });
        }
        drop(tx);
        for record in rx {
            if let Some(dir) = &options.sgf_dir {
                let path = dir.join(format!("game-{:04}.sgf", record.number));
                if let Err(e) = std::fs::write(&path, &record.sgf) {
                    warn!("cannot write {}: {e}", path.display());
                }
            }
            report.add(record);
            bar.set_position(report.games.len() as u64);
            bar.set_message(report.running_score());
            if report.sprt_decided() {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    bar.finish_and_clear();
    report.finish(started.elapsed());
    Ok(report)
}

/// The progress bar on stderr (hidden when stderr is no terminal or progress is off).
fn progress_bar(options: &MatchOptions) -> ProgressBar {
    if !options.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(options.games as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// One worker's processes: engines A and B, and the referee if any.
struct Crew {
    engines: [Contestant; 2],
    referee: Option<Contestant>,
}

impl Crew {
    /// Starts and greets every process of a worker.
    fn start(options: &MatchOptions) -> Result<Crew, MatchError> {
        let start = |role: &'static str, command: &str| {
            Contestant::start(command, role).map_err(|error| MatchError::Engine { role, error })
        };
        let referee = match &options.referee {
            Some(command) => Some(start("--referee", command)?),
            None => None,
        };
        Ok(Crew {
            engines: [
                start("--black", &options.black)?,
                start("--white", &options.white)?,
            ],
            referee,
        })
    }

    /// Plays game `index` (from 0) and records it.
    fn play(
        &mut self,
        options: &MatchOptions,
        index: usize,
        handicap: &[Point],
        openings: &[Vec<(Color, Move)>],
        names: &[String; 2],
    ) -> GameRecord {
        // Engine A is Black in even games, and in every game without --alternate.
        let a_is_black = !options.alternate || index.is_multiple_of(2);
        let opening: &[(Color, Move)] = if openings.is_empty() {
            &[]
        } else {
            let pair = if options.alternate { index / 2 } else { index };
            &openings[pair % openings.len()]
        };
        let setup = GameSetup {
            size: options.size,
            komi: options.komi,
            handicap,
            opening,
            max_moves: options.max_moves.unwrap_or(3 * options.size * options.size),
            time: options.time,
            move_timeout: options.move_timeout,
        };
        let [a, b] = &mut self.engines;
        let (black, white) = if a_is_black { (a, b) } else { (b, a) };
        let played = match (black.client(), white.client()) {
            (Ok(black), Ok(white)) => play_game(black, white, &setup),
            (Err(error), _) => PlayedGame::forfeited(&setup, Color::Black, error),
            (_, Err(error)) => PlayedGame::forfeited(&setup, Color::White, error),
        };
        let engine_of = |c: Color| usize::from((c == Color::Black) != a_is_black);
        if let Ending::Forfeit(c, Fault::Timeout(_) | Fault::Crash(_)) = &played.ending {
            // A hung engine may never answer again, a crashed one is gone: a fresh process
            // plays the next game.
            self.engines[engine_of(*c)].stop();
        }
        let (result, how) = match &played.ending {
            Ending::Resigned(c) => (
                format!("{}+R", c.opponent().letter()),
                format!("{} resigned", color_name(*c)),
            ),
            Ending::Forfeit(c, fault) => (
                format!("{}+{}", c.opponent().letter(), fault.result_letter()),
                format!(
                    "{} ({}) lost: {}",
                    color_name(*c),
                    names[engine_of(*c)],
                    fault.describe()
                ),
            ),
            Ending::Passes | Ending::MaxMoves => {
                let [a, b] = &mut self.engines;
                let (black, white) = if a_is_black { (a, b) } else { (b, a) };
                scoring::decide(&played, self.referee.as_mut(), black, white)
            }
        };
        let how = match played.ending {
            Ending::MaxMoves => format!("stopped after {} moves; {how}", played.game.moves().len()),
            _ => how,
        };
        let (black_name, white_name) = if a_is_black {
            (&names[0], &names[1])
        } else {
            (&names[1], &names[0])
        };
        let sgf = sgf::write_record(
            &played.game,
            &RecordInfo {
                black: black_name,
                white: white_name,
                date: &sgf::today(),
                result: &result,
                rules: "Chinese",
                comment: &how,
            },
        );
        GameRecord::new(index + 1, a_is_black, &played, result, how, sgf)
    }

    /// Ends every process.
    fn quit(self) {
        for engine in self.engines.into_iter().chain(self.referee) {
            engine.quit();
        }
    }
}

impl PlayedGame {
    /// A game `c` lost before it started because its engine could not be (re)started.
    fn forfeited(setup: &GameSetup, c: Color, error: ClientError) -> PlayedGame {
        PlayedGame {
            game: setup.new_game(),
            ending: Ending::Forfeit(c, Fault::Crash(error.to_string())),
            thinking: [Duration::ZERO; 2],
            generated: [0; 2],
        }
    }
}

/// `Black` or `White`.
fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The openings' move sequences: every SGF file named, or in the directory named, by
/// `--openings`, sorted by name.
fn load_openings(options: &MatchOptions) -> Result<Vec<Vec<(Color, Move)>>, MatchError> {
    let Some(path) = &options.openings else {
        return Ok(Vec::new());
    };
    let files = if path.is_dir() {
        let entries = std::fs::read_dir(path)
            .map_err(|e| MatchError::Opening(path.clone(), e.to_string()))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(MatchError::Opening(path.clone(), "no .sgf files".into()));
        }
        files
    } else {
        vec![path.clone()]
    };
    files
        .iter()
        .map(|file| load_opening(file, options))
        .collect()
}

/// The games of an earlier run of this match found in `dir` (`game-NNNN.sgf` with a result,
/// NNNN up to `--games`).
fn resumed_games(dir: &Path, options: &MatchOptions) -> Result<Vec<GameRecord>, MatchError> {
    let entries = std::fs::read_dir(dir).map_err(|e| MatchError::SgfDir(dir.to_path_buf(), e))?;
    let mut records = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(number) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| {
                n.strip_prefix("game-")?
                    .strip_suffix(".sgf")?
                    .parse::<usize>()
                    .ok()
            })
            .filter(|n| (1..=options.games).contains(n))
        else {
            continue;
        };
        let bad = |why: String| MatchError::Record(path.clone(), why);
        let text = sgf::read_file(&path).map_err(|e| bad(e.to_string()))?;
        let (result, comment) = sgf::result_and_comment(&text).map_err(|e| bad(e.to_string()))?;
        let Some(result) = result else { continue };
        let game = sgf::load_game(&text, None, Rules::chinese(options.komi))
            .map_err(|e| bad(e.to_string()))?;
        let a_is_black = !options.alternate || (number - 1).is_multiple_of(2);
        records.push(GameRecord::resumed(
            number,
            a_is_black,
            result,
            comment.unwrap_or_default(),
            game.moves().len(),
            text,
        ));
    }
    records.sort_by_key(|r| r.number);
    Ok(records)
}

/// The handicap stones of every game: the GTP spec's fixed points for `--handicap`.
fn handicap_points(options: &MatchOptions) -> Result<Vec<Point>, MatchError> {
    if options.handicap == 0 {
        return Ok(Vec::new());
    }
    fixed_handicap_points(options.size, options.handicap).map_err(|_| {
        let (n, size) = (options.handicap, options.size);
        MatchError::BadArgument(match max_fixed_handicap(size) {
            0 => format!("--handicap {n}: {size}x{size} has no fixed handicap points"),
            max => format!("--handicap {n} is not a fixed handicap on {size}x{size} (2 to {max})"),
        })
    })
}

/// One opening's moves. The record is read no further than the opening, so a later move the
/// match's rules refuse (a suicide under other rules) does not matter.
fn load_opening(file: &Path, options: &MatchOptions) -> Result<Vec<(Color, Move)>, MatchError> {
    let bad = |why: String| MatchError::Opening(file.to_path_buf(), why);
    let stop_before = options.opening_moves.saturating_add(1);
    let game = sgf::load_file(file, Some(stop_before), Rules::chinese(options.komi))
        .map_err(|e| bad(e.to_string()))?;
    if game.size() != options.size {
        return Err(bad(format!(
            "it is a {0}x{0} game, the match is {1}x{1}",
            game.size(),
            options.size
        )));
    }
    // Setup stones are played first, Black's then White's (GTP has no setup command), then
    // the record's first moves up to its first pass: a finished record's end is not an opening.
    let board = game.initial_board();
    let setup = [Color::Black, Color::White].into_iter().flat_map(|c| {
        board
            .points()
            .filter(move |&p| board.color_at(p) == Some(c))
            .map(move |p| (c, Move::Play(p)))
    });
    let moves = game
        .moves()
        .iter()
        .copied()
        .take_while(|&(_, mv)| mv != Move::Pass)
        .take(options.opening_moves);
    Ok(setup.chain(moves).collect())
}
