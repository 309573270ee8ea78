//! tengen: a Go engine that speaks GTP.
//!
//! The modules form layers, listed here from the bottom up; each imports only from the layers
//! below it. `tests/layers.rs` holds the same table and fails on an import against it;
//! ARCHITECTURE.md draws the picture.

// Input: bounded line reading (everything that reads lines from outside), and finding
// programs and files on the machine.
pub mod lines;
pub mod locate;

// The rules of Go: the board, then the game (rules, history, scoring, clock).
pub mod board;
pub mod game;

// On top of the rules: SGF records, the client that keeps another GTP engine in step with a
// game, and tactical reading (ladders, two-liberty fights, nakade).
pub mod gtp_client;
pub mod sgf;
pub mod tactics;

// KataGo's networks, evaluated in Rust.
pub mod net;

// Knowledge: move patterns, then the trainer that learns their weights from records.
pub mod patterns;
pub mod train;

// tengen's Monte Carlo tree search, then the opening book built with it.
pub mod book;
pub mod search;

// Players: engines.toml's levels, checked, then the players built from them (what answers
// `genmove` at a level).
pub mod config;
pub mod player;

// Front ends.
pub mod analysis_engine;
pub mod bench;
pub mod gtp;
pub mod match_runner;
pub mod regress;
pub mod serve;
