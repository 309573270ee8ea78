//! The way down the net search's tree: PUCT chooses a child at each node (with first-play
//! urgency and the visits in flight as losses), and a descent plays the moves on its own copy
//! of the root position until it reaches a leaf.

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
    /// The edge of `at` that PUCT chooses, its exploration scaled by the spread of `at`'s
    /// utilities by `stdev_scale` (see [`Node::exploration_factor`](super::tree::Node)).
    pub(super) fn select(&self, at: usize, stdev_scale: f64) -> Option<usize> {
        let parent = &self.nodes[at];
        let chooser = parent.mover.opponent();
        let node_of = |edge: usize| self.edges[edge].node().map(|id| &self.nodes[id]);
        let total: f64 = parent
            .edges()
            .filter_map(node_of)
            .map(|n| f64::from(n.visits + n.in_flight))
            .sum();
        let cpuct = CPUCT + CPUCT_LOG * ((total + CPUCT_BASE) / CPUCT_BASE).ln();
        let explore = cpuct * (total + 0.01).sqrt() * parent.exploration_factor(stdev_scale);
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

    /// One descent from the root (of position `root`) to a leaf by PUCT (exploration scaled
    /// by `stdev_scale`), a visit in flight on each node of the way.
    pub(super) fn descend(&mut self, root: &Position, stdev_scale: f64) -> Leaf {
        let mut leaf = Leaf {
            path: vec![ROOT],
            position: root.clone(),
            to_move: self.nodes[ROOT].mover.opponent(),
        };
        self.nodes[ROOT].in_flight += 1;
        let mut at = ROOT;
        while self.nodes[at].expanded && !leaf.position.is_over() {
            let Some(edge) = self.select(at, stdev_scale) else {
                break;
            };
            let (mover, mv) = (self.nodes[at].mover.opponent(), self.edges[edge].mv());
            if !leaf.position.play(mover, mv) {
                break;
            }
            let child = self.child_node(at, edge);
            self.nodes[child].in_flight += 1;
            leaf.path.push(child);
            at = child;
            leaf.to_move = mover.opponent();
        }
        leaf
    }
}
