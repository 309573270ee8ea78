//! The playout search's tree: nodes in one preallocated arena, the children of a node contiguous and
//! addressed by index, every statistic an atomic so that the search threads share the tree
//! without a lock. A thread descending through a node counts its visit at once and its result
//! only when the playout is over: the in-flight visit is the virtual loss that steers the
//! other threads elsewhere.
//!
//! The arena is a struct of arrays, one per kind of field, not an array of nodes: a backup
//! writes the RAVE statistics of many siblings, and packed eight to a cache line they touch
//! a fifth of the lines that whole nodes would, while the moves and priors, written once,
//! sit in lines no thread writes during a search. With two threads these lines are what
//! the cores pass back and forth.

use std::sync::atomic::{
    AtomicBool, AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

use super::search_tree::SearchTree;
use crate::rules::board::{Move, Point};

/// The move of a node: a board cell index, or [`PASS`] (cell 0 is always border).
pub type NodeMove = u16;

/// The move value standing for a pass.
pub const PASS: NodeMove = 0;

/// The node move of a game move.
pub fn node_move(mv: Move) -> NodeMove {
    match mv {
        Move::Play(p) => p.index() as NodeMove,
        Move::Pass => PASS,
    }
}

/// The game move of a node move.
pub fn game_move(mv: NodeMove) -> Move {
    match mv {
        PASS => Move::Pass,
        index => Move::Play(Point::from_index(usize::from(index))),
    }
}

/// The index of a node in the arena.
pub type NodeId = u32;

/// The root is always the first node.
pub const ROOT: NodeId = 0;

const LEAF: u8 = 0;
const EXPANDING: u8 = 1;
const EXPANDED: u8 = 2;

/// Results are counted in half wins: a win is 2, a jigo 1, a loss 0.
pub type HalfWins = u32;

/// Two counts in one atomic word: playouts in the high half, their half wins in the low
/// half, so that one load reads both and one add records both. Half wins are at most twice
/// the playouts, so the low half cannot carry into the high one before 2^31 playouts.
#[inline]
fn pack(playouts: u32, half_wins: HalfWins) -> u64 {
    u64::from(playouts) << 32 | u64::from(half_wins)
}

/// The playouts and half wins of a [`pack`]ed word.
#[inline]
fn unpack(word: u64) -> (u32, HalfWins) {
    ((word >> 32) as u32, word as u32)
}

/// Where a node's children are, and whether it has them yet.
#[derive(Default)]
struct Link {
    state: AtomicU8,
    n_children: AtomicU16,
    first_child: AtomicU32,
}

/// A snapshot of a node's statistics.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// The move that leads to the node.
    pub mv: NodeMove,
    /// Playouts through the node (in-flight ones included).
    pub visits: u32,
    /// Their results for the player who made the move, in half wins.
    pub wins: HalfWins,
    /// All-moves-as-first playouts: the move was played later by the same player.
    pub amaf_visits: u32,
    /// Their results, in half wins.
    pub amaf_wins: HalfWins,
    /// Virtual playouts standing for prior knowledge.
    pub prior_visits: u32,
    /// Their results, in half wins.
    pub prior_wins: HalfWins,
}

impl Stats {
    /// The win rate of real and prior playouts, `None` when there are none.
    pub fn win_rate(&self) -> Option<f32> {
        let n = self.visits + self.prior_visits;
        (n > 0).then(|| (self.wins + self.prior_wins) as f32 / (2 * n) as f32)
    }

    /// The win rate of real playouts only.
    pub fn real_win_rate(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.wins as f32 / (2 * self.visits) as f32)
    }
}

/// A child to create at expansion: its move and its prior.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NewChild {
    /// The move.
    pub mv: NodeMove,
    /// Virtual playouts of prior knowledge.
    pub prior_visits: u32,
    /// Their results, in half wins.
    pub prior_wins: HalfWins,
}

/// The arena of nodes of one search: entry `id` of every array belongs to node `id`.
pub struct Tree {
    /// The move leading to each node; written when the node is made.
    moves: Vec<AtomicU16>,
    /// Each node's prior ([`pack`]ed virtual playouts and half wins); written when the node
    /// is made.
    priors: Vec<AtomicU64>,
    /// Each node's real playouts (in-flight ones included) and their half wins, [`pack`]ed.
    results: Vec<AtomicU64>,
    /// Each node's all-moves-as-first playouts and half wins, [`pack`]ed. A playout adds at
    /// most `2 (1 + MAX_RAVE_EARLY_WEIGHT)` = 32 half wins, so the low half would carry
    /// into the high one only after 2^27 playouts.
    amaf: Vec<AtomicU64>,
    /// Each node's children.
    links: Vec<Link>,
    used: AtomicUsize,
    full: AtomicBool,
}

/// A vector of `n` default values.
fn filled<T: Default>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.resize_with(n, T::default);
    v
}

impl Tree {
    /// A tree that can hold `capacity` nodes (at least the root).
    pub fn new(capacity: usize) -> Tree {
        let n = capacity.max(1);
        let tree = Tree {
            moves: filled(n),
            priors: filled(n),
            results: filled(n),
            amaf: filled(n),
            links: filled(n),
            used: AtomicUsize::new(0),
            full: AtomicBool::new(false),
        };
        tree.clear();
        tree
    }

    /// Forgets every node but a fresh root.
    pub fn clear(&self) {
        self.used.store(1, Ordering::Relaxed);
        self.full.store(false, Ordering::Relaxed);
        self.init(ROOT, PASS, 0, 0);
    }

    /// Number of nodes in use.
    pub fn len(&self) -> usize {
        self.used.load(Ordering::Relaxed).min(self.capacity())
    }

    fn capacity(&self) -> usize {
        self.moves.len()
    }

    /// Whether an expansion has failed for lack of room; the search goes on in the tree it has.
    pub fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    fn init(&self, id: NodeId, mv: NodeMove, prior_visits: u32, prior_wins: HalfWins) {
        let i = id as usize;
        self.moves[i].store(mv, Ordering::Relaxed);
        self.priors[i].store(pack(prior_visits, prior_wins), Ordering::Relaxed);
        self.results[i].store(0, Ordering::Relaxed);
        self.amaf[i].store(0, Ordering::Relaxed);
        let link = &self.links[i];
        link.state.store(LEAF, Ordering::Relaxed);
        link.n_children.store(0, Ordering::Relaxed);
        link.first_child.store(0, Ordering::Relaxed);
    }

    /// The node's statistics now.
    #[inline]
    pub fn stats(&self, id: NodeId) -> Stats {
        let i = id as usize;
        let (visits, wins) = unpack(self.results[i].load(Ordering::Relaxed));
        let (amaf_visits, amaf_wins) = unpack(self.amaf[i].load(Ordering::Relaxed));
        let (prior_visits, prior_wins) = unpack(self.priors[i].load(Ordering::Relaxed));
        Stats {
            mv: self.moves[i].load(Ordering::Relaxed),
            visits,
            wins,
            amaf_visits,
            amaf_wins,
            prior_visits,
            prior_wins,
        }
    }

    /// The move leading to the node.
    #[inline]
    pub fn mv(&self, id: NodeId) -> NodeMove {
        self.moves[id as usize].load(Ordering::Relaxed)
    }

    /// Real playouts through the node (in-flight ones included).
    #[inline]
    pub fn visits(&self, id: NodeId) -> u32 {
        unpack(self.results[id as usize].load(Ordering::Relaxed)).0
    }

    /// The node's children, empty unless it is expanded.
    #[inline]
    pub fn children(&self, id: NodeId) -> std::ops::Range<NodeId> {
        let link = &self.links[id as usize];
        if link.state.load(Ordering::Acquire) != EXPANDED {
            return 0..0;
        }
        let first = link.first_child.load(Ordering::Relaxed);
        first..first + NodeId::from(link.n_children.load(Ordering::Relaxed))
    }

    /// Claims the expansion of a leaf: true for exactly one caller, who must then call
    /// [`Tree::expand`].
    pub fn claim_expansion(&self, id: NodeId) -> bool {
        !self.is_full()
            && self.links[id as usize]
                .state
                .compare_exchange(LEAF, EXPANDING, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    }

    /// Gives the claimed leaf `id` its children. When the arena has no room left the node
    /// stays a leaf, the tree is marked full and no expansion is tried again.
    pub fn expand(&self, id: NodeId, children: &[NewChild]) {
        let count = children.len();
        let start = self.used.fetch_add(count, Ordering::Relaxed);
        if count == 0 || count > usize::from(u16::MAX) || start + count > self.capacity() {
            self.full.store(true, Ordering::Relaxed);
            self.links[id as usize].state.store(LEAF, Ordering::Release);
            return;
        }
        for (k, child) in children.iter().enumerate() {
            self.init(
                (start + k) as NodeId,
                child.mv,
                child.prior_visits,
                child.prior_wins,
            );
        }
        self.link(id, start, count);
    }

    /// Publishes the `count` nodes from `start` on, already made, as the children of `id`.
    fn link(&self, id: NodeId, start: usize, count: usize) {
        let link = &self.links[id as usize];
        link.first_child.store(start as NodeId, Ordering::Relaxed);
        link.n_children.store(count as u16, Ordering::Relaxed);
        link.state.store(EXPANDED, Ordering::Release);
    }

    /// Makes this tree a copy of the subtree of `from` under `node`, which becomes the root:
    /// tree reuse after the moves that lead there were played. Children stay contiguous. Nodes
    /// that do not fit are left out (their parents stay leaves). No search may be running on
    /// either tree.
    pub fn copy_subtree(&self, from: &Tree, node: NodeId) {
        self.clear();
        self.copy_node(ROOT, from, node);
        let mut queue = std::collections::VecDeque::from([(node, ROOT)]);
        while let Some((src, dst)) = queue.pop_front() {
            let kids = from.children(src);
            let count = kids.len();
            if count == 0 {
                continue;
            }
            let start = self.used.load(Ordering::Relaxed);
            if start + count > self.capacity() {
                self.full.store(true, Ordering::Relaxed);
                continue;
            }
            self.used.store(start + count, Ordering::Relaxed);
            for (k, child) in kids.enumerate() {
                let id = (start + k) as NodeId;
                self.copy_node(id, from, child);
                queue.push_back((child, id));
            }
            self.link(dst, start, count);
        }
    }

    /// Makes node `id` a leaf with the move and statistics of node `src` of `from`.
    fn copy_node(&self, id: NodeId, from: &Tree, src: NodeId) {
        let (i, j) = (id as usize, src as usize);
        self.init(id, from.mv(src), 0, 0);
        for (to, of) in [
            (&self.priors, &from.priors),
            (&self.results, &from.results),
            (&self.amaf, &from.amaf),
        ] {
            to[i].store(of[j].load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    /// Counts a playout entering the node before its result is known (the virtual loss).
    #[inline]
    pub fn enter(&self, id: NodeId) {
        self.results[id as usize].fetch_add(pack(1, 0), Ordering::Relaxed);
    }

    /// Adds the result of a playout that entered the node.
    #[inline]
    pub fn record(&self, id: NodeId, result: HalfWins) {
        self.results[id as usize].fetch_add(pack(0, result), Ordering::Relaxed);
    }

    /// Adds `weight` all-moves-as-first results of `result` half wins each.
    #[inline]
    pub fn record_amaf(&self, id: NodeId, result: HalfWins, weight: u64) {
        self.amaf[id as usize].fetch_add(
            (weight << 32) | (weight * u64::from(result)),
            Ordering::Relaxed,
        );
    }
}

impl SearchTree for Tree {
    type Node = NodeId;
    const PV_MIN_VISITS: u32 = 2;

    fn root(&self) -> NodeId {
        ROOT
    }

    fn move_into(&self, node: NodeId) -> Move {
        game_move(self.mv(node))
    }

    fn visits_of(&self, node: NodeId) -> u32 {
        self.visits(node)
    }

    /// Over real playouts only; 0 before the first.
    fn win_rate_of(&self, node: NodeId) -> f64 {
        f64::from(self.stats(node).real_win_rate().unwrap_or(0.0))
    }

    fn children_of(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.children(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The child of `node` in `tree` whose move is `mv`.
    fn child_with(tree: &Tree, node: NodeId, mv: NodeMove) -> Option<NodeId> {
        tree.children(node).find(|&id| tree.mv(id) == mv)
    }

    fn child(mv: NodeMove) -> NewChild {
        NewChild {
            mv,
            prior_visits: 2,
            prior_wins: 2,
        }
    }

    #[test]
    fn expansion_is_claimed_once_and_full_arena_keeps_leaves() {
        let tree = Tree::new(4);
        assert!(tree.claim_expansion(ROOT));
        assert!(!tree.claim_expansion(ROOT));
        tree.expand(ROOT, &[child(5), child(6)]);
        assert_eq!(tree.children(ROOT), 1..3);
        assert_eq!(tree.mv(2), 6);
        // Two more children do not fit in the 4-node arena: the node stays a leaf.
        assert!(tree.claim_expansion(1));
        tree.expand(1, &[child(7), child(8)]);
        assert!(tree.is_full());
        assert_eq!(tree.children(1), 0..0);
        assert!(!tree.claim_expansion(2));
        tree.clear();
        assert_eq!(tree.len(), 1);
        assert_eq!(tree.children(ROOT), 0..0);
    }

    #[test]
    fn a_copied_subtree_keeps_its_statistics_and_shape() {
        let old = Tree::new(16);
        assert!(old.claim_expansion(ROOT));
        old.expand(ROOT, &[child(5), child(6)]);
        assert!(old.claim_expansion(2));
        old.expand(2, &[child(7), child(8), child(9)]);
        assert!(old.claim_expansion(4));
        old.expand(4, &[child(10)]);
        old.enter(2);
        old.record(2, 2);
        old.record_amaf(5, 1, 1);
        let new = Tree::new(16);
        new.copy_subtree(&old, child_with(&old, ROOT, 6).unwrap());
        assert_eq!(new.stats(ROOT), old.stats(2));
        let kids: Vec<_> = new.children(ROOT).map(|id| new.mv(id)).collect();
        assert_eq!(kids, [7, 8, 9]);
        let eight = child_with(&new, ROOT, 8).unwrap();
        assert_eq!(new.stats(eight), old.stats(4));
        assert_eq!(
            new.children(eight).map(|id| new.mv(id)).collect::<Vec<_>>(),
            [10]
        );
        assert_eq!(new.len(), 5);
        // Too small a tree keeps what fits.
        let tiny = Tree::new(3);
        tiny.copy_subtree(&old, 2);
        assert!(tiny.is_full());
        assert_eq!(tiny.len(), 1);
    }

    #[test]
    fn no_update_is_lost_under_threads() {
        let tree = Tree::new(8);
        let threads = 4;
        let per_thread = 20_000;
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for k in 0..per_thread {
                        tree.enter(ROOT);
                        tree.record(ROOT, k % 3);
                        tree.record_amaf(ROOT, 2, u64::from(k % 4) + 1);
                    }
                });
            }
        });
        let stats = tree.stats(ROOT);
        let n = threads * per_thread;
        assert_eq!(stats.visits, n);
        // Per thread: RAVE weights 1, 2, 3, 4 repeating, each a win (two half wins).
        let amaf_per_thread: u32 = (0..per_thread).map(|k| k % 4 + 1).sum();
        assert_eq!(stats.amaf_visits, threads * amaf_per_thread);
        assert_eq!(stats.amaf_wins, 2 * threads * amaf_per_thread);
        // Per thread: results 0, 1, 2 repeating.
        let per_thread_wins: u32 = (0..per_thread).map(|k| k % 3).sum();
        assert_eq!(stats.wins, threads * per_thread_wins);
    }
}
