//! What the engine knows before it searches, each independent of the others but the trainer:
//! tactical reading, KataGo's networks, move patterns, then the trainer of the patterns.

pub mod net;
pub mod patterns;
pub mod tactics;
pub mod train;
