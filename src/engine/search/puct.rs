//! A PUCT search guided by a KataGo network: what the `mcts` level plays and analyses with
//! when it has a net. The net's policy gives the priors, its value the leaves (no playouts).
//!
//! Values are kept from White's view and read from the view of the player choosing.
//! A leaf's utility, as KataGo's `getScoreUtility` (searchhelpers.cpp) shapes it, is
//!
//! `u = (win - loss) + 0.1 * f(score, 0, 2) + 0.3 * f(score, center, 0.75)`,
//! `f(s, c, k) = 2/pi * atan((s - c) / (k * sqrt(board area)))`,
//!
//! with `score` the net's expected score (`white_score_selfplay`) and `center` the root's
//! expected score when the search starts. KataGo integrates `f` over a normal distribution of
//! the score (its stdev from the score's square); this takes `f` at the mean.
//!
//! Selection is KataGo's PUCT: a child's `Q + c * P * sqrt(N) / (1 + n)` with
//! `c = 1.0 + 0.45 * ln((N + 500) / 500)` (N: the visits of the parent's children, n the
//! child's, both counting the visits in flight), and an unvisited child valued at its
//! parent's average utility less `0.2 * sqrt(the policy of the visited children)` (0.1 at the
//! root): first-play urgency. Threads share one tree under one lock, taken to descend and to
//! back up, not while the net evaluates; a visit in flight counts as a loss for the player
//! choosing (virtual loss). On the clock a thread descends `leaf_batch` times before it
//! evaluates the leaves in one batch. Each evaluation takes a random one of the net's eight
//! symmetries, unless the net's cache holds the position already.
//! A game that ends in the tree (two passes) is scored by area on the board as it stands.
//! The move played is the most visited root child. In a handicap game with dynamic komi on
//! (`handicap_komi`), a move is searched as if White had the extra komi, in whole points.
//!
//! An expansion stores one 8-byte `Edge` a legal move; a child gets its `Node` on its first
//! visit, and the tree stops growing at `TREE_BYTES`.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use log::info;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::{AnalysisRequest, Budget, Choice, MoveInfo, Report, RootInfo, ScoreStats};
use super::{MAX_LEAF_BATCH, PASS_MARGIN, SearchSettings, dynamic_komi, is_settled};
use crate::knowledge::net::inputs::NetPosition;
use crate::knowledge::net::{DEFAULT_OPTIMISM, Features, Net, NetOutput};
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::regions::Regions;
use crate::rules::game::{Game, Rules, Scoring};

/// KataGo's `cpuctExploration`.
const CPUCT: f64 = 1.0;
/// KataGo's `cpuctExplorationLog`.
const CPUCT_LOG: f64 = 0.45;
/// KataGo's `cpuctExplorationBase`.
const CPUCT_BASE: f64 = 500.0;
/// KataGo's `fpuReductionMax` below the root.
const FPU_REDUCTION: f64 = 0.2;
/// KataGo's `rootFpuReductionMax`.
const ROOT_FPU_REDUCTION: f64 = 0.1;
/// KataGo's `staticScoreUtilityFactor`, with its scale 2.
const STATIC_SCORE_FACTOR: f64 = 0.1;
const STATIC_SCORE_SCALE: f64 = 2.0;
/// KataGo's `dynamicScoreUtilityFactor` and `dynamicScoreCenterScale`.
const DYNAMIC_SCORE_FACTOR: f64 = 0.3;
const DYNAMIC_SCORE_SCALE: f64 = 0.75;
/// Visits of a move when neither the settings, the budget nor a clock limit the search.
const DEFAULT_VISITS: u64 = 400;
/// Root visits before a search's win rate is trusted enough to resign on.
pub const MIN_VISITS_TO_RESIGN: u64 = 30;
/// The most visits one ponder runs (the tree's size bounds it first on big boards).
const PONDER_VISITS: u64 = 100_000;
/// The most bytes a tree's nodes, edges and ownership sums take (48 MiB): a search whose
/// tree is full stops, as when its budget ends. A visit makes at most one node (80 bytes) and
/// expands one leaf into an edge a legal move (8 bytes each), so that is about 17,000 visits
/// on 19x19 and 79,000 on 9x9. With the net's weights, its cache full and the threads' malloc
/// arenas (about 45 MB on two threads), `tengen gtp --net` with b6c96 stays under 150 MB.
const TREE_BYTES: usize = 48 << 20;
/// The longest principal variation reported.
const MAX_PV: usize = 16;

/// The index of the root in the tree.
const ROOT: usize = 0;

/// One node: a move and what the visits through it found, from White's view.
#[derive(Clone, Debug)]
struct Node {
    mv: Move,
    /// The player who played `mv` (at the root: the opponent of the player to move).
    mover: Color,
    prior: f32,
    visits: u32,
    in_flight: u32,
    /// Sums over the visits, White's view.
    utility: f64,
    winloss: f64,
    lead: f64,
    lead_sq: f64,
    /// The children are the edges `first_edge..first_edge + edge_count`.
    first_edge: u32,
    edge_count: u16,
    expanded: bool,
    /// Summed ownership (White's view) of the leaves below, kept at the root and, when asked
    /// for, at its children.
    ownership: Option<Box<[f64]>>,
    /// The leaves summed into `ownership`.
    owned: u32,
}

impl Node {
    fn new(mv: Move, mover: Color, prior: f32) -> Node {
        Node {
            mv,
            mover,
            prior,
            visits: 0,
            in_flight: 0,
            utility: 0.0,
            winloss: 0.0,
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
    fn edges(&self) -> std::ops::Range<usize> {
        let first = self.first_edge as usize;
        first..first + usize::from(self.edge_count)
    }

    /// The mean win rate of the player who played the move.
    fn win_rate(&self) -> f64 {
        if self.visits == 0 {
            return 0.5;
        }
        0.5 * (1.0 + sign(self.mover) * self.winloss / f64::from(self.visits))
    }

    /// The mean utility for the player who played the move.
    fn mover_utility(&self) -> f64 {
        if self.visits == 0 {
            return 0.0;
        }
        sign(self.mover) * self.utility / f64::from(self.visits)
    }

    /// The mean lead and its deviation for `color`.
    fn score_for(&self, color: Color) -> Option<ScoreStats> {
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
/// makes a node for it, then that node's id. An expansion stores one edge a legal move; a
/// node (ten times the size) is made only for the children a visit goes to.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Edge {
    /// The move: its point's index, 0 for the pass (a border cell, never a point).
    mv: u16,
    has_node: bool,
    /// The prior's bits without a node, the node's id with one.
    slot: u32,
}

impl Edge {
    fn new(mv: Move, prior: f32) -> Edge {
        Edge {
            mv: match mv {
                // A point's index is below 27 * 27.
                Move::Play(p) => p.index() as u16,
                Move::Pass => 0,
            },
            has_node: false,
            slot: prior.to_bits(),
        }
    }

    fn mv(self) -> Move {
        match self.mv {
            0 => Move::Pass,
            index => Move::Play(Point::from_index(usize::from(index))),
        }
    }

    /// The child's node, once a visit has made it.
    fn node(self) -> Option<usize> {
        self.has_node.then_some(self.slot as usize)
    }
}

/// 1 for White, -1 for Black: turns White's view into `color`'s.
fn sign(color: Color) -> f64 {
    match color {
        Color::White => 1.0,
        Color::Black => -1.0,
    }
}

/// What one leaf is worth, from White's view.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Value {
    winloss: f64,
    /// The expected final score.
    score: f64,
    /// The lead (what komi would make the game even).
    lead: f64,
}

/// A leaf's evaluation: its value, and for a position the net saw, the moves it opens with
/// their priors and the net's ownership.
struct Evaluation {
    value: Value,
    children: Vec<(Move, f32)>,
    ownership: Option<Vec<f32>>,
}

/// A leaf a descent reached: the nodes from the root to it, and its game with `to_move` to
/// play.
struct Leaf {
    path: Vec<usize>,
    game: Game,
    position: NetPosition,
    to_move: Color,
}

/// The search tree: nodes and edges in two arenas, the root the first node. A child's node is
/// made after its parent's, so it always comes later in the arena.
#[derive(Debug, Default)]
struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// The points of the board: the length of an ownership sum.
    area: usize,
    /// Whether the root's children keep ownership sums.
    moves_ownership: bool,
    /// The bytes of the ownership sums.
    ownership_bytes: usize,
    /// The most bytes the nodes, edges and ownership sums may take.
    budget: usize,
}

impl Tree {
    /// A tree of one root, of at most `budget` bytes, for a board of `area` points.
    fn new(root_mover: Color, area: usize, budget: usize) -> Tree {
        let mut tree = Tree {
            budget,
            ..Tree::default()
        };
        tree.restart(root_mover, area);
        tree
    }

    /// Empties the tree down to a new root (its arenas keep their room).
    fn restart(&mut self, root_mover: Color, area: usize) {
        self.nodes.clear();
        self.edges.clear();
        self.area = area;
        self.moves_ownership = false;
        self.ownership_bytes = 0;
        let mut root = Node::new(Move::Pass, root_mover, 1.0);
        root.ownership = Some(self.new_ownership());
        self.nodes.push(root);
    }

    /// An ownership sum of zeros, counted in the tree's bytes.
    fn new_ownership(&mut self) -> Box<[f64]> {
        self.ownership_bytes += self.area * size_of::<f64>();
        vec![0.0; self.area].into_boxed_slice()
    }

    /// The bytes the nodes, edges and ownership sums take.
    fn bytes(&self) -> usize {
        self.nodes.len() * size_of::<Node>()
            + self.edges.len() * size_of::<Edge>()
            + self.ownership_bytes
    }

    /// Whether the tree may have no room for another visit's node, ownership sum and
    /// expansion.
    fn is_full(&self) -> bool {
        let visit =
            size_of::<Node>() + self.area * size_of::<f64>() + (self.area + 1) * size_of::<Edge>();
        self.bytes() + visit > self.budget
    }

    /// The node of `edge` (a child of `at`): the one made on its first visit, or a node of no
    /// visits.
    fn child(&self, at: usize, edge: usize) -> Cow<'_, Node> {
        let e = self.edges[edge];
        match e.node() {
            Some(id) => Cow::Borrowed(&self.nodes[id]),
            None => Cow::Owned(Node::new(
                e.mv(),
                self.nodes[at].mover.opponent(),
                f32::from_bits(e.slot),
            )),
        }
    }

    /// The visits of the child at `edge`.
    fn edge_visits(&self, edge: usize) -> u32 {
        self.edges[edge]
            .node()
            .map_or(0, |id| self.nodes[id].visits)
    }

    /// The node of `edge` (a child of `at`), made now if this is its first visit.
    fn child_node(&mut self, at: usize, edge: usize) -> usize {
        let e = self.edges[edge];
        if let Some(id) = e.node() {
            return id;
        }
        let mut node = Node::new(
            e.mv(),
            self.nodes[at].mover.opponent(),
            f32::from_bits(e.slot),
        );
        if at == ROOT && self.moves_ownership {
            node.ownership = Some(self.new_ownership());
        }
        let id = self.nodes.len();
        self.nodes.push(node);
        // The budget keeps the nodes far below 2^32.
        self.edges[edge] = Edge {
            has_node: true,
            slot: id as u32,
            ..e
        };
        id
    }

    /// The edge of `at` that PUCT chooses.
    fn select(&self, at: usize) -> Option<usize> {
        let parent = &self.nodes[at];
        let chooser = parent.mover.opponent();
        let node_of = |edge: usize| self.edges[edge].node().map(|id| &self.nodes[id]);
        let total: f64 = parent
            .edges()
            .filter_map(node_of)
            .map(|n| f64::from(n.visits + n.in_flight))
            .sum();
        let cpuct = CPUCT + CPUCT_LOG * ((total + CPUCT_BASE) / CPUCT_BASE).ln();
        let explore = cpuct * (total + 0.01).sqrt();
        let parent_utility = if parent.visits == 0 {
            0.0
        } else {
            sign(chooser) * parent.utility / f64::from(parent.visits)
        };
        let visited_policy: f64 = parent
            .edges()
            .filter_map(node_of)
            .filter(|n| n.visits > 0)
            .map(|n| f64::from(n.prior))
            .sum();
        let reduction = if at == ROOT {
            ROOT_FPU_REDUCTION
        } else {
            FPU_REDUCTION
        };
        let first_play = parent_utility - reduction * visited_policy.sqrt();
        parent
            .edges()
            .map(|edge| {
                let (n, q, prior) = match node_of(edge) {
                    Some(child) if child.visits + child.in_flight > 0 => {
                        let n = f64::from(child.visits + child.in_flight);
                        let q = (sign(chooser) * child.utility - f64::from(child.in_flight)) / n;
                        (n, q, child.prior)
                    }
                    Some(child) => (0.0, first_play, child.prior),
                    None => (0.0, first_play, f32::from_bits(self.edges[edge].slot)),
                };
                (edge, q + explore * f64::from(prior) / (1.0 + n))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(edge, _)| edge)
    }

    /// Gives `at` its children as edges (once), unless the tree has no room for them.
    fn expand(&mut self, at: usize, children: &[(Move, f32)], moves_ownership: bool) {
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

    /// Adds one visit's `value` (and the leaf's ownership) along `path`, ending its visit in
    /// flight.
    fn back_up(&mut self, path: &[usize], value: Value, utility: f64, ownership: Option<&[f32]>) {
        for &id in path {
            let node = &mut self.nodes[id];
            node.in_flight = node.in_flight.saturating_sub(1);
            node.visits += 1;
            node.utility += utility;
            node.winloss += value.winloss;
            node.lead += value.lead;
            node.lead_sq += value.lead * value.lead;
            if let (Some(sum), Some(leaf)) = (node.ownership.as_mut(), ownership) {
                for (s, &o) in sum.iter_mut().zip(leaf) {
                    *s += f64::from(o);
                }
                node.owned += 1;
            }
        }
    }

    /// The root's children (edges), most visited first (ties by utility, then prior).
    fn ranked_root_children(&self) -> Vec<usize> {
        self.ranked_children(ROOT)
    }

    /// The children (edges) of `at`, most visited first (ties by utility, then prior: a search
    /// cut short before its first visits plays the net's policy).
    fn ranked_children(&self, at: usize) -> Vec<usize> {
        let mut children: Vec<usize> = self.nodes[at].edges().collect();
        children.sort_by(|&a, &b| {
            let (a, b) = (self.child(at, a), self.child(at, b));
            b.visits
                .cmp(&a.visits)
                .then(b.mover_utility().total_cmp(&a.mover_utility()))
                .then(b.prior.total_cmp(&a.prior))
        });
        children
    }

    /// Makes the subtree under `top` the whole tree, `top` its root (keeping its visits; its
    /// ownership starts afresh). In place, so that reusing a tree never holds two: since a
    /// child comes after its parent, the nodes kept, and the edge blocks kept taken in their
    /// order, only move down.
    fn keep_subtree(&mut self, top: usize) {
        let mut kept = vec![false; self.nodes.len()];
        kept[top] = true;
        for id in top..self.nodes.len() {
            if kept[id] {
                for edge in self.nodes[id].edges() {
                    if let Some(child) = self.edges[edge].node() {
                        kept[child] = true;
                    }
                }
            }
        }
        let mut new_id = vec![u32::MAX; self.nodes.len()];
        let mut count = 0;
        for id in top..self.nodes.len() {
            if kept[id] {
                new_id[id] = count;
                count += 1;
            }
        }
        let mut blocks: Vec<usize> = (top..self.nodes.len())
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
        for edge in &mut self.edges {
            if edge.has_node {
                edge.slot = new_id[edge.slot as usize];
            }
        }
        for id in top..self.nodes.len() {
            if kept[id] {
                self.nodes.swap(new_id[id] as usize, id);
            }
        }
        self.nodes.truncate(count as usize);
        for node in &mut self.nodes {
            node.ownership = None;
            node.owned = 0;
        }
        self.moves_ownership = false;
        self.ownership_bytes = 0;
        self.nodes[ROOT].ownership = Some(self.new_ownership());
    }

    /// The line from `id` down its most visited children.
    fn principal_variation(&self, id: usize) -> Vec<Move> {
        let mut pv = vec![self.nodes[id].mv];
        let mut at = id;
        while pv.len() < MAX_PV {
            let Some(next) = self.nodes[at]
                .edges()
                .filter_map(|edge| self.edges[edge].node())
                .filter(|&c| self.nodes[c].visits > 0)
                .max_by_key(|&c| self.nodes[c].visits)
            else {
                break;
            };
            pv.push(self.nodes[next].mv);
            at = next;
        }
        pv
    }
}

/// How often a search reports, and to what: the search so far, and whether this is its last
/// report; false when nobody listens any more.
type Reporter<'a> = (Duration, &'a mut dyn FnMut(&PuctSearch, bool) -> bool);

/// One search's fixed inputs.
struct Run<'a> {
    net: &'a Net,
    game: &'a Game,
    position: NetPosition,
    /// The dynamic score utility's centre (White's view).
    center: f64,
    sqrt_area: f64,
    moves_ownership: bool,
    /// The leaves a thread gathers (under virtual loss) to evaluate in one batch.
    leaf_batch: usize,
}

impl Run<'_> {
    /// A leaf's utility from White's view (the formula in the module's comment).
    fn utility(&self, value: Value) -> f64 {
        let f = |center: f64, scale: f64| {
            std::f64::consts::FRAC_2_PI * ((value.score - center) / (scale * self.sqrt_area)).atan()
        };
        value.winloss
            + STATIC_SCORE_FACTOR * f(0.0, STATIC_SCORE_SCALE)
            + DYNAMIC_SCORE_FACTOR * f(self.center, DYNAMIC_SCORE_SCALE)
    }

    /// The leaves evaluated, each under its symmetry: a game that two passes ended scored,
    /// the others by the net (those its cache lacks in one batch), their children the moves
    /// the rules allow.
    fn evaluate(&self, leaves: &[Leaf], symmetries: &[usize]) -> Vec<Evaluation> {
        let options = self.net.input_options();
        let features: Vec<Option<Features>> = leaves
            .iter()
            .map(|leaf| {
                (leaf.game.trailing_passes() < 2)
                    .then(|| leaf.position.features(leaf.to_move, &options))
            })
            .collect();
        let inputs: Vec<(&Features, usize)> = features
            .iter()
            .zip(symmetries)
            .filter_map(|(f, &symmetry)| f.as_ref().map(|f| (f, symmetry)))
            .collect();
        let mut outputs = self
            .net
            .evaluate_cached_batch(&inputs, DEFAULT_OPTIMISM)
            .into_iter();
        leaves
            .iter()
            .zip(&features)
            .map(|(leaf, f)| match f.as_ref().and_then(|_| outputs.next()) {
                Some(out) => Evaluation {
                    value: Value {
                        winloss: f64::from(out.white_win - out.white_loss),
                        score: f64::from(out.white_score_selfplay),
                        lead: f64::from(out.white_lead),
                    },
                    children: legal_priors(&out, &leaf.game, leaf.to_move),
                    ownership: Some(out.white_ownership.clone()),
                },
                None => {
                    let score = area_score(&leaf.game);
                    Evaluation {
                        value: Value {
                            winloss: score.signum(),
                            score,
                            lead: score,
                        },
                        children: Vec::new(),
                        ownership: None,
                    }
                }
            })
            .collect()
    }
}

/// The net's policy for `color` to play in `game` (symmetry 0): each legal move and the pass
/// with its prior, the priors summing to 1.
pub fn net_priors(net: &Net, game: &Game, color: Color) -> Vec<(Move, f32)> {
    let features = NetPosition::from_game(game).features(color, &net.input_options());
    legal_priors(&net.evaluate(&features, 0, DEFAULT_OPTIMISM), game, color)
}

/// The moves the rules allow `to_move` in `game` (the pass last), each with the prior `out`
/// gives it, normalised to sum to 1.
fn legal_priors(out: &NetOutput, game: &Game, to_move: Color) -> Vec<(Move, f32)> {
    let size = game.size();
    let mut children: Vec<(Move, f32)> = Vec::new();
    for y in 0..size {
        for x in 0..size {
            let p = out.policy[y * size + x];
            let mv = Move::Play(Point::new(size, x, size - 1 - y));
            if p.is_finite() && game.legality(to_move, mv).is_ok() {
                children.push((mv, p.max(0.0)));
            }
        }
    }
    children.push((Move::Pass, out.policy_pass.max(0.0)));
    let total: f32 = children.iter().map(|c| c.1).sum();
    if total > 0.0 {
        for c in &mut children {
            c.1 /= total;
        }
    }
    children
}

/// White's area score of `game` as its board stands (stones and the empty regions one colour
/// surrounds), komi included.
fn area_score(game: &Game) -> f64 {
    let board = game.board();
    let mut white_minus_black = 0i64;
    for p in board.points() {
        match board.color_at(p) {
            Some(Color::White) => white_minus_black += 1,
            Some(Color::Black) => white_minus_black -= 1,
            None => {}
        }
    }
    for region in Regions::of(board).iter() {
        match region.owner() {
            Some(Color::White) => white_minus_black += region.size() as i64,
            Some(Color::Black) => white_minus_black -= region.size() as i64,
            None => {}
        }
    }
    white_minus_black as f64 + game.rules().komi
}

/// What a reused tree's root must have been: a game's first position (its hash), rules and
/// moves.
#[derive(Clone, Debug, PartialEq)]
struct RootGame {
    initial: u64,
    rules: Rules,
    moves: Vec<(Color, Move)>,
}

/// The PUCT search over one shared net.
pub struct PuctSearch {
    net: Arc<Net>,
    settings: SearchSettings,
    tree: Tree,
    /// The colour the last search searched for.
    color: Color,
    /// Root visits of the last search.
    last_visits: u64,
    /// Root visits the last search took over from the one before.
    last_reused: u32,
    /// The game the tree's root stands for, while the tree may be reused.
    reusable: Option<RootGame>,
    seed: u64,
}

impl PuctSearch {
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
        }
    }

    /// The net it searches with.
    pub fn net(&self) -> &Arc<Net> {
        &self.net
    }

    /// The move for `color` in `game` (not changed), searched within `budget`.
    pub fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
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
        self.reusable = Some(RootGame {
            initial: game.initial_board().hash(),
            rules: *searched.rules(),
            moves: game.moves().to_vec(),
        });
        let ranked: Vec<usize> = self
            .tree
            .ranked_root_children()
            .into_iter()
            .filter(|&edge| game.legality(color, self.tree.edges[edge].mv()).is_ok())
            .collect();
        let Some(&best) = ranked.first() else {
            return Choice {
                mv: Move::Pass,
                losing: None,
                searched: false,
            };
        };
        let best = self.instead_of_pass(game, best, &ranked);
        let node = self.tree.child(ROOT, best);
        let win_rate = node.win_rate() as f32;
        let (hits, misses) = self.net.cache().hits_and_misses();
        let with_extra = if extra_komi > 0.0 {
            format!(" with {extra_komi} extra komi")
        } else {
            String::new()
        };
        info!(
            "net search: {} after {visits} visits ({} reused) in {:.2} s: {} visits, win rate {win_rate:.3}{with_extra}; cache {hits} hits, {misses} misses so far",
            node.mv.to_vertex(game.size()),
            self.last_reused,
            started.elapsed().as_secs_f64(),
            node.visits,
        );
        // A win rate under extra komi is not the game's: never resign on it.
        let trusted =
            extra_komi == 0.0 && visits >= MIN_VISITS_TO_RESIGN.min(self.visits_for(budget, false));
        // Giving a handicap, White is behind from the start: it resigns only behind schedule.
        let root = &self.tree.nodes[ROOT];
        let white_lead = root.lead / f64::from(root.visits.max(1));
        let catching_up = dynamic_komi::white_catching_up(game, color, white_lead);
        Choice {
            mv: node.mv,
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
        self.choose(game, game.to_move(), &budget);
        self.last_visits - u64::from(self.last_reused)
    }

    /// The root visits the last search took over from the one before.
    pub fn last_reused(&self) -> u32 {
        self.last_reused
    }

    /// Under area scoring a pass is played only on a settled board, as tengen's own search
    /// plays it: before that, the most visited move whose win rate is close to the pass's.
    fn instead_of_pass(&self, game: &Game, best: usize, ranked: &[usize]) -> usize {
        let child = |edge: usize| self.tree.child(ROOT, edge);
        if child(best).mv != Move::Pass
            || game.rules().scoring != Scoring::Area
            || is_settled(game.board())
        {
            return best;
        }
        let floor = child(best).win_rate() - f64::from(PASS_MARGIN);
        ranked
            .iter()
            .copied()
            .find(|&edge| {
                let node = child(edge);
                node.mv != Move::Pass && node.visits > 0 && node.win_rate() >= floor
            })
            .unwrap_or(best)
    }

    /// Cuts the last search's tree down to its subtree under the moves played since, when
    /// that holds `game` with `color` to move (the same first position, rules and moves
    /// before); false when it does not.
    fn reuse_tree(&mut self, game: &Game, color: Color) -> bool {
        let Some(RootGame {
            initial,
            rules,
            moves,
        }) = self.reusable.take()
        else {
            return false;
        };
        if initial != game.initial_board().hash()
            || rules != *game.rules()
            || !game.moves().starts_with(&moves)
        {
            return false;
        }
        let tree = &self.tree;
        let mut at = ROOT;
        for &(mover, mv) in &game.moves()[moves.len()..] {
            let Some(child) = tree.nodes[at]
                .edges()
                .filter_map(|edge| tree.edges[edge].node())
                .find(|&id| tree.nodes[id].mv == mv && tree.nodes[id].mover == mover)
            else {
                return false;
            };
            at = child;
        }
        let node = &tree.nodes[at];
        if node.mover != color.opponent() || !node.expanded || node.visits == 0 {
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
    fn leaf_batch_for(&self, budget: &Budget, analysis: bool) -> usize {
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
    fn search(
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
        let mut run = Run {
            net: &net,
            game,
            position: NetPosition::from_game(game),
            center: 0.0,
            sqrt_area: (size * size) as f64,
            moves_ownership,
            leaf_batch: self.leaf_batch_for(budget, report.is_some()),
        };
        run.sqrt_area = run.sqrt_area.sqrt();
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut rng = SmallRng::seed_from_u64(self.seed);
        let fresh = report.is_some() || !allow.is_empty() || !avoid.is_empty();
        let reused = if fresh {
            self.reusable = None;
            false
        } else {
            self.reuse_tree(game, color)
        };
        let has_children = if reused {
            let root = &self.tree.nodes[ROOT];
            self.last_reused = root.visits;
            run.center = root.lead / f64::from(root.visits);
            root.edge_count > 0
        } else {
            self.last_reused = 0;
            let tree = &mut self.tree;
            tree.restart(color.opponent(), size * size);
            let root = Leaf {
                path: vec![ROOT],
                game: game.clone(),
                position: run.position.clone(),
                to_move: color,
            };
            let Some(root_eval) = run.evaluate(&[root], &[rng.random_range(0..8)]).pop() else {
                return 0;
            };
            run.center = root_eval.value.score;
            let children: Vec<(Move, f32)> = root_eval
                .children
                .iter()
                .copied()
                .filter(|(mv, _)| (allow.is_empty() || allow.contains(mv)) && !avoid.contains(mv))
                .collect();
            tree.expand(ROOT, &children, moves_ownership);
            tree.nodes[ROOT].in_flight = 1;
            tree.back_up(
                &[ROOT],
                root_eval.value,
                run.utility(root_eval.value),
                root_eval.ownership.as_deref(),
            );
            !children.is_empty()
        };
        let max_visits = self.visits_for(budget, report.is_some());
        let threads = super::thread_count(self.settings.threads);
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
        self.color = color;
        self.last_visits = u64::from(self.tree.nodes[ROOT].visits);
        self.last_visits
    }

    /// Analyses `game` as `request` asks, calling `report` every interval and at the end.
    pub fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        mut report: impl FnMut(&Report) -> bool,
    ) {
        let mut callback = |search: &PuctSearch, last: bool| {
            let mut state = search.report(request.ownership);
            state.last = last;
            report(&state)
        };
        self.search(
            game,
            request.color,
            &request.budget,
            &request.allow,
            &request.avoid,
            request.moves_ownership,
            Some((request.interval, &mut callback)),
        );
    }

    /// The last search as a report (`last` set), with ownership when `ownership`.
    pub fn report(&self, ownership: bool) -> Report {
        let tree = &self.tree;
        let color = self.color;
        let to_color = sign(color) as f32;
        let mean_ownership = |node: &Node| {
            node.ownership.as_ref().filter(|_| node.owned > 0).map(|o| {
                o.iter()
                    .map(|&s| to_color * (s / f64::from(node.owned.max(1))) as f32)
                    .collect::<Vec<f32>>()
            })
        };
        let moves: Vec<MoveInfo> = tree
            .ranked_root_children()
            .into_iter()
            .filter_map(|edge| tree.edges[edge].node())
            .filter(|&id| tree.nodes[id].visits > 0)
            .enumerate()
            .map(|(order, id)| {
                let node = &tree.nodes[id];
                let winrate = node.win_rate() as f32;
                let spread = (winrate * (1.0 - winrate) / node.visits as f32).sqrt();
                MoveInfo {
                    mv: node.mv,
                    visits: node.visits,
                    winrate,
                    prior: node.prior,
                    lcb: (winrate - 1.96 * spread).max(0.0),
                    order,
                    pv: tree.principal_variation(id),
                    score: node.score_for(color),
                    ownership: mean_ownership(node),
                }
            })
            .collect();
        let root = &tree.nodes[ROOT];
        Report {
            moves,
            root: RootInfo {
                visits: u64::from(root.visits),
                winrate: (0.5 * (1.0 + sign(color) * root.winloss / f64::from(root.visits.max(1))))
                    as f32,
                score: root.score_for(color),
            },
            ownership: if ownership {
                mean_ownership(root)
            } else {
                None
            },
            last: true,
        }
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

/// The tree, even if a thread panicked holding it.
fn lock(tree: &Mutex<Tree>) -> MutexGuard<'_, Tree> {
    tree.lock().unwrap_or_else(|e| e.into_inner())
}

/// One round of visits: up to `run.leaf_batch` descents down the tree by PUCT (virtual losses
/// on the way), the leaves evaluated together without the lock, then expanded and backed up.
/// False when the search is over (its visits, its budget, or `until`).
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
    let mut leaves = Vec::with_capacity(run.leaf_batch);
    {
        let mut tree = lock(shared);
        while leaves.len() < run.leaf_batch {
            let Some(leaf) = descend(run, &mut tree, max_visits, budget) else {
                break;
            };
            leaves.push(leaf);
        }
    }
    if leaves.is_empty() {
        return false;
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
            evaluation.value,
            run.utility(evaluation.value),
            evaluation.ownership.as_deref(),
        );
    }
    true
}

/// One descent from the root to a leaf by PUCT, a visit in flight on each node of the way;
/// none when the search has its visits (those in flight counted), the tree is full or the
/// budget's target has passed with a clear best move.
fn descend(run: &Run<'_>, tree: &mut Tree, max_visits: u64, budget: &Budget) -> Option<Leaf> {
    let root = &tree.nodes[ROOT];
    if u64::from(root.visits + root.in_flight) >= max_visits
        || root.edge_count == 0
        || tree.is_full()
        || clearly_ahead_after_target(tree, budget)
    {
        return None;
    }
    let mut leaf = Leaf {
        path: vec![ROOT],
        game: run.game.clone(),
        position: run.position.clone(),
        to_move: tree.nodes[ROOT].mover.opponent(),
    };
    tree.nodes[ROOT].in_flight += 1;
    let mut at = ROOT;
    while tree.nodes[at].expanded && leaf.game.trailing_passes() < 2 {
        let Some(edge) = tree.select(at) else {
            break;
        };
        let (mover, mv) = (tree.nodes[at].mover.opponent(), tree.edges[edge].mv());
        if leaf.game.play(mover, mv).is_err() {
            break;
        }
        let child = tree.child_node(at, edge);
        tree.nodes[child].in_flight += 1;
        leaf.path.push(child);
        at = child;
        leaf.position.play(mover, mv);
        leaf.to_move = mover.opponent();
    }
    Some(leaf)
}

#[cfg(test)]
mod tests;
