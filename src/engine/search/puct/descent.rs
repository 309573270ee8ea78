//! The way down the net search's tree: PUCT chooses a child at each node (with first-play
//! urgency and the visits in flight as losses), and a descent plays the moves on its own copy
//! of the root position until it reaches a leaf.

use super::subtree_bias;
use super::tree::{ROOT, Tree, sign};
use crate::knowledge::net::inputs::NetPosition;
use crate::rules::board::{Color, Move};
use crate::rules::game::Game;

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

/// How PUCT explores beyond KataGo's constants, as the level sets it.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Exploration {
    /// How much the spread of a node's utilities scales its exploration, from 0 (not at all)
    /// to 1 (see [`Node::exploration_factor`](super::tree::Node)).
    pub(super) stdev_scale: f64,
    /// Whether first-play urgency starts from a blend of the parent's mean utility and its own
    /// evaluation, the mean weighing the policy already visited, squared; else from the mean.
    pub(super) fpu_from_evaluation: bool,
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

/// A leaf a descent reached: the nodes from the root to it, and its position with `to_move`
/// to play.
pub(super) struct Leaf {
    pub(super) path: Vec<usize>,
    pub(super) position: Position,
    pub(super) to_move: Color,
}

impl Tree {
    /// The edge of `at` that PUCT chooses, exploring as `exploration` says.
    pub(super) fn select(&self, at: usize, exploration: Exploration) -> Option<usize> {
        let parent = &self.nodes[at];
        let chooser = parent.mover.opponent();
        let node_of = |edge: usize| self.edges[edge].node().map(|id| &self.nodes[id]);
        let total: f64 = parent
            .edges()
            .filter_map(node_of)
            .map(|n| f64::from(n.visits + n.in_flight))
            .sum();
        let cpuct = CPUCT + CPUCT_LOG * ((total + CPUCT_BASE) / CPUCT_BASE).ln();
        let explore =
            cpuct * (total + 0.01).sqrt() * parent.exploration_factor(exploration.stdev_scale);
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

    /// One descent from the root (of position `root`) to a leaf by PUCT (exploring as
    /// `exploration` says), a visit in flight on each node of the way.
    pub(super) fn descend(&mut self, root: &Position, exploration: Exploration) -> Leaf {
        let mut leaf = Leaf {
            path: vec![ROOT],
            position: root.clone(),
            to_move: self.nodes[ROOT].mover.opponent(),
        };
        self.nodes[ROOT].in_flight += 1;
        let mut at = ROOT;
        while self.nodes[at].expanded && !leaf.position.is_over() {
            let Some(edge) = self.select(at, exploration) else {
                break;
            };
            let (mover, mv) = (self.nodes[at].mover.opponent(), self.edges[edge].mv());
            // A node made now joins its shape's subtree bias entry, keyed on the board before
            // its move.
            let bias_key = if self.subtree_bias.factor > 0.0 && self.edges[edge].node().is_none() {
                let previous = if at == ROOT {
                    leaf.position.game.moves().last().map(|&(_, m)| m)
                } else {
                    Some(self.nodes[at].mv)
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
            let child = self.child_node(at, edge);
            if let Some(key) = bias_key {
                self.nodes[child].bias.entry = self.subtree_bias.entry(key);
            }
            self.nodes[child].in_flight += 1;
            leaf.path.push(child);
            at = child;
            leaf.to_move = mover.opponent();
        }
        leaf
    }
}
