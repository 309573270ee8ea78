//! KataGo's subtree value bias correction (`subtreeValueBiasFactor`): the net misjudges some
//! local shapes the same way wherever they stand, and the search finds out by how much. Each
//! node made by a move (not a pass) is keyed by that move, the move before it, the 5x5 patch of
//! board around it before it was played (stones, their colours and ataris, the off-board
//! points), the simple-ko point and the mover. A key's entry sums, over its nodes, how far the
//! mean utility of each node's subtree lies from the node's own evaluation, each weighing its
//! subtree's visits to the power [`WEIGHT_EXPONENT`]; a new leaf of a key takes `factor` times
//! that mean difference onto its evaluation before it is backed up.

use std::collections::HashMap;

use crate::rules::board::{Board, Color, Move, Point};

/// KataGo's `subtreeValueBiasWeightExponent`: a subtree of n visits weighs n^0.85.
const WEIGHT_EXPONENT: f64 = 0.85;
/// The patch's reach either side of the move: 5x5, as KataGo's.
const REACH: isize = 2;
/// An entry's weight below which it says nothing yet (KataGo's).
const MIN_WEIGHT: f64 = 0.001;
/// KataGo's `subtreeValueBiasFreeProp`: the share of a node's finding its entry forgets when
/// the tree drops the node.
const FREED_SHARE: f64 = 0.8;

/// What one key's nodes found: their weighted differences and weights, summed.
#[derive(Copy, Clone, Debug)]
struct Entry {
    key: u64,
    delta_sum: f64,
    weight_sum: f64,
}

/// The table of keys a search's nodes share, with the part of a key's mean difference a new
/// leaf takes (`factor`, 0: off).
#[derive(Debug, Default)]
pub(super) struct SubtreeBias {
    pub(super) factor: f64,
    index: HashMap<u64, u32>,
    entries: Vec<Entry>,
}

/// What one node has put into its entry: its entry's index, and its weighted difference and
/// weight as last summed there.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(super) struct Share {
    pub(super) entry: u32,
    pub(super) delta: f32,
    pub(super) weight: f32,
}

impl SubtreeBias {
    /// Forgets every entry.
    pub(super) fn clear(&mut self) {
        self.index.clear();
        self.entries.clear();
    }

    /// The bytes the table takes, about (a map slot and an entry a key).
    pub(super) fn bytes(&self) -> usize {
        self.entries.len() * (size_of::<Entry>() + 2 * size_of::<(u64, u32)>())
    }

    /// The entry of `key`, made empty if new.
    pub(super) fn entry(&mut self, key: u64) -> u32 {
        let next = self.entries.len() as u32;
        let index = *self.index.entry(key).or_insert(next);
        if index == next {
            self.entries.push(Entry {
                key,
                delta_sum: 0.0,
                weight_sum: 0.0,
            });
        }
        index
    }

    /// What a new leaf of `entry` adds to its evaluation: `factor` times the entry's mean
    /// difference, none while the entry weighs next to nothing.
    pub(super) fn bias(&self, entry: u32) -> f64 {
        let e = &self.entries[entry as usize];
        if self.factor == 0.0 || e.weight_sum <= MIN_WEIGHT {
            return 0.0;
        }
        self.factor * e.delta_sum / e.weight_sum
    }

    /// Puts a node's new finding into its entry in place of its last (`share`, updated): its
    /// subtree's `children` visits averaging `children_mean`, against its own `evaluation`.
    pub(super) fn record(
        &mut self,
        share: &mut Share,
        children: f64,
        children_mean: f64,
        evaluation: f64,
    ) {
        let weight = children.powf(WEIGHT_EXPONENT);
        let delta = (children_mean - evaluation) * weight;
        let e = &mut self.entries[share.entry as usize];
        e.delta_sum += delta - f64::from(share.delta);
        e.weight_sum += weight - f64::from(share.weight);
        share.delta = delta as f32;
        share.weight = weight as f32;
    }

    /// Keeps what `kept` (the shares of the nodes a tree keeps, updated to the new indices)
    /// put in, and [`FREED_SHARE`] less of what `dropped` (the other nodes' shares) put in
    /// the same entries, as KataGo does; an entry no kept node uses is dropped.
    pub(super) fn keep<'a>(
        &mut self,
        kept: impl Iterator<Item = &'a mut Share>,
        dropped: impl Iterator<Item = Share>,
    ) {
        let old = std::mem::take(&mut self.entries);
        let mut left = vec![(0.0, 0.0); old.len()];
        for share in dropped {
            let (delta, weight) = &mut left[share.entry as usize];
            *delta += (1.0 - FREED_SHARE) * f64::from(share.delta);
            *weight += (1.0 - FREED_SHARE) * f64::from(share.weight);
        }
        self.index.clear();
        for share in kept {
            let fresh = self.entries.len();
            let index = self.entry(old[share.entry as usize].key);
            let e = &mut self.entries[index as usize];
            if index as usize == fresh {
                (e.delta_sum, e.weight_sum) = left[share.entry as usize];
            }
            e.delta_sum += f64::from(share.delta);
            e.weight_sum += f64::from(share.weight);
            share.entry = index;
        }
    }
}

/// The key of `mover` playing `mv` after `previous` on `board` (before `mv`); none for a pass.
pub(super) fn key(board: &Board, mover: Color, previous: Move, mv: Move) -> Option<u64> {
    let Move::Play(at) = mv else {
        return None;
    };
    let size = board.size();
    let index = |m: Move| m.point().map_or(0, |p| p.index() as u64 + 1);
    let mut key = mix(1, index(previous)) ^ mix(2, index(mv)) ^ mix(3, mover.index() as u64);
    if let Some((ko, _)) = board.ko() {
        key ^= mix(4, ko.index() as u64);
    }
    let (col, row) = at.coords(size);
    let mut slot = 0;
    for dy in -REACH..=REACH {
        for dx in -REACH..=REACH {
            let (c, r) = (col as isize + dx, row as isize + dy);
            let inside = (0..size as isize).contains(&c) && (0..size as isize).contains(&r);
            let cell = if inside {
                let p = Point::new(size, c as usize, r as usize);
                match board.color_at(p) {
                    None => 0,
                    Some(color) => 1 + color.index() as u64 * 2 + u64::from(board.in_atari(p)),
                }
            } else {
                5
            };
            key ^= mix(5, slot * 8 + cell);
            slot += 1;
        }
    }
    Some(key)
}

/// A random-looking 64 bits for `value` of kind `tag` (SplitMix64's finaliser).
fn mix(tag: u64, value: u64) -> u64 {
    let mut z = (tag << 48 ^ value).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::game::{Game, Rules};

    #[test]
    fn a_key_tells_the_local_shape_the_moves_and_the_mover_apart() {
        let mut game = Game::new(9, Rules::chinese(7.0));
        let play = |v: &str| Move::parse(v, 9).unwrap();
        let key_of = |game: &Game, mover, previous: &str, mv: &str| {
            key(game.board(), mover, play(previous), play(mv))
        };
        let k = key_of(&game, Color::Black, "E5", "C3").unwrap();
        assert_eq!(key_of(&game, Color::Black, "E5", "C3"), Some(k));
        assert_ne!(key_of(&game, Color::White, "E5", "C3"), Some(k));
        assert_ne!(key_of(&game, Color::Black, "D5", "C3"), Some(k));
        assert_ne!(key_of(&game, Color::Black, "E5", "C4"), Some(k));
        assert_eq!(key_of(&game, Color::Black, "E5", "pass"), None);
        // A stone two points away is in the patch; one three away is not.
        game.play(Color::White, play("E5")).unwrap();
        assert_ne!(key_of(&game, Color::Black, "E5", "C3"), Some(k));
        let mut far = Game::new(9, Rules::chinese(7.0));
        far.play(Color::White, play("F6")).unwrap();
        assert_eq!(key_of(&far, Color::Black, "E5", "C3"), Some(k));
    }

    #[test]
    fn a_leaf_takes_the_factor_of_its_entrys_weighted_mean_difference() {
        let mut table = SubtreeBias {
            factor: 0.45,
            ..SubtreeBias::default()
        };
        let entry = table.entry(7);
        assert_eq!(table.entry(7), entry);
        assert_eq!(table.bias(entry), 0.0);
        let mut a = Share {
            entry,
            ..Share::default()
        };
        let mut b = a;
        // a: one child visit 0.2 above its evaluation (weight 1); b: 32 visits 0.1 below
        // (weight 32^0.85 = 19.0273).
        table.record(&mut a, 1.0, 0.5, 0.3);
        table.record(&mut b, 32.0, -0.1, 0.0);
        let w = 32f64.powf(0.85);
        let mean = (0.2 - 0.1 * w) / (1.0 + w);
        assert!((table.bias(entry) - 0.45 * mean).abs() < 1e-6);
        // A node's new finding replaces its last.
        table.record(&mut a, 1.0, 0.3, 0.3);
        assert!((table.bias(entry) - 0.45 * (-0.1 * w) / (1.0 + w)).abs() < 1e-6);
        // Keeping b alone keeps its finding and a fifth of a's.
        table.keep(std::iter::once(&mut b), std::iter::once(a));
        let mean = -0.1 * w / (w + 0.2);
        assert!((table.bias(b.entry) - 0.45 * mean).abs() < 1e-6);
        table.factor = 0.0;
        assert_eq!(table.bias(b.entry), 0.0);
        // An entry no kept node uses is dropped, whatever dropped nodes left in it.
        let c = Share {
            entry: table.entry(8),
            delta: 1.0,
            weight: 1.0,
        };
        table.keep(std::iter::empty(), std::iter::once(c));
        assert_eq!(table.bytes(), 0);
    }
}
