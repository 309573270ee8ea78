//! tengen: a Go engine that speaks GTP.

pub mod board;
pub mod game;
pub mod player;
pub mod sgf;
