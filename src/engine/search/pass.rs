//! When a search passes: not under area scoring while something is left to play for (the
//! rule both searches apply to the move they chose), and, for the playout search, at once
//! after the opponent's pass when the scorer counts the board as won.

use std::time::{Duration, Instant};

use super::budget::Budget;
use crate::rules::board::{Board, Color, Move};
use crate::rules::game::regions::Regions;
use crate::rules::game::score::{self, Assessment};
use crate::rules::game::{Game, Scoring, opening_length};

/// How much lower than the pass a move's win rate may be and still be played instead of a
/// pass while the position is not settled.
const PASS_MARGIN: f32 = 0.05;

/// A generous guess at the scorer's time per board point and playout, in microseconds.
const SCORER_MICROS_PER_POINT: u64 = 10;

/// A root move as the choice of the move to play sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The move.
    pub mv: Move,
    /// Its visits.
    pub visits: u32,
    /// Its player's win rate (what its search takes before the first visit).
    pub win_rate: f64,
}

/// The index in `ranked` (the root moves the rules allow, the search's choice first) of the
/// move to play: the first, unless it is a pass under area scoring on a board that is not
/// settled; then the first visited move whose win rate is within [`PASS_MARGIN`] of the
/// pass's, so that dame get filled and stones in atari taken. `None` when `ranked` is empty.
pub fn move_to_play(game: &Game, ranked: &[Candidate]) -> Option<usize> {
    let best = ranked.first()?;
    if best.mv != Move::Pass || game.rules().scoring != Scoring::Area || is_settled(game.board()) {
        return Some(0);
    }
    let floor = best.win_rate - f64::from(PASS_MARGIN);
    let instead = ranked
        .iter()
        .position(|c| c.mv != Move::Pass && c.visits > 0 && c.win_rate >= floor);
    Some(instead.unwrap_or(0))
}

/// Whether nothing is left to play for under area scoring: every empty region touches one
/// colour only, and no string is in atari.
pub fn is_settled(board: &Board) -> bool {
    let in_atari = board
        .points()
        .any(|p| board.color_at(p).is_some() && board.in_atari(p));
    !in_atari && Regions::of(board).iter().all(|r| r.owner().is_some())
}

/// The result, when the opponent has just passed (so that a pass of `color` ends the game)
/// past the opening ([`opening_length`] stones: a pass there, a test or a misclick, is not
/// answered by the game's end) and the scorer behind `final_score` counts the board as a win
/// for `color`, clear about every stone, with no living string in atari:
/// then the player passes rather than play on in a won position, where every further move
/// only gives the playouts room to misjudge it (Pachi passes the same way).
///
/// The scorer takes time: under a clock it is asked only while twice its estimated time
/// ([`SCORER_MICROS_PER_POINT`] per point and playout) is left before the deadline.
pub fn pass_ends_in_win(game: &Game, color: Color, budget: &Budget) -> Option<String> {
    let board = game.board();
    let points = game.size() * game.size();
    if !matches!(game.moves().last(), Some(&(c, Move::Pass)) if c != color)
        || points - board.empty_count() < opening_length(game.size())
    {
        return None;
    }
    let cost = Duration::from_micros(
        SCORER_MICROS_PER_POINT * points as u64 * score::DEFAULT_PLAYOUTS as u64,
    );
    if budget
        .deadline
        .is_some_and(|d| d.saturating_duration_since(Instant::now()) < 2 * cost)
    {
        return None;
    }
    let assessment = Assessment::of(game, score::DEFAULT_PLAYOUTS);
    let lead = match color {
        Color::Black => assessment.score(),
        Color::White => -assessment.score(),
    };
    let living_atari = assessment.living_atari_liberties(board).next().is_some();
    (lead > 0.0 && assessment.is_clear() && !living_atari).then(|| assessment.result())
}
