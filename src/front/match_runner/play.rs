//! One game between two GTP engines, every move checked by tengen's own [`Game`].

use std::time::{Duration, Instant};

use log::{debug, warn};
use serde::Serialize;

use super::time_control::{MatchClock, TimeControl};
use crate::engine::gtp_client::settings::TimeCommands;
use crate::engine::gtp_client::sync::{Limits, Mirror, Placement, Start, SyncError};
use crate::engine::gtp_client::{Client, ClientError, settings};
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::{Game, Rules};

/// How a game is set up.
pub struct GameSetup<'a> {
    /// Board size.
    pub size: usize,
    /// Komi.
    pub komi: f64,
    /// Black's handicap stones (none in an even game); White moves first after them.
    pub handicap: &'a [Point],
    /// Moves both engines are given before the game starts.
    pub opening: &'a [(Color, Move)],
    /// Moves after which the game stops and is scored.
    pub max_moves: usize,
    /// The time control, if any.
    pub time: Option<TimeControl>,
    /// How long a move may take without a time control.
    pub move_timeout: Duration,
}

impl GameSetup<'_> {
    /// The game before the first move: the board, the rules and the handicap stones.
    pub fn new_game(&self) -> Game {
        let mut game = Game::new(self.size, Rules::chinese(self.komi));
        if !self.handicap.is_empty() && game.set_handicap(self.handicap).is_err() {
            warn!("the handicap stones do not fit the board; the game is even");
        }
        game
    }
}

/// Why an engine lost a game without playing it out.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Fault {
    /// It answered an illegal or unreadable move, or refused a command it must accept.
    Illegal(String),
    /// It ran out of time or did not answer in time.
    Timeout(String),
    /// It exited.
    Crash(String),
}

impl Fault {
    /// From a failed command.
    fn from_error(error: &ClientError) -> Fault {
        match error {
            ClientError::Timeout { .. } => Fault::Timeout(error.to_string()),
            ClientError::Refused(_) | ClientError::Garbled { .. } => {
                Fault::Illegal(error.to_string())
            }
            _ => Fault::Crash(error.to_string()),
        }
    }

    /// From a failed sync: a refused move is a legal one refused.
    fn from_sync(error: &SyncError) -> Fault {
        match error {
            SyncError::Failed {
                command,
                error: ClientError::Refused(why),
            } if command.starts_with("play ") => {
                Fault::Illegal(format!("refused the legal move `{command}`: {why}"))
            }
            SyncError::Failed { error, .. } => Fault::from_error(error),
            misplaced @ SyncError::Misplaced { .. } => Fault::Illegal(misplaced.to_string()),
        }
    }

    /// The SGF result letter after `+`: `T` for time, `F` for a forfeit.
    pub fn result_letter(&self) -> char {
        match self {
            Fault::Timeout(_) => 'T',
            _ => 'F',
        }
    }

    /// What happened, in words.
    pub fn describe(&self) -> &str {
        match self {
            Fault::Illegal(why) | Fault::Timeout(why) | Fault::Crash(why) => why,
        }
    }
}

/// How a game stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// Two passes in a row.
    Passes,
    /// The move cap was reached.
    MaxMoves,
    /// This colour resigned.
    Resigned(Color),
    /// This colour's engine lost by a fault.
    Forfeit(Color, Fault),
}

/// A game as played.
pub struct PlayedGame {
    /// The moves, opening included.
    pub game: Game,
    /// How it stopped.
    pub ending: Ending,
    /// Thinking time per colour (Black, White), over the moves it generated.
    pub thinking: [Duration; 2],
    /// Moves each colour generated (Black, White).
    pub generated: [usize; 2],
}

/// Plays one game: `black` and `white` are the two engines (already started).
pub fn play_game(black: &mut Client, white: &mut Client, setup: &GameSetup) -> PlayedGame {
    let mut played = PlayedGame {
        game: setup.new_game(),
        ending: Ending::Passes,
        thinking: [Duration::ZERO; 2],
        generated: [0; 2],
    };
    let engines = [black, white];
    // The handicap stones with `fixed_handicap`: each engine must place the spec's points.
    let start = Start {
        placement: Placement::FixedHandicap,
        ..Start::of(&played.game)
    };
    let mut mirrors = [Mirror::new(false), Mirror::new(false)];
    let mut takes = [TimeCommands::default(); 2];
    for c in [Color::Black, Color::White] {
        let (engine, mirror) = (&mut *engines[c.index()], &mut mirrors[c.index()]);
        match prepare(engine, mirror, &start, setup) {
            Ok(commands) => takes[c.index()] = commands,
            Err(fault) => {
                played.ending = Ending::Forfeit(c, fault);
                return played;
            }
        }
    }
    for &(c, mv) in setup.opening {
        if played.game.play(c, mv).is_err() {
            warn!(
                "opening move {} is illegal; the opening stops there",
                mv.to_vertex(setup.size)
            );
            break;
        }
        for engine in [Color::Black, Color::White] {
            let i = engine.index();
            if let Err(fault) = tell(engines[i], &mut mirrors[i], &start, &played.game, setup) {
                played.ending = Ending::Forfeit(engine, fault);
                return played;
            }
        }
    }
    let mut clocks = setup.time.map(|t| [MatchClock::new(t), MatchClock::new(t)]);
    loop {
        if played.game.trailing_passes() >= 2 {
            played.ending = Ending::Passes;
            return played;
        }
        if played.game.moves().len() >= setup.max_moves {
            played.ending = Ending::MaxMoves;
            return played;
        }
        let c = played.game.to_move();
        let clock = clocks.as_mut().map(|clocks| &mut clocks[c.index()]);
        let timed = clock.map(|clock| (clock, takes[c.index()]));
        let answer = generate(engines[c.index()], c, setup.size, timed, setup);
        played.generated[c.index()] += 1;
        match answer {
            Ok((Answer::Resign, elapsed)) => {
                played.thinking[c.index()] += elapsed;
                played.ending = Ending::Resigned(c);
                return played;
            }
            Ok((Answer::Move(mv), elapsed)) => {
                played.thinking[c.index()] += elapsed;
                mirrors[c.index()].played(c, mv);
                if let Err(why) = played.game.play(c, mv) {
                    let vertex = mv.to_vertex(setup.size);
                    let fault = Fault::Illegal(format!("played the illegal move {vertex} ({why})"));
                    played.ending = Ending::Forfeit(c, fault);
                    return played;
                }
            }
            Err(fault) => {
                played.ending = Ending::Forfeit(c, fault);
                return played;
            }
        }
        let i = c.opponent().index();
        if let Err(fault) = tell(engines[i], &mut mirrors[i], &start, &played.game, setup) {
            played.ending = Ending::Forfeit(c.opponent(), fault);
            return played;
        }
    }
}

/// A generated move or a resignation.
enum Answer {
    Move(Move),
    Resign,
}

/// How long each command that sets up or syncs a board may take: the move timeout.
fn limits(setup: &GameSetup) -> Limits {
    Limits {
        each: setup.move_timeout,
        by: None,
    }
}

/// Board size, a fresh board, komi, the handicap stones and time settings; the time
/// commands the engine takes.
fn prepare(
    engine: &mut Client,
    mirror: &mut Mirror,
    start: &Start,
    setup: &GameSetup,
) -> Result<TimeCommands, Fault> {
    mirror
        .sync(engine, start, &[], limits(setup))
        .map_err(|e| Fault::from_sync(&e))?;
    let Some(time) = setup.time else {
        return Ok(TimeCommands::default());
    };
    let takes = match time {
        TimeControl::Fischer { .. } => time_commands(engine, setup),
        TimeControl::Canadian { .. } => TimeCommands::default(),
    };
    let command = settings::time_settings(time.system(), takes);
    engine
        .send(&command, Some(setup.move_timeout))
        .map_err(|e| Fault::from_error(&e))?;
    Ok(takes)
}

/// The time commands `engine` takes, asked as gtp2ogs asks: `kata-time_settings` for Fischer
/// when `list_commands` names `kata-list_time_settings` and that names `fischer-capped`. An
/// engine that answers neither takes none of them.
fn time_commands(engine: &mut Client, setup: &GameSetup) -> TimeCommands {
    let mut ask = |command: &str| {
        engine
            .send(command, Some(setup.move_timeout))
            .unwrap_or_else(|e| {
                debug!("{}: {command}: {e}", engine.label());
                String::new()
            })
    };
    let listed = ask("list_commands");
    let listed: Vec<&str> = listed.lines().map(str::trim).collect();
    let kata_fischer = listed.contains(&"kata-list_time_settings")
        && ask("kata-list_time_settings")
            .split_whitespace()
            .any(|kind| kind == "fischer-capped");
    TimeCommands {
        kgs: listed.contains(&"kgs-time_settings"),
        kata_fischer,
    }
}

/// Tells `engine` the moves of `game` it has not seen (the one just played).
fn tell(
    engine: &mut Client,
    mirror: &mut Mirror,
    start: &Start,
    game: &Game,
    setup: &GameSetup,
) -> Result<(), Fault> {
    mirror
        .sync(engine, start, game.moves(), limits(setup))
        .map_err(|e| Fault::from_sync(&e))
}

/// Asks `engine` for `c`'s move on a board of `size`, telling it first what its clock holds
/// in the form its time commands take; the move still has to be checked.
fn generate(
    engine: &mut Client,
    c: Color,
    size: usize,
    clock: Option<(&mut MatchClock, TimeCommands)>,
    setup: &GameSetup,
) -> Result<(Answer, Duration), Fault> {
    let system = setup.time.map(|t| t.system());
    let timeout = match (&clock, system) {
        (Some((clock, takes)), Some(system)) => {
            let (seconds, stones) = clock.time_left();
            let command = settings::time_left(system, *takes, c, seconds, stones);
            if let Err(e) = engine.send(&command, Some(setup.move_timeout)) {
                debug!("{}: {command}: {e}", engine.label());
            }
            clock.limit()
        }
        _ => setup.move_timeout,
    };
    let started = Instant::now();
    let text = engine
        .send(&format!("genmove {c}"), Some(timeout))
        .map_err(|e| Fault::from_error(&e))?;
    let elapsed = started.elapsed();
    if let Some((clock, _)) = clock
        && !clock.spend(elapsed)
    {
        return Err(Fault::Timeout(format!(
            "lost on time ({:.1} s for one move)",
            elapsed.as_secs_f64()
        )));
    }
    let word = text.trim();
    if word.eq_ignore_ascii_case("resign") {
        return Ok((Answer::Resign, elapsed));
    }
    let mv = Move::parse(word, size)
        .map_err(|_| Fault::Illegal(format!("answered `{word}`, which is not a move")))?;
    Ok((Answer::Move(mv), elapsed))
}
