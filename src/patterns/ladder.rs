//! A small ladder reader: can a string in atari escape by extending, when the attacker keeps
//! chasing it with ataris?

use crate::board::{Board, Color, Point};

/// Board positions the reader may visit before it gives up and says the string escapes.
const BUDGET: usize = 200;

/// Whether the string on `prey` (which must have exactly one liberty, its owner to move) is
/// caught: extending at its liberty leaves it at most two liberties every time, and the
/// attacker's next atari never lets it capture a chasing stone. Capturing any attacker string
/// next to it counts as an escape (a simplification: a snapback is not read).
pub fn is_captured(board: &Board, prey: Point) -> bool {
    let mut budget = BUDGET;
    !escapes(board, prey, &mut budget)
}

/// Whether the defender, to move, gets the string on `prey` (in atari) out.
fn escapes(board: &Board, prey: Point, budget: &mut usize) -> bool {
    if *budget == 0 {
        return true;
    }
    *budget -= 1;
    let Some(defender) = board.color_at(prey) else {
        return true;
    };
    if can_capture_a_neighbour(board, prey, defender.opponent()) {
        return true;
    }
    let mut libs = [prey; 2];
    if board.string_liberties(prey, &mut libs[..1]) != 1 {
        return true;
    }
    let liberty = libs[0];
    if board.legality(liberty, defender).is_err() {
        return false;
    }
    let mut extended = board.clone();
    extended.play(liberty, defender);
    match extended.liberties(prey) {
        0 | 1 => false,
        2 => {
            extended.string_liberties(prey, &mut libs);
            !libs
                .iter()
                .any(|&atari| chase_catches(&extended, prey, atari, defender.opponent(), budget))
        }
        _ => true,
    }
}

/// Whether the attacker's atari at `at` leaves the string on `prey` caught.
fn chase_catches(
    board: &Board,
    prey: Point,
    at: Point,
    attacker: Color,
    budget: &mut usize,
) -> bool {
    if board.legality(at, attacker).is_err() {
        return false;
    }
    let mut chased = board.clone();
    chased.play(at, attacker);
    chased.liberties(prey) == 1 && !escapes(&chased, prey, budget)
}

/// Whether a string of `attacker` next to the string on `prey` has a single liberty.
fn can_capture_a_neighbour(board: &Board, prey: Point, attacker: Color) -> bool {
    board.string_stones(prey).any(|s| {
        board
            .neighbors(s)
            .iter()
            .any(|&n| board.color_at(n) == Some(attacker) && board.liberties(n) == 1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patterns::tests::board_from_rows;

    fn at(board: &Board, vertex: &str) -> Point {
        Point::parse(vertex, board.size()).unwrap()
    }

    /// White C3 is in atari (its liberty is D3); extending there leaves two liberties, and
    /// Black chases it up the diagonal.
    const LADDER: [&str; 9] = [
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . X . . . . . .",
        ". X O . . . . . .",
        ". . X X . . . . .",
        ". . . . . . . . .",
    ];

    #[test]
    fn a_ladder_to_the_edge_is_caught() {
        let board = board_from_rows(&LADDER);
        assert!(is_captured(&board, at(&board, "C3")));
    }

    #[test]
    fn a_ladder_breaker_lets_the_string_escape() {
        let mut rows = LADDER;
        rows[1] = ". . . . . . O . .";
        let board = board_from_rows(&rows);
        assert!(!is_captured(&board, at(&board, "C3")));
    }

    #[test]
    fn a_string_that_can_capture_a_chaser_escapes() {
        let mut rows = LADDER;
        rows[4] = ". . O . . . . . .";
        rows[5] = ". O X . . . . . .";
        let board = board_from_rows(&rows);
        assert_eq!(board.liberties(at(&board, "C4")), 1);
        assert!(!is_captured(&board, at(&board, "C3")));
    }
}
