//! The real networks the tests read: files of others (KataGo's), not kept in the repository
//! but in the directory build.rs names (`TENGEN_TEST_NETS`, by default `../shared/nets`).
//! Tests that read one carry `#[cfg_attr(not(test_nets), ignore = "...")]`, so they run only
//! when the directory holds it, or when `TENGEN_REQUIRE_EXTERNAL=1` asks for it: then a missing
//! net fails them here.

use std::path::{Path, PathBuf};

/// KataGo's small net of its g170 run (model version 8), whose answers tests/data/nets records.
pub const G170: &str = "g170-b6c96.bin.gz";

/// KataGo's small transformer net (model version 15), read when the directory holds it:
/// its tests carry `#[cfg_attr(not(transformer_net_tests), ignore = "...")]`.
pub const B10_TRANSFORMER: &str = "b10c384h6nbttflrs.bin.gz";

/// The real net `name` (e.g. [`G170`]) in the nets directory.
pub fn net(name: &str) -> PathBuf {
    let path = Path::new(env!("TENGEN_TEST_NETS")).join(name);
    assert!(
        path.is_file(),
        "{} is missing: TENGEN_TEST_NETS (by default ../shared/nets beside the repository) names \
         the directory of the real nets (tests/data/nets/README.md)",
        path.display()
    );
    path
}

/// The net's own ownership of the position `gtp` holds, from Black's view (`kata-raw-nn 0`'s
/// `whiteOwnership` negated), row by row from the top.
pub fn raw_ownership_for_black(gtp: &mut super::Gtp) -> Vec<f64> {
    let answer = gtp.ok("kata-raw-nn 0");
    let (_, rows) = answer
        .split_once("whiteOwnership")
        .unwrap_or_else(|| panic!("no ownership in kata-raw-nn's answer: {answer}"));
    rows.split_whitespace()
        .map(|w| -w.parse::<f64>().expect("a number"))
        .collect()
}

/// Checks a search's ownership (Black's view) against the net's raw one for the same position,
/// as loosely as the search's averaging over its tree leaves it: the same sign wherever the net
/// is sure (beyond ±0.5; there must be some such points), and a mean absolute difference of at
/// most `bound`. A value that is not finite fails.
pub fn assert_near_raw_ownership(ours: &[f64], raw: &[f64], bound: f64, what: &str) {
    assert_eq!(ours.len(), raw.len(), "{what}: {ours:?}");
    assert!(
        ours.iter().chain(raw).all(|o| o.is_finite()),
        "{what}: {ours:?} against the net's {raw:?}"
    );
    let sure: Vec<usize> = (0..raw.len()).filter(|&i| raw[i].abs() > 0.5).collect();
    assert!(
        sure.len() >= 5,
        "{what}: the net is sure of too few points: {raw:?}"
    );
    let flipped: Vec<usize> = sure
        .into_iter()
        .filter(|&i| ours[i] * raw[i] <= 0.0)
        .collect();
    assert!(
        flipped.is_empty(),
        "{what}: points {flipped:?} change hands: {ours:?} against the net's {raw:?}"
    );
    let mean = ours
        .iter()
        .zip(raw)
        .map(|(a, b)| (a - b).abs())
        .sum::<f64>()
        / raw.len() as f64;
    eprintln!("{what}: mean ownership difference from the net's {mean:.3}");
    assert!(
        mean <= bound,
        "{what}: mean difference {mean:.3} over {bound}: {ours:?} against the net's {raw:?}"
    );
}
