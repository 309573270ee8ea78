//! tengen: a Go engine that speaks GTP.

pub mod analysis_engine;
pub mod bench;
pub mod board;
pub mod clock;
pub mod config;
pub mod game;
pub mod gtp;
pub mod match_runner;
pub mod patterns;
pub mod player;
pub mod regress;
pub mod sgf;
