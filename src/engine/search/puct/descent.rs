//! The way down the net search's tree: PUCT chooses a child at each node (with first-play
//! urgency and the visits in flight as losses), and a descent plays the moves on its own copy
//! of the root position until it reaches a leaf, or, in a graph, a transposition whose node
//! has more visits than the edge into it.

use super::subtree_bias;
use super::tree::{ROOT, Tree, sign};
use crate::knowledge::net::inputs::NetPosition;
use crate::rules::board::{Color, Move, splitmix};
use crate::rules::game::Game;

/// KataGo's `cpuctExplorationLog`.
const CPUCT_LOG: f64 = 0.45;
/// KataGo's `cpuctExplorationBase`.
const CPUCT_BASE: f64 = 500.0;
/// KataGo's `fpuReductionMax` below the root.
const FPU_REDUCTION: f64 = 0.2;
/// KataGo's `rootFpuReductionMax`.
const ROOT_FPU_REDUCTION: f64 = 0.1;

/// How PUCT explores beyond KataGo's constants, as the level sets it.
#[derive(Copy, Clone, Debug)]
pub(super) struct Exploration {
    /// The weight of the prior at the first visits (KataGo's `cpuctExploration`).
    pub(super) cpuct: f64,
    /// How much the spread of a node's utilities scales its exploration, from 0 (not at all)
    /// to 1 (see [`Node::exploration_factor`](super::tree::Node)).
    pub(super) stdev_scale: f64,
    /// Whether first-play urgency starts from a blend of the parent's mean utility and its own
    /// evaluation, the mean weighing the policy already visited, squared; else from the mean.
    pub(super) fpu_from_evaluation: bool,
}

impl Default for Exploration {
    /// KataGo's: `cpuctExploration` 1, the rest off.
    fn default() -> Exploration {
        Exploration {
            cpuct: 1.0,
            stdev_scale: 0.0,
            fpu_from_evaluation: false,
        }
    }
}

/// A position of the search, held twice: as the game, which knows tengen's rules (legality
/// with superko, the end by two passes, the count), and as KataGo's board and history, which
/// the net's inputs are read from. Both play every move together.
#[derive(Clone)]
pub(super) struct Position {
    pub(super) game: Game,
    pub(super) net: NetPosition,
}

impl Position {
    /// `game`'s position.
    pub(super) fn of(game: &Game) -> Position {
        Position {
            game: game.clone(),
            net: NetPosition::from_game(game),
        }
    }

    /// Plays `mv` for `color`, when the rules allow it (the game checks; the net's board
    /// follows); false when they do not.
    fn play(&mut self, color: Color, mv: Move) -> bool {
        if self.game.play(color, mv).is_err() {
            return false;
        }
        self.net.play(color, mv);
        true
    }

    /// Whether two passes ended the game.
    pub(super) fn is_over(&self) -> bool {
        self.game.trailing_passes() >= 2
    }
}

/// A leaf a descent reached: the nodes from the root to it and the edges between them, and
/// its position with `to_move` to play. A descent that ended on a transposition whose node
/// has more visits than its edge, which it counts without a new evaluation (KataGo's catching
/// up of edge visits), has that edge last, after the path's last node.
pub(super) struct Leaf {
    pub(super) path: Vec<usize>,
    pub(super) edges: Vec<usize>,
    pub(super) position: Position,
    pub(super) to_move: Color,
}

impl Leaf {
    /// The node whose value a visit that ended on a transposition counts again.
    pub(super) fn caught_up(&self, tree: &Tree) -> Option<usize> {
        (self.edges.len() == self.path.len())
            .then(|| self.edges.last().and_then(|&edge| tree.node_of(edge)))
            .flatten()
    }
}

/// KataGo's `graphSearchRepBound`: a position whose last stone could be taken and the
/// position repeat within this many moves is keyed with the moves that led to it.
const REPETITION_BOUND: usize = 11;

/// The key of `game`'s position for a graph search: the stones, the player to move, the ko
/// and the passes in a row; with the key of the position before (`previous`) when the last
/// move could be undone and the position repeat soon, so that the rules' history matters
/// (KataGo's `getGraphHash`).
pub(super) fn position_key(previous: u64, game: &Game) -> u64 {
    let board = game.board();
    let mut key = board.hash() ^ splitmix(game.to_move() as u64 + 1);
    if let Some((ko, barred)) = board.ko() {
        key ^= splitmix(((ko.index() as u64) << 2) | barred as u64 | 0x100_0000);
    }
    key = key.wrapping_add(splitmix(game.trailing_passes() as u64 + 0x200_0000));
    let repeats = match game.moves().last() {
        Some(&(_, Move::Play(p))) => board
            .color_at(p)
            .is_none_or(|_| board.may_repeat_within(p, REPETITION_BOUND)),
        Some(&(_, Move::Pass)) => true,
        None => false,
    };
    if repeats {
        key = key.wrapping_add(splitmix(previous));
    }
    key
}

impl Tree {
    /// The edge of `at` that PUCT chooses, exploring as `exploration` says.
    pub(super) fn select(&self, at: usize, exploration: Exploration) -> Option<usize> {
        let parent = &self.nodes[at];
        let chooser = parent.mover.opponent();
        let link_of = |edge: usize| {
            self.edges[edge].link().map(|link| {
                (
                    self.links[link],
                    &self.nodes[self.links[link].node as usize],
                )
            })
        };
        let total: f64 = parent
            .edges()
            .filter_map(link_of)
            .map(|(link, n)| f64::from(link.visits + n.in_flight))
            .sum();
        let cpuct = exploration.cpuct + CPUCT_LOG * ((total + CPUCT_BASE) / CPUCT_BASE).ln();
        let explore =
            cpuct * (total + 0.01).sqrt() * parent.exploration_factor(exploration.stdev_scale);
        let visited_policy: f64 = parent
            .edges()
            .filter_map(link_of)
            .filter(|(link, _)| link.visits > 0)
            .map(|(link, _)| f64::from(link.prior))
            .sum();
        let reduction = if at == ROOT {
            ROOT_FPU_REDUCTION
        } else {
            FPU_REDUCTION
        };
        let parent_utility = if parent.visits == 0 {
            0.0
        } else {
            let mean = parent.utility / f64::from(parent.visits);
            let from = if exploration.fpu_from_evaluation {
                // KataGo's fpuParentWeightByVisitedPolicy: the mean weighs the policy visited,
                // squared; the node's own evaluation the rest.
                let mean_weight = (visited_policy * visited_policy).min(1.0);
                mean_weight * mean + (1.0 - mean_weight) * f64::from(parent.evaluation)
            } else {
                mean
            };
            sign(chooser) * from
        };
        let first_play = parent_utility - reduction * visited_policy.sqrt();
        parent
            .edges()
            .map(|edge| {
                // The value is the child's, over the visits of every edge into it; the
                // exploration counts this edge's.
                let (n, q, prior) = match link_of(edge) {
                    Some((link, child)) if child.visits + child.in_flight > 0 => {
                        let in_flight = f64::from(child.in_flight);
                        let q = (sign(chooser) * child.utility - in_flight)
                            / (f64::from(child.visits) + in_flight);
                        (f64::from(link.visits) + in_flight, q, link.prior)
                    }
                    Some((link, _)) => (0.0, first_play, link.prior),
                    None => (0.0, first_play, self.prior(edge)),
                };
                (edge, q + explore * f64::from(prior) / (1.0 + n))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(edge, _)| edge)
    }

    /// One descent from the root (of position `root`, whose key is `root_key` in a graph) to a
    /// leaf by PUCT (exploring as `exploration` says), a visit in flight on each node of the
    /// way.
    pub(super) fn descend(
        &mut self,
        root: &Position,
        root_key: u64,
        exploration: Exploration,
    ) -> Leaf {
        let mut leaf = Leaf {
            path: vec![ROOT],
            edges: Vec::new(),
            position: root.clone(),
            to_move: self.nodes[ROOT].mover.opponent(),
        };
        self.nodes[ROOT].in_flight += 1;
        let mut at = ROOT;
        let mut key = root_key;
        while self.nodes[at].expanded && !leaf.position.is_over() {
            let Some(edge) = self.select(at, exploration) else {
                break;
            };
            if let Some(child) = self.node_of(edge)
                && self.nodes[child].visits > self.edge_visits(edge)
            {
                leaf.edges.push(edge);
                break;
            }
            let (mover, mv) = (self.nodes[at].mover.opponent(), self.edges[edge].mv());
            // A node made now joins its shape's subtree bias entry, keyed on the board before
            // its move.
            let bias_key = if self.subtree_bias.factor > 0.0 && self.node_of(edge).is_none() {
                let previous = match leaf.edges.last() {
                    None => leaf.position.game.moves().last().map(|&(_, m)| m),
                    Some(&into) => Some(self.edges[into].mv()),
                };
                previous.and_then(|previous| {
                    subtree_bias::key(leaf.position.game.board(), mover, previous, mv)
                })
            } else {
                None
            };
            if !leaf.position.play(mover, mv) {
                break;
            }
            if self.positions.is_some() {
                key = position_key(key, &leaf.position.game);
            }
            let child = match self.node_of(edge) {
                Some(child) => child,
                None => match self.transposition(edge, key, &leaf.path) {
                    Some(child) => child,
                    None => {
                        let child = self.child_node(at, edge);
                        self.remember(key, child);
                        if let Some(bias_key) = bias_key {
                            self.nodes[child].bias.entry = self.subtree_bias.entry(bias_key);
                        }
                        child
                    }
                },
            };
            self.nodes[child].in_flight += 1;
            leaf.path.push(child);
            leaf.edges.push(edge);
            at = child;
            leaf.to_move = mover.opponent();
        }
        leaf
    }
}
