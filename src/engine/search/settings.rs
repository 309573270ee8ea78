//! How a search level is set: [`SearchSettings`], read from engines.toml and the command line,
//! and the ranges and defaults of its numbers, shared by the playout search and the net search.

use serde::Deserialize;

/// Playouts per move when neither the level nor the clock sets a budget.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;
/// Tree nodes when the level does not say (about 34 bytes each).
pub const DEFAULT_MAX_NODES: usize = 1_000_000;
/// The most tree nodes a level may have: 50 million, about 3.4 GB in its two trees.
pub const MAX_NODES: usize = 50_000_000;
/// The fewest tree nodes a level may have.
pub const MIN_NODES: usize = 1_000;
/// The most playouts a move or an analysis may ask for (a level's `playouts`, `--playouts`,
/// `maxVisits`): a billion, hours of search on any machine.
pub const MAX_PLAYOUTS: u64 = 1_000_000_000;
/// The most threads a count from outside may ask for (a level's `threads`, `--threads`, the
/// analysis engine's thread counts, `serve --workers`). A fixed number, not one per core, so
/// that a config valid on one machine is valid on all; more than any machine has cores.
pub const MAX_THREADS: usize = 1024;

/// The threads a count checked against [`MAX_THREADS`] stands for: 0 is every core.
pub fn thread_count(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n.min(MAX_THREADS),
    }
}

/// Points a handicap stone is worth to [`dynamic_komi`](super::dynamic_komi) (Pachi's
/// `handicap_value`).
pub const DEFAULT_HANDICAP_KOMI: f32 = 7.0;

/// The leaves a thread of the search with a net evaluates in one batch on the clock: 20-50%
/// more visits a second than one at a time on 9x9 and 19x19 (one thread, b6c96; batches of 8
/// no more than 4).
pub const DEFAULT_LEAF_BATCH: usize = 4;

/// The largest `leaf_batch` taken.
pub const MAX_LEAF_BATCH: usize = 64;

/// The largest `rave_early_weight` taken; more is clamped (the tree's RAVE counters are sized
/// for it).
pub const MAX_RAVE_EARLY_WEIGHT: u32 = 15;
/// Resign when the best move wins less often than this.
pub const DEFAULT_RESIGN_THRESHOLD: f32 = 0.1;

/// The playouts a search needs before its win rate is trusted enough to resign on it.
pub const MIN_PLAYOUTS_TO_RESIGN: u64 = 1_000;

/// How one MCTS level plays: the one declaration of the search's settings, read from a
/// `[levels.NAME]` table of engines.toml (`player = "mcts"`), overridden by the command
/// line's `--playouts` and `--threads`, and used by the search.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSettings {
    /// Playouts per move; absent: the clock decides, or 10,000 without a clock.
    pub playouts: Option<u64>,
    /// Search threads; 0: every core.
    pub threads: usize,
    /// Tree capacity in nodes (about 34 bytes each, two trees); when full, the search goes
    /// on in the tree it has without expanding it.
    pub max_nodes: usize,
    /// Resign when the best move's win rate is below this (0: never).
    pub resign_threshold: f32,
    /// Fixed seed (reproducible with one thread); random when absent.
    pub seed: Option<u64>,
    /// UCB exploration constant (0: RAVE and the priors explore).
    pub exploration: f32,
    /// Playouts at which a move's own and its RAVE statistics weigh the same.
    pub rave_equivalence: f32,
    /// Extra RAVE weight of a move played right after a node, fading to none for one played
    /// at the playout's end (at most [`MAX_RAVE_EARLY_WEIGHT`]).
    pub rave_early_weight: u32,
    /// Visits before a tree node is expanded; absent: by board size
    /// ([`expand_after_for`](super::uct::expand_after_for): 4 up to 9x9, 8 above).
    pub expand_after: Option<u32>,
    /// Points per handicap stone that a search in a handicap game (Black's, and White's on
    /// boards above 9x9) pretends White has as extra komi, fading to none over the game's
    /// first part (see [`dynamic_komi`](super::dynamic_komi)); 0 turns it off. Absent:
    /// [`DEFAULT_HANDICAP_KOMI`] without a net, 0 with one ([`SearchSettings::handicap_komi`]).
    #[serde(rename = "handicap_komi")]
    pub handicap_komi_set: Option<f32>,
    /// Whether the player thinks on the opponent's time when a clock limits the game.
    pub ponder: bool,
    /// Whether the player plays from the opening book (`book/`) while the position is in it
    /// and the book fits the game's size, komi and scoring; the search does not read it.
    /// Absent: yes without a net, no with one ([`SearchSettings::book`]).
    #[serde(rename = "book")]
    pub book_set: Option<bool>,
    /// With a net, on the clock: the leaves a thread gathers (under virtual loss) and
    /// evaluates in one batch.
    pub leaf_batch: usize,
    /// With a net: how much the spread of a node's utilities scales its exploration, from 0
    /// (none) to 1 (in proportion; KataGo's `cpuctUtilityStdevScale`, 0.85 as in its GTP
    /// engine).
    pub utility_stdev_scale: f32,
    /// With a net: the weight of the prior against the value in PUCT at the first visits,
    /// 0.1 to 10 (KataGo's `cpuctExploration`, 1 in its GTP engine; the weight grows by 0.45
    /// times the log of the visits past 500, `cpuctExplorationLog`).
    pub cpuct: f32,
    /// With a net: whether the move played is the root child of the highest lower confidence
    /// bound on its utility, among those visited at least 15% as often as the most visited
    /// (KataGo's `useLcbForSelection`, on as in its GTP engine); else the most visited.
    pub lcb_selection: bool,
    /// With a net: whether an unvisited move's value (first-play urgency) starts from a blend
    /// of its parent's own evaluation and the parent's mean, the mean weighing the square of
    /// the policy already visited (KataGo's `fpuParentWeightByVisitedPolicy`); else the mean.
    pub fpu_from_evaluation: bool,
    /// With a net: the share of a local shape's mean misjudgement, as the search has found it
    /// under other nodes of the same shape, that a new leaf takes onto the net's value, 0 to
    /// 1 (KataGo's `subtreeValueBiasFactor`; 0: off).
    pub subtree_bias: f32,
    /// With a net, in a game that starts uneven (handicap or komi): the playout doubling
    /// advantage the player behind takes for each point of the start's advantage, 0 to 0.5
    /// (KataGo's `dynamicPlayoutDoublingAdvantageCapPerOppLead`, 0.045 in its GTP engine; 0:
    /// off; see [`playout_doubling_for_white`](super::dynamic_komi::playout_doubling_for_white)).
    pub playout_doubling_cap: f32,
    /// With a net: how much a node's children that look worse than their siblings are
    /// weighed down when their values are summed into the node's, 0 to 1 (KataGo's
    /// `valueWeightExponent`, 0.25 in its GTP engine; 0: off).
    pub value_weight_exponent: f32,
    /// With a net: whether a child that got more visits than its policy share, yet looks
    /// worse than the children of higher policy, has the excess weighed down in its parent's
    /// value (KataGo's `useNoisePruning`, on as in its GTP engine).
    pub noise_pruning: bool,
    /// With a net: how many of the eight symmetries the root is evaluated under, its priors
    /// and value their mean, 1 to 8 (KataGo's `rootNumSymmetriesToSample`; 1: one at random,
    /// as every leaf).
    pub root_symmetries: usize,
    /// With a net: the temperature of the root's priors, 0.1 to 5: each raised to the power
    /// `1 / t` and scaled back to their sum, so that above 1 the search spreads its first
    /// visits wider (KataGo's `rootPolicyTemperature`, 1 in its GTP engine: the net's own).
    pub root_policy_temperature: f32,
    /// With a net: whether a move's search, on a board a symmetry maps onto itself, looks at
    /// one move of each set the symmetry makes equivalent (KataGo's `rootSymmetryPruning`, on
    /// in its GTP engine).
    pub root_symmetry_pruning: bool,
    /// With a net: whether the search is a graph, a position reached by two orders of moves
    /// one node whose value both share (KataGo's `useGraphSearch`, on in its GTP engine).
    pub transpositions: bool,
    /// Whether a search ends once its most visited move can no longer be overtaken. Play
    /// wants this; `tengen bench` turns it off to measure throughput over the whole budget.
    #[serde(skip)]
    pub early_stop: bool,
}

impl SearchSettings {
    /// Checks that every setting is in its range (the README's table of keys); on failure, the
    /// key at fault and what it must be.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        fn within<T: PartialOrd + std::fmt::Display>(
            key: &'static str,
            value: T,
            min: T,
            max: T,
        ) -> Result<(), (&'static str, String)> {
            // Written so that NaN fails too.
            if value >= min && value <= max {
                Ok(())
            } else {
                Err((key, format!("must be from {min} to {max}, not {value}")))
            }
        }
        if let Some(playouts) = self.playouts {
            within("playouts", playouts, 1, MAX_PLAYOUTS)?;
        }
        within("threads", self.threads, 0, MAX_THREADS)?;
        within("max_nodes", self.max_nodes, MIN_NODES, MAX_NODES)?;
        within("resign_threshold", self.resign_threshold, 0.0, 0.5)?;
        within("exploration", self.exploration, 0.0, 10.0)?;
        within("rave_equivalence", self.rave_equivalence, 1.0, 1e9)?;
        within(
            "rave_early_weight",
            self.rave_early_weight,
            0,
            MAX_RAVE_EARLY_WEIGHT,
        )?;
        if let Some(expand_after) = self.expand_after {
            within("expand_after", expand_after, 0, 1_000_000)?;
        }
        within("leaf_batch", self.leaf_batch, 1, MAX_LEAF_BATCH)?;
        within("utility_stdev_scale", self.utility_stdev_scale, 0.0, 1.0)?;
        within("cpuct", self.cpuct, 0.1, 10.0)?;
        within("subtree_bias", self.subtree_bias, 0.0, 1.0)?;
        within("playout_doubling_cap", self.playout_doubling_cap, 0.0, 0.5)?;
        within(
            "value_weight_exponent",
            self.value_weight_exponent,
            0.0,
            1.0,
        )?;
        within("root_symmetries", self.root_symmetries, 1, 8)?;
        within(
            "root_policy_temperature",
            self.root_policy_temperature,
            0.1,
            5.0,
        )?;
        within(
            "handicap_komi",
            self.handicap_komi_set.unwrap_or(0.0),
            0.0,
            100.0,
        )
    }

    /// Points per handicap stone for dynamic komi in the search (with a net when `net`): the
    /// level's `handicap_komi`, else [`DEFAULT_HANDICAP_KOMI`] without a net and none with one
    /// (the net reads the komi and would play an even game's moves; docs/SEARCH.md has the
    /// matches).
    pub fn handicap_komi(&self, net: bool) -> f32 {
        let default = if net { 0.0 } else { DEFAULT_HANDICAP_KOMI };
        self.handicap_komi_set.unwrap_or(default).max(0.0)
    }

    /// Whether a player (with a net when `net`) plays from the opening book: the level's
    /// `book`, else yes without a net and no with one (its moves are no better than the net's;
    /// docs/SEARCH.md has the match).
    pub fn book(&self, net: bool) -> bool {
        self.book_set.unwrap_or(!net)
    }
}

/// One setting a running search takes (`kata-get-param`, `kata-set-param`): its engines.toml
/// key, KataGo's names for it, and how it reads and is set as text. The tree's size and the
/// seed are set once, when the level is made.
struct Param {
    key: &'static str,
    katago: &'static [&'static str],
    get: fn(&SearchSettings) -> String,
    /// Sets it from `value`; the name asked for goes into the error.
    set: fn(&mut SearchSettings, name: &str, value: &str) -> Result<(), String>,
}

/// A [`Param`] for the field `$field`, set by `$key` and KataGo's names: `plain` for a
/// value, `optional` for an `Option` that reads `none` when unset.
macro_rules! param {
    (plain $key:literal [$($katago:literal),*] $field:ident) => {
        Param {
            key: $key,
            katago: &[$($katago),*],
            get: |s| s.$field.to_string(),
            set: |s, name, value| {
                s.$field = read(name, value)?;
                Ok(())
            },
        }
    };
    (optional $key:literal [$($katago:literal),*] $field:ident) => {
        Param {
            key: $key,
            katago: &[$($katago),*],
            get: |s| shown(s.$field),
            set: |s, name, value| {
                s.$field = read_optional(name, value)?;
                Ok(())
            },
        }
    };
}

/// Every setting a running search takes, in engines.toml's order.
const PARAMS: [Param; 23] = [
    param!(optional "playouts" ["maxVisits", "maxPlayouts"] playouts),
    param!(plain "threads" ["numSearchThreads"] threads),
    param!(plain "resign_threshold" [] resign_threshold),
    param!(plain "exploration" [] exploration),
    param!(plain "rave_equivalence" [] rave_equivalence),
    param!(plain "rave_early_weight" [] rave_early_weight),
    param!(optional "expand_after" [] expand_after),
    param!(optional "handicap_komi" [] handicap_komi_set),
    param!(plain "ponder" ["ponderingEnabled"] ponder),
    param!(optional "book" [] book_set),
    param!(plain "leaf_batch" [] leaf_batch),
    param!(plain "utility_stdev_scale" ["cpuctUtilityStdevScale"] utility_stdev_scale),
    param!(plain "cpuct" ["cpuctExploration"] cpuct),
    param!(plain "lcb_selection" ["useLcbForSelection"] lcb_selection),
    param!(plain "fpu_from_evaluation" ["fpuParentWeightByVisitedPolicy"] fpu_from_evaluation),
    param!(plain "subtree_bias" ["subtreeValueBiasFactor"] subtree_bias),
    param!(plain "playout_doubling_cap" ["dynamicPlayoutDoublingAdvantageCapPerOppLead"] playout_doubling_cap),
    param!(plain "value_weight_exponent" ["valueWeightExponent"] value_weight_exponent),
    param!(plain "noise_pruning" ["useNoisePruning"] noise_pruning),
    param!(plain "root_symmetries" ["rootNumSymmetriesToSample"] root_symmetries),
    param!(plain "root_policy_temperature" ["rootPolicyTemperature"] root_policy_temperature),
    param!(plain "root_symmetry_pruning" ["rootSymmetryPruning"] root_symmetry_pruning),
    param!(plain "transpositions" ["useGraphSearch"] transpositions),
];

/// The names `kata-list-params` lists: every setting's key, then KataGo's names.
pub fn param_names() -> impl Iterator<Item = &'static str> {
    let keys = PARAMS.iter().map(|p| p.key);
    keys.chain(PARAMS.iter().flat_map(|p| p.katago.iter().copied()))
}

/// The setting that `name` (a key, or KataGo's name) stands for.
fn param(name: &str) -> Result<&'static Param, String> {
    PARAMS
        .iter()
        .find(|p| p.key == name || p.katago.contains(&name))
        .ok_or_else(|| format!("unknown parameter {name:?}"))
}

/// `value` read as a number or a flag of the setting `name`.
fn read<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{name}: not a value of its kind: {value:?}"))
}

/// An optional setting as `kata-get-param` gives it: `none` when the level leaves it unset.
fn shown<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "none".into(), |v| v.to_string())
}

/// `value` read as an optional setting: `none` unsets it.
fn read_optional<T: std::str::FromStr>(name: &str, value: &str) -> Result<Option<T>, String> {
    if value.trim().eq_ignore_ascii_case("none") {
        Ok(None)
    } else {
        read(name, value).map(Some)
    }
}

impl SearchSettings {
    /// The setting `name` (see [`param_names`]) as text.
    pub fn param(&self, name: &str) -> Result<String, String> {
        Ok((param(name)?.get)(self))
    }

    /// These settings with `name` (see [`param_names`]) set to `value`, checked as
    /// engines.toml's are; an optional setting takes `none`.
    pub fn with_param(&self, name: &str, value: &str) -> Result<SearchSettings, String> {
        let param = param(name)?;
        let mut settings = self.clone();
        (param.set)(&mut settings, name, value)?;
        settings
            .validate()
            .map_err(|(key, why)| format!("{name} ({key}) {why}"))?;
        Ok(settings)
    }
}

impl Default for SearchSettings {
    fn default() -> SearchSettings {
        SearchSettings {
            playouts: None,
            threads: 0,
            max_nodes: DEFAULT_MAX_NODES,
            resign_threshold: DEFAULT_RESIGN_THRESHOLD,
            seed: None,
            exploration: 0.0,
            rave_equivalence: 1000.0,
            rave_early_weight: 3,
            expand_after: None,
            handicap_komi_set: None,
            ponder: false,
            book_set: None,
            leaf_batch: DEFAULT_LEAF_BATCH,
            utility_stdev_scale: 0.85,
            cpuct: 1.0,
            lcb_selection: true,
            fpu_from_evaluation: false,
            subtree_bias: 0.0,
            playout_doubling_cap: 0.0,
            value_weight_exponent: 0.25,
            noise_pruning: true,
            root_symmetries: 1,
            root_policy_temperature: 1.0,
            root_symmetry_pruning: true,
            transpositions: false,
            early_stop: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_param_reads_back_as_set_by_its_key_or_katago_name() {
        let settings = SearchSettings::default();
        for (name, value) in [
            ("maxVisits", "800"),
            ("threads", "3"),
            ("resign_threshold", "0.2"),
            ("exploration", "0.5"),
            ("rave_equivalence", "2000"),
            ("rave_early_weight", "7"),
            ("expand_after", "2"),
            ("handicap_komi", "5"),
            ("ponderingEnabled", "true"),
            ("book", "false"),
            ("leaf_batch", "8"),
            ("cpuctUtilityStdevScale", "0.5"),
            ("cpuctExploration", "0.8"),
            ("useLcbForSelection", "false"),
            ("fpuParentWeightByVisitedPolicy", "true"),
            ("subtreeValueBiasFactor", "0.45"),
            ("dynamicPlayoutDoublingAdvantageCapPerOppLead", "0.045"),
            ("valueWeightExponent", "0.5"),
            ("useNoisePruning", "false"),
            ("rootNumSymmetriesToSample", "8"),
            ("rootPolicyTemperature", "1.25"),
            ("rootSymmetryPruning", "false"),
            ("useGraphSearch", "true"),
        ] {
            let set = settings.with_param(name, value).expect(name);
            assert_eq!(set.param(name).as_deref(), Ok(value), "{name}");
            assert_ne!(set, settings, "{name}");
        }
        let visits = settings.with_param("maxPlayouts", "50").unwrap();
        assert_eq!(visits.playouts, Some(50));
        assert_eq!(visits.param("maxVisits").as_deref(), Ok("50"));
        let unset = visits.with_param("playouts", "none").unwrap();
        assert_eq!(unset.param("playouts").as_deref(), Ok("none"));
    }

    #[test]
    fn a_param_out_of_range_or_unknown_is_refused_with_why() {
        let settings = SearchSettings::default();
        for (name, value) in [
            ("maxVisits", "0"),
            ("maxVisits", "-5"),
            ("numSearchThreads", "100000"),
            ("resign_threshold", "NaN"),
            ("leaf_batch", "65"),
            ("utility_stdev_scale", "1.5"),
            ("subtree_bias", "-0.1"),
            ("value_weight_exponent", "2"),
            ("root_symmetries", "0"),
            ("rootNumSymmetriesToSample", "9"),
            ("root_policy_temperature", "0"),
            ("ponder", "maybe"),
            ("max_nodes", "5000"),
            ("seed", "1"),
            ("cpuctExplorationLog", "0.45"),
            ("cpuct", "0"),
        ] {
            let err = settings.with_param(name, value).unwrap_err();
            assert!(err.contains(name), "{name}: {err}");
        }
        assert!(settings.param("early_stop").is_err());
    }
}
