//! The forward pass against KataGo's recorded answers.

use std::path::{Path, PathBuf};

use super::*;
use crate::board::Color;

/// KataGo's answer to `kata-raw-nn 0` for one recorded position.
#[derive(Debug)]
struct Recorded {
    size: usize,
    komi: f32,
    moves: String,
    white_win: f32,
    white_loss: f32,
    no_result: f32,
    white_lead: f32,
    white_score_selfplay: f32,
    white_score_selfplay_sq: f32,
    var_time_left: f32,
    shortterm_winloss_error: f32,
    shortterm_score_error: f32,
    policy: Vec<f32>,
    policy_pass: f32,
    white_ownership: Vec<f32>,
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/nets")
        .join(name)
}

/// The positions of a `kata-raw-nn` record (the format of tests/data/nets/README).
fn read_recorded(path: &Path) -> Vec<Recorded> {
    let text = std::fs::read_to_string(path).expect("recorded answers");
    let mut out = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut lines = block.lines();
        let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        let size: usize = header[3].parse().unwrap();
        let komi: f32 = header[5].parse().unwrap();
        let moves = header[7..].join(" ");
        let mut fields = std::collections::HashMap::new();
        let mut policy = Vec::new();
        let mut ownership = Vec::new();
        let mut section = "";
        for line in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["policy"] => section = "policy",
                ["whiteOwnership"] => section = "ownership",
                [key, value] if key.chars().next().unwrap().is_alphabetic() => {
                    fields.insert(key.to_string(), value.parse::<f32>().unwrap());
                }
                values => {
                    let parsed = values.iter().map(|v| {
                        if *v == "NAN" {
                            f32::NAN
                        } else {
                            v.parse::<f32>().unwrap()
                        }
                    });
                    match section {
                        "policy" => policy.extend(parsed),
                        _ => ownership.extend(parsed),
                    }
                }
            }
        }
        let f = |k: &str| fields[k];
        out.push(Recorded {
            size,
            komi,
            moves,
            white_win: f("whiteWin"),
            white_loss: f("whiteLoss"),
            no_result: f("noResult"),
            white_lead: f("whiteLead"),
            white_score_selfplay: f("whiteScoreSelfplay"),
            white_score_selfplay_sq: f("whiteScoreSelfplaySq"),
            var_time_left: f("varTimeLeft"),
            shortterm_winloss_error: f("shorttermWinlossError"),
            shortterm_score_error: f("shorttermScoreError"),
            policy,
            policy_pass: f("policyPass"),
            white_ownership: ownership,
        });
    }
    out
}

/// KataGo's inputs for the empty board, Black to move, under `chinese-kgs` rules (positional
/// superko, area scoring, suicide illegal), as `fillRowV7` sets them: the on-board plane, the
/// komi from Black's view, the ko rule and the komi parity wave.
pub(crate) fn empty_board(size: usize, komi: f32) -> Features {
    let area = size * size;
    let mut spatial = vec![0.0; SPATIAL_FEATURES * area];
    spatial[..area].fill(1.0);
    let mut global = [0.0; GLOBAL_FEATURES];
    let self_komi = -komi;
    global[5] = self_komi / 20.0;
    global[6] = 1.0;
    global[7] = 0.5;
    // Area scoring: the triangle wave of the komi's distance to the drawable komis below it.
    let floor = if area.is_multiple_of(2) {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    global[18] = if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    };
    Features {
        size,
        to_move: Color::Black,
        spatial,
        global,
        legal: vec![true; area],
    }
}

/// The largest differences between our output and KataGo's, per kind of output.
#[derive(Default, Debug)]
struct MaxErrors {
    policy: f32,
    value: f32,
    score: f32,
    score_sq_relative: f32,
    ownership: f32,
}

fn compare(ours: &NetOutput, theirs: &Recorded, errors: &mut MaxErrors) {
    assert_eq!(ours.policy.len(), theirs.policy.len());
    for (a, b) in ours.policy.iter().zip(&theirs.policy) {
        assert_eq!(a.is_nan(), b.is_nan(), "illegal points differ");
        if !a.is_nan() {
            errors.policy = errors.policy.max((a - b).abs());
        }
    }
    errors.policy = errors
        .policy
        .max((ours.policy_pass - theirs.policy_pass).abs());
    for (a, b) in [
        (ours.white_win, theirs.white_win),
        (ours.white_loss, theirs.white_loss),
        (ours.no_result, theirs.no_result),
    ] {
        errors.value = errors.value.max((a - b).abs());
    }
    for (a, b) in [
        (ours.white_lead, theirs.white_lead),
        (ours.white_score_selfplay, theirs.white_score_selfplay),
        (ours.var_time_left, theirs.var_time_left),
        (ours.shortterm_winloss_error, theirs.shortterm_winloss_error),
        (ours.shortterm_score_error, theirs.shortterm_score_error),
    ] {
        errors.score = errors.score.max((a - b).abs());
    }
    errors.score_sq_relative = errors.score_sq_relative.max(
        (ours.white_score_selfplay_sq - theirs.white_score_selfplay_sq).abs()
            / theirs.white_score_selfplay_sq.abs().max(1.0),
    );
    for (a, b) in ours.white_ownership.iter().zip(&theirs.white_ownership) {
        errors.ownership = errors.ownership.max((a - b).abs());
    }
}

/// The three empty boards (9x9, 13x13, 19x19) of the recorded positions, symmetry 0, against
/// KataGo: policy within 2e-4, value 1e-3, scores 0.05 (the squared score 1%), ownership 2e-3.
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug: run with --release")]
fn real_net_matches_katago_on_empty_boards() {
    let net = Net::load(&data("g170-b6c96.bin.gz")).expect("the real net loads");
    assert_eq!(net.version(), 8);
    assert!(!net.has_optimism_channel());
    let recorded = read_recorded(&data("g170-b6c96.kata-raw-nn.txt"));
    let empty: Vec<&Recorded> = recorded.iter().filter(|r| r.moves == "-").collect();
    assert_eq!(empty.len(), 3);
    let mut errors = MaxErrors::default();
    for r in &empty {
        let out = net.evaluate(&empty_board(r.size, r.komi), 0, DEFAULT_OPTIMISM);
        compare(&out, r, &mut errors);
    }
    eprintln!("largest differences from KataGo: {errors:?}");
    assert!(errors.policy <= 2e-4, "{errors:?}");
    assert!(errors.value <= 1e-3, "{errors:?}");
    assert!(errors.score <= 0.05, "{errors:?}");
    assert!(errors.score_sq_relative <= 0.01, "{errors:?}");
    assert!(errors.ownership <= 2e-3, "{errors:?}");
}
