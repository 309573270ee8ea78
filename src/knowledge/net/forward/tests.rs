//! The forward pass against KataGo's recorded answers.

use std::path::{Path, PathBuf};

use super::*;
use crate::knowledge::net::model::synthetic;
use crate::knowledge::net::test_net::{real_net, real_net_test};
use crate::rules::board::Color;

/// One of KataGo's answers to `kata-raw-nn`: what it printed for one symmetry.
#[derive(Debug, Default)]
struct Answer {
    symmetry: usize,
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

/// A recorded position: its header (tests/data/nets/README.md) and KataGo's answers.
#[derive(Debug)]
struct Recorded {
    number: usize,
    size: usize,
    komi: f32,
    /// The moves after `moves`, `-` for none.
    moves: String,
    /// The player KataGo evaluated for.
    to_move: Color,
    optimism: f32,
    answers: Vec<Answer>,
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/nets")
        .join(name)
}

/// A text file, gunzipped if its name ends in `.gz`.
fn read(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the recorded positions and features come with tests/data/nets)",
            path.display()
        )
    });
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(bytes.as_slice()),
            &mut text,
        )
        .expect("a gzipped text");
        text
    } else {
        String::from_utf8(bytes).expect("a text")
    }
}

fn color(word: &str) -> Option<Color> {
    match word.to_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// The position header: number, size, komi, moves, the player evaluated and the optimism.
fn read_header(line: &str) -> Recorded {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |key: &str| words.iter().position(|w| *w == key);
    let moves_at = at("moves").expect("moves");
    let command_at = at("command");
    let moves = &words[moves_at + 1..command_at.unwrap_or(words.len())];
    let handicap = at("handicap").is_some();
    // The player to move: after the last move, or White after handicap stones, unless the
    // command names one.
    let mut to_move = match moves.chunks(2).last() {
        Some([c, _]) => color(c).expect("a colour").opponent(),
        _ if handicap => Color::White,
        _ => Color::Black,
    };
    let mut optimism = DEFAULT_OPTIMISM;
    if let Some(c) = command_at {
        let args = &words[c + 2..];
        let mut rest = args;
        if let Some(pla) = args.first().and_then(|w| color(w)) {
            to_move = pla;
            rest = &args[1..];
        }
        if let Some(opt) = rest.get(1) {
            optimism = opt.parse().expect("optimism");
        }
    }
    Recorded {
        number: words[1].parse().expect("number"),
        size: words[3].parse().expect("size"),
        komi: words[5].parse().expect("komi"),
        moves: moves.join(" "),
        to_move,
        optimism,
        answers: Vec::new(),
    }
}

/// The positions of a `kata-raw-nn` record (tests/data/nets/README.md).
fn read_recorded(path: &Path) -> Vec<Recorded> {
    let mut out: Vec<Recorded> = Vec::new();
    let mut section = "";
    for line in read(path).lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"position") {
            out.push(read_header(line));
            continue;
        }
        let Some(position) = out.last_mut() else {
            continue;
        };
        match words.as_slice() {
            [] => {}
            ["symmetry", s] => {
                position.answers.push(Answer {
                    symmetry: s.parse().expect("symmetry"),
                    ..Answer::default()
                });
                section = "";
            }
            ["policy"] => section = "policy",
            ["whiteOwnership"] => section = "ownership",
            [key, value] if *key != "NAN" && key.starts_with(|c: char| c.is_alphabetic()) => {
                let a = position.answers.last_mut().expect("an answer");
                let v: f32 = value.parse().expect("a number");
                match *key {
                    "whiteWin" => a.white_win = v,
                    "whiteLoss" => a.white_loss = v,
                    "noResult" => a.no_result = v,
                    "whiteLead" => a.white_lead = v,
                    "whiteScoreSelfplay" => a.white_score_selfplay = v,
                    "whiteScoreSelfplaySq" => a.white_score_selfplay_sq = v,
                    "varTimeLeft" => a.var_time_left = v,
                    "shorttermWinlossError" => a.shortterm_winloss_error = v,
                    "shorttermScoreError" => a.shortterm_score_error = v,
                    "policyPass" => a.policy_pass = v,
                    other => panic!("unknown field {other}"),
                }
            }
            values => {
                let a = position.answers.last_mut().expect("an answer");
                let parsed = values.iter().map(|v| {
                    if *v == "NAN" {
                        f32::NAN
                    } else {
                        v.parse::<f32>().expect("a number")
                    }
                });
                match section {
                    "policy" => a.policy.extend(parsed),
                    "ownership" => a.white_ownership.extend(parsed),
                    _ => panic!("values outside a section: {line}"),
                }
            }
        }
    }
    out
}

/// KataGo's input features per position number (tests/data/nets/README.md): spatial planes
/// as the points set, `x,y`, then the globals. The player and the legal points are not in it.
fn read_features(
    path: &Path,
) -> std::collections::HashMap<usize, (Vec<f32>, [f32; GLOBAL_FEATURES])> {
    let mut out = std::collections::HashMap::new();
    let mut current: Option<(usize, usize, Vec<f32>)> = None;
    for line in read(path).lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first() {
            Some(&"position") => {
                let size: usize = words[3].parse().expect("size");
                let number = words[1].parse().expect("number");
                current = Some((number, size, vec![0.0; SPATIAL_FEATURES * size * size]));
            }
            Some(&"plane") => {
                let (_, size, spatial) = current.as_mut().expect("a position");
                let plane: usize = words[1].parse().expect("plane");
                for point in &words[2..] {
                    let (x, y) = point.split_once(',').expect("x,y");
                    let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
                    spatial[plane * *size * *size + y * *size + x] = 1.0;
                }
            }
            Some(&"global") => {
                let (number, _, spatial) = current.take().expect("a position");
                let mut global = [0.0; GLOBAL_FEATURES];
                for (g, w) in global.iter_mut().zip(&words[1..]) {
                    *g = w.parse().expect("a global");
                }
                out.insert(number, (spatial, global));
            }
            _ => {}
        }
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

/// Raises `error` to the difference of `ours` from KataGo's `theirs` (relative to `scale`); a
/// value that is not finite fails here, as `f32::max` would pass over a NaN.
fn widen(error: &mut f32, what: &str, ours: f32, theirs: f32, scale: f32) {
    assert!(
        ours.is_finite() && theirs.is_finite(),
        "{what}: ours {ours}, KataGo's {theirs}"
    );
    *error = error.max((ours - theirs).abs() / scale);
}

fn compare(ours: &NetOutput, theirs: &Answer, errors: &mut MaxErrors) {
    assert_eq!(ours.policy.len(), theirs.policy.len());
    for (a, b) in ours.policy.iter().zip(&theirs.policy) {
        assert_eq!(a.is_nan(), b.is_nan(), "illegal points differ");
        if !a.is_nan() {
            widen(&mut errors.policy, "policy", *a, *b, 1.0);
        }
    }
    widen(
        &mut errors.policy,
        "policyPass",
        ours.policy_pass,
        theirs.policy_pass,
        1.0,
    );
    for (what, a, b) in [
        ("whiteWin", ours.white_win, theirs.white_win),
        ("whiteLoss", ours.white_loss, theirs.white_loss),
        ("noResult", ours.no_result, theirs.no_result),
    ] {
        widen(&mut errors.value, what, a, b, 1.0);
    }
    for (what, a, b) in [
        ("whiteLead", ours.white_lead, theirs.white_lead),
        (
            "whiteScoreSelfplay",
            ours.white_score_selfplay,
            theirs.white_score_selfplay,
        ),
        ("varTimeLeft", ours.var_time_left, theirs.var_time_left),
        (
            "shorttermWinlossError",
            ours.shortterm_winloss_error,
            theirs.shortterm_winloss_error,
        ),
        (
            "shorttermScoreError",
            ours.shortterm_score_error,
            theirs.shortterm_score_error,
        ),
    ] {
        widen(&mut errors.score, what, a, b, 1.0);
    }
    widen(
        &mut errors.score_sq_relative,
        "whiteScoreSelfplaySq",
        ours.white_score_selfplay_sq,
        theirs.white_score_selfplay_sq,
        theirs.white_score_selfplay_sq.abs().max(1.0),
    );
    assert_eq!(ours.white_ownership.len(), theirs.white_ownership.len());
    for (a, b) in ours.white_ownership.iter().zip(&theirs.white_ownership) {
        widen(&mut errors.ownership, "ownership", *a, *b, 1.0);
    }
}

fn within_tolerance(errors: &MaxErrors) {
    assert!(errors.policy <= 2e-4, "{errors:?}");
    assert!(errors.value <= 1e-3, "{errors:?}");
    assert!(errors.score <= 0.05, "{errors:?}");
    assert!(errors.score_sq_relative <= 0.01, "{errors:?}");
    assert!(errors.ownership <= 2e-3, "{errors:?}");
}

real_net_test!(
    /// The three empty boards (9x9, 13x13, 19x19) of the recorded positions, symmetry 0, their
    /// features written here, against KataGo: policy within 2e-4, value 1e-3, scores 0.05 (the
    /// squared score 1%), ownership 2e-3.
    fn real_net_matches_katago_on_empty_boards() {
        let net = real_net();
        assert_eq!(net.version(), 8);
        assert!(!net.has_optimism_channel());
        assert_eq!(net.name(), "g170-b6c96-s175395328-d26788732");
        let recorded = read_recorded(&data("g170-b6c96.kata-raw-nn.txt"));
        let empty: Vec<&Recorded> = recorded.iter().filter(|r| r.moves == "-").collect();
        assert_eq!(empty.len(), 3);
        let mut errors = MaxErrors::default();
        for r in &empty {
            let out = net.evaluate(&empty_board(r.size, r.komi), 0, DEFAULT_OPTIMISM);
            compare(&out, &r.answers[0], &mut errors);
        }
        eprintln!("largest differences from KataGo: {errors:?}");
        within_tolerance(&errors);
    }
);

/// `net` on every position of `records` from KataGo's features (tests/data/nets), one by one
/// and then all in one batch list: the largest differences from KataGo's answers.
fn against_katago(net: &Net, records: &[PathBuf]) -> (usize, MaxErrors, MaxErrors) {
    let features = read_features(&data("g170-b6c96.features.txt"));
    let recorded: Vec<Recorded> = records.iter().flat_map(|r| read_recorded(r)).collect();
    let mut inputs = Vec::new();
    for r in &recorded {
        let (spatial, global) = features[&r.number].clone();
        let legal = r.answers[0].policy.iter().map(|p| !p.is_nan()).collect();
        let f = Features {
            size: r.size,
            to_move: r.to_move,
            spatial,
            global,
            legal,
        };
        for a in &r.answers {
            inputs.push((f.clone(), a, r.optimism));
        }
    }
    let mut one_by_one = MaxErrors::default();
    for (f, a, optimism) in &inputs {
        let out = net.evaluate(f, a.symmetry, *optimism);
        assert_eq!(out.symmetry, a.symmetry);
        compare(&out, a, &mut one_by_one);
    }
    // The whole list at once (runs of one size become one pass each), at each position's
    // optimism in turn.
    let mut batched = MaxErrors::default();
    for optimism in [DEFAULT_OPTIMISM, 0.5, 1.0] {
        let same: Vec<_> = inputs.iter().filter(|(_, _, o)| *o == optimism).collect();
        let batch: Vec<(&Features, usize)> = same.iter().map(|(f, a, _)| (f, a.symmetry)).collect();
        let outs = net.evaluate_batch(&batch, optimism);
        for (out, (_, a, _)) in outs.iter().zip(&same) {
            compare(out, a, &mut batched);
        }
    }
    (recorded.len(), one_by_one, batched)
}

real_net_test!(
    /// Every recorded position (271: openings to endgames, passes, kos, handicap, sizes 2-19,
    /// symmetries 0-7, the colour not to move), from KataGo's own input features, against its
    /// answers; the positions evaluated one by one and in batches.
    fn real_net_matches_katago_on_every_recorded_position() {
        let net = real_net();
        let records = [
            data("g170-b6c96.kata-raw-nn.txt"),
            data("g170-b6c96.extra.kata-raw-nn.txt"),
        ];
        let (positions, one_by_one, batched) = against_katago(&net, &records);
        assert_eq!(positions, 271);
        eprintln!("one by one, largest differences from KataGo: {one_by_one:?}");
        eprintln!("batched, largest differences from KataGo: {batched:?}");
        within_tolerance(&one_by_one);
        within_tolerance(&batched);
    }
);

/// Every synthetic net, regenerated here from its seed: the convolutional ones of versions
/// 8-15 and the transformers of 15-17, each with its version and the name of KataGo's answers
/// for it (`vN`, `transformer-vN`).
fn synthetic_nets() -> impl Iterator<Item = (String, i32, Net)> {
    let convolutional = (8..=15).map(|v| {
        (
            format!("v{v}"),
            v,
            synthetic::net(v, true, synthetic::seed(v)),
        )
    });
    let transformer = (15..=17).map(|v| {
        let model = synthetic::transformer_net(v, true, synthetic::transformer_seed(v));
        (format!("transformer-v{v}"), v, model)
    });
    convolutional
        .chain(transformer)
        .map(|(name, version, model)| {
            let net = Net::from_model(Model::parse(&model, true).expect("a synthetic net"));
            (name, version, net)
        })
}

/// Each synthetic net against KataGo's answers for it:
/// tests/data/nets/synthetic/answers-vN.kata-raw-nn.txt.gz and
/// answers-transformer-vN.kata-raw-nn.txt.gz, 21 of the recorded positions (empty boards of
/// 9, 13 and 19; openings and endgames; passes, a ko, a superko ban, handicap, a 7x7 and a 3x3
/// board, `kata-raw-nn all`, optimism 0.5 and 1.0, the colour not to move), recorded by
/// tools/record-katago-nn.py with KataGo 1.17.2 (Eigen) from the nets the ignored test
/// `write_synthetic_nets` writes. The nets are the writer's: changing the writer means
/// recording these again.
#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug: run with --release")]
fn synthetic_nets_match_katago() {
    for (name, _, net) in synthetic_nets() {
        let records = [data(&format!(
            "synthetic/answers-{name}.kata-raw-nn.txt.gz"
        ))];
        let (positions, one_by_one, batched) = against_katago(&net, &records);
        assert_eq!(positions, 21, "{name}");
        eprintln!("{name}, largest differences from KataGo: {one_by_one:?}");
        within_tolerance(&one_by_one);
        within_tolerance(&batched);
    }
}

/// A synthetic net of every version on the empty 9x9 board under each symmetry: the
/// policy a distribution over the legal points and pass (NaN on illegal ones), the value one
/// too, the ownership in [-1, 1], the outputs absent before version 9 at -1; and since the
/// empty board is symmetric, each symmetry's answer is the one of symmetry 0 moved by it.
#[test]
fn synthetic_nets_give_well_formed_outputs_under_every_symmetry() {
    for (name, version, net) in synthetic_nets() {
        let mut f = empty_board(9, 6.5);
        f.legal[40] = false;
        let base = net.evaluate(&f, 0, 0.5);
        for s in 0..8 {
            let out = net.evaluate(&f, s, 0.5);
            assert!(out.policy[40].is_nan());
            let total: f32 =
                out.policy.iter().filter(|p| !p.is_nan()).sum::<f32>() + out.policy_pass;
            assert!((total - 1.0).abs() < 1e-5, "{name}: policy sums to {total}");
            let value = out.white_win + out.white_loss + out.no_result;
            assert!((value - 1.0).abs() < 1e-6);
            assert_eq!(
                out.no_result, 0.0,
                "no result is impossible under positional superko"
            );
            assert!(out.white_ownership.iter().all(|o| (-1.0..=1.0).contains(o)));
            assert_eq!(out.var_time_left < 0.0, version < 9);
            assert_eq!(out.shortterm_score_error < 0.0, version < 9);
            // The policy at point p under symmetry s is symmetry 0's at the point p moves to.
            for p in 0..81 {
                let q = symmetry::transform(s, 9, p);
                if p != 40 && q != 40 {
                    let (a, b) = (out.policy[p], base.policy[q]);
                    assert!((a - b).abs() < 1e-5, "{name} symmetry {s}: {a} vs {b}");
                }
            }
            assert!((out.white_win - base.white_win).abs() < 1e-5);
        }
    }
}

/// The net shared by threads (it is `Send + Sync`, one copy of the weights): evaluations run
/// at once on two threads give what they give on one.
#[test]
fn threads_share_one_net() {
    fn shared<T: Send + Sync>(_: &T) {}
    let model = synthetic::net(15, true, synthetic::seed(15));
    let net = Net::from_model(Model::parse(&model, true).expect("a synthetic net"));
    shared(&net);
    let boards: Vec<Features> = (0..6).map(|i| empty_board(5 + 2 * i, 7.5)).collect();
    let alone: Vec<NetOutput> = boards.iter().map(|f| net.evaluate(f, 3, 0.2)).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    boards
                        .iter()
                        .map(|f| net.evaluate(f, 3, 0.2))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().expect("a thread"), alone);
        }
    });
}

/// A batch through the cache: each output is the one evaluated alone (to within the batched
/// pass's rounding), a position the cache holds is taken from it, and every lookup is
/// counted.
#[test]
fn a_cached_batch_gives_what_each_position_gives_alone() {
    let model = synthetic::net(15, true, synthetic::seed(15));
    let net = Net::from_model(Model::parse(&model, true).expect("a synthetic net"));
    let boards: Vec<Features> = [5.5, 6.5, 7.5]
        .iter()
        .map(|&komi| empty_board(9, komi))
        .collect();
    let kept = net.evaluate_cached(&boards[2], 1, 0.2);
    let inputs: Vec<(&Features, usize)> = vec![
        (&boards[0], 0),
        (&boards[1], 5),
        (&boards[2], 3),
        (&boards[1], 5),
    ];
    let outs = net.evaluate_cached_batch(&inputs, 0.2);
    assert_eq!(outs.len(), 4);
    assert!(
        Arc::ptr_eq(&outs[2], &kept),
        "the kept evaluation, under its symmetry"
    );
    for i in [0, 1, 3] {
        let (out, (features, symmetry)) = (&outs[i], inputs[i]);
        let alone = net.evaluate(features, symmetry, 0.2);
        assert_eq!(out.symmetry, symmetry);
        let pairs = out
            .policy
            .iter()
            .chain(&out.white_ownership)
            .zip(alone.policy.iter().chain(&alone.white_ownership))
            .chain([
                (&out.white_win, &alone.white_win),
                (&out.white_lead, &alone.white_lead),
            ]);
        for (a, b) in pairs {
            assert!(
                (a - b).abs() < 1e-5 || (a.is_nan() && b.is_nan()),
                "{a} vs {b}"
            );
        }
    }
    // One lookup for the first evaluation, four for the batch: the kept position is the one
    // hit (the batch looks all up before it evaluates, so the repeat misses too).
    assert_eq!(net.cache().hits_and_misses(), (1, 4));
}
