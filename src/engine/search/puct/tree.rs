//! The net search's tree: nodes and lazy edges in arenas within a byte budget, the sums a
//! visit backs up, the ranking of a node's children, and keeping a subtree for the next move.
//! With transpositions on it is a graph: a position that two orders of moves reach is one
//! node, each edge into it counting its own visits (KataGo's graph search).

use std::borrow::Cow;
use std::collections::HashMap;

use super::subtree_bias::{Share, SubtreeBias};
use super::value_weight::{ChildValue, ValueWeighting};
use crate::engine::search::report::ScoreStats;
use crate::engine::search::search_tree::SearchTree;
use crate::rules::board::{Color, Move, Point};

/// The most bytes a tree's nodes, edges, links and ownership sums take (48 MiB): a search
/// whose tree is full stops, as when its budget ends. A visit makes at most one node (104
/// bytes) and its link (12), and expands one leaf into an edge a legal move (8 bytes each), so
/// that is about 17,000 visits on 19x19 and 77,000 on 9x9. With the net's weights, its cache
/// full and the threads' malloc arenas (about 45 MB on two threads), `tengen gtp --net` with
/// b6c96 stays under 150 MB.
pub(super) const TREE_BYTES: usize = 48 << 20;

/// KataGo's `cpuctUtilityStdevPrior`: the spread of utilities a node is taken to have before
/// its visits say.
const UTILITY_STDEV_PRIOR: f64 = 0.4;
/// KataGo's `cpuctUtilityStdevPriorWeight`: that prior weighs as this many visits.
const UTILITY_STDEV_PRIOR_WEIGHT: f64 = 2.0;
/// The farthest a utility lies from 0: the win/loss term's 1 and the score terms' 0.1 and 0.3.
const UTILITY_RADIUS: f64 = 1.4;
/// KataGo's `lcbStdevs`: standard errors between a move's mean utility and its lower bound.
const LCB_STDEVS: f64 = 5.0;
/// KataGo's `minVisitPropForLCB`: a move chosen by its lower bound has at least this share of
/// the most visited move's visits.
const LCB_MIN_VISIT_SHARE: f64 = 0.15;

/// A node's subtree value bias entry when it has none.
pub(super) const NO_ENTRY: u32 = u32::MAX;

/// The index of the root in the tree.
pub(super) const ROOT: usize = 0;

/// One node: a position and what the visits through it found, from White's view.
#[derive(Clone, Debug)]
pub(super) struct Node {
    /// The player who played the move into it (at the root: the opponent of the player to
    /// move).
    pub(super) mover: Color,
    /// The visits through it, by every edge into it.
    pub(super) visits: u32,
    pub(super) in_flight: u32,
    /// Sums over the visits, White's view.
    pub(super) utility: f64,
    utility_sq: f64,
    /// The utility of the node's own evaluation (its first visit), White's view.
    pub(super) evaluation: f32,
    /// What the subtree value bias added to that evaluation when it was backed up.
    pub(super) own_bias: f32,
    /// The node's part in the subtree value bias table ([`NO_ENTRY`]: none).
    pub(super) bias: Share,
    pub(super) winloss: f64,
    /// The expected final score's sum, which centres the score utility when the tree is kept.
    pub(super) score: f64,
    pub(super) lead: f64,
    lead_sq: f64,
    /// The children are the edges `first_edge..first_edge + edge_count`.
    first_edge: u32,
    pub(super) edge_count: u16,
    pub(super) expanded: bool,
    /// Summed ownership (White's view) of the leaves below, kept at the root and, when asked
    /// for, at its children.
    pub(super) ownership: Option<Box<[f64]>>,
    /// The leaves summed into `ownership`.
    pub(super) owned: u32,
}

impl Node {
    pub(super) fn new(mover: Color) -> Node {
        Node {
            mover,
            visits: 0,
            in_flight: 0,
            utility: 0.0,
            utility_sq: 0.0,
            evaluation: 0.0,
            own_bias: 0.0,
            bias: Share {
                entry: NO_ENTRY,
                ..Share::default()
            },
            winloss: 0.0,
            score: 0.0,
            lead: 0.0,
            lead_sq: 0.0,
            first_edge: 0,
            edge_count: 0,
            expanded: false,
            ownership: None,
            owned: 0,
        }
    }

    /// The edges to the children.
    pub(super) fn edges(&self) -> std::ops::Range<usize> {
        let first = self.first_edge as usize;
        first..first + usize::from(self.edge_count)
    }

    /// The mean win rate of the player who played the move.
    pub(super) fn win_rate(&self) -> f64 {
        if self.visits == 0 {
            return 0.5;
        }
        0.5 * (1.0 + sign(self.mover) * self.winloss / f64::from(self.visits))
    }

    /// The mean utility for the player who played the move.
    pub(super) fn mover_utility(&self) -> f64 {
        if self.visits == 0 {
            return 0.0;
        }
        sign(self.mover) * self.utility / f64::from(self.visits)
    }

    /// How much wider than usual PUCT explores below this node, as KataGo scales it
    /// (`cpuctUtilityStdevScale`): by the spread of the utilities backed up through it, taken
    /// with a prior spread of [`UTILITY_STDEV_PRIOR`] weighing as two visits, `scale` of the
    /// way from not at all (1) to in proportion.
    pub(super) fn exploration_factor(&self, scale: f64) -> f64 {
        if scale == 0.0 {
            return 1.0;
        }
        let stdev = if self.visits <= 1 {
            UTILITY_STDEV_PRIOR
        } else {
            let n = f64::from(self.visits);
            let mean = self.utility / n;
            let mean_sq = mean * mean;
            let sq = (self.utility_sq / n).max(mean_sq);
            let prior_var = UTILITY_STDEV_PRIOR * UTILITY_STDEV_PRIOR;
            let var = ((mean_sq + prior_var) * UTILITY_STDEV_PRIOR_WEIGHT + sq * n)
                / (UTILITY_STDEV_PRIOR_WEIGHT + n - 1.0)
                - mean_sq;
            var.max(0.0).sqrt()
        };
        1.0 + scale * (stdev / UTILITY_STDEV_PRIOR - 1.0)
    }

    /// The lower confidence bound of the mover's utility, [`LCB_STDEVS`] standard errors
    /// below the mean, as KataGo bounds it: the spread of the utilities backed up, with a
    /// prior of the widest spread there is weighing `1 / visits^2` visits, so that a few visits
    /// have a wide bound. The least there is without visits.
    pub(super) fn utility_lcb(&self) -> f64 {
        let widest = 2.0 * UTILITY_RADIUS * LCB_STDEVS;
        if self.visits == 0 {
            return -widest;
        }
        let n = f64::from(self.visits);
        let mean = self.utility / n;
        let sq = (self.utility_sq / n).max(mean * mean + 1e-8);
        let prior = 1.0 / (n * n);
        let sq = (sq * n + (sq + UTILITY_RADIUS * UTILITY_RADIUS) * prior) / (n + prior);
        let samples = (n + prior) * (n + prior) / (n + prior * prior);
        let radius = LCB_STDEVS * ((sq - mean * mean).max(0.0) / samples).sqrt();
        sign(self.mover) * mean - radius
    }

    /// The node's mean value and utility (White's view), which a visit that ends on it
    /// without an evaluation backs up; it has visits.
    pub(super) fn mean_value(&self) -> (Value, f64) {
        let n = f64::from(self.visits.max(1));
        let score = self.score / n;
        let value = Value {
            winloss: self.winloss / n,
            score,
            score_sq: score * score,
            lead: self.lead / n,
        };
        (value, self.utility / n)
    }

    /// The mean lead and its deviation for `color`.
    pub(super) fn score_for(&self, color: Color) -> Option<ScoreStats> {
        if self.visits == 0 {
            return None;
        }
        let n = f64::from(self.visits);
        let mean = self.lead / n;
        let var = (self.lead_sq / n - mean * mean).max(0.0);
        Some(ScoreStats {
            mean: (sign(color) * mean) as f32,
            stdev: var.sqrt() as f32,
        })
    }
}

/// A child of an expanded node, eight bytes: its move, and its prior until its first visit
/// links it to a node, then that link's index. An expansion stores one edge a legal move; a
/// node (thirteen times the size) is made only for the children a visit goes to.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct Edge {
    /// The move: its point's index, 0 for the pass (a border cell, never a point).
    pub(super) mv: u16,
    linked: bool,
    /// The prior's bits without a link, the link's index with one.
    slot: u32,
}

/// A visited edge: the node it leads to (in a graph, maybe shared with other edges), its
/// prior and the visits that went through it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct Link {
    pub(super) node: u32,
    pub(super) prior: f32,
    pub(super) visits: u32,
}

impl Edge {
    pub(super) fn new(mv: Move, prior: f32) -> Edge {
        Edge {
            mv: match mv {
                // A point's index is below 27 * 27.
                Move::Play(p) => p.index() as u16,
                Move::Pass => 0,
            },
            linked: false,
            slot: prior.to_bits(),
        }
    }

    pub(super) fn mv(self) -> Move {
        match self.mv {
            0 => Move::Pass,
            index => Move::Play(Point::from_index(usize::from(index))),
        }
    }

    /// The edge's link, once a visit has taken it.
    pub(super) fn link(self) -> Option<usize> {
        self.linked.then_some(self.slot as usize)
    }
}

/// 1 for White, -1 for Black: turns White's view into `color`'s.
pub(super) fn sign(color: Color) -> f64 {
    match color {
        Color::White => 1.0,
        Color::Black => -1.0,
    }
}

/// What one leaf is worth, from White's view.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) struct Value {
    pub(super) winloss: f64,
    /// The expected final score.
    pub(super) score: f64,
    /// The expected square of the final score: with `score`, its spread.
    pub(super) score_sq: f64,
    /// The lead (what komi would make the game even).
    pub(super) lead: f64,
}

/// The search tree: nodes, edges and links in arenas, the root the first node. A child's node
/// is made after its first parent's; in a graph another parent may come later.
#[derive(Debug, Default)]
pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) edges: Vec<Edge>,
    pub(super) links: Vec<Link>,
    /// With transpositions on: the node of each position key (see
    /// [`position_key`](super::descent::position_key)).
    pub(super) positions: Option<HashMap<u64, u32>>,
    /// The points of the board: the length of an ownership sum.
    area: usize,
    /// Whether the root's children keep ownership sums.
    moves_ownership: bool,
    /// The bytes of the ownership sums.
    ownership_bytes: usize,
    /// The most bytes the nodes, edges, ownership sums and bias table may take.
    pub(super) budget: usize,
    /// The subtree value bias table its nodes share.
    pub(super) subtree_bias: SubtreeBias,
    /// How a node weighs its children's values.
    pub(super) weighting: ValueWeighting,
    /// The children one node weighs, kept to save allocations.
    weighed: Vec<ChildValue>,
    /// The temperature the root's priors are raised to (see [`Tree::temper_root`]); `None`:
    /// the net's own.
    root_temperature: Option<f32>,
}

impl Tree {
    /// A tree of one root, of at most `budget` bytes, for a board of `area` points.
    pub(super) fn new(root_mover: Color, area: usize, budget: usize) -> Tree {
        let mut tree = Tree {
            budget,
            ..Tree::default()
        };
        tree.restart(root_mover, area);
        tree
    }

    /// Empties the tree down to a new root (its arenas keep their room).
    pub(super) fn restart(&mut self, root_mover: Color, area: usize) {
        self.nodes.clear();
        self.edges.clear();
        self.links.clear();
        if let Some(positions) = self.positions.as_mut() {
            positions.clear();
        }
        self.area = area;
        self.moves_ownership = false;
        self.ownership_bytes = 0;
        self.subtree_bias.clear();
        self.root_temperature = None;
        let mut root = Node::new(root_mover);
        root.ownership = Some(self.new_ownership());
        self.nodes.push(root);
    }

    /// An ownership sum of zeros, counted in the tree's bytes.
    fn new_ownership(&mut self) -> Box<[f64]> {
        self.ownership_bytes += self.area * size_of::<f64>();
        vec![0.0; self.area].into_boxed_slice()
    }

    /// The bytes the nodes, edges, links, position keys and ownership sums take.
    pub(super) fn bytes(&self) -> usize {
        let key = size_of::<u64>() + size_of::<u32>();
        self.nodes.len() * size_of::<Node>()
            + self.edges.len() * size_of::<Edge>()
            + self.links.len() * size_of::<Link>()
            + self.positions.as_ref().map_or(0, |p| p.capacity() * key)
            + self.ownership_bytes
            + self.subtree_bias.bytes()
    }

    /// Whether the tree may have no room for another visit's node, link, ownership sum and
    /// expansion.
    pub(super) fn is_full(&self) -> bool {
        let visit = size_of::<Node>()
            + size_of::<Link>()
            + self.area * size_of::<f64>()
            + (self.area + 1) * size_of::<Edge>();
        self.bytes() + visit > self.budget
    }

    /// The node of `edge` (a child of `at`): the one its link leads to, or a node of no
    /// visits.
    pub(super) fn child(&self, at: usize, edge: usize) -> Cow<'_, Node> {
        match self.node_of(edge) {
            Some(id) => Cow::Borrowed(&self.nodes[id]),
            None => Cow::Owned(Node::new(self.nodes[at].mover.opponent())),
        }
    }

    /// The node `edge` leads to, once a visit has taken it.
    pub(super) fn node_of(&self, edge: usize) -> Option<usize> {
        self.edges[edge]
            .link()
            .map(|link| self.links[link].node as usize)
    }

    /// The prior of the move of `edge`.
    pub(super) fn prior(&self, edge: usize) -> f32 {
        let e = self.edges[edge];
        e.link()
            .map_or(f32::from_bits(e.slot), |link| self.links[link].prior)
    }

    /// Gives the children of `at` the priors of `children` (those of its moves listed): the
    /// net's own.
    pub(super) fn set_priors(&mut self, at: usize, children: &[(Move, f32)]) {
        for edge in self.nodes[at].edges() {
            let mv = self.edges[edge].mv();
            if let Some(&(_, prior)) = children.iter().find(|&&(m, _)| m == mv) {
                self.set_prior(edge, prior);
            }
        }
        if at == ROOT {
            self.root_temperature = None;
        }
    }

    fn set_prior(&mut self, edge: usize, prior: f32) {
        match self.edges[edge].link() {
            Some(link) => self.links[link].prior = prior,
            None => self.edges[edge].slot = prior.to_bits(),
        }
    }

    /// Raises the root's priors to the temperature `temperature` (KataGo's
    /// `rootPolicyTemperature`): the net's own priors `p` become `p^(1 / temperature)`,
    /// scaled back to their sum. A root tempered before is raised from where it stands.
    pub(super) fn temper_root(&mut self, temperature: f32) {
        let current = self.root_temperature.unwrap_or(1.0);
        let exponent = f64::from(current) / f64::from(temperature);
        self.root_temperature = (temperature != 1.0).then_some(temperature);
        if exponent == 1.0 {
            return;
        }
        let edges = self.nodes[ROOT].edges();
        let priors: Vec<f64> = edges.clone().map(|e| f64::from(self.prior(e))).collect();
        let sum: f64 = priors.iter().sum();
        let max = priors.iter().copied().fold(0.0, f64::max);
        if max <= 0.0 {
            return;
        }
        // Raised relative to the largest, so that no power underflows to nothing.
        let raised: Vec<f64> = priors.iter().map(|&p| (p / max).powf(exponent)).collect();
        let scale = sum / raised.iter().sum::<f64>();
        for (edge, p) in edges.zip(raised) {
            self.set_prior(edge, (p * scale) as f32);
        }
    }

    /// The visits through `edge`.
    pub(super) fn edge_visits(&self, edge: usize) -> u32 {
        self.edges[edge]
            .link()
            .map_or(0, |link| self.links[link].visits)
    }

    /// The node of `edge` (a child of `at`), made now if this is its first visit.
    pub(super) fn child_node(&mut self, at: usize, edge: usize) -> usize {
        if let Some(id) = self.node_of(edge) {
            return id;
        }
        let mut node = Node::new(self.nodes[at].mover.opponent());
        if at == ROOT && self.moves_ownership {
            node.ownership = Some(self.new_ownership());
        }
        let id = self.nodes.len();
        self.nodes.push(node);
        self.link(edge, id);
        id
    }

    /// With transpositions on, the node already made for the position of `key`, now also
    /// the child of `edge`, unless it is on `path` (a cycle, which the rules' ban on
    /// repetition leaves to keys that hash alike).
    pub(super) fn transposition(&mut self, edge: usize, key: u64, path: &[usize]) -> Option<usize> {
        let id = *self.positions.as_ref()?.get(&key)? as usize;
        if path.contains(&id) {
            return None;
        }
        self.link(edge, id);
        Some(id)
    }

    /// Notes `id` as the node of the position of `key`, with transpositions on.
    pub(super) fn remember(&mut self, key: u64, id: usize) {
        if let Some(positions) = self.positions.as_mut() {
            // The budget keeps the nodes far below 2^32.
            positions.insert(key, id as u32);
        }
    }

    /// Links `edge` to the node `id`.
    fn link(&mut self, edge: usize, id: usize) {
        let e = self.edges[edge];
        // The budget keeps the nodes and links far below 2^32.
        self.links.push(Link {
            node: id as u32,
            prior: f32::from_bits(e.slot),
            visits: 0,
        });
        self.edges[edge] = Edge {
            linked: true,
            slot: (self.links.len() - 1) as u32,
            ..e
        };
    }

    /// The edge of `at` that PUCT chooses.
    /// Gives `at` its children as edges (once), unless the tree has no room for them.
    pub(super) fn expand(&mut self, at: usize, children: &[(Move, f32)], moves_ownership: bool) {
        if self.nodes[at].expanded
            || self.bytes() + children.len() * size_of::<Edge>() > self.budget
        {
            return;
        }
        let first = self.edges.len();
        self.edges
            .extend(children.iter().map(|&(mv, prior)| Edge::new(mv, prior)));
        if at == ROOT {
            self.moves_ownership = moves_ownership;
        }
        let node = &mut self.nodes[at];
        // The budget keeps the edges far below 2^32, and a move list fits a u16 (626 moves at
        // most on 25x25).
        node.first_edge = first as u32;
        node.edge_count = children.len() as u16;
        node.expanded = true;
    }

    /// Adds one visit's `value` (and the leaf's ownership) along `path` and through `edges`
    /// (those between its nodes, and after the last one the edge of a visit that ended on a
    /// transposition, which counts that node's value as its own), ending its visit in flight.
    /// `utility` is the leaf's own; on a leaf's first visit the subtree value bias of its
    /// entry is added to it, and every node on the way with an entry tells it what its subtree
    /// has found since.
    pub(super) fn back_up(
        &mut self,
        path: &[usize],
        edges: &[usize],
        value: Value,
        utility: f64,
        ownership: Option<&[f32]>,
    ) {
        for &edge in edges {
            if let Some(link) = self.edges[edge].link() {
                self.links[link].visits += 1;
            }
        }
        let mut backed = utility;
        if let Some(&leaf) = path.last().filter(|_| edges.len() < path.len()) {
            let node = &mut self.nodes[leaf];
            if node.visits == 0 {
                let bias = match node.bias.entry {
                    NO_ENTRY => 0.0,
                    entry => self.subtree_bias.bias(entry),
                };
                node.evaluation = utility as f32;
                node.own_bias = bias as f32;
                backed += bias;
            }
        }
        let reweighing = self.weighting.is_on() || self.positions.is_some();
        for &id in path {
            let node = &mut self.nodes[id];
            node.in_flight = node.in_flight.saturating_sub(1);
            node.visits += 1;
            node.utility += backed;
            node.utility_sq += backed * backed;
            node.winloss += value.winloss;
            node.score += value.score;
            node.lead += value.lead;
            node.lead_sq += value.lead * value.lead;
            if let (Some(sum), Some(leaf)) = (node.ownership.as_mut(), ownership) {
                for (s, &o) in sum.iter_mut().zip(leaf) {
                    *s += f64::from(o);
                }
                node.owned += 1;
            }
            // Reweighing records the subtree bias itself.
            if !reweighing && node.bias.entry != NO_ENTRY && node.visits >= 2 {
                let children = f64::from(node.visits - 1);
                let own = f64::from(node.evaluation) + f64::from(node.own_bias);
                let children_mean = (node.utility - own) / children;
                let evaluation = f64::from(node.evaluation);
                self.subtree_bias
                    .record(&mut node.bias, children, children_mean, evaluation);
            }
        }
        if reweighing {
            for &id in path.iter().rev() {
                self.reweigh(id);
            }
        }
    }

    /// Recomputes the utility of `id` (with visited children) from its own evaluation and its
    /// children's, each weighing the visits of its edge as [`ValueWeighting`] weighs them, the
    /// sums kept as over its visits. In a graph, a child's value holds the visits of every
    /// edge into it.
    fn reweigh(&mut self, id: usize) {
        let mut children = std::mem::take(&mut self.weighed);
        children.clear();
        let node = &self.nodes[id];
        let visited = node
            .edges()
            .filter_map(|edge| self.edges[edge].link())
            .map(|link| {
                (
                    &self.links[link],
                    &self.nodes[self.links[link].node as usize],
                )
            })
            .filter(|(link, child)| link.visits > 0 && child.visits > 0);
        children.extend(visited.map(|(link, child)| ChildValue {
            utility: child.mover_utility(),
            mean_sq: child.utility_sq / f64::from(child.visits),
            policy: link.prior,
            weight: f64::from(link.visits),
        }));
        if !children.is_empty() {
            children.sort_by(|a, b| b.policy.total_cmp(&a.policy));
            let visits: f64 = children.iter().map(|c| c.weight).sum();
            let total = self.weighting.weigh(&mut children);
            // Back to White's view: a child's mover is the one to play at `id`.
            let to_white = -sign(node.mover);
            let (children_sum, children_sq) = children.iter().fold((0.0, 0.0), |(s, q), c| {
                (
                    s + c.weight * to_white * c.utility,
                    q + c.weight * c.mean_sq,
                )
            });
            // The subtree value bias, as KataGo keeps it: the node's finding (its children's
            // mean against its own evaluation) put in its entry, and its evaluation biased by
            // the entry as it stands now.
            let (evaluation, mut share, mut own_bias) = (node.evaluation, node.bias, node.own_bias);
            if share.entry != NO_ENTRY && total > 0.0 {
                let evaluation = f64::from(evaluation);
                let mean = children_sum / total;
                self.subtree_bias
                    .record(&mut share, visits, mean, evaluation);
                own_bias = self.subtree_bias.bias(share.entry) as f32;
            }
            let own = f64::from(evaluation) + f64::from(own_bias);
            let per_visit = f64::from(node.visits) / (total + 1.0);
            let node = &mut self.nodes[id];
            node.utility = (own + children_sum) * per_visit;
            node.utility_sq = (own * own + children_sq) * per_visit;
            node.bias = share;
            node.own_bias = own_bias;
        }
        self.weighed = children;
    }

    /// The root's children (edges), most visited first (ties by utility, then prior).
    pub(super) fn ranked_root_children(&self) -> Vec<usize> {
        self.ranked_children(ROOT)
    }

    /// The children (edges) of `at`, most visited first (ties by utility, then prior: a search
    /// cut short before its first visits plays the net's policy).
    pub(super) fn ranked_children(&self, at: usize) -> Vec<usize> {
        let mut children: Vec<usize> = self.nodes[at].edges().collect();
        children.sort_by(|&a, &b| {
            let utility = |edge| self.child(at, edge).mover_utility();
            self.edge_visits(b)
                .cmp(&self.edge_visits(a))
                .then(utility(b).total_cmp(&utility(a)))
                .then(self.prior(b).total_cmp(&self.prior(a)))
        });
        children
    }

    /// The root's children (edges) ranked for play: most visited first, or with `lcb` the
    /// child of the highest lower confidence bound first, among those with at least
    /// [`LCB_MIN_VISIT_SHARE`] of the most visited child's visits.
    pub(super) fn ranked_for_play(&self, lcb: bool) -> Vec<usize> {
        let mut ranked = self.ranked_root_children();
        let Some(most) = ranked.first().map(|&edge| self.edge_visits(edge)) else {
            return ranked;
        };
        if lcb && most > 0 {
            let least = LCB_MIN_VISIT_SHARE * f64::from(most);
            let best = ranked
                .iter()
                .enumerate()
                .filter(|&(_, &edge)| f64::from(self.edge_visits(edge)) >= least)
                .map(|(i, &edge)| (i, self.child(ROOT, edge).utility_lcb()))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(0, |(i, _)| i);
            let chosen = ranked.remove(best);
            ranked.insert(0, chosen);
        }
        ranked
    }

    /// Makes what lies under `top` the whole tree, `top` its root (keeping its visits; its
    /// ownership starts afresh). In place, so that reusing a tree never holds two: `top`
    /// becomes the first node and the others keep their order, so each only moves down (the
    /// old root, first, is never kept), as do the edge blocks kept, taken in their order.
    pub(super) fn keep_subtree(&mut self, top: usize) {
        if top != ROOT {
            // The new root's priors are the net's; the old root is dropped.
            self.root_temperature = None;
        }
        let mut kept = vec![false; self.nodes.len()];
        kept[top] = true;
        let mut stack = vec![top];
        while let Some(id) = stack.pop() {
            for edge in self.nodes[id].edges() {
                if let Some(child) = self.node_of(edge).filter(|&child| !kept[child]) {
                    kept[child] = true;
                    stack.push(child);
                }
            }
        }
        let mut new_id = vec![u32::MAX; self.nodes.len()];
        new_id[top] = 0;
        let mut count = 1;
        for id in 0..self.nodes.len() {
            if kept[id] && id != top {
                new_id[id] = count;
                count += 1;
            }
        }
        let mut blocks: Vec<usize> = (0..self.nodes.len())
            .filter(|&id| kept[id] && self.nodes[id].edge_count > 0)
            .collect();
        blocks.sort_by_key(|&id| self.nodes[id].first_edge);
        let mut next_edge = 0;
        for id in blocks {
            let block = self.nodes[id].edges();
            self.edges.copy_within(block.clone(), next_edge);
            self.nodes[id].first_edge = next_edge as u32;
            next_edge += block.len();
        }
        self.edges.truncate(next_edge);
        let mut links = Vec::with_capacity(self.links.len());
        for edge in &mut self.edges {
            if let Some(link) = edge.link() {
                let old = self.links[link];
                links.push(Link {
                    node: new_id[old.node as usize],
                    ..old
                });
                edge.slot = (links.len() - 1) as u32;
            }
        }
        self.links = links;
        if let Some(positions) = self.positions.as_mut() {
            positions.retain(|_, id| kept[*id as usize]);
            for id in positions.values_mut() {
                *id = new_id[*id as usize];
            }
        }
        let dropped: Vec<Share> = (0..self.nodes.len())
            .filter(|&id| !kept[id] && self.nodes[id].bias.entry != NO_ENTRY)
            .map(|id| self.nodes[id].bias)
            .collect();
        self.nodes.swap(0, top);
        for id in 1..self.nodes.len() {
            if kept[id] && id != top {
                self.nodes.swap(new_id[id] as usize, id);
            }
        }
        self.nodes.truncate(count as usize);
        for node in &mut self.nodes {
            node.ownership = None;
            node.owned = 0;
        }
        let shares = self.nodes.iter_mut().map(|n| &mut n.bias);
        self.subtree_bias.keep(
            shares.filter(|share| share.entry != NO_ENTRY),
            dropped.into_iter(),
        );
        self.moves_ownership = false;
        self.ownership_bytes = 0;
        self.nodes[ROOT].ownership = Some(self.new_ownership());
    }
}

/// The handle [`SearchTree`] gives the root; any other node's is the edge into it, which
/// names the move (a node of a graph has more than one).
pub(super) const ROOT_HANDLE: usize = usize::MAX;

impl SearchTree for Tree {
    type Node = usize;
    const PV_MIN_VISITS: u32 = 1;

    fn root(&self) -> usize {
        ROOT_HANDLE
    }

    fn move_into(&self, edge: usize) -> Move {
        match edge {
            ROOT_HANDLE => Move::Pass,
            edge => self.edges[edge].mv(),
        }
    }

    fn visits_of(&self, edge: usize) -> u32 {
        match edge {
            ROOT_HANDLE => self.nodes[ROOT].visits,
            edge => self.edge_visits(edge),
        }
    }

    fn win_rate_of(&self, edge: usize) -> f64 {
        self.handle_node(edge)
            .map_or(0.5, |id| self.nodes[id].win_rate())
    }

    fn children_of(&self, edge: usize) -> impl Iterator<Item = usize> + '_ {
        let edges = self
            .handle_node(edge)
            .map_or(0..0, |id| self.nodes[id].edges());
        edges.filter(|&edge| self.edges[edge].link().is_some())
    }
}

impl Tree {
    /// The node of a [`SearchTree`] handle.
    pub(super) fn handle_node(&self, handle: usize) -> Option<usize> {
        match handle {
            ROOT_HANDLE => Some(ROOT),
            edge => self.node_of(edge),
        }
    }
}
