//! The front ends: each reaches the engine through `engine::player`.

pub mod analysis_engine;
pub mod bench;
pub mod gtp;
pub mod match_runner;
pub mod nets;
pub mod regress;
pub mod serve;
