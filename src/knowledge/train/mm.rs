//! Minorization-maximization (Coulom 2007, "Computing Elo ratings of move patterns in the game
//! of Go"): the gammas that make the moves played most likely under the generalized
//! Bradley-Terry model, where a candidate wins its position with probability
//! `gamma(candidate) / sum of gamma(all candidates)`.
//!
//! Each feature group is updated in turn with Coulom's closed form, given the others; every
//! value also plays one virtual win and one virtual loss against a gamma-1 opponent, so rare
//! values stay near 1 instead of running off to 0 or infinity. Pattern classes and spatial
//! patterns seen fewer than `min_count` times among the candidates share one "rare" value each.
//! The spatial patterns are one more group, whose values are the codes the data holds.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::knowledge::patterns::{
    Features, GROUPS, Group, PatternTable, pass_class, shape, spatial,
};

/// Positions: each a list of candidate moves, one of which was played.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    candidates: Vec<Features>,
    /// End (exclusive) of each position's candidates.
    ends: Vec<usize>,
    /// Index (into `candidates`) of each position's played move.
    played: Vec<usize>,
    /// Per candidate: its spatial pattern's index in `spatial_codes`.
    spatial_ids: Vec<u32>,
    /// The distinct spatial codes, in order of first appearance.
    spatial_codes: Vec<u64>,
    /// Code → index in `spatial_codes`.
    spatial_index: HashMap<u64, u32>,
}

impl Dataset {
    /// An empty dataset.
    pub fn new() -> Dataset {
        Dataset::default()
    }

    /// Adds a position whose candidates are `candidates`, of which `candidates[played]` was
    /// played. A position with a `played` index out of range is ignored.
    pub fn push(&mut self, candidates: &[Features], played: usize) {
        if played < candidates.len() {
            self.played.push(self.candidates.len() + played);
            self.candidates.extend_from_slice(candidates);
            for f in candidates {
                let next = self.spatial_codes.len() as u32;
                let id = *self.spatial_index.entry(f.spatial).or_insert(next);
                if id == next {
                    self.spatial_codes.push(f.spatial);
                }
                self.spatial_ids.push(id);
            }
            self.ends.push(self.candidates.len());
        }
    }

    /// Adds every position of `other`.
    pub fn append(&mut self, other: &Dataset) {
        for j in 0..other.positions() {
            let (start, end) = other.range(j);
            self.push(&other.candidates[start..end], other.played[j] - start);
        }
    }

    /// Number of positions.
    pub fn positions(&self) -> usize {
        self.ends.len()
    }

    /// Number of candidates in all positions.
    pub fn candidates(&self) -> usize {
        self.candidates.len()
    }

    fn range(&self, j: usize) -> (usize, usize) {
        (if j == 0 { 0 } else { self.ends[j - 1] }, self.ends[j])
    }
}

/// How long MM runs and which pattern classes it keeps.
#[derive(Copy, Clone, Debug)]
pub struct MmOptions {
    /// The most sweeps over all groups.
    pub iterations: usize,
    /// Pattern classes seen fewer times among the candidates share the rare gamma.
    pub min_count: usize,
    /// Stop when a sweep raises the mean log-likelihood per position by less than this.
    pub tolerance: f64,
}

/// What a training run did.
#[derive(Copy, Clone, Debug)]
pub struct MmReport {
    /// Sweeps run.
    pub iterations: usize,
    /// Mean log-likelihood of the played moves per position at the end.
    pub log_likelihood: f64,
    /// Pattern classes with their own gamma.
    pub patterns_kept: usize,
    /// Spatial patterns with their own gamma.
    pub spatial_kept: usize,
}

/// The index of the spatial group among the model's groups: after the [`Group`]s.
const SPATIAL: usize = GROUPS;

/// The value indices of one candidate, with rare pattern classes mapped to [`Model::rare`]
/// and its spatial pattern (the last entry) to its value in the spatial group.
type Values = [usize; GROUPS + 1];

/// Gammas being learned, one vector per group and one for the spatial patterns; the pattern
/// group has one extra value, "rare".
struct Model {
    gammas: [Vec<f64>; GROUPS + 1],
    /// For each pattern class (and the pass): itself, or the rare value.
    pattern_map: Vec<usize>,
    rare: usize,
    /// For each spatial code of the data (by its index there): its value in the spatial
    /// group, 0 (the rare value) for the codes seen fewer than `min_count` times.
    spatial_map: Vec<usize>,
}

impl Model {
    fn new(data: &Dataset, min_count: usize) -> Model {
        let mut spatial_counts = vec![0usize; data.spatial_codes.len()];
        for &id in &data.spatial_ids {
            spatial_counts[id as usize] += 1;
        }
        let mut spatial_values = 1;
        let spatial_map = data
            .spatial_codes
            .iter()
            .zip(&spatial_counts)
            .map(|(&code, &count)| {
                if code == spatial::PASS || count >= min_count {
                    spatial_values += 1;
                    spatial_values - 1
                } else {
                    0
                }
            })
            .collect();
        let classes = Group::Pattern.values();
        let mut counts = vec![0usize; classes];
        for f in &data.candidates {
            counts[usize::from(f.pattern)] += 1;
        }
        let rare = classes;
        let pass = usize::from(pass_class());
        let pattern_map = (0..classes)
            .map(|c| {
                if c == pass || counts[c] >= min_count {
                    c
                } else {
                    rare
                }
            })
            .collect();
        let mut gammas: [Vec<f64>; GROUPS + 1] = std::array::from_fn(|g| {
            Group::ALL
                .get(g)
                .map_or_else(|| vec![1.0; spatial_values], |g| vec![1.0; g.values()])
        });
        gammas[Group::Pattern.index()].push(1.0);
        Model {
            gammas,
            pattern_map,
            rare,
            spatial_map,
        }
    }

    /// The values of candidate `i` of `data`.
    #[inline]
    fn values(&self, data: &Dataset, i: usize) -> Values {
        let f = &data.candidates[i];
        let mut v = [0; GROUPS + 1];
        v[..GROUPS].copy_from_slice(&f.values());
        v[Group::Pattern.index()] = self.pattern_map[v[Group::Pattern.index()]];
        v[SPATIAL] = self.spatial_map[data.spatial_ids[i] as usize];
        v
    }

    #[inline]
    fn strength(&self, v: &Values) -> f64 {
        v.iter()
            .zip(&self.gammas)
            .map(|(&value, gammas)| gammas[value])
            .product()
    }

    /// Mean log-likelihood of the played moves.
    fn log_likelihood(&self, data: &Dataset) -> f64 {
        let total: f64 = (0..data.positions())
            .into_par_iter()
            .map(|j| {
                let (start, end) = data.range(j);
                let sum: f64 = (start..end)
                    .map(|i| self.strength(&self.values(data, i)))
                    .sum();
                let won = self.strength(&self.values(data, data.played[j]));
                (won / sum).ln()
            })
            .sum();
        total / data.positions().max(1) as f64
    }

    /// Coulom's update of group `g`: gamma = (wins + 1) / (sum over positions of
    /// C / E + 2 / (gamma + 1)), where E is the position's total strength and C the strength
    /// of the candidates holding the value, divided by its gamma.
    fn update(&mut self, data: &Dataset, g: usize, wins: &[f64]) {
        let size = self.gammas[g].len();
        let chunk = data.positions().div_ceil(64).max(1);
        let denominators = (0..data.positions())
            .into_par_iter()
            .with_min_len(chunk)
            .fold(
                || vec![0.0f64; size],
                |mut acc, j| {
                    let (start, end) = data.range(j);
                    let sum: f64 = (start..end)
                        .map(|i| self.strength(&self.values(data, i)))
                        .sum();
                    for i in start..end {
                        let v = self.values(data, i);
                        acc[v[g]] += self.strength(&v) / self.gammas[g][v[g]] / sum;
                    }
                    acc
                },
            )
            .reduce(
                || vec![0.0f64; size],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        for ((gamma, &w), d) in self.gammas[g].iter_mut().zip(wins).zip(denominators) {
            *gamma = (w + 1.0) / (d + 2.0 / (*gamma + 1.0));
        }
    }

    fn into_table(self, data: &Dataset) -> PatternTable {
        let mut table = PatternTable::uniform();
        let spatial = &self.gammas[SPATIAL];
        table.set_spatial_rare(spatial[0] as f32);
        for (&code, &value) in data.spatial_codes.iter().zip(&self.spatial_map) {
            if value != 0 {
                table.set_spatial(code, spatial[value] as f32);
            }
        }
        table.set_rare(self.gammas[Group::Pattern.index()][self.rare] as f32);
        for g in Group::ALL {
            for value in 0..g.values() {
                let kept = g != Group::Pattern || self.pattern_map[value] == value;
                if kept {
                    table.set(g, value, self.gammas[g.index()][value] as f32);
                }
            }
        }
        table
    }
}

/// Learns the gammas of `data`; `progress` hears each sweep's number and mean log-likelihood.
pub fn train(
    data: &Dataset,
    options: &MmOptions,
    mut progress: impl FnMut(usize, f64),
) -> (PatternTable, MmReport) {
    let mut model = Model::new(data, options.min_count);
    let mut wins = model.gammas.clone().map(|g| vec![0.0; g.len()]);
    for &j in &data.played {
        for (g, &v) in model.values(data, j).iter().enumerate() {
            wins[g][v] += 1.0;
        }
    }
    let mut ll = model.log_likelihood(data);
    let mut iterations = 0;
    while iterations < options.iterations {
        for (g, wins) in wins.iter().enumerate() {
            model.update(data, g, wins);
        }
        iterations += 1;
        let next = model.log_likelihood(data);
        progress(iterations, next);
        let gain = next - ll;
        ll = next;
        if gain < options.tolerance {
            break;
        }
    }
    let patterns_kept = (0..shape::class_count())
        .filter(|&c| model.pattern_map[c] == c)
        .count();
    let report = MmReport {
        iterations,
        log_likelihood: ll,
        patterns_kept,
        spatial_kept: model.gammas[SPATIAL].len() - 1,
    };
    (model.into_table(data), report)
}
