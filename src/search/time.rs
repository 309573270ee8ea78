//! How long to think about one move under the game clock.

use std::time::Duration;

use crate::board::{Board, Color};
use crate::game::clock::Clock;

/// The time `color` may spend on its next move on `board`, or `None` when the clock sets no
/// limit: the clock's share for the moves expected to remain (half the empty points, at
/// least ten), weighted towards the middle game, where a move decides most.
pub fn time_for_move(clock: &Clock, board: &Board, color: Color) -> Option<Duration> {
    let empty = board.empty_count();
    let moves_left = (empty / 2).max(10) as u32;
    let filled = 1.0 - empty as f64 / (board.size() * board.size()) as f64;
    let weight = 0.75 + 4.0 * filled * (1.0 - filled);
    clock.move_budget(color, moves_left, weight)
}
