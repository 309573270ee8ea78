//! What chooses a move, in order: the client that keeps another GTP engine in step with a game,
//! the search, the opening book built with it, Go ranks, the levels of engines.toml, and the
//! players built from them (`player::Player`, the one door of the front ends).

pub mod book;
pub mod config;
pub mod gtp_client;
pub mod player;
pub mod rank;
pub mod search;
