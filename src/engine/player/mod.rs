//! Players: what answers `genmove` and the analysis commands at a level. [`Player`] is the one
//! door every front end (GTP, the analysis protocol, matches) goes through, so that a level
//! means the same thing everywhere.
//!
//! The vocabulary of budgets and reports ([`Budget`], [`Report`] and its parts) is the
//! search's, the lowest layer that makes reports; every player speaks it, and front ends take
//! it from here, so that driving a player needs no other layer: no front end but `bench`
//! (which measures the search itself) imports the search (`tests/layers.rs` checks).

pub mod external;
pub mod fallback;
pub mod heuristic;
pub mod levels;
pub mod random;
pub mod ranked;
pub mod search;

use std::fmt;
use std::time::Duration;

use crate::engine::search::Choice;
pub use crate::engine::search::{AnalysisRequest, Budget, MoveInfo, Report, RootInfo, ScoreStats};
// What front ends need of the search besides: the bounds they check numbers from outside
// against, a level's playouts when it names none, the time a move may take on a clock, and a
// level's settings.
pub use crate::engine::search::{
    DEFAULT_PLAYOUTS, MAX_PLAYOUTS, MAX_THREADS, SearchSettings, param_names, thread_count,
    time_for_move,
};
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::{Game, opening_length};
pub use external::ExternalError;
pub use search::move_priors;

/// A move generator, and an analyst where it can be one. `&mut self`, so that a player keeps
/// state between moves (a search tree, a child process).
pub trait Player: Send {
    /// What `color` should do in `game` (which is not changed), within `budget`; what it
    /// finds on the way goes to `progress`.
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError>;

    /// Analyses `game` as `request` asks, reporting to `progress` until the request's budget
    /// ends or `progress` stops listening. [`PlayerError::CannotAnalyze`] from a player that
    /// does not analyse (the front end then asks the `mcts` level).
    fn analyze(
        &mut self,
        _game: &Game,
        _request: &AnalysisRequest,
        _progress: &mut dyn Progress,
    ) -> Result<(), PlayerError> {
        Err(PlayerError::CannotAnalyze)
    }

    /// Thinks on the opponent's time about `game` (the opponent to move) until `budget`
    /// stops it, for a player set to ponder; returns the playouts run (0: it did not).
    fn ponder(&mut self, _game: &Game, _budget: &Budget) -> u64 {
        0
    }

    /// The engine behind this player when it is another program (`name version`), once known.
    fn describe(&self) -> Option<String> {
        None
    }

    /// The least time a move of this player takes however short its deadline (a net's
    /// evaluation), as last seen: a chain of players passes over one that cannot answer in
    /// the time left.
    fn least_time(&self) -> Duration {
        Duration::ZERO
    }

    /// The search's setting `name` (engines.toml's key or KataGo's name: [`param_names`]), for
    /// `kata-get-param`; [`PlayerError::NoSearch`] from a player that does not search.
    fn param(&mut self, _name: &str) -> Result<String, PlayerError> {
        Err(PlayerError::NoSearch)
    }

    /// Sets the search's setting `name` to `value` from the next move on, checked as
    /// engines.toml's are (`kata-set-param`); [`PlayerError::NoSearch`] from a player that
    /// does not search.
    fn set_param(&mut self, _name: &str, _value: &str) -> Result<(), PlayerError> {
        Err(PlayerError::NoSearch)
    }
}

/// A player that picks its move from the position alone and at once: it has no use for a
/// budget, reports nothing, never resigns and does not analyse (the easy and medium levels).
/// Every such picker is a [`Player`].
pub trait MovePicker: Send {
    /// What `color` plays in `game` (which is not changed).
    fn pick(&mut self, game: &Game, color: Color) -> Move;
}

impl<T: MovePicker> Player for T {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        _budget: &Budget,
        _progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError> {
        Ok(Answer::Move(self.pick(game, color)))
    }
}

/// A level's player, with another player (made on first use) analysing for it when it
/// cannot: a level such as `easy` answers analysis commands with the `mcts` level's search.
pub struct WithAnalyst {
    player: Box<dyn Player>,
    make_analyst: Box<dyn Fn() -> Box<dyn Player> + Send>,
    analyst: Option<Box<dyn Player>>,
}

impl WithAnalyst {
    /// `player`, analysed for by what `make_analyst` makes when it cannot analyse.
    pub fn new(
        player: Box<dyn Player>,
        make_analyst: Box<dyn Fn() -> Box<dyn Player> + Send>,
    ) -> WithAnalyst {
        WithAnalyst {
            player,
            make_analyst,
            analyst: None,
        }
    }
}

impl Player for WithAnalyst {
    fn genmove(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        progress: &mut dyn Progress,
    ) -> Result<Answer, PlayerError> {
        self.player.genmove(game, color, budget, progress)
    }

    fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        progress: &mut dyn Progress,
    ) -> Result<(), PlayerError> {
        match self.player.analyze(game, request, progress) {
            Err(PlayerError::CannotAnalyze) => {
                let make = &self.make_analyst;
                self.analyst
                    .get_or_insert_with(|| make())
                    .analyze(game, request, progress)
            }
            result => result,
        }
    }

    fn ponder(&mut self, game: &Game, budget: &Budget) -> u64 {
        self.player.ponder(game, budget)
    }

    fn describe(&self) -> Option<String> {
        self.player.describe()
    }

    fn least_time(&self) -> Duration {
        self.player.least_time()
    }

    /// The level's search's, else its analyst's (made now).
    fn param(&mut self, name: &str) -> Result<String, PlayerError> {
        match self.player.param(name) {
            Err(PlayerError::NoSearch) => {
                let make = &self.make_analyst;
                self.analyst.get_or_insert_with(|| make()).param(name)
            }
            result => result,
        }
    }

    /// The level's search's, else its analyst's (made now).
    fn set_param(&mut self, name: &str, value: &str) -> Result<(), PlayerError> {
        match self.player.set_param(name, value) {
            Err(PlayerError::NoSearch) => {
                let make = &self.make_analyst;
                self.analyst
                    .get_or_insert_with(|| make())
                    .set_param(name, value)
            }
            result => result,
        }
    }
}

/// A player's answer to `genmove`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Play this move (or pass).
    Move(Move),
    /// Give up the game.
    Resign,
}

impl Answer {
    /// The move, unless the player resigned.
    pub fn as_move(self) -> Option<Move> {
        match self {
            Answer::Move(mv) => Some(mv),
            Answer::Resign => None,
        }
    }
}

/// Why a player gave no answer.
#[derive(Debug)]
pub enum PlayerError {
    /// This player does not analyse positions.
    CannotAnalyze,
    /// This player does not search, so has no search settings.
    NoSearch,
    /// A search setting that is not one, or a value out of its range: why.
    Param(String),
    /// The engine `name` behind the player failed.
    Engine {
        /// The engine's name in the config.
        name: String,
        /// What went wrong.
        error: ExternalError,
    },
}

impl fmt::Display for PlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerError::CannotAnalyze => f.write_str("this level does not analyse positions"),
            PlayerError::NoSearch => f.write_str("this level does not search"),
            PlayerError::Param(why) => f.write_str(why),
            PlayerError::Engine { name, error } => write!(f, "{name}: {error}"),
        }
    }
}

impl std::error::Error for PlayerError {}

/// One thing a player found while thinking.
#[derive(Copy, Clone, Debug)]
pub enum Update<'a> {
    /// Where a search stands.
    Report(&'a Report),
    /// A line of another engine's answer to [`Progress::command`], passed on verbatim.
    Line(&'a str),
}

/// Where a player's progress goes.
pub trait Progress {
    /// Takes one update; false when nobody reads any more (an analysis then ends).
    fn update(&mut self, update: Update<'_>) -> bool;

    /// Whether anyone reads updates (a plain `genmove`'s progress does not, and no report
    /// is built for it).
    fn listening(&self) -> bool {
        true
    }

    /// The analysis command the reader asked for (its name and whole line), which an engine
    /// that lists it may answer verbatim with [`Update::Line`]s.
    fn command(&self) -> Option<(&str, &str)> {
        None
    }
}

/// Progress that nobody reads.
pub struct Silent;

impl Progress for Silent {
    fn update(&mut self, _update: Update<'_>) -> bool {
        true
    }

    fn listening(&self) -> bool {
        false
    }
}

impl<F: FnMut(Update<'_>) -> bool> Progress for F {
    fn update(&mut self, update: Update<'_>) -> bool {
        self(update)
    }
}

/// The points where `color` may legally play (superko included) without filling its own eye.
pub fn sensible_moves(game: &Game, color: Color) -> Vec<Point> {
    let board = game.board();
    board
        .empty_points()
        .filter(|&p| !board.is_eye(p, color) && game.legality(color, Move::Play(p)).is_ok())
        .collect()
}

/// `player`'s move with nothing to report and no limit but its own (for tests and tools).
pub fn plain_move(player: &mut dyn Player, game: &Game, color: Color) -> Answer {
    player
        .genmove(game, color, &Budget::default(), &mut Silent)
        .unwrap_or(Answer::Move(Move::Pass))
}

/// Searches in a row that must find the game lost before a search level resigns.
const RESIGN_AFTER: u32 = 3;

/// When a search level (with a net or without) resigns: only past the opening, after
/// [`RESIGN_AFTER`] searches in a row found the game lost.
#[derive(Default)]
struct LosingStreak(u32);

impl LosingStreak {
    /// Counts `choice`'s verdict (a move without one leaves the count as it is) and says
    /// whether `who` resigns now instead of playing it.
    fn resigns(&mut self, choice: &Choice, game: &Game, budget: &Budget, who: &str) -> bool {
        match choice.losing {
            Some(true) => self.0 += 1,
            Some(false) => self.0 = 0,
            None => {}
        }
        let past_opening = game.moves().len() >= opening_length(game.size());
        let resigns = budget.may_resign && past_opening && self.0 >= RESIGN_AFTER;
        if resigns {
            log::info!("{who}: resigns after {RESIGN_AFTER} searches that found the game lost");
        }
        resigns
    }
}
