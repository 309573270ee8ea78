//! How long to think about one move under the game clock.

use crate::rules::board::{Board, Color};
use crate::rules::game::clock::{Clock, MoveTime};

/// The share of the board that is still empty when a game ends, roughly (dame, eyes,
/// territory): the moves expected to remain count only the empty points above it.
const EMPTY_AT_END: f64 = 0.25;

/// The time `color` may spend on its next move on `board` ([`Clock::move_time`]), or `None`
/// when the clock sets no limit: the clock's share for its own moves expected to remain, half
/// the empty points beyond those left at the end (at least a twentieth of the board), weighted
/// towards the middle game, where a move decides most.
pub fn time_for_move(clock: &Clock, board: &Board, color: Color) -> Option<MoveTime> {
    let points = (board.size() * board.size()) as f64;
    let empty = board.empty_count() as f64;
    let moves_left = ((empty - EMPTY_AT_END * points) / 2.0).max(points / 20.0);
    let filled = 1.0 - empty / points;
    let weight = 0.75 + 4.0 * filled * (1.0 - filled);
    clock.move_time(color, moves_left, weight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::game::clock::TimeSystem;
    use std::time::Duration;

    #[test]
    fn sudden_death_gives_the_opening_of_a_big_board_real_time() {
        // 60 s on 19x19: about 135 own moves to come, so a first move gets a third of a second
        // or more, and may take three times that.
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Absolute { main: 60.0 });
        let board = Board::new(19);
        let t = time_for_move(&clock, &board, Color::Black).unwrap();
        assert!(t.target >= Duration::from_millis(300), "{t:?}");
        assert!(t.max >= 3 * t.target - Duration::from_millis(1), "{t:?}");
        // 30 s on 9x9: about 30 own moves, 0.7 s for the first.
        let t = time_for_move(&clock_of(30.0), &Board::new(9), Color::Black).unwrap();
        assert!(t.target >= Duration::from_millis(650), "{t:?}");
    }

    fn clock_of(main: f64) -> Clock {
        let mut clock = Clock::default();
        clock.set_system(TimeSystem::Absolute { main });
        clock
    }
}
