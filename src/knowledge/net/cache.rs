//! Evaluations kept by their inputs, so that a position met again (a transposition, a tree
//! searched again, an analysis asked twice) costs a hash instead of a forward pass. The key is
//! a 64-bit hash of everything the net reads (planes, globals, legal points) and the policy
//! optimism, so positions with equal inputs share an entry; the output kept is that of
//! whichever symmetry evaluated it first, as in KataGo's cache.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::{Features, NetOutput};

/// The positions a net's cache holds unless told otherwise: at most about 24 MB of outputs
/// on 19x19 (a policy and an ownership map of 361 points each), 6 MB on 9x9.
pub const DEFAULT_CACHE_POSITIONS: usize = 1 << 13;

/// Evaluations one key may sit in.
const WAYS: usize = 4;

/// One set: up to [`WAYS`] keys with their evaluations.
type Set = Mutex<[Option<(u64, Arc<NetOutput>)>; WAYS]>;

/// A fixed number of slots in sets of [`WAYS`]: a key's low bits pick its set, and a new
/// evaluation takes a free slot of the set, else one its key's high bits pick. Shared by
/// threads: each set has its own lock.
#[derive(Debug)]
pub struct EvalCache {
    sets: Vec<Set>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl EvalCache {
    /// A cache of `positions` slots, rounded up to a power of two of sets (none when 0).
    pub fn new(positions: usize) -> EvalCache {
        let sets = if positions == 0 {
            0
        } else {
            positions.div_ceil(WAYS).next_power_of_two()
        };
        EvalCache {
            sets: (0..sets).map(|_| Mutex::new(Default::default())).collect(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The key of `features` evaluated with policy `optimism`.
    pub fn key(features: &Features, optimism: f32) -> u64 {
        let mut hasher = DefaultHasher::new();
        features.size.hash(&mut hasher);
        features.to_move.hash(&mut hasher);
        for v in features.spatial.iter().chain(&features.global) {
            v.to_bits().hash(&mut hasher);
        }
        features.legal.hash(&mut hasher);
        optimism.to_bits().hash(&mut hasher);
        hasher.finish()
    }

    /// The evaluation kept under `key`, if any.
    pub fn get(&self, key: u64) -> Option<Arc<NetOutput>> {
        let found = self.set(key).and_then(|set| {
            let set = set.lock().unwrap_or_else(PoisonError::into_inner);
            set.iter()
                .flatten()
                .find(|(k, _)| *k == key)
                .map(|(_, out)| Arc::clone(out))
        });
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps `output` under `key`: in the slot of its set that holds the key or is free,
    /// else in place of the evaluation its key's high bits pick.
    pub fn insert(&self, key: u64, output: Arc<NetOutput>) {
        let Some(set) = self.set(key) else {
            return;
        };
        let mut set = set.lock().unwrap_or_else(PoisonError::into_inner);
        let way = set
            .iter()
            .position(|slot| slot.as_ref().is_none_or(|(k, _)| *k == key))
            .unwrap_or((key >> 62) as usize % WAYS);
        set[way] = Some((key, output));
    }

    /// Lookups that found an evaluation, and lookups that did not, so far.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    fn set(&self, key: u64) -> Option<&Set> {
        let mask = self.sets.len().checked_sub(1)?;
        // The set count is a power of two: the low bits of the key pick one.
        self.sets.get(key as usize & mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::net::GLOBAL_FEATURES;
    use crate::rules::board::Color;

    fn features(first: f32) -> Features {
        let mut spatial = vec![0.0; 22 * 4];
        spatial[0] = first;
        Features {
            size: 2,
            to_move: Color::Black,
            spatial,
            global: [0.0; GLOBAL_FEATURES],
            legal: vec![true; 4],
        }
    }

    fn output(lead: f32) -> Arc<NetOutput> {
        Arc::new(NetOutput {
            size: 2,
            symmetry: 0,
            white_win: 0.5,
            white_loss: 0.5,
            no_result: 0.0,
            white_lead: lead,
            white_score_selfplay: lead,
            white_score_selfplay_sq: lead * lead,
            var_time_left: -1.0,
            shortterm_winloss_error: 0.0,
            shortterm_score_error: 0.0,
            policy: vec![0.25; 4],
            policy_pass: 0.0,
            white_ownership: vec![0.0; 4],
        })
    }

    #[test]
    fn equal_inputs_share_an_entry_and_any_difference_misses() {
        let cache = EvalCache::new(100);
        assert_eq!(cache.sets.len() * WAYS, 128);
        let key = EvalCache::key(&features(1.0), 0.2);
        assert_eq!(key, EvalCache::key(&features(1.0), 0.2));
        assert!(cache.get(key).is_none());
        cache.insert(key, output(3.0));
        assert_eq!(cache.get(key).map(|o| o.white_lead), Some(3.0));
        let mut white = features(1.0);
        white.to_move = Color::White;
        let mut illegal = features(1.0);
        illegal.legal[3] = false;
        let mut global = features(1.0);
        global.global[5] = 1.0;
        for other in [
            EvalCache::key(&features(0.0), 0.2),
            EvalCache::key(&features(1.0), 0.5),
            EvalCache::key(&white, 0.2),
            EvalCache::key(&illegal, 0.2),
            EvalCache::key(&global, 0.2),
        ] {
            assert_ne!(other, key);
            assert!(cache.get(other).is_none());
        }
        assert_eq!(cache.hits_and_misses(), (1, 6));
    }

    #[test]
    fn a_full_set_gives_up_one_evaluation_for_a_new_one_and_an_empty_cache_keeps_none() {
        let cache = EvalCache::new(WAYS);
        assert_eq!(cache.sets.len(), 1);
        for key in 1..=WAYS as u64 {
            cache.insert(key, output(key as f32));
        }
        for key in 1..=WAYS as u64 {
            assert_eq!(cache.get(key).map(|o| o.white_lead), Some(key as f32));
        }
        // Key 1 again: its own slot.
        cache.insert(1, output(10.0));
        assert_eq!(cache.get(1).map(|o| o.white_lead), Some(10.0));
        // A fifth key takes the slot its high bits pick (way 0: key 1's).
        cache.insert(99, output(99.0));
        assert_eq!(cache.get(99).map(|o| o.white_lead), Some(99.0));
        assert!(cache.get(1).is_none());
        assert!(cache.get(2).is_some());
        let none = EvalCache::new(0);
        none.insert(1, output(1.0));
        assert!(none.get(1).is_none());
    }
}
