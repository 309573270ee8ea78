//! The AI side of the server: a bounded pool of workers that run searches and analyses off
//! the async threads, at a lower CPU priority than the threads that answer HTTP; the scorer
//! on its own threads; and the levels' players, lent to one search at a time.
//!
//! A level's player is built by [`Config::player`], as GTP builds it, so a level plays the
//! same here. Players are pooled per level rather than kept per game: an `mcts` player holds
//! two trees of a million nodes, too much for each of hundreds of idle games. At most
//! `workers` searches run at once, so a searching level never has more than `workers`
//! players; a game gets back the player it used last when it is free, so the search can reuse
//! its tree. The quick levels (`random`, `heuristic`: a millisecond or less a move) answer on
//! the thread that handles the request, without a worker, so they never wait for a search.
//! Nor does the scorer, the last step of every game's last move: its work is bounded (a
//! fixed number of light playouts, a few milliseconds on 9x9), so it runs at the HTTP
//! threads' priority on a pool of its own, not behind the searches.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, oneshot};

use crate::engine::config::{Config, LevelConfig};
use crate::engine::player::levels::NetSource;
use crate::engine::player::{
    AnalysisRequest, Answer, Budget, DEFAULT_PLAYOUTS, Player, Report, Silent, Update, levels,
};
use crate::engine::rank::Rank;
use crate::rules::board::Move;
use crate::rules::game::Game;
use crate::rules::game::score::{self, Assessment, StoneStatus};

use super::store::Ending;

/// An idle player and its number.
type Pooled = (u64, Box<dyn Player>);

/// The pool of players that analyse for the quick levels. Those levels cannot analyse, so
/// their players hand analyses to the `mcts` level's search (made on first use): one pool
/// for all of them keeps those searches, and their trees, few.
const QUICK_ANALYSTS: &str = "(analysts of the quick levels)";

/// The nice value of the threads that search: above the HTTP threads' 0, so that
/// on a busy machine a quick reply does not queue behind a search for the CPU.
pub const BACKGROUND_NICE: i32 = 10;

/// The workers and the players.
pub struct Ai {
    config: Config,
    workers: Arc<Semaphore>,
    background: Background,
    /// The levels that answer on the request's thread.
    quick: HashSet<String>,
    /// The scorer's threads, at normal priority (`None`: rayon's shared ones).
    scorer: Option<rayon::ThreadPool>,
    idle: Mutex<HashMap<String, Vec<Pooled>>>,
    next_id: AtomicU64,
    move_time: Duration,
}

/// A job for a background thread.
type Job = Box<dyn FnOnce() + Send>;

/// Threads at [`BACKGROUND_NICE`] that run jobs one at a time each.
struct Background {
    jobs: Mutex<mpsc::Sender<Job>>,
}

impl Background {
    fn new(threads: usize) -> Background {
        let (sender, receiver) = mpsc::channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        for n in 0..threads.max(1) {
            let receiver = Arc::clone(&receiver);
            let spawned = std::thread::Builder::new()
                .name(format!("serve-worker-{n}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let job = {
                            let receiver = receiver.lock().unwrap_or_else(|e| e.into_inner());
                            receiver.recv()
                        };
                        let Ok(job) = job else { return };
                        // A job that panics drops its answer's sender: its caller sees the
                        // failure, and the thread goes on.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            if let Err(e) = spawned {
                log::error!("cannot start a worker thread: {e}");
            }
        }
        Background {
            jobs: Mutex::new(sender),
        }
    }

    /// Runs `f` on a background thread; its result, or `None` if it panicked.
    async fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        let sent = self
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job);
        if sent.is_err() {
            return None;
        }
        rx.await.ok()
    }
}

/// Lowers the calling thread's CPU priority to [`BACKGROUND_NICE`] (threads it starts later
/// inherit it). Linux only: there the nice value belongs to the thread; elsewhere it would
/// lower the whole process, so nothing is done.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority takes plain integers and touches no memory of ours; `who` 0 is
        // the calling thread on Linux.
        let done = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, BACKGROUND_NICE) };
        if done != 0 {
            log::warn!(
                "cannot lower a worker's priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// How long an analysis may search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AnalysisLimits {
    /// Playouts at most.
    pub playouts: u64,
    /// Time at most, from when a worker starts it.
    pub time: Duration,
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
    pub fn new(config: Config, workers: usize, move_time: Duration) -> Ai {
        let mut config = config;
        for level in config.levels.values_mut() {
            if let LevelConfig::Mcts { settings, .. } = level {
                if settings.threads == 0 {
                    settings.threads = 1;
                }
                settings.playouts = settings.playouts.or(Some(DEFAULT_PLAYOUTS));
            }
        }
        let quick = config
            .levels
            .iter()
            .filter(|(_, level)| {
                matches!(
                    level,
                    LevelConfig::Random { .. } | LevelConfig::Heuristic { .. }
                )
            })
            .map(|(name, _)| name.clone())
            .collect();
        let workers = workers.max(1);
        // Built here, on a thread at normal priority, which its threads inherit.
        let scorer = rayon::ThreadPoolBuilder::new()
            .thread_name(|n| format!("serve-scorer-{n}"))
            .build()
            .map_err(|e| log::warn!("the scorer's threads: {e}; it uses the shared ones"))
            .ok();
        Ai {
            config,
            workers: Arc::new(Semaphore::new(workers)),
            background: Background::new(workers),
            quick,
            scorer,
            idle: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            move_time,
        }
    }

    /// The level names, sorted.
    pub fn levels(&self) -> Vec<String> {
        self.config.levels.keys().cloned().collect()
    }

    /// The levels that play as a rank, weakest first (the page offers them as opponents by
    /// rank).
    pub fn ranks(&self) -> Vec<String> {
        let mut ranks: Vec<(Rank, &String)> = self
            .config
            .levels
            .iter()
            .filter_map(|(name, level)| match level.effective(&self.config) {
                LevelConfig::Rank { rank, .. } => Some((*rank, name)),
                _ => None,
            })
            .collect();
        ranks.sort();
        ranks.into_iter().map(|(_, name)| name.clone()).collect()
    }

    /// What plays at each level, in a few words for the page (which engine, which net by its
    /// file's name: the server's paths are its own), by level.
    pub fn plays(&self) -> Vec<(String, String)> {
        let net_name = |file: &String| {
            let path = self.config.expand_path(file);
            path.file_name()
                .filter(|_| path.is_file())
                .map(|name| name.to_string_lossy().into_owned())
        };
        let plays = |level: &LevelConfig| match level.effective(&self.config) {
            LevelConfig::Random { .. } => "random moves".to_string(),
            LevelConfig::Heuristic { .. } => "a one-ply heuristic".to_string(),
            LevelConfig::Mcts { net: None, .. } => "tengen's search without a net".to_string(),
            LevelConfig::Mcts {
                net: Some(file), ..
            } => match net_name(file) {
                Some(name) => format!("tengen's search with the net {name}"),
                None => "tengen's search without a net (its net is missing)".to_string(),
            },
            LevelConfig::External(external) => format!("the engine {}", external.engine),
            LevelConfig::Rank { rank, net, .. } => match net.as_ref().and_then(net_name) {
                Some(name) => format!("rank {rank}, from the policy of the net {name}"),
                None => format!("rank {rank}, from the learned patterns' policy"),
            },
        };
        self.config
            .levels
            .iter()
            .map(|(name, level)| (name.clone(), plays(level)))
            .collect()
    }

    /// The level played when the page names none.
    pub fn default_level(&self) -> &str {
        &self.config.default_level
    }

    /// A player of `level` from the pool `pool` (the level's name, or [`QUICK_ANALYSTS`]):
    /// the one numbered `hint` if it is idle, else any idle one, else a new one.
    fn take(&self, pool: &str, level: &str, hint: Option<u64>) -> Pooled {
        {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(players) = idle.get_mut(pool) {
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
            Ok(level) => levels::player(&self.config, level, NetSource::Level),
            // Levels are checked when a game is made; a game restored from a store written
            // under another config plays at the default level.
            Err(_) => levels::player(
                &self.config,
                self.config
                    .level(&self.config.default_level)
                    .expect("the config's default level exists"),
                NetSource::Level,
            ),
        };
        (id, player)
    }

    fn give_back(&self, pool: &str, id: u64, player: Box<dyn Player>) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.entry(pool.to_string()).or_default().push((id, player));
    }

    /// Whether `level` answers on the request's thread, without a worker.
    /// The longest the AI takes over one move (`--move-time`).
    pub fn move_time(&self) -> Duration {
        self.move_time
    }

    /// Whether `level` answers at once, off the worker pool (`random`, `heuristic`).
    pub fn is_quick(&self, level: &str) -> bool {
        if self.config.levels.contains_key(level) {
            self.quick.contains(level)
        } else {
            self.quick.contains(&self.config.default_level)
        }
    }

    /// `level`'s move for whoever is to move in `game`, due `move_time` after `received`: on
    /// a worker, or at once for a quick level. A player that fails, or answers an illegal
    /// move, passes (and it is logged).
    pub async fn genmove(
        &self,
        game: &Game,
        level: &str,
        hint: Option<u64>,
        received: Instant,
    ) -> Reply {
        let color = game.to_move();
        let budget = Budget {
            deadline: Some(received + self.move_time),
            may_resign: true,
            ..Budget::default()
        };
        let (id, answer) = if self.is_quick(level) {
            let (id, mut player) = self.take(level, level, hint);
            let answer = player.genmove(game, color, &budget, &mut Silent);
            self.give_back(level, id, player);
            (id, Some(answer))
        } else {
            let Ok(_permit) = self.workers.acquire().await else {
                return Reply {
                    answer: Answer::Move(Move::Pass),
                    player: None,
                };
            };
            let (id, mut player) = self.take(level, level, hint);
            let position = game.clone();
            let joined = self
                .background
                .run(move || {
                    let answer = player.genmove(&position, color, &budget, &mut Silent);
                    (player, answer)
                })
                .await;
            match joined {
                Some((player, answer)) => {
                    self.give_back(level, id, player);
                    (id, Some(answer))
                }
                None => (id, None),
            }
        };
        let answer = match answer {
            Some(Ok(answer)) => answer,
            Some(Err(e)) => {
                log::error!("level {level}: no answer ({e}); passing");
                Answer::Move(Move::Pass)
            }
            None => {
                log::error!("level {level}: the player failed; passing");
                Answer::Move(Move::Pass)
            }
        };
        let answer = match answer {
            Answer::Move(mv) if game.legality(color, mv).is_err() => {
                log::error!("level {level}: illegal answer {mv:?}; passing");
                Answer::Move(Move::Pass)
            }
            answer => answer,
        };
        Reply {
            answer,
            player: Some(id),
        }
    }

    /// The result of `game` as it stands, with its dead stones, from the one scorer, on the
    /// scorer's threads: never behind a search.
    pub async fn score(&self, game: &Game) -> Ending {
        let position = game.clone();
        let size = game.size();
        let assess = move || Assessment::of(&position, score::DEFAULT_PLAYOUTS);
        let assessment = match &self.scorer {
            Some(pool) => {
                let (tx, rx) = oneshot::channel();
                pool.spawn(move || {
                    let _ = tx.send(assess());
                });
                rx.await.ok()
            }
            None => tokio::task::spawn_blocking(assess).await.ok(),
        };
        match assessment {
            Some(assessment) => Ending {
                result: assessment.result(),
                dead: assessment
                    .stones_with(StoneStatus::Dead)
                    .into_iter()
                    .map(|p| p.to_vertex(size))
                    .collect(),
            },
            None => {
                log::error!("the scorer failed; the game is scored a draw");
                Ending {
                    result: "0".to_string(),
                    dead: Vec::new(),
                }
            }
        }
    }

    /// `level`'s analysis of `game` for the player to move, on a worker, within `limits`
    /// or until `stop` is set: its last report, if it made one.
    pub async fn analyze(
        &self,
        game: &Game,
        level: &str,
        limits: AnalysisLimits,
        stop: Arc<AtomicBool>,
    ) -> Option<Report> {
        let _permit = self.workers.acquire().await.ok()?;
        let pool = if self.is_quick(level) {
            QUICK_ANALYSTS
        } else {
            level
        };
        let (id, mut player) = self.take(pool, level, None);
        let position = game.clone();
        let joined = self
            .background
            .run(move || {
                let budget = Budget {
                    playouts: Some(limits.playouts),
                    deadline: Some(Instant::now() + limits.time),
                    stop: Some(stop),
                    ..Budget::default()
                };
                let request = AnalysisRequest {
                    ownership: true,
                    ..AnalysisRequest::new(position.to_move(), limits.time, budget)
                };
                let mut last: Option<Report> = None;
                let done = player.analyze(&position, &request, &mut |update: Update<'_>| {
                    if let Update::Report(report) = update {
                        last = Some(report.clone());
                    }
                    true
                });
                if let Err(e) = done {
                    log::error!("analysis: {e}");
                }
                (player, last)
            })
            .await;
        let (player, report) = joined?;
        self.give_back(pool, id, player);
        report
    }
}
