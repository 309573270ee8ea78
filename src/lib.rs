//! tengen: a Go engine that speaks GTP.
//!
//! The folders are the layers, from the bottom up; a module imports only from the modules
//! below it (`tests/layers.rs` holds the order and fails on an import against it;
//! ARCHITECTURE.md draws the picture).

// The ground floor: bounded line reading, and finding programs and files on the machine.
pub mod ground;

// The rules of Go: the board, the game (rules, history, scoring, clock), SGF records.
pub mod rules;

// What the engine knows before it searches: tactical reading, KataGo's networks, move
// patterns and their trainer.
pub mod knowledge;

// What chooses a move: the search, the opening book, the levels of engines.toml, the players
// built from them, and the client that drives another GTP engine as a player.
pub mod engine;

// The front ends: GTP, KataGo's analysis protocol, matches, regression scripts, benchmarks,
// and the web service.
pub mod front;
