//! The net's raw outputs turned into what KataGo's `nneval.cpp` reports, per model version:
//! the policy a softmax over the legal points and pass (after the optimistic mix), the value a
//! softmax, the score outputs scaled, the ownership a tanh, all from White's view.

use super::{RawOutputs, symmetry};
use crate::knowledge::net::model::Model;
use crate::knowledge::net::{Features, NetOutput};
use crate::rules::board::Color;

/// `log(1 + e^x)`, linear above 40 as in `nneval.cpp`.
fn soft_plus(x: f64) -> f64 {
    if x > 40.0 { x } else { (1.0 + x.exp()).ln() }
}

/// Board `i` of `raw` as KataGo reports it.
pub(super) fn post_process(
    model: &Model,
    features: &Features,
    raw: &RawOutputs,
    i: usize,
    sym: usize,
    optimism: f32,
) -> NetOutput {
    let size = features.size;
    let area = size * size;
    let pc = model.policy_channels();

    // Policy logits back in the board's orientation, the optimistic channel mixed in.
    let board_policy = &raw.policy[i * area * pc..(i + 1) * area * pc];
    let mut logits = vec![0.0f32; area];
    symmetry::output_back(board_policy, pc, 0, size, sym, &mut logits);
    let pass_raw = &raw.pass[i * pc..(i + 1) * pc];
    let mut pass_logit = pass_raw[0];
    if pc == 2 {
        let mut optimistic = vec![0.0f32; area];
        symmetry::output_back(board_policy, pc, 1, size, sym, &mut optimistic);
        for (p, o) in logits.iter_mut().zip(&optimistic) {
            *p += (o - *p) * optimism;
        }
        pass_logit += (pass_raw[1] - pass_raw[0]) * optimism;
    }
    // Softmax over the legal points and pass, in f32 as nneval does it.
    let mut max_logit = -1e25f32;
    for (p, &legal) in logits.iter().zip(&features.legal) {
        if legal && *p > max_logit {
            max_logit = *p;
        }
    }
    max_logit = max_logit.max(pass_logit);
    let mut sum = 0.0f32;
    let mut policy: Vec<f32> = logits
        .iter()
        .zip(&features.legal)
        .map(|(&p, &legal)| {
            if legal {
                let e = (p - max_logit).exp();
                sum += e;
                e
            } else {
                f32::NAN
            }
        })
        .collect();
    let pass_exp = (pass_logit - max_logit).exp();
    sum += pass_exp;
    for p in policy.iter_mut() {
        *p /= sum;
    }
    let policy_pass = pass_exp / sum;

    // Value and scores, in f64 as nneval does them, for the player to move.
    let v = &raw.value[i * 3..i * 3 + 3];
    let sc = model.value.sv3.out_channels;
    let s = &raw.score[i * sc..(i + 1) * sc];
    let (win_logit, loss_logit) = (v[0] as f64, v[1] as f64);
    let mut no_result_logit = v[2] as f64;
    // A no-result needs simple ko or territory scoring (globals 6: ko rule not simple, 9:
    // territory scoring).
    let no_result_impossible = features.global[6] != 0.0 && features.global[9] == 0.0;
    if no_result_impossible {
        no_result_logit -= 100000.0;
    }
    let max = win_logit.max(loss_logit).max(no_result_logit);
    let mut win = (win_logit - max).exp();
    let mut loss = (loss_logit - max).exp();
    let mut no_result = (no_result_logit - max).exp();
    if no_result_impossible {
        no_result = 0.0;
    }
    let total = win + loss + no_result;
    win /= total;
    loss /= total;
    no_result /= total;

    let pp = &model.post_process;
    let mut score_mean = s[0] as f64 * pp.score_mean_multiplier;
    let score_stdev = soft_plus(s[1] as f64) * pp.score_stdev_multiplier;
    let mut score_mean_sq = score_mean * score_mean + score_stdev * score_stdev;
    let mut lead = s[2] as f64 * pp.lead_multiplier;
    let var_time_left = soft_plus(s[3] as f64) * pp.variance_time_multiplier;
    score_mean *= 1.0 - no_result;
    score_mean_sq *= 1.0 - no_result;
    lead *= 1.0 - no_result;
    let (winloss_error, score_error) = match model.version {
        v if v >= 14 => {
            let w = soft_plus(s[4] as f64 * 0.5);
            let e = soft_plus(s[5] as f64 * 0.5);
            (
                (w * w * pp.shortterm_value_error_multiplier).sqrt(),
                (e * e * pp.shortterm_score_error_multiplier).sqrt(),
            )
        }
        v if v >= 10 => (
            (soft_plus(s[4] as f64) * pp.shortterm_value_error_multiplier).sqrt(),
            (soft_plus(s[5] as f64) * pp.shortterm_score_error_multiplier).sqrt(),
        ),
        9 => (soft_plus(s[4] as f64), soft_plus(s[5] as f64) * 10.0),
        _ => (-1.0, -1.0),
    };
    let var_time_left = if model.version >= 9 {
        var_time_left
    } else {
        -1.0
    };

    // From White's view.
    let white = features.to_move == Color::White;
    let (white_win, white_loss) = if white { (win, loss) } else { (loss, win) };
    let sign = if white { 1.0 } else { -1.0 };
    let own = &raw.ownership[i * area..(i + 1) * area];
    let mut white_ownership = vec![0.0f32; area];
    symmetry::output_back(own, 1, 0, size, sym, &mut white_ownership);
    for o in white_ownership.iter_mut() {
        *o = sign as f32 * o.tanh();
    }

    NetOutput {
        size,
        symmetry: sym,
        white_win: white_win as f32,
        white_loss: white_loss as f32,
        no_result: no_result as f32,
        white_lead: (sign * lead) as f32,
        white_score_selfplay: (sign * score_mean) as f32,
        white_score_selfplay_sq: score_mean_sq as f32,
        var_time_left: var_time_left as f32,
        shortterm_winloss_error: winloss_error as f32,
        shortterm_score_error: score_error as f32,
        policy,
        policy_pass,
        white_ownership,
    }
}
