//! The AI side of the server: a bounded pool of workers that run searches (and the scorer) off
//! the async threads, and the levels' players, lent to one search at a time.
//!
//! A level's player is built by [`Config::player`], as GTP builds it, so a level plays the
//! same here. Players are pooled per level rather than kept per game: an `mcts` player holds
//! two trees of a million nodes, too much for each of hundreds of idle games. At most
//! `workers` searches run at once, so a level never has more than `workers` players; a game
//! gets back the player it used last when it is free, so the search can reuse its tree.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::Semaphore;

use crate::board::Move;
use crate::config::{Config, LevelConfig};
use crate::game::Game;
use crate::game::score::{self, Assessment, StoneStatus};
use crate::player::{Answer, Budget, Player, Silent};
use crate::search::DEFAULT_PLAYOUTS;

use super::store::Ending;

/// An idle player and its number.
type Pooled = (u64, Box<dyn Player>);

/// The workers and the players.
pub struct Ai {
    config: Config,
    workers: Arc<Semaphore>,
    idle: Mutex<HashMap<String, Vec<Pooled>>>,
    next_id: AtomicU64,
    move_time: std::time::Duration,
}

/// What the AI answered: the move (legal, or a pass in its place) or a resignation, and
/// which pooled player gave it.
pub struct Reply {
    /// The answer.
    pub answer: Answer,
    /// The player that answered, to ask first next time.
    pub player: Option<u64>,
}

impl Ai {
    /// The AI for `config`'s levels, `workers` searches at a time, each move due
    /// `move_time` after its request arrived.
    ///
    /// Search levels are adjusted for a server: one thread per search unless the level sets
    /// its threads (the worker pool is the parallelism), and the playouts GTP would run
    /// without a clock (10,000 unless the level sets some), so that `move_time` is only a cap.
    pub fn new(config: Config, workers: usize, move_time: std::time::Duration) -> Ai {
        let mut config = config;
        for level in config.levels.values_mut() {
            if let LevelConfig::Mcts(settings) = level {
                if settings.threads == 0 {
                    settings.threads = 1;
                }
                settings.playouts = settings.playouts.or(Some(DEFAULT_PLAYOUTS));
            }
        }
        Ai {
            config,
            workers: Arc::new(Semaphore::new(workers.max(1))),
            idle: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            move_time,
        }
    }

    /// The level names, sorted.
    pub fn levels(&self) -> Vec<String> {
        self.config.levels.keys().cloned().collect()
    }

    /// The level played when the page names none.
    pub fn default_level(&self) -> &str {
        &self.config.default_level
    }

    /// A player of `level`: the one numbered `hint` if it is idle, else any idle one, else a
    /// new one.
    fn take(&self, level: &str, hint: Option<u64>) -> Pooled {
        {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(players) = idle.get_mut(level) {
                let at = hint
                    .and_then(|h| players.iter().position(|(id, _)| *id == h))
                    .or_else(|| players.len().checked_sub(1));
                if let Some(at) = at {
                    return players.swap_remove(at);
                }
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let player = match self.config.level(level) {
            Ok(level) => self.config.player(level),
            // Levels are checked when a game is made; a game restored from a store written
            // under another config plays at the default level.
            Err(_) => self.config.player(
                self.config
                    .level(&self.config.default_level)
                    .expect("the config's default level exists"),
            ),
        };
        (id, player)
    }

    fn give_back(&self, level: &str, id: u64, player: Box<dyn Player>) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.entry(level.to_string())
            .or_default()
            .push((id, player));
    }

    /// `level`'s move for whoever is to move in `game`, on a worker, due `move_time` after
    /// `received`. A player that fails, or answers an illegal move, passes (and it is logged).
    pub async fn genmove(
        &self,
        game: &Game,
        level: &str,
        hint: Option<u64>,
        received: Instant,
    ) -> Reply {
        let color = game.to_move();
        let Ok(_permit) = self.workers.acquire().await else {
            return Reply {
                answer: Answer::Move(Move::Pass),
                player: None,
            };
        };
        let (id, mut player) = self.take(level, hint);
        let position = game.clone();
        let budget = Budget {
            deadline: Some(received + self.move_time),
            may_resign: true,
            ..Budget::default()
        };
        let level_name = level.to_string();
        let joined = tokio::task::spawn_blocking(move || {
            let answer = player.genmove(&position, color, &budget, &mut Silent);
            (player, answer)
        })
        .await;
        let answer = match joined {
            Ok((player, answer)) => {
                self.give_back(level, id, player);
                answer.unwrap_or_else(|e| {
                    log::error!("level {level_name}: no answer ({e}); passing");
                    Answer::Move(Move::Pass)
                })
            }
            Err(e) => {
                log::error!("level {level_name}: the player failed ({e}); passing");
                Answer::Move(Move::Pass)
            }
        };
        let answer = match answer {
            Answer::Move(mv) if game.legality(color, mv).is_err() => {
                log::error!("level {level_name}: illegal answer {mv:?}; passing");
                Answer::Move(Move::Pass)
            }
            answer => answer,
        };
        Reply {
            answer,
            player: Some(id),
        }
    }

    /// The result of `game` as it stands, with its dead stones, from the one scorer, on a
    /// worker.
    pub async fn score(&self, game: &Game) -> Ending {
        let _permit = self.workers.acquire().await;
        let position = game.clone();
        let size = game.size();
        let scored = tokio::task::spawn_blocking(move || {
            let assessment = Assessment::of(&position, score::DEFAULT_PLAYOUTS);
            Ending {
                result: assessment.result(),
                dead: assessment
                    .stones_with(StoneStatus::Dead)
                    .into_iter()
                    .map(|p| p.to_vertex(size))
                    .collect(),
            }
        })
        .await;
        scored.unwrap_or_else(|e| {
            log::error!("the scorer failed ({e}); the game is scored a draw");
            Ending {
                result: "0".to_string(),
                dead: Vec::new(),
            }
        })
    }
}
