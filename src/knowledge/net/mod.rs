//! KataGo's networks evaluated in Rust: its model files read (`model`), the input features
//! computed exactly as KataGo's `nninputs.cpp` computes them (`inputs`), and the forward pass on
//! the CPU (`forward`, whose [`Net`] is the loaded net), giving the numbers KataGo's own
//! backends give.
//!
//! Points are indexed as KataGo indexes them: `y * size + x`, with `y = 0` the top row (GTP row
//! `size`) and `x = 0` column `A`, the order in which `kata-raw-nn` prints its rows.

mod area;
pub mod cache;
pub mod forward;
pub mod found;
pub mod history;
pub mod inputs;
mod kataboard;
pub mod known;
mod ladder;
pub mod model;
#[cfg(test)]
pub(crate) mod test_net;

pub use forward::{DEFAULT_OPTIMISM, Net};
pub use model::NetError;

use crate::rules::board::Color;

/// Spatial input features of model versions 8 to 17 (KataGo's inputs version 7).
pub const SPATIAL_FEATURES: usize = 22;
/// Global input features of model versions 8 to 17.
pub const GLOBAL_FEATURES: usize = 19;

/// The inputs of one evaluation, unsymmetrised, for the player to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// The board size.
    pub size: usize,
    /// The player to move, whose view the net takes (its outputs are turned to White's).
    pub to_move: Color,
    /// `SPATIAL_FEATURES` planes of `size * size` values, plane after plane: feature `f` at
    /// point `i` is `spatial[f * size * size + i]`.
    pub spatial: Vec<f32>,
    /// The global features.
    pub global: [f32; GLOBAL_FEATURES],
    /// Which points the player to move may play at, as KataGo's history decides it (ko,
    /// superko, suicide); the policy is a distribution over these and pass.
    pub legal: Vec<bool>,
}

/// What the net says of a position, from White's view, as `kata-raw-nn` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct NetOutput {
    pub size: usize,
    /// The symmetry the net was evaluated under (0-7).
    pub symmetry: usize,
    pub white_win: f32,
    pub white_loss: f32,
    pub no_result: f32,
    pub white_lead: f32,
    pub white_score_selfplay: f32,
    pub white_score_selfplay_sq: f32,
    /// -1 where the net has no such output.
    pub var_time_left: f32,
    pub shortterm_winloss_error: f32,
    pub shortterm_score_error: f32,
    /// Move probabilities, `size * size`, `NaN` on illegal points.
    pub policy: Vec<f32>,
    pub policy_pass: f32,
    /// Who owns each point, -1 Black to 1 White.
    pub white_ownership: Vec<f32>,
}

impl NetOutput {
    /// The mean of `outputs`, one position's under several symmetries (`symmetry` the
    /// first's); `None` for none.
    pub fn mean(outputs: &[NetOutput]) -> Option<NetOutput> {
        let mut mean = outputs.first()?.clone();
        let n = outputs.len() as f32;
        let avg = |field: fn(&NetOutput) -> f32| outputs.iter().map(field).sum::<f32>() / n;
        mean.white_win = avg(|o| o.white_win);
        mean.white_loss = avg(|o| o.white_loss);
        mean.no_result = avg(|o| o.no_result);
        mean.white_lead = avg(|o| o.white_lead);
        mean.white_score_selfplay = avg(|o| o.white_score_selfplay);
        mean.white_score_selfplay_sq = avg(|o| o.white_score_selfplay_sq);
        mean.var_time_left = avg(|o| o.var_time_left);
        mean.shortterm_winloss_error = avg(|o| o.shortterm_winloss_error);
        mean.shortterm_score_error = avg(|o| o.shortterm_score_error);
        mean.policy_pass = avg(|o| o.policy_pass);
        for (i, p) in mean.policy.iter_mut().enumerate() {
            *p = outputs.iter().map(|o| o.policy[i]).sum::<f32>() / n;
        }
        for (i, w) in mean.white_ownership.iter_mut().enumerate() {
            *w = outputs.iter().map(|o| o.white_ownership[i]).sum::<f32>() / n;
        }
        Some(mean)
    }
}
