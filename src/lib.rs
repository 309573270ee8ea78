//! tengen: a Go engine that speaks GTP.

pub mod board;
pub mod game;
