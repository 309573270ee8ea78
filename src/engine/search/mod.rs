//! tengen's own Monte Carlo tree search over threads sharing one tree, with RAVE, priors and
//! a playout policy that answers the last move: what the `mcts` level plays and analyses
//! with (through [`crate::engine::player::mcts`]).

mod analysis;
mod dynamic_komi;
mod last_good_reply;
pub mod policy;
mod priors;
pub mod puct;
mod root_tally;
mod time;
mod tree;
mod uct;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use log::{debug, info};
use rand::random;
use serde::Deserialize;

use crate::rules::board::{Board, Color, Move, Point};
use crate::rules::game::clock::Clock;
use crate::rules::game::regions::Regions;
use crate::rules::game::score::{self, Assessment};
use crate::rules::game::{Game, Scoring, opening_length};

pub use crate::knowledge::tactics::Scratch;
pub use analysis::{AnalysisRequest, MoveInfo, Report, RootInfo, move_priors};
pub use last_good_reply::ReplyTable;
pub use puct::PuctSearch;
use root_tally::RootTally;
pub use root_tally::ScoreStats;
pub use time::time_for_move;
use tree::{NewChild, NodeId, ROOT, Stats, Tree};
use uct::{Params, Problem};

/// Builds the tables the search and its playouts read (pattern classes, gammas, shapes), if
/// not yet built, and returns once they are (once per process).
pub fn warm_up() {
    crate::knowledge::patterns::shape_tables::warm_up();
}

/// Playouts per move when neither the level nor the clock sets a budget.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;
/// Tree nodes when the level does not say (about 34 bytes each).
pub const DEFAULT_MAX_NODES: usize = 1_000_000;
/// The most tree nodes a level may have: 50 million, about 3.4 GB in its two trees.
pub const MAX_NODES: usize = 50_000_000;
/// The fewest tree nodes a level may have.
pub const MIN_NODES: usize = 1_000;
/// The most playouts a move or an analysis may ask for (a level's `playouts`, `--playouts`,
/// `maxVisits`): a billion, hours of search on any machine.
pub const MAX_PLAYOUTS: u64 = 1_000_000_000;
/// The most threads a count from outside may ask for (a level's `threads`, `--threads`, the
/// analysis engine's thread counts, `serve --workers`). A fixed number, not one per core, so
/// that a config valid on one machine is valid on all; more than any machine has cores.
pub const MAX_THREADS: usize = 1024;

/// The threads a count checked against [`MAX_THREADS`] stands for: 0 is every core.
pub fn thread_count(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n.min(MAX_THREADS),
    }
}

/// Points a handicap stone is worth to [`dynamic_komi`] (Pachi's `handicap_value`).
pub const DEFAULT_HANDICAP_KOMI: f32 = 7.0;

/// The leaves a thread of the search with a net evaluates in one batch on the clock: 20-50%
/// more visits a second than one at a time on 9x9 and 19x19 (one thread, b6c96; batches of 8
/// no more than 4).
pub const DEFAULT_LEAF_BATCH: usize = 4;

/// The largest `leaf_batch` taken.
pub const MAX_LEAF_BATCH: usize = 64;

/// The largest `rave_early_weight` taken; more is clamped (the tree's RAVE counters are sized
/// for it).
pub const MAX_RAVE_EARLY_WEIGHT: u32 = 15;
/// Resign when the best move wins less often than this.
pub const DEFAULT_RESIGN_THRESHOLD: f32 = 0.1;

/// The playouts a search needs before its win rate is trusted enough to resign on it.
pub const MIN_PLAYOUTS_TO_RESIGN: u64 = 1_000;
/// A generous guess at the scorer's time per board point and playout, in microseconds.
const SCORER_MICROS_PER_POINT: u64 = 10;
/// How much lower than the pass a move's win rate may be and still be played instead of a
/// pass while the position is not settled.
const PASS_MARGIN: f32 = 0.05;

/// What bounds one search or one move: playouts, a deadline, a flag set from outside to stop
/// early (the best move so far is played), and for a move the game clock and whether
/// resigning is allowed.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Playouts to run at most; `None`: the level's own count, or the deadline decides.
    pub playouts: Option<u64>,
    /// The moment the answer is due; `None` when the clock sets no limit.
    pub deadline: Option<Instant>,
    /// When a search whose best move is clearly ahead stops (an unclear one goes on to the
    /// deadline); `None`: only the deadline counts.
    pub target: Option<Instant>,
    /// Set (by `# interrupt`, or the next line during an analysis) to stop thinking now.
    pub stop: Option<Arc<AtomicBool>>,
    /// The game clock, for players that pass it on (an external engine).
    pub clock: Option<Clock>,
    /// Whether the player may resign (never in `kgs-genmove_cleanup`).
    pub may_resign: bool,
}

impl Budget {
    /// Whether the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Whether thinking must stop now: the deadline passed or the stop flag is set.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || self.stopped()
    }
}

/// The move a search chose.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move (or pass).
    pub mv: Move,
    /// Whether the search found the game lost (its best win rate below the resign threshold,
    /// trusted); `None` when this move gives no verdict (a pass forced by the rules).
    pub losing: Option<bool>,
    /// Whether a tree search ran (so [`Search::root_report`] describes this move).
    pub searched: bool,
}

/// How one MCTS level plays: the one declaration of the search's settings, read from a
/// `[levels.NAME]` table of engines.toml (`player = "mcts"`), overridden by the command
/// line's `--playouts` and `--threads`, and used by the search.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSettings {
    /// Playouts per move; absent: the clock decides, or 10,000 without a clock.
    pub playouts: Option<u64>,
    /// Search threads; 0: every core.
    pub threads: usize,
    /// Tree capacity in nodes (about 34 bytes each, two trees); when full, the search goes
    /// on in the tree it has without expanding it.
    pub max_nodes: usize,
    /// Resign when the best move's win rate is below this (0: never).
    pub resign_threshold: f32,
    /// Fixed seed (reproducible with one thread); random when absent.
    pub seed: Option<u64>,
    /// UCB exploration constant (0: RAVE and the priors explore).
    pub exploration: f32,
    /// Playouts at which a move's own and its RAVE statistics weigh the same.
    pub rave_equivalence: f32,
    /// Extra RAVE weight of a move played right after a node, fading to none for one played
    /// at the playout's end (at most [`MAX_RAVE_EARLY_WEIGHT`]).
    pub rave_early_weight: u32,
    /// Visits before a tree node is expanded; absent: by board size
    /// ([`uct::expand_after_for`]: 4 up to 9x9, 8 above).
    pub expand_after: Option<u32>,
    /// Points per handicap stone that a search in a handicap game (Black's, and White's on
    /// boards above 9x9) pretends White has as extra komi, fading to none over the game's
    /// first part (see [`dynamic_komi`]); 0 turns it off. Absent:
    /// [`DEFAULT_HANDICAP_KOMI`] without a net, 0 with one ([`SearchSettings::handicap_komi`]).
    #[serde(rename = "handicap_komi")]
    pub handicap_komi_set: Option<f32>,
    /// Whether the player thinks on the opponent's time when a clock limits the game.
    pub ponder: bool,
    /// Whether the player plays from the opening book (`book/`) while the position is in it
    /// and the book fits the game's size, komi and scoring; the search does not read it.
    /// Absent: yes without a net, no with one ([`SearchSettings::book`]).
    #[serde(rename = "book")]
    pub book_set: Option<bool>,
    /// With a net, on the clock: the leaves a thread gathers (under virtual loss) and
    /// evaluates in one batch.
    pub leaf_batch: usize,
    /// Whether a search ends once its most visited move can no longer be overtaken. Play
    /// wants this; `tengen bench` turns it off to measure throughput over the whole budget.
    #[serde(skip)]
    pub early_stop: bool,
}

impl SearchSettings {
    /// Checks that every setting is in its range (the README's table of keys); on failure, the
    /// key at fault and what it must be.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        fn within<T: PartialOrd + std::fmt::Display>(
            key: &'static str,
            value: T,
            min: T,
            max: T,
        ) -> Result<(), (&'static str, String)> {
            // Written so that NaN fails too.
            if value >= min && value <= max {
                Ok(())
            } else {
                Err((key, format!("must be from {min} to {max}, not {value}")))
            }
        }
        if let Some(playouts) = self.playouts {
            within("playouts", playouts, 1, MAX_PLAYOUTS)?;
        }
        within("threads", self.threads, 0, MAX_THREADS)?;
        within("max_nodes", self.max_nodes, MIN_NODES, MAX_NODES)?;
        within("resign_threshold", self.resign_threshold, 0.0, 0.5)?;
        within("exploration", self.exploration, 0.0, 10.0)?;
        within("rave_equivalence", self.rave_equivalence, 1.0, 1e9)?;
        within(
            "rave_early_weight",
            self.rave_early_weight,
            0,
            MAX_RAVE_EARLY_WEIGHT,
        )?;
        if let Some(expand_after) = self.expand_after {
            within("expand_after", expand_after, 0, 1_000_000)?;
        }
        within("leaf_batch", self.leaf_batch, 1, MAX_LEAF_BATCH)?;
        within(
            "handicap_komi",
            self.handicap_komi_set.unwrap_or(0.0),
            0.0,
            100.0,
        )
    }

    /// Points per handicap stone for dynamic komi in the search (with a net when `net`): the
    /// level's `handicap_komi`, else [`DEFAULT_HANDICAP_KOMI`] without a net and none with one
    /// (the net reads the komi and would play an even game's moves; docs/SEARCH.md has the
    /// matches).
    pub fn handicap_komi(&self, net: bool) -> f32 {
        let default = if net { 0.0 } else { DEFAULT_HANDICAP_KOMI };
        self.handicap_komi_set.unwrap_or(default).max(0.0)
    }

    /// Whether a player (with a net when `net`) plays from the opening book: the level's
    /// `book`, else yes without a net and no with one (its moves are no better than the net's;
    /// docs/SEARCH.md has the match).
    pub fn book(&self, net: bool) -> bool {
        self.book_set.unwrap_or(!net)
    }
}

impl Default for SearchSettings {
    fn default() -> SearchSettings {
        SearchSettings {
            playouts: None,
            threads: 0,
            max_nodes: DEFAULT_MAX_NODES,
            resign_threshold: DEFAULT_RESIGN_THRESHOLD,
            seed: None,
            exploration: 0.0,
            rave_equivalence: 1000.0,
            rave_early_weight: 3,
            expand_after: None,
            handicap_komi_set: None,
            ponder: false,
            book_set: None,
            leaf_batch: DEFAULT_LEAF_BATCH,
            early_stop: true,
        }
    }
}

/// One MCTS engine: its settings and its tree, kept between moves for reuse.
pub struct Search {
    settings: SearchSettings,
    /// Worker threads, every core's count resolved.
    threads: usize,
    /// The tree searched last, and a spare one the reused subtree is copied into.
    tree: Tree,
    spare: Tree,
    /// The position at the root of `tree` and the game's moves up to it, for reuse.
    root: Option<RootPosition>,
    seed: u64,
    last_search: SearchReport,
}

/// Where the last search stood.
struct RootPosition {
    board: Board,
    to_move: Color,
    moves: Vec<(Color, Move)>,
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

    /// The search parameters for a board of `size`: the level's, kept in range, with
    /// `expand_after` by size unless the level sets it.
    fn params_for(&self, size: usize) -> Params {
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
        let moves = game.moves();
        if root.board.size() != game.size()
            || moves.len() < root.moves.len()
            || moves[..root.moves.len()] != root.moves[..]
        {
            return None;
        }
        let mut board = root.board.clone();
        let mut to_move = root.to_move;
        let mut node = ROOT;
        for &(c, mv) in &moves[root.moves.len()..] {
            if c != to_move {
                return None;
            }
            match mv {
                Move::Play(p) => {
                    board.play(p, c);
                }
                Move::Pass => board.pass(),
            }
            node = self.tree.child_with(node, uct::node_move(mv))?;
            to_move = to_move.opponent();
        }
        (to_move == color && board.hash() == game.board().hash()).then_some(node)
    }

    /// Under area scoring a pass is played only on a settled board (no dame, nothing in
    /// atari): before that, the most visited move whose win rate is close to the pass's is
    /// played instead, so that dame get filled and stones in atari taken.
    fn instead_of_pass(&self, game: &Game, color: Color, best: Stats) -> Stats {
        if best.mv != tree::PASS
            || game.rules().scoring != Scoring::Area
            || is_settled(game.board())
        {
            return best;
        }
        let floor = best.real_win_rate().unwrap_or(0.0) - PASS_MARGIN;
        self.tree
            .children(ROOT)
            .map(|id| self.tree.stats(id))
            .filter(|s| {
                s.mv != tree::PASS
                    && s.real_win_rate().is_some_and(|w| w >= floor)
                    && uct::point_of(s.mv)
                        .is_some_and(|p| game.legality(color, Move::Play(p)).is_ok())
            })
            .max_by_key(|s| s.visits)
            .unwrap_or(best)
    }

    /// The root's children: every legal move (superko included) that does not fill an own
    /// eye, with its prior, and the pass.
    fn root_children(game: &Game, color: Color, last: Option<Point>) -> Vec<NewChild> {
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

    /// The root child played: the most visited move the rules allow (a reused tree may hold a
    /// superko repetition), ties broken by win rate.
    fn best_child(&self, game: &Game, color: Color) -> Option<Stats> {
        self.tree
            .children(ROOT)
            .map(|id| self.tree.stats(id))
            .filter(|s| {
                let mv = uct::point_of(s.mv).map_or(Move::Pass, Move::Play);
                game.legality(color, mv).is_ok()
            })
            .max_by(|a, b| {
                a.visits.cmp(&b.visits).then(
                    a.win_rate()
                        .unwrap_or(0.0)
                        .total_cmp(&b.win_rate().unwrap_or(0.0)),
                )
            })
    }
}

impl Search {
    /// The move for `color` in `game` (which is not changed), searched within `budget`.
    pub fn choose(&mut self, game: &Game, color: Color, budget: &Budget) -> Choice {
        let started = Instant::now();
        let last = match game.moves().last() {
            Some(&(c, Move::Play(p))) if c != color => Some(p),
            _ => None,
        };
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
        let root_children = Search::root_children(game, color, last);
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
        let Some(best) = self.best_child(game, color) else {
            return Choice {
                mv: Move::Pass,
                losing: Some(false),
                searched: true,
            };
        };
        let best = self.instead_of_pass(game, color, best);
        let win_rate = best.real_win_rate().unwrap_or(0.5);
        let mv = uct::point_of(best.mv).map_or(Move::Pass, Move::Play);
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
                    uct::point_of(s.mv)
                        .map_or(Move::Pass, Move::Play)
                        .to_vertex(game.size()),
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
        let last = match game.moves().last() {
            Some(&(c, Move::Play(p))) if c != color => Some(p),
            _ => None,
        };
        let root_children = Search::root_children(game, color, last);
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
            .map_or(Move::Pass, |s| {
                uct::point_of(s.mv).map_or(Move::Pass, Move::Play)
            });
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
        let last = match game.moves().last() {
            Some(&(c, Move::Play(p))) if c != color => Some(p),
            _ => None,
        };
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        // White giving a handicap resigns on its lead, where the win rate is the real komi's.
        let resigns_on_lead =
            for_move && extra_komi == 0.0 && dynamic_komi::white_gives_handicap(game, color);
        let scores = resigns_on_lead.then(RootTally::scores_only);
        let problem = Problem {
            board: game.board(),
            to_move: color,
            last,
            komi: game.rules().komi as f32 + extra_komi,
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
        self.root = Some(RootPosition {
            board: game.board().clone(),
            to_move: color,
            moves: game.moves().to_vec(),
        });
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
        Report {
            root: RootInfo {
                visits,
                winrate: moves.first().map_or(0.5, |m| m.winrate),
                score: None,
            },
            moves,
            ownership: None,
            last: true,
        }
    }
}

/// The result, when the opponent has just passed (so that a pass of `color` ends the game)
/// past the opening ([`opening_length`] stones: a pass there, a test or a misclick, is not
/// answered by the game's end) and the scorer behind `final_score` counts the board as a win
/// for `color`, clear about every stone, with no living string in atari:
/// then the player passes rather than play on in a won position, where every further move
/// only gives the playouts room to misjudge it (Pachi passes the same way).
///
/// The scorer takes time: under a clock it is asked only while twice its estimated time
/// ([`SCORER_MICROS_PER_POINT`] per point and playout) is left before the deadline.
fn pass_ends_in_win(game: &Game, color: Color, budget: &Budget) -> Option<String> {
    let board = game.board();
    let points = game.size() * game.size();
    if !matches!(game.moves().last(), Some(&(c, Move::Pass)) if c != color)
        || points - board.empty_count() < opening_length(game.size())
    {
        return None;
    }
    let cost = Duration::from_micros(
        SCORER_MICROS_PER_POINT * points as u64 * score::DEFAULT_PLAYOUTS as u64,
    );
    if budget
        .deadline
        .is_some_and(|d| d.saturating_duration_since(Instant::now()) < 2 * cost)
    {
        return None;
    }
    let assessment = Assessment::of(game, score::DEFAULT_PLAYOUTS);
    let lead = match color {
        Color::Black => assessment.score(),
        Color::White => -assessment.score(),
    };
    let living_atari = assessment.living_atari_liberties(board).next().is_some();
    (lead > 0.0 && assessment.is_clear() && !living_atari).then(|| assessment.result())
}

/// Whether nothing is left to play for under area scoring: every empty region touches one
/// colour only, and no string is in atari.
fn is_settled(board: &Board) -> bool {
    let in_atari = board
        .points()
        .any(|p| board.color_at(p).is_some() && board.in_atari(p));
    !in_atari && Regions::of(board).iter().all(|r| r.owner().is_some())
}

/// Whether the game has only just begun (a new game resets the resign count).
fn reused_after_new_game(game: &Game) -> bool {
    game.moves().len() < 2
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let reply = mcts
            .tree
            .child_with(ROOT, uct::node_move(first))
            .and_then(|n| mcts.tree.children(n).max_by_key(|&c| mcts.tree.visits(c)))
            .map(|c| uct::point_of(mcts.tree.mv(c)).map_or(Move::Pass, Move::Play))
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
