//! What an analysis asks ([`AnalysisRequest`]) and what a search reports ([`Report`]), the same
//! for both searches, and the one way a root move becomes a [`MoveInfo`].

use std::time::Duration;

use super::budget::Budget;
use super::search_tree::SearchTree;
use crate::rules::board::{Color, Move};

/// Mean and standard deviation of a final margin (komi included).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ScoreStats {
    /// The mean margin of the player it is for.
    pub mean: f32,
    /// Its standard deviation.
    pub stdev: f32,
}

/// What an analysis looks at.
pub struct AnalysisRequest {
    /// The player whose moves are analysed.
    pub color: Color,
    /// Time between two reports.
    pub interval: Duration,
    /// Only these root moves (empty: all).
    pub allow: Vec<Move>,
    /// Never these root moves.
    pub avoid: Vec<Move>,
    /// Report who owns each point at the end of the playouts.
    pub ownership: bool,
    /// Report it for each root move too.
    pub moves_ownership: bool,
    /// When the analysis ends: after its playouts, at its deadline, or when its stop flag is
    /// set (without any, it runs until its report callback returns false).
    pub budget: Budget,
}

impl AnalysisRequest {
    /// An analysis of every move of `color`'s, without ownership, reporting every `interval`
    /// within `budget`.
    pub fn new(color: Color, interval: Duration, budget: Budget) -> AnalysisRequest {
        AnalysisRequest {
            color,
            interval,
            allow: Vec::new(),
            avoid: Vec::new(),
            ownership: false,
            moves_ownership: false,
            budget,
        }
    }
}

/// One report of an analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The visited root moves, most visited first.
    pub moves: Vec<MoveInfo>,
    /// The root position as a whole.
    pub root: RootInfo,
    /// Per point, row by row from the top left: how much it belongs to the player analysed,
    /// from -1 to 1 (when asked for).
    pub ownership: Option<Vec<f32>>,
    /// Whether this is the analysis's last report.
    pub last: bool,
}

/// The root position as an analysis sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RootInfo {
    /// Playouts so far.
    pub visits: u64,
    /// The win rate of the player analysed.
    pub winrate: f32,
    /// That player's mean utility: the win/loss term from -1 to 1, plus the score terms where
    /// the search weighs them.
    pub utility: f32,
    /// That player's expected margin (komi included), if known.
    pub score: Option<ScoreStats>,
}

/// One root move as an analysis reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    /// The move.
    pub mv: Move,
    /// Playouts through it.
    pub visits: u32,
    /// Its win rate for the player to move.
    pub winrate: f32,
    /// The share of the prior knowledge it got among the root moves (sums to 1).
    pub prior: f32,
    /// A lower confidence bound of the win rate.
    pub lcb: f32,
    /// Its mean utility for the player to move, as [`RootInfo::utility`].
    pub utility: f32,
    /// Its rank by visits, from 0.
    pub order: usize,
    /// The most visited line that starts with it.
    pub pv: Vec<Move>,
    /// The final margin of the player analysed after this move (komi included).
    pub score: Option<ScoreStats>,
    /// Per point after this move, row by row from the top left: how much it belongs to the
    /// player analysed (when asked for).
    pub ownership: Option<Vec<f32>>,
}

/// The utility of a win rate alone (a search that weighs no score): from -1 to 1.
pub fn win_loss_utility(winrate: f32) -> f32 {
    2.0 * winrate - 1.0
}

/// The visited root children among `ranked` (the order reported), each with its visits, its
/// win rate, a lower confidence bound of it (1.96 standard errors below) and its principal
/// variation; `detail` adds what only its search knows (the prior, a utility with score terms,
/// score and ownership).
pub fn move_infos<T: SearchTree>(
    tree: &T,
    ranked: impl IntoIterator<Item = T::Node>,
    mut detail: impl FnMut(T::Node, &mut MoveInfo),
) -> Vec<MoveInfo> {
    ranked
        .into_iter()
        .filter(|&node| tree.visits_of(node) > 0)
        .enumerate()
        .map(|(order, node)| {
            let visits = tree.visits_of(node);
            let winrate = tree.win_rate_of(node) as f32;
            let spread = (winrate * (1.0 - winrate) / visits as f32).sqrt();
            let mut info = MoveInfo {
                mv: tree.move_into(node),
                visits,
                winrate,
                prior: 0.0,
                lcb: (winrate - 1.96 * spread).max(0.0),
                utility: win_loss_utility(winrate),
                order,
                pv: tree.principal_variation(node),
                score: None,
                ownership: None,
            };
            detail(node, &mut info);
            info
        })
        .collect()
}
