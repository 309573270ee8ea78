//! The rules of Go, in order: the board, the game on it, its records.

pub mod board;
pub mod game;
pub mod sgf;
