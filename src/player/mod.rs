//! Players: what answers `genmove` at a level. The trait takes `&mut self` so that a player
//! may keep state between moves.

pub mod heuristic;
pub mod random;

use crate::board::{Color, Move, Point};
use crate::game::Game;

/// A move generator.
pub trait Player: Send {
    /// The move `color` should play in `game` (which is not changed).
    fn genmove(&mut self, game: &Game, color: Color) -> Move;
}

/// The points where `color` may legally play (superko included) without filling its own eye.
pub fn sensible_moves(game: &Game, color: Color) -> Vec<Point> {
    let board = game.board();
    board
        .empty_points()
        .filter(|&p| !board.is_eye(p, color) && game.legality(color, Move::Play(p)).is_ok())
        .collect()
}
