//! The playout search's analysis: the search run until told to stop, reporting every root
//! move's statistics at a fixed interval (what `lz-analyze` and `kata-analyze` stream to a
//! GUI), and its root moves as a report.

use std::time::Instant;

use super::budget::Budget;
use super::playout_search::{Search, opponents_last_stone};
use super::report::{
    AnalysisRequest, MoveInfo, Report, RootInfo, ScoreStats, move_infos, win_loss_utility,
};
use super::root_tally::RootTally;
use super::search_tree::RootGame;
use super::tree::{NodeId, ROOT, Stats, game_move, node_move};
use super::uct::{self, Problem};
use crate::rules::board::{Color, Point};
use crate::rules::game::Game;

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
        let last = opponents_last_stone(game, color);
        let mut root_children = Search::root_children(game, color);
        root_children.retain(|child| {
            let mv = game_move(child.mv);
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
                komi: game.scoring_komi() as f32,
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
        self.root = Some(RootGame::of(game, *game.rules(), color));
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
            let first = node_move(info.mv);
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
                utility: win_loss_utility(winrate),
                score: tally.overall().map(for_color),
            },
            ownership,
            last: false,
        }
    }

    /// The visited root moves, most visited first (ties by wins).
    pub(super) fn root_infos(&self) -> Vec<MoveInfo> {
        let mut children: Vec<(NodeId, Stats)> = self
            .tree
            .children(ROOT)
            .map(|id| (id, self.tree.stats(id)))
            .collect();
        let prior_of = |s: &Stats| s.prior_wins as f32 / (2 * s.prior_visits.max(1)) as f32;
        let prior_sum: f32 = children.iter().map(|(_, s)| prior_of(s)).sum();
        children.sort_by(|(_, a), (_, b)| b.visits.cmp(&a.visits).then(b.wins.cmp(&a.wins)));
        move_infos(
            &self.tree,
            children.iter().map(|&(id, _)| id),
            |id, info| {
                info.prior = prior_of(&self.tree.stats(id)) / prior_sum.max(f32::EPSILON);
            },
        )
    }
}
