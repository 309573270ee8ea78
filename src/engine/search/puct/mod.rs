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
//! expected score when the search starts, moved a fifth of the way to 0. As in KataGo, each
//! score term is averaged over a normal spread of the score, its deviation from the net's
//! expected square of the score (`white_score_selfplay_sq`).
//!
//! Selection is KataGo's PUCT: a child's `Q + c * P * sqrt(N) / (1 + n)` with
//! `c = 1.0 + 0.45 * ln((N + 500) / 500)` (N: the visits of the parent's children, n the
//! child's, both counting the visits in flight), and an unvisited child valued at its
//! parent's average utility less `0.2 * sqrt(the policy of the visited children)` (0.1 at the
//! root): first-play urgency. Other parts of KataGo's search are the level's to turn on
//! (docs/SEARCH.md lists them with their matches). Threads share one tree under one lock,
//! taken to descend and to back up, not while the net evaluates; a visit in flight counts as
//! a loss for the player choosing (virtual loss). On the clock a thread descends `leaf_batch`
//! times before it evaluates the leaves in one batch. Each evaluation takes a random one of
//! the net's eight symmetries, unless the net's cache holds the position already.
//! A game that ends in the tree (two passes) is scored by its rules on the board as it stands.
//! The move played is the most visited root child (with `lcb_selection`, the one of the best
//! lower confidence bound). In a handicap game with dynamic komi on (`handicap_komi`), a move
//! is searched as if White had the extra komi, in whole points.
//!
//! An expansion stores one 8-byte `Edge` a legal move; a child gets its `Node` on its first
//! visit, and the tree stops growing at `TREE_BYTES`.

mod descent;
mod evaluate;
mod report;
mod root_symmetry;
mod search;
mod subtree_bias;
mod tree;
mod value_weight;

pub use evaluate::{net_priors, net_view};
pub use search::{MIN_VISITS_TO_RESIGN, PuctSearch};

#[cfg(test)]
mod tests;
