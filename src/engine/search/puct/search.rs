//! The net search's driver: [`PuctSearch`] chooses a move, ponders and keeps its tree between
//! moves; each search runs threads that descend under one lock, evaluate their leaves
//! without it and back the values up, until the visits, the clock or the tree's room end it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use log::info;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

use super::descent::{Exploration, Leaf, Position, position_key};
use super::evaluate::Evaluator;
use super::root_symmetry;
use super::tree::{ROOT, TREE_BYTES, Tree};
use super::value_weight::ValueWeighting;
use crate::engine::search::budget::{Budget, Choice};
use crate::engine::search::dynamic_komi;
use crate::engine::search::pass::{self, Candidate};
use crate::engine::search::search_tree::{RootGame, SearchTree};
use crate::engine::search::settings::{MAX_LEAF_BATCH, SearchSettings, thread_count};
use crate::knowledge::net::Net;
use crate::rules::board::{Color, Move};
use crate::rules::game::Game;

/// Visits of a move when neither the settings, the budget nor a clock limit the search.
const DEFAULT_VISITS: u64 = 400;
/// Root visits before a search's win rate is trusted enough to resign on.
pub const MIN_VISITS_TO_RESIGN: u64 = 30;
/// The most visits one ponder runs (the tree's size bounds it first on big boards).
const PONDER_VISITS: u64 = 100_000;

/// How often a search reports, and to what: the search so far, and whether this is its last
/// report; false when nobody listens any more.
pub(super) type Reporter<'a> = (Duration, &'a mut dyn FnMut(&PuctSearch, bool) -> bool);

/// One search's fixed inputs.
struct Run<'a> {
    evaluator: Evaluator<'a>,
    /// The position searched, and its key in a graph.
    root: Position,
    root_key: u64,
    moves_ownership: bool,
    /// The leaves a thread gathers (under virtual loss) to evaluate in one batch.
    leaf_batch: usize,
    exploration: Exploration,
    /// How long one leaf's evaluation takes, in nanoseconds (0: not known yet): the slowest
    /// recent pace (see [`Run::evaluate`]); under a deadline a batch is cut to the leaves
    /// that fit before it.
    leaf_nanos: AtomicU64,
}

/// The PUCT search over one shared net.
pub struct PuctSearch {
    pub(super) net: Arc<Net>,
    pub(super) settings: SearchSettings,
    pub(super) tree: Tree,
    /// The colour the last search searched for.
    pub(super) color: Color,
    /// Root visits of the last search.
    pub(super) last_visits: u64,
    /// Root visits the last search took over from the one before.
    pub(super) last_reused: u32,
    /// The game the tree's root stands for, while the tree may be reused.
    pub(super) reusable: Option<RootGame>,
    pub(super) seed: u64,
    /// How long one leaf's evaluation takes (nanoseconds; 0: never measured), carried from
    /// search to search, so that a reused tree's first batch fits the clock too.
    leaf_nanos: u64,
    /// The playout doubling advantage the last move was chosen with, White's (negative:
    /// Black's; see [`dynamic_komi::playout_doubling_for_white`]).
    pub(super) doubling_for_white: f64,
    /// The root's win/loss value (White's view) after the last move chosen.
    last_white_winloss: Option<f64>,
}

impl PuctSearch {
    /// The level's settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// Searches under `settings` from the next search on (the seed stays).
    pub fn set_settings(&mut self, settings: SearchSettings) {
        self.settings = settings;
    }

    /// A search with `net`; of `settings` it reads playouts (as visits), threads, seed and
    /// the resign threshold.
    pub fn new(net: Arc<Net>, settings: SearchSettings) -> PuctSearch {
        PuctSearch {
            seed: settings.seed.unwrap_or_else(rand::random),
            net,
            settings,
            tree: Tree::new(Color::White, 0, TREE_BYTES),
            color: Color::Black,
            last_visits: 0,
            last_reused: 0,
            reusable: None,
            leaf_nanos: 0,
            doubling_for_white: 0.0,
            last_white_winloss: None,
        }
    }

    /// How long one evaluation of the net has lately taken (zero before the first): the least
    /// a search takes, whatever its deadline.
    pub fn evaluation_time(&self) -> Duration {
        Duration::from_nanos(self.leaf_nanos)
    }

    /// The net it searches with.
    pub fn net(&self) -> &Arc<Net> {
        &self.net
    }

    /// The move for `color` in `game` (not changed), searched within `budget`.
    pub fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
        self.doubling_for_white = dynamic_komi::playout_doubling_for_white(
            game,
            f64::from(self.settings.playout_doubling_cap),
            self.doubling_for_white,
            self.last_white_winloss,
        );
        let choice = self.search_move(game, color, budget);
        let root = &self.tree.nodes[ROOT];
        self.last_white_winloss = (root.visits > 0).then(|| root.winloss / f64::from(root.visits));
        choice
    }

    /// The move for `color` in `game`, searched within `budget` with the playout doubling
    /// advantage as it stands.
    fn search_move(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
        let started = Instant::now();
        let per_stone = self.settings.handicap_komi(true);
        let extra_komi = dynamic_komi::extra_komi(game, color, per_stone).round();
        let searched = if extra_komi > 0.0 {
            let mut searched = game.clone();
            searched.set_komi(game.rules().komi + f64::from(extra_komi));
            Cow::Owned(searched)
        } else {
            Cow::Borrowed(game)
        };
        let visits = self.search(&searched, color, budget, &[], &[], false, None);
        self.reusable = Some(RootGame::of(game, *searched.rules(), color));
        // The root's edges are the moves the rules allow: the expansion checked them.
        let ranked = self.tree.ranked_for_play(self.settings.lcb_selection);
        let candidates: Vec<Candidate> = ranked
            .iter()
            .map(|&edge| {
                let node = self.tree.child(ROOT, edge);
                Candidate {
                    mv: self.tree.edges[edge].mv(),
                    visits: self.tree.edge_visits(edge),
                    win_rate: node.win_rate(),
                }
            })
            .collect();
        let Some(best) = pass::move_to_play(game, &candidates).map(|i| ranked[i]) else {
            return Choice {
                mv: Move::Pass,
                losing: None,
                searched: false,
            };
        };
        let node = self.tree.child(ROOT, best);
        let best_move = self.tree.edges[best].mv();
        let win_rate = node.win_rate() as f32;
        let (hits, misses) = self.net.cache().hits_and_misses();
        let with_extra = if extra_komi > 0.0 {
            format!(" with {extra_komi} extra komi")
        } else {
            String::new()
        };
        info!(
            "net search: {} after {visits} visits ({} reused) in {:.2} s: {} visits, win rate {win_rate:.3}{with_extra}; cache {hits} hits, {misses} misses so far",
            best_move.to_vertex(game.size()),
            self.last_reused,
            started.elapsed().as_secs_f64(),
            self.tree.edge_visits(best),
        );
        // A win rate under extra komi is not the game's: never resign on it.
        let trusted =
            extra_komi == 0.0 && visits >= MIN_VISITS_TO_RESIGN.min(self.visits_for(budget, false));
        // Giving a handicap, White is behind from the start: it resigns only behind schedule.
        let root = &self.tree.nodes[ROOT];
        let white_lead = root.lead / f64::from(root.visits.max(1));
        let catching_up = dynamic_komi::white_catching_up(game, color, white_lead);
        Choice {
            mv: best_move,
            losing: trusted.then_some(win_rate < self.settings.resign_threshold && !catching_up),
            searched: true,
        }
    }

    /// Searches `game` for the player to move (the opponent) until `budget` stops it (at
    /// most [`PONDER_VISITS`] visits, reused ones included), so that the next
    /// [`PuctSearch::choose`] keeps the subtree of the move played; returns the visits run.
    pub fn ponder(&mut self, game: &Game, budget: &Budget) -> u64 {
        if budget.expired() || game.trailing_passes() >= 2 {
            return 0;
        }
        let budget = Budget {
            playouts: Some(budget.playouts.unwrap_or(PONDER_VISITS)),
            ..budget.clone()
        };
        self.search_move(game, game.to_move(), &budget);
        self.last_visits - u64::from(self.last_reused)
    }

    /// The root visits the last search took over from the one before.
    pub fn last_reused(&self) -> u32 {
        self.last_reused
    }

    /// Cuts the last search's tree down to its subtree under the moves played since, when
    /// that holds `game` with `color` to move (the same first position, rules and moves
    /// before); false when it does not.
    fn reuse_tree(&mut self, game: &Game, color: Color) -> bool {
        let Some(root) = self.reusable.take() else {
            return false;
        };
        let handle = self.tree.node_after(&root, game, game.rules(), color);
        let Some(at) = handle.and_then(|handle| self.tree.handle_node(handle)) else {
            return false;
        };
        let node = &self.tree.nodes[at];
        if !node.expanded || node.visits == 0 {
            return false;
        }
        self.tree.keep_subtree(at);
        true
    }

    /// The visits asked of a search under `budget`: the budget's, else for a move (not an
    /// analysis, which runs until it is stopped, as the playout search's does) the level's.
    fn visits_asked(&self, budget: &Budget, analysis: bool) -> Option<u64> {
        if analysis {
            budget.playouts
        } else {
            budget.playouts.or(self.settings.playouts)
        }
    }

    /// The leaves a thread evaluates in one batch under `budget`: the level's `leaf_batch` on
    /// the clock, one at a time when a number of visits ends the search (each visit in flight
    /// turns the next descents away from its path, so a batch spends some visits where one at
    /// a time would not).
    pub(super) fn leaf_batch_for(&self, budget: &Budget, analysis: bool) -> usize {
        if self.visits_asked(budget, analysis).is_some() {
            1
        } else {
            self.settings.leaf_batch.clamp(1, MAX_LEAF_BATCH)
        }
    }

    /// The visits a search makes at most under `budget`.
    fn visits_for(&self, budget: &Budget, analysis: bool) -> u64 {
        match (self.visits_asked(budget, analysis), budget.deadline) {
            (Some(n), _) => n.max(1),
            (None, _) if analysis => u64::MAX,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_VISITS,
        }
    }

    /// Searches `game` for `color` within `budget` (root moves restricted to `allow` when
    /// not empty, never `avoid`), calling `report` (when given) about every `interval`;
    /// returns the root's visits.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn search(
        &mut self,
        game: &Game,
        color: Color,
        budget: &Budget,
        allow: &[Move],
        avoid: &[Move],
        moves_ownership: bool,
        mut report: Option<Reporter<'_>>,
    ) -> u64 {
        let size = game.size();
        let net = Arc::clone(&self.net);
        let mut evaluator = Evaluator::new(&net, size);
        // As KataGo's: a move's search, not an analysis, takes the playout doubling advantage.
        if report.is_none() {
            evaluator.doubling_for_white = self.doubling_for_white;
        }
        let mut run = Run {
            evaluator,
            root: Position::of(game),
            root_key: position_key(0, game),
            moves_ownership,
            leaf_batch: self.leaf_batch_for(budget, report.is_some()),
            exploration: Exploration {
                cpuct: f64::from(self.settings.cpuct),
                stdev_scale: f64::from(self.settings.utility_stdev_scale),
                fpu_from_evaluation: self.settings.fpu_from_evaluation,
            },
            leaf_nanos: AtomicU64::new(self.leaf_nanos),
        };
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut rng = SmallRng::seed_from_u64(self.seed);
        self.tree.subtree_bias.factor = f64::from(self.settings.subtree_bias);
        self.tree.weighting = ValueWeighting {
            exponent: f64::from(self.settings.value_weight_exponent),
            noise_pruning: self.settings.noise_pruning,
        };
        if self.settings.transpositions != self.tree.positions.is_some() {
            // A tree searched the other way is not kept.
            self.tree.positions = self.settings.transpositions.then(HashMap::new);
            self.reusable = None;
        }
        let asked = |mv: &Move| (allow.is_empty() || allow.contains(mv)) && !avoid.contains(mv);
        // An analysis shows every move, so only a move's search prunes symmetric copies.
        let duplicates = if self.settings.root_symmetry_pruning && report.is_none() {
            root_symmetry::duplicate_moves(game, color, |mv| !asked(&mv))
        } else {
            Vec::new()
        };
        let fresh =
            report.is_some() || !allow.is_empty() || !avoid.is_empty() || !duplicates.is_empty();
        let reused = if fresh {
            self.reusable = None;
            false
        } else {
            self.reuse_tree(game, color)
        };
        let root_symmetries = self.settings.root_symmetries;
        let has_children = if reused {
            let root = &self.tree.nodes[ROOT];
            self.last_reused = root.visits;
            run.evaluator.center_on(root.score / f64::from(root.visits));
            if root_symmetries > 1 {
                // Expanded as a leaf under one symmetry: its priors from several now.
                let leaf = run.root_leaf(color);
                let symmetries = sample_symmetries(root_symmetries, &mut rng);
                if let Some(averaged) = run.evaluator.evaluate_averaged(&leaf, &symmetries) {
                    self.tree.set_priors(ROOT, &averaged.children);
                }
            }
            self.tree.nodes[ROOT].edge_count > 0
        } else {
            self.last_reused = 0;
            let tree = &mut self.tree;
            tree.restart(color.opponent(), size * size);
            let root = run.root_leaf(color);
            let symmetries = sample_symmetries(root_symmetries, &mut rng);
            let averaged = (symmetries.len() > 1)
                .then(|| run.evaluator.evaluate_averaged(&root, &symmetries))
                .flatten();
            let Some(root_eval) =
                averaged.or_else(|| run.evaluate(&[root], &symmetries[..1]).pop())
            else {
                return 0;
            };
            run.evaluator.center_on(root_eval.value.score);
            let children: Vec<(Move, f32)> = root_eval
                .children
                .iter()
                .copied()
                .filter(|(mv, _)| asked(mv) && !duplicates.contains(mv))
                .collect();
            tree.expand(ROOT, &children, moves_ownership);
            tree.nodes[ROOT].in_flight = 1;
            tree.back_up(
                &[ROOT],
                &[],
                root_eval.value,
                run.evaluator.utility(root_eval.value),
                root_eval.ownership.as_deref(),
            );
            !children.is_empty()
        };
        self.tree.temper_root(self.settings.root_policy_temperature);
        let max_visits = self.visits_for(budget, report.is_some());
        let threads = thread_count(self.settings.threads);
        let shared = Mutex::new(std::mem::take(&mut self.tree));
        let mut next_report = Instant::now() + report.as_ref().map_or(Default::default(), |r| r.0);
        loop {
            let chunk_end = report.as_ref().map(|_| next_report);
            std::thread::scope(|scope| {
                for thread in 0..threads {
                    let (run, shared) = (&run, &shared);
                    let seed = self.seed ^ (thread as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
                    scope.spawn(move || {
                        let mut rng = SmallRng::seed_from_u64(seed);
                        while visit_batch(run, shared, &mut rng, max_visits, budget, chunk_end) {}
                    });
                }
            });
            let visits = u64::from(lock(&shared).nodes[ROOT].visits);
            let over = visits >= max_visits
                || budget.expired()
                || !has_children
                || lock(&shared).is_full()
                || clearly_ahead_after_target(&lock(&shared), budget);
            let Some((interval, callback)) = report.as_mut() else {
                break;
            };
            std::mem::swap(&mut self.tree, &mut *lock(&shared));
            self.color = color;
            self.last_visits = visits;
            let listening = callback(self, over);
            std::mem::swap(&mut self.tree, &mut *lock(&shared));
            if over || !listening {
                break;
            }
            next_report = Instant::now() + *interval;
        }
        self.tree = shared.into_inner().unwrap_or_else(|e| e.into_inner());
        self.leaf_nanos = run.leaf_nanos.into_inner();
        self.color = color;
        self.last_visits = u64::from(self.tree.nodes[ROOT].visits);
        self.last_visits
    }
}

/// Whether the budget's target time has passed with the most visited root child at least
/// twice the next one's visits.
fn clearly_ahead_after_target(tree: &Tree, budget: &Budget) -> bool {
    if budget.target.is_none_or(|t| Instant::now() < t) {
        return false;
    }
    let ranked = tree.ranked_root_children();
    let visits = |i: usize| ranked.get(i).map_or(0, |&edge| tree.edge_visits(edge));
    visits(0) >= 2 * visits(1)
}

/// Whether another descent may start: not once the search has its visits (those in flight
/// counted), the root has no children, the tree is full or the budget's target has passed
/// with a clear best move.
fn may_descend(tree: &Tree, max_visits: u64, budget: &Budget) -> bool {
    let root = &tree.nodes[ROOT];
    u64::from(root.visits + root.in_flight) < max_visits
        && root.edge_count > 0
        && !tree.is_full()
        && !clearly_ahead_after_target(tree, budget)
}

/// `count` of the eight symmetries, distinct, at random (one as every leaf draws it).
fn sample_symmetries(count: usize, rng: &mut SmallRng) -> Vec<usize> {
    if count <= 1 {
        return vec![rng.random_range(0..8)];
    }
    let mut all: Vec<usize> = (0..8).collect();
    all.shuffle(rng);
    all.truncate(count);
    all
}

/// The tree, even if a thread panicked holding it.
fn lock(tree: &Mutex<Tree>) -> MutexGuard<'_, Tree> {
    tree.lock().unwrap_or_else(|e| e.into_inner())
}

impl Run<'_> {
    /// The root as a leaf to evaluate, `to_move` to play.
    fn root_leaf(&self, to_move: Color) -> Leaf {
        Leaf {
            path: vec![ROOT],
            edges: Vec::new(),
            position: self.root.clone(),
            to_move,
        }
    }

    /// The net's evaluations of `leaves`, each under its symmetry, timed.
    fn evaluate(&self, leaves: &[Leaf], symmetries: &[usize]) -> Vec<super::evaluate::Evaluation> {
        let started = Instant::now();
        let evaluations = self.evaluator.evaluate(leaves, symmetries);
        let each = started.elapsed().as_nanos() / leaves.len().max(1) as u128;
        let each = u64::try_from(each).unwrap_or(u64::MAX);
        // Up at once to a slower pace, down a tenth a batch: a batch answered from the cache
        // is no measure of the next, and one slow batch (a busy machine, the first
        // evaluation's warm-up) fades within some batches.
        let _ = self
            .leaf_nanos
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                Some(each.max(old - old / 10))
            });
        evaluations
    }

    /// The leaves the next batch may take: `leaf_batch`, but under a deadline only as many
    /// as the recent evaluations' slowest pace fits before it (0: none, the search is over), so that a
    /// net slow for the clock (a big one on one thread) does not overrun a move's time.
    fn batch_before(&self, deadline: Option<Instant>) -> usize {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        leaves_that_fit(
            left,
            self.leaf_nanos.load(Ordering::Relaxed),
            self.leaf_batch,
        )
    }
}

/// How many of a batch of `batch` leaves, each evaluated in `each` nanoseconds (0: not known),
/// fit in the time `left` (`None`: no deadline).
fn leaves_that_fit(left: Option<Duration>, each: u64, batch: usize) -> usize {
    match left {
        Some(left) if each > 0 => {
            let fits = left.as_nanos() / u128::from(each);
            usize::try_from(fits).map_or(batch, |n| n.min(batch))
        }
        _ => batch,
    }
}

/// One round of visits: up to `run.leaf_batch` descents down the tree by PUCT (virtual losses
/// on the way; fewer when the deadline is near), the leaves evaluated together without the
/// lock, then expanded and backed up. False when the search is over (its visits, its budget,
/// or `until`).
fn visit_batch(
    run: &Run<'_>,
    shared: &Mutex<Tree>,
    rng: &mut SmallRng,
    max_visits: u64,
    budget: &Budget,
    until: Option<Instant>,
) -> bool {
    if budget.expired() || until.is_some_and(|t| Instant::now() >= t) {
        return false;
    }
    let batch = run.batch_before(budget.deadline);
    let mut leaves = Vec::with_capacity(batch);
    let mut caught_up = 0;
    {
        let mut tree = lock(shared);
        while leaves.len() + caught_up < batch && may_descend(&tree, max_visits, budget) {
            let leaf = tree.descend(&run.root, run.root_key, run.exploration);
            // A visit that ended on a transposition counts its node's value as it stands.
            match leaf.caught_up(&tree) {
                Some(node) => {
                    let (value, utility) = tree.nodes[node].mean_value();
                    tree.back_up(&leaf.path, &leaf.edges, value, utility, None);
                    caught_up += 1;
                }
                None => leaves.push(leaf),
            }
        }
    }
    if leaves.is_empty() {
        return caught_up > 0;
    }
    let symmetries: Vec<usize> = leaves.iter().map(|_| rng.random_range(0..8)).collect();
    let evaluations = run.evaluate(&leaves, &symmetries);
    let mut tree = lock(shared);
    for (leaf, evaluation) in leaves.iter().zip(evaluations) {
        let at = leaf.path[leaf.path.len() - 1];
        if !evaluation.children.is_empty() {
            tree.expand(at, &evaluation.children, run.moves_ownership && at == ROOT);
        }
        tree.back_up(
            &leaf.path,
            &leaf.edges,
            evaluation.value,
            run.evaluator.utility(evaluation.value),
            evaluation.ownership.as_deref(),
        );
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_cut_to_the_leaves_that_fit_before_the_deadline() {
        let ms = Duration::from_millis;
        // A net at 600 ms a leaf (b18c384nbt on 19x19, one thread) with 750 ms left: one leaf;
        // with 150 ms left: none, the search stops rather than overrun the move's time.
        assert_eq!(leaves_that_fit(Some(ms(750)), 600_000_000, 4), 1);
        assert_eq!(leaves_that_fit(Some(ms(150)), 600_000_000, 4), 0);
        // A fast net keeps the whole batch; so does a search without a deadline, or before
        // any leaf was timed.
        assert_eq!(leaves_that_fit(Some(ms(750)), 8_000_000, 4), 4);
        assert_eq!(leaves_that_fit(None, 600_000_000, 4), 4);
        assert_eq!(leaves_that_fit(Some(ms(1)), 0, 4), 4);
        assert_eq!(leaves_that_fit(Some(Duration::MAX), 1, 64), 64);
    }
}
