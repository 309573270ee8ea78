//! Tests of the MM trainer on synthetic datasets.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::mm::{Dataset, MmOptions, train as learn};
use crate::knowledge::patterns::tests::lopsided;
use crate::knowledge::patterns::*;

/// Ten candidates a position; the one that captures is played four times in five, another
/// at random otherwise; the edge value is noise.
fn synthetic() -> Dataset {
    synthetic_with(5, |rng, _, k, capturing| Features {
        capture: u8::from(k == capturing) * CAPTURE_ONE,
        edge: rng.random_range(1..=5),
        ..Features::default()
    })
}

/// 2000 positions of ten candidates, made by `candidate(rng, position, k, chosen)`; the
/// chosen one, drawn at random, is played four times in five, another at random otherwise.
fn synthetic_with(
    seed: u64,
    mut candidate: impl FnMut(&mut SmallRng, usize, usize, usize) -> Features,
) -> Dataset {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut data = Dataset::new();
    for n in 0..2000 {
        let chosen = rng.random_range(0..10);
        let candidates: Vec<Features> =
            (0..10).map(|k| candidate(&mut rng, n, k, chosen)).collect();
        let played = if rng.random_range(0..5) == 0 {
            (chosen + rng.random_range(1..10)) % 10
        } else {
            chosen
        };
        data.push(&candidates, played);
    }
    data
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "pattern training on many games: release only"
)]
fn mm_recovers_the_better_feature() {
    let options = MmOptions {
        iterations: 50,
        min_count: 1,
        tolerance: 1e-9,
    };
    let mut lls = Vec::new();
    let (table, report) = learn(&synthetic(), &options, |_, ll| lls.push(ll));
    let capture = table.group(Group::Capture);
    // Played 4 times in 5 against 9 others: gamma about 36 times the others'.
    let ratio = capture[usize::from(CAPTURE_ONE)] / capture[0];
    assert!((20.0..60.0).contains(&ratio), "capture ratio {ratio}");
    for &edge in &table.group(Group::Edge)[1..] {
        assert!((0.7..1.4).contains(&edge), "edge gamma {edge}");
    }
    assert!(lls.windows(2).all(|w| w[1] >= w[0] - 1e-9), "{lls:?}");
    assert!(report.log_likelihood > -1.5 && report.iterations >= 2);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "pattern training on many games: release only"
)]
fn mm_learns_spatial_patterns_and_pools_the_rare_ones() {
    let favoured = lopsided();
    let rare = spatial::canonical(1);
    let data = synthetic_with(9, |_, n, k, chosen| Features {
        spatial: if k == chosen {
            favoured
        } else if n == 0 && k == (chosen + 1) % 10 {
            rare
        } else {
            0
        },
        ..Features::default()
    });
    let options = MmOptions {
        iterations: 50,
        min_count: 2,
        tolerance: 1e-9,
    };
    let (table, report) = learn(&data, &options, |_, _| {});
    assert_eq!(report.spatial_kept, 2, "the favoured and the empty code");
    let ratio = table.spatial_gamma(favoured) / table.spatial_gamma(0);
    assert!((20.0..60.0).contains(&ratio), "spatial ratio {ratio}");
    // Seen once: pooled with every code the table does not list.
    assert_eq!(table.spatial_count(), 2);
    assert_eq!(
        table.spatial_gamma(rare),
        table.spatial_gamma(spatial::canonical(2))
    );
}
