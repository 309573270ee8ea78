//! The hard level's own engine: Monte Carlo tree search over threads sharing one tree, with
//! RAVE, priors and a playout policy that answers the last move.

pub mod policy;
mod priors;
mod search;
mod tree;

use std::time::Instant;

use log::info;
use rand::random;

use crate::board::{Color, Move};
use crate::game::Game;

use super::{Answer, Limits, Player};
use search::{Params, Problem};
use tree::{NewChild, ROOT, Stats, Tree};

/// Playouts per move when neither the level nor the clock sets a budget.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;
/// Tree nodes when the level does not say (about 40 bytes each).
pub const DEFAULT_MAX_NODES: usize = 2_000_000;
/// Resign when the best move wins less often than this.
pub const DEFAULT_RESIGN_THRESHOLD: f32 = 0.1;

/// The playouts a move needs before its win rate is trusted enough to resign on it.
const MIN_PLAYOUTS_TO_RESIGN: u32 = 1_000;

/// How one MCTS level plays.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSettings {
    /// Fixed playouts per move; `None`: the clock decides, else [`DEFAULT_PLAYOUTS`].
    pub playouts: Option<u64>,
    /// Worker threads; 0 = every core.
    pub threads: usize,
    /// The tree's node capacity. When it is full the search goes on without expanding.
    pub max_nodes: usize,
    /// Resign below this win rate (0 never resigns).
    pub resign_threshold: f32,
    /// Fixed seed for reproducible searches (with one thread); random when absent.
    pub seed: Option<u64>,
}

impl Default for MctsSettings {
    fn default() -> MctsSettings {
        MctsSettings {
            playouts: None,
            threads: 0,
            max_nodes: DEFAULT_MAX_NODES,
            resign_threshold: DEFAULT_RESIGN_THRESHOLD,
            seed: None,
        }
    }
}

/// The MCTS player.
pub struct MctsPlayer {
    settings: MctsSettings,
    params: Params,
    tree: Tree,
    seed: u64,
    last_search: SearchReport,
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

impl MctsPlayer {
    /// A player with `settings`; the tree's memory is taken once, here.
    pub fn new(settings: MctsSettings) -> MctsPlayer {
        let threads = match settings.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        MctsPlayer {
            params: Params {
                threads,
                ..Params::default()
            },
            tree: Tree::new(settings.max_nodes.max(1000)),
            seed: settings.seed.unwrap_or_else(random),
            settings,
            last_search: SearchReport::default(),
        }
    }

    /// What the last `genmove` searched.
    pub fn last_search(&self) -> SearchReport {
        self.last_search
    }

    /// The root's children: every legal move (superko included) that does not fill an own
    /// eye, with its prior, and the pass.
    fn root_children(game: &Game, color: Color) -> Vec<NewChild> {
        let board = game.board();
        let mut children: Vec<NewChild> = board
            .empty_points()
            .filter(|&p| !board.is_eye(p, color) && game.legality(color, Move::Play(p)).is_ok())
            .map(|p| priors::stone(board, p, color))
            .collect();
        children.push(priors::pass());
        children
    }

    /// The root child played: the most visited, ties broken by win rate.
    fn best_child(&self) -> Option<Stats> {
        self.tree
            .children(ROOT)
            .map(|id| self.tree.stats(id))
            .max_by(|a, b| {
                a.visits.cmp(&b.visits).then(
                    a.win_rate()
                        .unwrap_or(0.0)
                        .total_cmp(&b.win_rate().unwrap_or(0.0)),
                )
            })
    }
}

impl Player for MctsPlayer {
    fn genmove(&mut self, game: &Game, color: Color, limits: &Limits) -> Answer {
        let started = Instant::now();
        let root_children = MctsPlayer::root_children(game, color);
        if root_children.len() == 1 {
            return Answer::Move(Move::Pass);
        }
        let max_playouts = match (self.settings.playouts, limits.deadline) {
            (Some(n), _) => n,
            (None, Some(_)) => u64::MAX,
            (None, None) => DEFAULT_PLAYOUTS,
        };
        let last = match game.moves().last() {
            Some(&(c, Move::Play(p))) if c != color => Some(p),
            _ => None,
        };
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let problem = Problem {
            board: game.board(),
            to_move: color,
            last,
            komi: game.rules().komi as f32,
            root_children: &root_children,
            max_playouts,
            limits,
            seed: self.seed,
        };
        self.tree.clear();
        let playouts = search::run(&self.tree, &problem, &self.params);
        self.last_search = SearchReport {
            playouts,
            seconds: started.elapsed().as_secs_f64(),
            nodes: self.tree.len(),
        };
        let Some(best) = self.best_child() else {
            return Answer::Move(Move::Pass);
        };
        let win_rate = best.real_win_rate().unwrap_or(0.5);
        let mv = search::point_of(best.mv).map_or(Move::Pass, Move::Play);
        info!(
            "mcts: {} after {playouts} playouts in {:.2} s ({} nodes): {} visits, win rate {:.3}",
            mv.to_vertex(game.size()),
            started.elapsed().as_secs_f64(),
            self.tree.len(),
            best.visits,
            win_rate
        );
        if limits.may_resign
            && self.settings.resign_threshold > 0.0
            && best.visits >= MIN_PLAYOUTS_TO_RESIGN
            && win_rate < self.settings.resign_threshold
        {
            return Answer::Resign;
        }
        Answer::Move(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Point;
    use crate::game::Rules;

    fn player(playouts: u64, threads: usize) -> MctsPlayer {
        MctsPlayer::new(MctsSettings {
            playouts: Some(playouts),
            threads,
            seed: Some(1),
            ..MctsSettings::default()
        })
    }

    #[test]
    fn captures_a_big_group_in_atari() {
        // White's four stones on D4-E5 have one liberty left, F4: Black takes them.
        let game = Game::from_rows(
            &[
                ".........",
                ".........",
                ".........",
                "...XX....",
                "..XOOX...",
                "..XOO....",
                "...XX....",
                ".........",
                ".........",
            ],
            Rules::chinese(7.0),
        );
        let mut mcts = player(2000, 2);
        let answer = mcts.genmove(&game, Color::Black, &Limits::default());
        assert_eq!(
            answer,
            Answer::Move(Move::Play(Point::parse("F4", 9).unwrap()))
        );
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
            match players[c.index()].genmove(&game, c, &Limits::default()) {
                Answer::Move(mv) => game.play(c, mv).expect("legal move"),
                Answer::Resign => break,
            }
        }
        assert!(game.moves().len() > 10);
    }

    #[test]
    fn stops_at_the_deadline() {
        let game = Game::new(9, Rules::chinese(7.0));
        let mut mcts = MctsPlayer::new(MctsSettings {
            threads: 2,
            ..MctsSettings::default()
        });
        let limits = Limits {
            deadline: Some(Instant::now() + std::time::Duration::from_millis(200)),
            ..Limits::default()
        };
        let answer = mcts.genmove(&game, Color::Black, &limits);
        assert!(matches!(answer, Answer::Move(Move::Play(_))));
        // A loose bound against a hang, not a speed figure.
        assert!(Instant::now() < limits.deadline.unwrap() + std::time::Duration::from_secs(5));
    }
}
