//! Board diagrams the tests of the readers share.

use crate::rules::board::{Board, Point};
use crate::rules::game::{Game, Rules};

/// The point named `vertex` on a board of `size`.
pub(crate) fn pt(vertex: &str, size: usize) -> Point {
    Point::parse(vertex, size).expect("a test vertex")
}

/// A board drawn as rows, top row first: `X` Black, `O` White, anything else empty.
pub(crate) fn board_from_rows(rows: &[&str]) -> Board {
    Game::from_rows(rows, Rules::default()).board().clone()
}

/// White C3 is in atari (its liberty is D3); extending there leaves two liberties, and
/// Black chases it up the diagonal.
pub(crate) const LADDER: [&str; 9] = [
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
