//! What the net search reports: an analysis run on the search's threads with a report every
//! interval, and the last search's root moves, scores and ownership.

use super::PuctSearch;
use super::tree::{Node, ROOT, sign};
use crate::engine::search::report::{AnalysisRequest, Report, RootInfo, move_infos};
use crate::rules::game::Game;

impl PuctSearch {
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
        let ranked = tree.ranked_root_children();
        let moves = move_infos(tree, ranked, |edge, info| {
            let Some(id) = tree.node_of(edge) else {
                return;
            };
            let node = &tree.nodes[id];
            info.prior = tree.prior(edge);
            info.utility = node.mover_utility() as f32;
            info.score = node.score_for(color);
            info.ownership = mean_ownership(node);
        });
        let root = &tree.nodes[ROOT];
        Report {
            moves,
            root: RootInfo {
                visits: u64::from(root.visits),
                winrate: (0.5 * (1.0 + sign(color) * root.winloss / f64::from(root.visits.max(1))))
                    as f32,
                utility: (sign(color) * root.utility / f64::from(root.visits.max(1))) as f32,
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
