//! Players: what answers `genmove` at a level. The trait takes `&mut self` so that a player
//! may keep state between moves.

pub mod external;
pub mod fallback;
pub mod heuristic;
pub mod random;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::board::{Color, Move, Point};
use crate::game::Game;
use crate::game::clock::Clock;

/// A move generator.
pub trait Player: Send {
    /// What `color` should do in `game` (which is not changed), within `limits`.
    fn genmove(&mut self, game: &Game, color: Color, limits: &Limits) -> Answer;

    /// The engine behind this player when it is another program (`name version`), once known.
    fn describe(&self) -> Option<String> {
        None
    }

    /// Streams the analysis command `line` (named `name`, e.g. `kata-analyze b 50`) from
    /// another engine behind this player that lists it, each output line to `out`, until
    /// `stop` is set; false when there is none (tengen's own search answers instead).
    fn stream_analysis(
        &mut self,
        _game: &Game,
        _name: &str,
        _line: &str,
        _stop: &AtomicBool,
        _out: &mut dyn FnMut(&str) -> bool,
    ) -> bool {
        false
    }

    /// The root moves the last `genmove` searched, most visited first, for players that
    /// search (what `*-genmove_analyze` reports).
    fn last_root_moves(&self) -> Option<Vec<crate::search::MoveInfo>> {
        None
    }

    /// [`Player::genmove`] through another engine's genmove-analyze command `line` (named
    /// `name`), its analysis lines going to `out`; `None` when there is no such engine (then
    /// plain `genmove` answers).
    fn genmove_streamed(
        &mut self,
        _game: &Game,
        _color: Color,
        _name: &str,
        _line: &str,
        _limits: &Limits,
        _out: &mut dyn FnMut(&str) -> bool,
    ) -> Option<Answer> {
        None
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

/// What bounds one `genmove`: a deadline from the clock, a flag set from outside to stop early
/// (the best move so far is played), and whether resigning is allowed.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The moment the answer is due; `None` when the clock sets no limit.
    pub deadline: Option<Instant>,
    /// Set (by `# interrupt`) to stop thinking now.
    pub stop: Option<Arc<AtomicBool>>,
    /// Whether the player may resign (never in `kgs-genmove_cleanup`).
    pub may_resign: bool,
    /// The game clock, for players that pass it on (an external engine).
    pub clock: Option<Clock>,
}

impl Limits {
    /// Whether thinking must stop now: the deadline passed or the stop flag is set.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
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
