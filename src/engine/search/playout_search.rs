//! The playout search's driver: [`Search`] chooses a move, ponders and keeps its tree between
//! moves; [`uct`](super::uct) runs the threads that grow the tree with playouts.

use std::time::Instant;

use log::{debug, info};
use rand::random;

use super::budget::{Budget, Choice};
use super::dynamic_komi;
use super::pass::{self, Candidate, pass_ends_in_win};
use super::priors;
use super::report::{Report, RootInfo, win_loss_utility};
use super::root_tally::RootTally;
use super::search_tree::{RootGame, SearchTree};
use super::settings::{
    DEFAULT_PLAYOUTS, MAX_RAVE_EARLY_WEIGHT, MIN_PLAYOUTS_TO_RESIGN, SearchSettings, thread_count,
};
use super::tree::{NewChild, NodeId, ROOT, Stats, Tree, game_move};
use super::uct::{self, Params, Problem};
use crate::knowledge::tactics::Scratch;
use crate::rules::board::{Color, Move, Point};
use crate::rules::game::Game;

/// Builds the tables the search and its playouts read (pattern classes, gammas, shapes), if
/// not yet built, and returns once they are (once per process).
pub fn warm_up() {
    crate::knowledge::patterns::shape_tables::warm_up();
}

/// One MCTS engine: its settings and its tree, kept between moves for reuse.
pub struct Search {
    settings: SearchSettings,
    /// Worker threads, every core's count resolved.
    threads: usize,
    /// The tree searched last, and a spare one the reused subtree is copied into.
    pub(super) tree: Tree,
    spare: Tree,
    /// The game at the root of `tree`, for reuse.
    pub(super) root: Option<RootGame>,
    pub(super) seed: u64,
    last_search: SearchReport,
}

/// What one run of the tree search did.
struct Run {
    /// Playouts run.
    playouts: u64,
    /// Whether a tree was kept from the last search.
    reused: bool,
    /// The visits the kept tree's root had.
    kept_visits: u32,
    /// The komi added for a handicap game ([`dynamic_komi`]).
    extra_komi: f32,
    /// White's mean lead at the playouts' ends (komi included), kept only in a search for
    /// White's move in a handicap game without extra komi, to resign on its schedule
    /// ([`dynamic_komi::white_catching_up`]).
    white_lead: Option<f32>,
}

/// What the last search did.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SearchReport {
    /// Playouts run.
    pub playouts: u64,
    /// Wall time of the search.
    pub seconds: f64,
    /// Tree nodes in use at the end.
    pub nodes: usize,
}

impl Search {
    /// A search with `settings` (the resign threshold kept in range); the tree's memory is
    /// taken once, here.
    pub fn new(mut settings: SearchSettings) -> Search {
        settings.resign_threshold = settings.resign_threshold.clamp(0.0, 1.0);
        let threads = thread_count(settings.threads);
        // Building the pattern tables takes a moment: do it while the
        // controller is still setting up, not in the first genmove.
        std::thread::spawn(warm_up);
        Search {
            threads,
            tree: Tree::new(settings.max_nodes.max(1000)),
            spare: Tree::new(settings.max_nodes.max(1000)),
            root: None,
            seed: settings.seed.unwrap_or_else(random),
            settings,
            last_search: SearchReport::default(),
        }
    }

    /// The level's settings.
    pub fn settings(&self) -> &SearchSettings {
        &self.settings
    }

    /// Searches under `settings` from the next search on (the tree's size and the seed stay).
    pub fn set_settings(&mut self, mut settings: SearchSettings) {
        settings.resign_threshold = settings.resign_threshold.clamp(0.0, 1.0);
        self.threads = thread_count(settings.threads);
        self.settings = settings;
    }

    /// The search parameters for a board of `size`: the level's, kept in range, with
    /// `expand_after` by size unless the level sets it.
    pub(super) fn params_for(&self, size: usize) -> Params {
        let settings = &self.settings;
        Params {
            threads: self.threads,
            exploration: settings.exploration.max(0.0),
            rave_equivalence: settings.rave_equivalence.max(1.0),
            rave_early_weight: settings.rave_early_weight.min(MAX_RAVE_EARLY_WEIGHT),
            expand_after: settings
                .expand_after
                .unwrap_or_else(|| uct::expand_after_for(size)),
        }
    }

    /// What the last `genmove` searched.
    pub fn last_search(&self) -> SearchReport {
        self.last_search
    }

    /// Keeps the part of the last tree under the moves played since, when the game went on
    /// from the last search's position; otherwise starts afresh. Returns whether a tree was
    /// kept.
    fn reuse_tree(&mut self, game: &Game, color: Color) -> bool {
        let kept = self.find_new_root(game, color);
        match kept {
            Some(ROOT) => {}
            Some(node) => {
                self.spare.copy_subtree(&self.tree, node);
                std::mem::swap(&mut self.tree, &mut self.spare);
            }
            None => self.tree.clear(),
        }
        kept.is_some()
    }

    /// The node of the last tree for `game`'s position with `color` to move, if the game is
    /// the last search's game with moves added.
    fn find_new_root(&self, game: &Game, color: Color) -> Option<NodeId> {
        let root = self.root.as_ref()?;
        self.tree.node_after(root, game, game.rules(), color)
    }

    /// The root's children: every legal move (superko included) that does not fill an own
    /// eye, with its prior, and the pass.
    pub(super) fn root_children(game: &Game, color: Color) -> Vec<NewChild> {
        let last = opponents_last_stone(game, color);
        let board = game.board();
        let mut scratch = Scratch::new();
        let mut children: Vec<NewChild> = board
            .empty_points()
            .filter(|&p| !board.is_eye(p, color) && game.legality(color, Move::Play(p)).is_ok())
            .map(|p| priors::stone(board, p, color, last, &mut scratch))
            .collect();
        children.push(priors::pass());
        children
    }

    /// The root's children the rules allow (a reused tree may hold a superko repetition),
    /// most visited first, ties by win rate, then the later made first.
    fn ranked_root_children(&self, game: &Game, color: Color) -> Vec<Stats> {
        let mut ranked: Vec<Stats> = self
            .tree
            .children(ROOT)
            .rev()
            .map(|id| self.tree.stats(id))
            .filter(|s| game.legality(color, game_move(s.mv)).is_ok())
            .collect();
        let win_rate = |s: &Stats| s.win_rate().unwrap_or(0.0);
        ranked.sort_by(|a, b| {
            b.visits
                .cmp(&a.visits)
                .then(win_rate(b).total_cmp(&win_rate(a)))
        });
        ranked
    }
}

impl Search {
    /// The move for `color` in `game` (which is not changed), searched within `budget`.
    pub fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
        let started = Instant::now();
        if let Some(result) = pass_ends_in_win(game, color, budget) {
            info!("mcts: pass: the opponent passed, and the board counts {result}");
            self.root = None;
            self.last_search = SearchReport {
                seconds: started.elapsed().as_secs_f64(),
                ..SearchReport::default()
            };
            return Choice {
                mv: Move::Pass,
                losing: Some(false),
                searched: false,
            };
        }
        let root_children = Search::root_children(game, color);
        if root_children.len() == 1 {
            return Choice {
                mv: Move::Pass,
                losing: None,
                searched: false,
            };
        }
        let max_playouts = match (budget.playouts.or(self.settings.playouts), budget.deadline) {
            (Some(n), _) => n,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_PLAYOUTS,
        };
        let run = self.run(game, color, &root_children, budget, max_playouts, true);
        let (playouts, extra_komi) = (run.playouts, run.extra_komi);
        self.last_search = SearchReport {
            playouts,
            seconds: started.elapsed().as_secs_f64(),
            nodes: self.tree.len(),
        };
        let ranked = self.ranked_root_children(game, color);
        let candidates: Vec<Candidate> = ranked
            .iter()
            .map(|s| Candidate {
                mv: game_move(s.mv),
                visits: s.visits,
                win_rate: f64::from(s.real_win_rate().unwrap_or(0.0)),
            })
            .collect();
        let Some(best) = pass::move_to_play(game, &candidates).map(|i| ranked[i]) else {
            return Choice {
                mv: Move::Pass,
                losing: Some(false),
                searched: true,
            };
        };
        let win_rate = best.real_win_rate().unwrap_or(0.5);
        let mv = game_move(best.mv);
        info!(
            "mcts: {} after {playouts} playouts in {:.2} s ({} nodes{}): {} visits, win rate {:.3}{}",
            mv.to_vertex(game.size()),
            started.elapsed().as_secs_f64(),
            self.tree.len(),
            if run.reused {
                format!(", {} visits kept", run.kept_visits)
            } else {
                String::new()
            },
            best.visits,
            win_rate,
            if extra_komi > 0.0 {
                format!(" with {extra_komi:.1} extra komi")
            } else {
                String::new()
            }
        );
        // A win rate under extra komi says too little about the real game to resign on; and
        // giving a handicap, White is behind from the start: it resigns only behind schedule.
        let catching_up = run
            .white_lead
            .is_some_and(|lead| dynamic_komi::white_catching_up(game, color, f64::from(lead)));
        let losing = extra_komi == 0.0
            && playouts >= MIN_PLAYOUTS_TO_RESIGN
            && win_rate < self.settings.resign_threshold
            && !catching_up
            && !reused_after_new_game(game);
        if log::log_enabled!(log::Level::Debug) {
            let mut children: Vec<Stats> = self
                .tree
                .children(ROOT)
                .map(|id| self.tree.stats(id))
                .collect();
            children.sort_by_key(|s| std::cmp::Reverse(s.visits));
            for s in children.iter().take(10) {
                debug!(
                    "  {:>5} visits {:>6} win {:.3} rave {:>6} {:.3} prior {:>3} {:.3}",
                    game_move(s.mv).to_vertex(game.size()),
                    s.visits,
                    s.real_win_rate().unwrap_or(0.0),
                    s.amaf_visits,
                    s.amaf_wins as f32 / (2 * s.amaf_visits.max(1)) as f32,
                    s.prior_visits,
                    s.prior_wins as f32 / (2 * s.prior_visits.max(1)) as f32,
                );
            }
        }
        Choice {
            mv,
            losing: Some(losing),
            searched: true,
        }
    }

    /// Thinks on the opponent's time: searches `game`'s position, where `color` (the
    /// opponent) is to move, until `budget` stops it (at most [`Search::ponder_playouts`]
    /// playouts), so that the next [`Search::choose`] keeps the subtree of the move played.
    /// Returns the playouts run.
    pub fn ponder(&mut self, game: &Game, color: Color, budget: &Budget) -> u64 {
        let root_children = Search::root_children(game, color);
        if root_children.len() == 1 || budget.expired() {
            return 0;
        }
        let run = self.run(
            game,
            color,
            &root_children,
            budget,
            self.ponder_playouts(),
            false,
        );
        let expected = self
            .tree
            .children(ROOT)
            .map(|id| self.tree.stats(id))
            .max_by_key(|s| s.visits)
            .map_or(Move::Pass, |s| game_move(s.mv));
        info!(
            "mcts: pondered {} playouts, expecting {} ({} nodes{})",
            run.playouts,
            expected.to_vertex(game.size()),
            self.tree.len(),
            if run.reused {
                format!(", {} visits kept", run.kept_visits)
            } else {
                String::new()
            }
        );
        run.playouts
    }

    /// The most playouts one ponder runs: about what fills the tree, past which more
    /// thinking adds little.
    fn ponder_playouts(&self) -> u64 {
        self.settings.max_nodes as u64
    }

    /// Searches `game`'s position with `color` to move (under its dynamic komi) on the tree
    /// kept from the last search when the game went on from it (else a fresh one), and keeps
    /// that position as the tree's root; `for_move`: a search for the move to play (which
    /// may stop early and resign), not a ponder.
    fn run(
        &mut self,
        game: &Game,
        color: Color,
        root_children: &[NewChild],
        budget: &Budget,
        max_playouts: u64,
        for_move: bool,
    ) -> Run {
        let extra_komi = dynamic_komi::extra_komi(game, color, self.settings.handicap_komi(false));
        let last = opponents_last_stone(game, color);
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        // White giving a handicap resigns on its lead, where the win rate is the real komi's.
        let resigns_on_lead =
            for_move && extra_komi == 0.0 && dynamic_komi::white_gives_handicap(game, color);
        let scores = resigns_on_lead.then(RootTally::scores_only);
        let problem = Problem {
            board: game.board(),
            to_move: color,
            last,
            komi: game.scoring_komi() as f32 + extra_komi,
            root_children,
            max_playouts,
            budget,
            seed: self.seed,
            early_stop: for_move && self.settings.early_stop,
            tally: scores.as_ref(),
        };
        let reused = self.reuse_tree(game, color);
        let kept_visits = self.tree.visits(ROOT);
        let playouts = uct::run(&self.tree, &problem, &self.params_for(game.size()));
        self.root = Some(RootGame::of(game, *game.rules(), color));
        Run {
            playouts,
            reused,
            kept_visits,
            extra_komi,
            white_lead: scores.and_then(|tally| tally.overall()).map(|s| -s.mean),
        }
    }

    /// The last search's root moves as an analysis report (what `*-genmove_analyze`
    /// shows after the move).
    pub fn root_report(&self) -> Report {
        let moves = self.root_infos();
        let visits: u64 = moves.iter().map(|m| u64::from(m.visits)).sum();
        let winrate = moves.first().map_or(0.5, |m| m.winrate);
        Report {
            root: RootInfo {
                visits,
                winrate,
                utility: win_loss_utility(winrate),
                score: None,
            },
            moves,
            ownership: None,
            last: true,
        }
    }
}

/// The prior of every move `color` may play in `game` (the pass included), normalised to sum
/// to 1: the knowledge the search starts from.
pub fn move_priors(game: &Game, color: Color) -> Vec<(Move, f32)> {
    let children = Search::root_children(game, color);
    let strength = |c: &NewChild| c.prior_wins as f32 / (2 * c.prior_visits.max(1)) as f32;
    let total: f32 = children.iter().map(strength).sum::<f32>().max(f32::EPSILON);
    children
        .iter()
        .map(|c| (game_move(c.mv), strength(c) / total))
        .collect()
}

/// The opponent's last stone, when the last move was the opponent's and not a pass: what
/// the playouts answer first.
pub(super) fn opponents_last_stone(game: &Game, color: Color) -> Option<Point> {
    match game.moves().last() {
        Some(&(c, Move::Play(p))) if c != color => Some(p),
        _ => None,
    }
}

/// Whether the game has only just begun (a new game resets the resign count).
fn reused_after_new_game(game: &Game) -> bool {
    game.moves().len() < 2
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::engine::search::pass::is_settled;
    use crate::engine::search::tree::node_move;
    use crate::rules::game::Rules;

    fn player(playouts: u64, threads: usize) -> Search {
        Search::new(SearchSettings {
            playouts: Some(playouts),
            threads,
            seed: Some(1),
            ..SearchSettings::default()
        })
    }

    #[test]
    fn saves_its_stones_from_atari_by_extending_into_the_open() {
        // Black D5-E5 is in atari at F5; extending there gives three liberties (F6, G5,
        // F4), any other move loses two stones and the centre.
        let game = Game::from_rows(
            &[
                ".........",
                ".........",
                ".........",
                "...OO....",
                "..OXX....",
                "...OO....",
                ".........",
                ".........",
                ".........",
            ],
            Rules::chinese(7.0),
        );
        let mut mcts = player(2000, 2);
        let answer = mcts.choose(&game, Color::Black, &Budget::default()).mv;
        assert_eq!(answer, Move::Play(Point::parse("F5", 9).unwrap()));
    }

    #[test]
    fn nodes_expand_sooner_on_small_boards_unless_the_level_says() {
        let by_size = player(10, 1);
        assert_eq!(by_size.params_for(9).expand_after, 4);
        assert_eq!(by_size.params_for(7).expand_after, 4);
        assert_eq!(by_size.params_for(13).expand_after, 8);
        assert_eq!(by_size.params_for(19).expand_after, 8);
        let set = Search::new(SearchSettings {
            expand_after: Some(6),
            ..SearchSettings::default()
        });
        assert_eq!(set.params_for(9).expand_after, 6);
        assert_eq!(set.params_for(19).expand_after, 6);
    }

    #[test]
    fn a_smoke_game_at_tiny_playouts_ends_legally() {
        let mut game = Game::new(7, Rules::chinese(7.0));
        let mut players = [player(50, 1), player(50, 2)];
        for _ in 0..200 {
            if game.trailing_passes() >= 2 {
                break;
            }
            let c = game.to_move();
            let mv = players[c.index()].choose(&game, c, &Budget::default()).mv;
            game.play(c, mv).expect("legal move");
        }
        assert!(game.moves().len() > 10);
    }

    #[test]
    fn the_tree_is_kept_across_moves_and_dropped_for_another_game() {
        let mut game = Game::new(9, Rules::chinese(7.0));
        let mut mcts = player(3000, 1);
        let limits = Budget::default();
        let first = mcts.choose(&game, Color::Black, &limits).mv;
        game.play(Color::Black, first).unwrap();
        // White answers with the reply the search explored most.
        let tree = &mcts.tree;
        let reply = tree
            .children(ROOT)
            .find(|&c| tree.mv(c) == node_move(first))
            .and_then(|n| tree.children(n).max_by_key(|&c| tree.visits(c)))
            .map(|c| game_move(tree.mv(c)))
            .expect("the played move was expanded");
        game.play(Color::White, reply).unwrap();
        let expected = mcts.find_new_root(&game, Color::Black).expect("kept");
        let kept = mcts.tree.stats(expected);
        assert!(kept.visits > 0);
        assert!(mcts.reuse_tree(&game, Color::Black));
        assert_eq!(mcts.tree.stats(ROOT), kept);
        // The same moves from another start (a handicap stone) are another game.
        let mut other = Game::new(9, Rules::chinese(7.0));
        other
            .set_handicap(&[Point::parse("C3", 9).unwrap()])
            .unwrap();
        assert!(mcts.find_new_root(&other, Color::Black).is_none());
    }

    /// Black's area is the left 36 points, White's the right 44; E5 is the last dame, and
    /// neither side can do anything else useful.
    const ONE_DAME: [&str; 9] = [
        "...XO....",
        "...XO....",
        "...XO....",
        "...XO....",
        "...X.O...",
        "...XO....",
        "...XO....",
        "...XO....",
        "...XO....",
    ];

    #[test]
    fn does_not_pass_while_dame_remain_under_area_scoring() {
        // Black must fill E5 rather than pass.
        let game = Game::from_rows(&ONE_DAME, Rules::chinese(0.5));
        assert!(!is_settled(game.board()));
        let mut mcts = player(2000, 1);
        let answer = mcts.choose(&game, Color::Black, &Budget::default()).mv;
        assert_ne!(answer, Move::Pass);
        let mut settled = Game::from_rows(&ONE_DAME, Rules::chinese(0.5));
        settled
            .play(Color::Black, Move::Play(Point::parse("E5", 9).unwrap()))
            .unwrap();
        assert!(is_settled(settled.board()));
    }

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "searches and scores many positions: release only"
    )]
    fn passes_after_the_opponent_passed_when_the_board_counts_a_win() {
        let mut mcts = player(2000, 1);
        // At komi 0.5 White wins by 8.5 when the game ends now: after Black's pass it passes
        // (without Black's pass it would fill E5 first, as the dame test shows for Black).
        let mut ahead = Game::from_rows(&ONE_DAME, Rules::chinese(0.5));
        ahead.play(Color::Black, Move::Pass).unwrap();
        assert_eq!(
            mcts.choose(&ahead, Color::White, &Budget::default()).mv,
            Move::Pass
        );
        // At komi -20.5 the same pass would lose by 12.5: White plays on.
        let mut behind = Game::from_rows(&ONE_DAME, Rules::chinese(-20.5));
        behind.play(Color::Black, Move::Pass).unwrap();
        assert_ne!(
            mcts.choose(&behind, Color::White, &Budget::default()).mv,
            Move::Pass
        );
        // And with the lead but no pass before it, White does not end the game either.
        let unpassed = Game::from_rows(&ONE_DAME, Rules::chinese(0.5));
        assert_ne!(
            mcts.choose(&unpassed, Color::White, &Budget::default()).mv,
            Move::Pass
        );
        // Nor in the opening: on an empty board komi wins it for White, yet it plays on.
        let mut opening = Game::new(9, Rules::chinese(7.0));
        opening.play(Color::Black, Move::Pass).unwrap();
        assert_ne!(
            mcts.choose(&opening, Color::White, &Budget::default()).mv,
            Move::Pass
        );
        // Nor when the clock leaves too little time to ask the scorer.
        let hurried = Budget {
            deadline: Some(Instant::now() + Duration::from_millis(50)),
            ..Budget::default()
        };
        assert_ne!(mcts.choose(&ahead, Color::White, &hurried).mv, Move::Pass);
    }

    #[test]
    fn a_clear_best_move_stops_at_the_target_not_the_deadline() {
        // White's five stones on the E column are in atari (liberty E6): capturing them is the
        // only move that matters, so the search is soon clearly for it and stops at its
        // target, long before the deadline or the playout cap.
        let mut game = Game::new(9, Rules::chinese(7.0));
        let black = ["D1", "D2", "D3", "D4", "D5", "F1", "F2", "F3", "F4", "F5"];
        let white = ["E1", "E2", "E3", "E4", "E5", "G5"];
        for (b, w) in black
            .iter()
            .zip(white.iter().chain(["H8", "H7", "H6", "J8"].iter()))
        {
            game.play(Color::Black, Move::Play(Point::parse(b, 9).unwrap()))
                .unwrap();
            game.play(Color::White, Move::Play(Point::parse(w, 9).unwrap()))
                .unwrap();
        }
        let mut mcts = Search::new(SearchSettings {
            threads: 1,
            seed: Some(5),
            ..SearchSettings::default()
        });
        let now = Instant::now();
        let budget = Budget {
            target: Some(now),
            deadline: Some(now + std::time::Duration::from_secs(5)),
            playouts: Some(200_000),
            ..Budget::default()
        };
        let choice = mcts.choose(&game, Color::Black, &budget);
        assert_eq!(choice.mv, Move::Play(Point::parse("E6", 9).unwrap()));
        let playouts = mcts.last_search().playouts;
        assert!(playouts < 1_000, "{playouts} playouts");
    }

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "a debug build's first search loads the pattern tables for seconds"
    )]
    fn stops_at_the_deadline() {
        let game = Game::new(9, Rules::chinese(7.0));
        let mut mcts = Search::new(SearchSettings {
            threads: 2,
            ..SearchSettings::default()
        });
        let limits = Budget {
            deadline: Some(Instant::now() + std::time::Duration::from_millis(200)),
            ..Budget::default()
        };
        let answer = mcts.choose(&game, Color::Black, &limits).mv;
        assert!(matches!(answer, Move::Play(_)));
        // A loose bound against a hang, not a speed figure.
        assert!(Instant::now() < limits.deadline.unwrap() + std::time::Duration::from_secs(5));
    }

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "searches thousands of playouts: release only"
    )]
    fn white_giving_a_handicap_resigns_only_behind_its_schedule() {
        let mut game = Game::new(9, Rules::chinese(0.5));
        let stones = crate::rules::game::fixed_handicap_points(9, 2).expect("two stones fit");
        game.set_handicap(&stones).expect("on an empty board");
        // Past a new game's first moves, whose searches never resign.
        for (color, col, row) in [(Color::White, 4, 4), (Color::Black, 4, 6)] {
            let stone = Move::Play(Point::new(9, col, row));
            game.play(color, stone).expect("an empty point");
        }
        let mut search = Search::new(SearchSettings {
            playouts: Some(MIN_PLAYOUTS_TO_RESIGN),
            threads: 1,
            seed: Some(1),
            resign_threshold: 0.5,
            early_stop: false,
            ..SearchSettings::default()
        });
        let choice = search.choose(&game, Color::White, &Budget::default());
        assert_eq!(search.last_search.playouts, MIN_PLAYOUTS_TO_RESIGN);
        let winrate = search.root_report().root.winrate;
        assert!(winrate < 0.5, "White wins {winrate}");
        assert_eq!(choice.losing, Some(false), "on its schedule");
        // Eight more Black stones while White passes: far behind it.
        for (col, row) in [
            (2, 4),
            (4, 2),
            (6, 4),
            (3, 3),
            (5, 5),
            (3, 5),
            (5, 3),
            (6, 2),
        ] {
            game.play(Color::White, Move::Pass).expect("a pass");
            let stone = Move::Play(Point::new(9, col, row));
            game.play(Color::Black, stone).expect("an empty point");
        }
        let choice = search.choose(&game, Color::White, &Budget::default());
        assert_eq!(choice.losing, Some(true));
    }
}
