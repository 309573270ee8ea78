//! Analysis: the search run until told to stop, reporting every root move's statistics at a
//! fixed interval (what `lz-analyze` and `kata-analyze` stream to a GUI).

use std::time::{Duration, Instant};

use super::root_tally::{RootTally, ScoreStats};
use super::tree::{NodeId, ROOT, Stats};
use super::uct::{self, Problem};
use super::{Budget, Move, RootPosition, Search};
use crate::rules::board::{Color, Point};
use crate::rules::game::Game;

/// The longest principal variation reported.
const MAX_PV: usize = 16;

/// Real visits a node needs to be part of a principal variation.
const PV_MIN_VISITS: u32 = 2;

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

impl Search {
    /// Searches `game` for `request.color` until its budget ends, calling `report` with
    /// the visited root moves (most visited first) every `request.interval` and once at the
    /// end. `report` returning false ends the analysis too (the GUI has gone).
    pub fn analyze(
        &mut self,
        game: &Game,
        request: &AnalysisRequest,
        mut report: impl FnMut(&Report) -> bool,
    ) {
        let color = request.color;
        let last = match game.moves().last() {
            Some(&(c, Move::Play(p))) if c != color => Some(p),
            _ => None,
        };
        let mut root_children = Search::root_children(game, color, last);
        root_children.retain(|child| {
            let mv = uct::point_of(child.mv).map_or(Move::Pass, Move::Play);
            (request.allow.is_empty() || request.allow.contains(&mv))
                && !request.avoid.contains(&mv)
        });
        if root_children.is_empty() {
            return;
        }
        let tally = if request.moves_ownership {
            RootTally::with_moves_ownership()
        } else {
            RootTally::default()
        };
        // The tree must be this exact root set: a reused tree may have other children.
        self.tree.clear();
        self.root = None;
        let mut done = 0u64;
        loop {
            self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let budget = &request.budget;
            let left = budget.playouts.map_or(u64::MAX, |m| m.saturating_sub(done));
            let chunk_end = Instant::now() + request.interval;
            let chunk = Budget {
                deadline: Some(budget.deadline.map_or(chunk_end, |d| d.min(chunk_end))),
                stop: budget.stop.clone(),
                ..Budget::default()
            };
            let problem = Problem {
                board: game.board(),
                to_move: color,
                last,
                komi: game.rules().komi as f32,
                root_children: &root_children,
                max_playouts: left,
                budget: &chunk,
                seed: self.seed,
                early_stop: false,
                tally: Some(&tally),
            };
            done += uct::run(&self.tree, &problem, &self.params_for(game.size()));
            let last = budget.stopped()
                || budget.playouts.is_some_and(|m| done >= m)
                || budget.deadline.is_some_and(|d| Instant::now() >= d);
            let mut state = self.report(game, request, &tally);
            state.last = last;
            if !report(&state) || last {
                break;
            }
        }
        self.root = Some(RootPosition {
            board: game.board().clone(),
            to_move: color,
            moves: game.moves().to_vec(),
        });
    }

    /// Where the analysis stands.
    fn report(&self, game: &Game, request: &AnalysisRequest, tally: &RootTally) -> Report {
        let color = request.color;
        let for_color = |s: ScoreStats| ScoreStats {
            mean: if color == Color::Black {
                s.mean
            } else {
                -s.mean
            },
            ..s
        };
        let size = game.size();
        let sign = if color == Color::Black { 1.0 } else { -1.0 };
        let points_from_top = || {
            (0..size)
                .rev()
                .flat_map(move |row| (0..size).map(move |col| Point::new(size, col, row)))
        };
        let mut moves = self.root_infos();
        for info in &mut moves {
            let first = uct::node_move(info.mv);
            info.score = tally.after(first).map(for_color);
            if request.moves_ownership {
                info.ownership = Some(
                    points_from_top()
                        .map(|p| sign * tally.move_ownership(first, p).unwrap_or(0.0))
                        .collect(),
                );
            }
        }
        let root = self.tree.stats(ROOT);
        let visits: u64 = moves.iter().map(|m| u64::from(m.visits)).sum();
        let winrate = if visits == 0 {
            0.5
        } else {
            moves
                .iter()
                .map(|m| m.winrate * m.visits as f32)
                .sum::<f32>()
                / visits as f32
        };
        let ownership = request.ownership.then(|| {
            points_from_top()
                .map(|p| sign * tally.ownership(p))
                .collect()
        });
        Report {
            moves,
            root: RootInfo {
                visits: u64::from(root.visits).max(visits),
                winrate,
                score: tally.overall().map(for_color),
            },
            ownership,
            last: false,
        }
    }

    /// The visited root moves, most visited first.
    pub(super) fn root_infos(&self) -> Vec<MoveInfo> {
        let children: Vec<(NodeId, Stats)> = self
            .tree
            .children(ROOT)
            .map(|id| (id, self.tree.stats(id)))
            .collect();
        let prior_of = |s: &Stats| s.prior_wins as f32 / (2 * s.prior_visits.max(1)) as f32;
        let prior_sum: f32 = children.iter().map(|(_, s)| prior_of(s)).sum();
        let mut infos: Vec<(u32, MoveInfo)> = children
            .iter()
            .filter(|(_, s)| s.visits > 0)
            .map(|&(id, s)| {
                let winrate = s.real_win_rate().unwrap_or(0.0);
                let spread = (winrate * (1.0 - winrate) / s.visits as f32).sqrt();
                let info = MoveInfo {
                    mv: move_of(s),
                    visits: s.visits,
                    winrate,
                    prior: prior_of(&s) / prior_sum.max(f32::EPSILON),
                    lcb: (winrate - 1.96 * spread).max(0.0),
                    order: 0,
                    pv: self.principal_variation(id),
                    score: None,
                    ownership: None,
                };
                (s.wins, info)
            })
            .collect();
        infos.sort_by(|(wa, a), (wb, b)| b.visits.cmp(&a.visits).then(wb.cmp(wa)));
        infos
            .into_iter()
            .enumerate()
            .map(|(order, (_, info))| MoveInfo { order, ..info })
            .collect()
    }

    /// The line from `node` down its most visited children.
    fn principal_variation(&self, node: NodeId) -> Vec<Move> {
        let mut pv = vec![move_of(self.tree.stats(node))];
        let mut at = node;
        while pv.len() < MAX_PV {
            let Some(next) = self
                .tree
                .children(at)
                .map(|id| (id, self.tree.stats(id)))
                .filter(|(_, s)| s.visits >= PV_MIN_VISITS)
                .max_by_key(|(_, s)| s.visits)
            else {
                break;
            };
            pv.push(move_of(next.1));
            at = next.0;
        }
        pv
    }
}

/// The prior of every move `color` may play in `game` (the pass included), normalised to sum
/// to 1: the knowledge the search starts from.
pub fn move_priors(game: &Game, color: Color) -> Vec<(Move, f32)> {
    let last = match game.moves().last() {
        Some(&(c, Move::Play(p))) if c != color => Some(p),
        _ => None,
    };
    let children = Search::root_children(game, color, last);
    let strength =
        |c: &super::tree::NewChild| c.prior_wins as f32 / (2 * c.prior_visits.max(1)) as f32;
    let total: f32 = children.iter().map(strength).sum::<f32>().max(f32::EPSILON);
    children
        .iter()
        .map(|c| {
            let mv = uct::point_of(c.mv).map_or(Move::Pass, Move::Play);
            (mv, strength(c) / total)
        })
        .collect()
}

/// The move of a node.
fn move_of(s: Stats) -> Move {
    uct::point_of(s.mv).map_or(Move::Pass, Move::Play)
}
