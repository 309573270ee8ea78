//! tengen: a Go engine that speaks GTP.
//!
//! The modules form layers; each imports only from the layers above it in this list
//! (ARCHITECTURE.md draws the picture).

// Bounded line reading, below everything that reads lines from outside; finding programs
// and files on the machine.
pub mod lines;
pub mod locate;

// The rules of Go: the board, then the game (rules, history, scoring, clock) and SGF.
pub mod board;
pub mod game;
pub mod sgf;
pub mod tactics;

// Knowledge and search: move patterns, tengen's Monte Carlo tree search, the pattern
// trainer, and the client that drives another GTP engine.
pub mod gtp_client;
pub mod patterns;
pub mod search;
pub mod train;

// The opening book, built with the search and played by the mcts player.
pub mod book;

// Players: what answers `genmove` at a level, and the levels of engines.toml.
pub mod config;
pub mod player;

// Front ends.
pub mod analysis_engine;
pub mod bench;
pub mod gtp;
pub mod match_runner;
pub mod regress;
pub mod serve;
