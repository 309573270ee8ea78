//! `tengen bench`: playouts per second (light and heavy policy, bare or inside a search at 1
//! and N threads, on an empty board and a midgame position), genmove latency of the easy and
//! medium levels on 19x19, raw evaluations of a KataGo network (`--net`), and peak memory.
//! Reports; asserts nothing.

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::Serialize;

use crate::engine::config::{Config, LevelConfig};
use crate::engine::player::{Budget, levels, plain_move};
use crate::engine::search::{self, ReplyTable, Scratch, Search, SearchSettings, policy as heavy};
use crate::knowledge::net::{DEFAULT_OPTIMISM, Features, Net, NetError};
use crate::rules::board::Move;
use crate::rules::board::playout::{self, move_cap};
use crate::rules::game::clock::Seconds;
use crate::rules::game::{Game, Rules};
use crate::rules::sgf;

/// A playout policy to measure.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PolicyKind {
    /// Uniformly random moves that don't fill own eyes (`board::playout`).
    Light,
    /// The search's playout policy (`search::policy`).
    Heavy,
}

impl PolicyKind {
    fn name(self) -> &'static str {
        match self {
            PolicyKind::Light => "light",
            PolicyKind::Heavy => "heavy",
        }
    }
}

/// What to measure.
pub struct BenchOptions {
    /// Board sizes for the playout measurements.
    pub sizes: Vec<usize>,
    /// Policies measured in bare playouts.
    pub policies: Vec<PolicyKind>,
    /// Measure genmove-style searches instead of bare playouts.
    pub search: bool,
    /// Thread counts for searches.
    pub threads: Vec<usize>,
    /// A position to measure from instead of the built-in empty and midgame ones.
    pub position: Option<PathBuf>,
    /// Playouts per measurement; `None`: as many as fit in `seconds`.
    pub playouts: Option<u64>,
    /// Seconds of a time-bounded measurement (10 ms to a day; outside that, the nearer end).
    pub seconds: f64,
    /// JSON lines instead of text.
    pub json: bool,
    /// Measure raw evaluations of this KataGo network instead of playouts.
    pub net: Option<PathBuf>,
    /// Positions per evaluation with `net` (default: 1 and 8).
    pub batches: Vec<usize>,
}

/// One measurement, as `--json` prints it.
#[derive(Serialize)]
struct Measurement {
    size: usize,
    /// `light` or `heavy` for playouts and searches, the level for genmove latency.
    policy: String,
    threads: usize,
    /// `playouts`, `search`, `genmove` or `net`.
    mode: &'static str,
    /// `empty`, `midgame` or the SGF file measured from.
    position: String,
    /// Playouts run, moves generated or positions evaluated.
    playouts: u64,
    seconds: f64,
    playouts_per_sec: f64,
    /// Mean moves per playout, passes included (playouts mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    moves_per_playout: Option<f64>,
    /// Mean and worst genmove time in milliseconds (genmove mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    ms_per_move: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_ms_per_move: Option<f64>,
    /// Positions per evaluation (net mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    batch: Option<usize>,
    /// Billions of floating-point operations per second, a convolution counted as the direct
    /// one (net mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    gflops: Option<f64>,
    peak_rss_kb: u64,
}

/// A bench run that could not start.
#[derive(Debug)]
pub enum BenchError {
    /// The `--position` file could not be read.
    Position(PathBuf, sgf::SgfError),
    /// The `--net` file could not be loaded.
    Net(NetError),
    /// Writing the report failed.
    Io(io::Error),
}

impl std::fmt::Display for BenchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BenchError::Position(path, e) => write!(f, "{}: {e}", path.display()),
            BenchError::Io(e) => write!(f, "{e}"),
            BenchError::Net(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BenchError {}

impl From<io::Error> for BenchError {
    fn from(e: io::Error) -> BenchError {
        BenchError::Io(e)
    }
}

/// Runs every measurement and writes one line per measurement to `out`.
pub fn run(options: &BenchOptions, out: &mut impl Write) -> Result<(), BenchError> {
    if let Some(file) = &options.net {
        let net = Net::load(file).map_err(BenchError::Net)?;
        for (name, game) in positions(options)? {
            for &batch in &options.batches {
                for &threads in &options.threads {
                    let m = net_evaluations(&name, &game, &net, batch, threads, options);
                    report(&m, options.json, out)?;
                }
            }
        }
        return Ok(());
    }
    // The tables are built once per process; the first measurement that reads them (a
    // search or heavy playouts) should not pay for them, and the others need none.
    if options.search || options.policies.contains(&PolicyKind::Heavy) {
        search::warm_up();
    }
    for (name, game) in positions(options)? {
        if options.search {
            for &threads in &options.threads {
                let m = search(&name, &game, threads, options);
                report(&m, options.json, out)?;
            }
        } else {
            for &policy in &options.policies {
                let m = playouts(&name, &game, policy, options);
                report(&m, options.json, out)?;
            }
        }
    }
    if !options.search && options.position.is_none() {
        for (name, level) in [
            ("easy", LevelConfig::Random { seed: Some(1) }),
            ("medium", LevelConfig::Heuristic { seed: Some(1) }),
        ] {
            let m = genmove_latency(name, &level, 19, 200);
            report(&m, options.json, out)?;
        }
    }
    Ok(())
}

/// The positions to measure: the `--position` file, or for each size the empty board and a
/// midgame position.
fn positions(options: &BenchOptions) -> Result<Vec<(String, Game)>, BenchError> {
    if let Some(path) = &options.position {
        let game = sgf::load_file(path, None, Rules::default())
            .map_err(|e| BenchError::Position(path.clone(), e))?;
        return Ok(vec![(path.display().to_string(), game)]);
    }
    Ok(options
        .sizes
        .iter()
        .flat_map(|&size| {
            [
                ("empty".to_string(), Game::new(size, Rules::default())),
                ("midgame".to_string(), midgame(size)),
            ]
        })
        .collect())
}

/// A reproducible midgame position: the medium level (seeded) plays a third of the points.
fn midgame(size: usize) -> Game {
    let mut player = levels::build(
        &Config::default(),
        &LevelConfig::Heuristic { seed: Some(7) },
    );
    let mut game = Game::new(size, Rules::default());
    for _ in 0..size * size / 3 {
        let color = game.to_move();
        let mv = plain_move(player.as_mut(), &game, color)
            .as_move()
            .unwrap_or(Move::Pass);
        if game.play(color, mv).is_err() || game.trailing_passes() >= 2 {
            break;
        }
    }
    game
}

/// The time of a time-bounded measurement: `seconds` kept from 10 ms to a day.
fn time_limit(options: &BenchOptions) -> Duration {
    let seconds = if options.seconds.is_nan() {
        0.0
    } else {
        options.seconds
    };
    Duration::from_secs_f64(seconds.clamp(0.01, Seconds::MAX))
}

/// Runs `body` until the playout budget or the time is spent; returns (calls, seconds).
fn measure(options: &BenchOptions, mut body: impl FnMut()) -> (u64, f64) {
    let limit = time_limit(options);
    let start = Instant::now();
    let mut done = 0u64;
    while options
        .playouts
        .map_or(start.elapsed() < limit, |n| done < n)
    {
        body();
        done += 1;
    }
    (done, start.elapsed().as_secs_f64())
}

/// Bare playouts of `policy` from `game`'s position on one thread.
fn playouts(name: &str, game: &Game, policy: PolicyKind, options: &BenchOptions) -> Measurement {
    let start = game.board();
    let size = start.size();
    let to_move = game.to_move();
    let mut rng = SmallRng::seed_from_u64(size as u64);
    let mut board = start.clone();
    let mut scratch = Scratch::new();
    let mut replies = ReplyTable::new();
    let mut stones = Vec::with_capacity(move_cap(size));
    let komi = game.rules().komi as f32;
    let mut moves = 0u64;
    let (done, seconds) = measure(options, || {
        board.copy_from(start);
        moves += match policy {
            PolicyKind::Light => {
                let ending = playout::play_out(
                    &mut board,
                    to_move,
                    None,
                    &mut playout::Light,
                    &mut rng,
                    |_, _| {},
                );
                ending.moves as u64
            }
            PolicyKind::Heavy => {
                // As in a search: the playouts learn last good replies from each other.
                stones.clear();
                let outcome = heavy::play_out(
                    &mut board,
                    to_move,
                    None,
                    &mut rng,
                    &mut scratch,
                    &replies,
                    |p, c| stones.push((p, c)),
                );
                replies.learn(&stones, outcome.winner(komi));
                stones.len() as u64
            }
        };
    });
    Measurement {
        size,
        policy: policy.name().into(),
        threads: 1,
        mode: "playouts",
        position: name.into(),
        playouts: done,
        seconds,
        playouts_per_sec: done as f64 / seconds,
        moves_per_playout: Some(moves as f64 / done.max(1) as f64),
        ms_per_move: None,
        max_ms_per_move: None,
        batch: None,
        gflops: None,
        peak_rss_kb: peak_rss_kb(),
    }
}

/// A genmove-style search from `game`'s position with the heavy policy on `threads` threads,
/// for `--playouts` playouts or `--seconds` seconds.
fn search(name: &str, game: &Game, threads: usize, options: &BenchOptions) -> Measurement {
    let mut player = Search::new(SearchSettings {
        playouts: Some(options.playouts.unwrap_or(u64::MAX)),
        threads,
        resign_threshold: 0.0,
        seed: Some(1),
        early_stop: false,
        ..SearchSettings::default()
    });
    let budget = Budget {
        deadline: options
            .playouts
            .is_none()
            .then(|| Instant::now() + time_limit(options)),
        ..Budget::default()
    };
    player.choose(game, game.to_move(), &budget);
    let report = player.last_search();
    Measurement {
        size: game.size(),
        policy: "heavy".into(),
        threads,
        mode: "search",
        position: name.into(),
        playouts: report.playouts,
        seconds: report.seconds,
        playouts_per_sec: report.playouts as f64 / report.seconds.max(1e-9),
        moves_per_playout: None,
        ms_per_move: None,
        max_ms_per_move: None,
        batch: None,
        gflops: None,
        peak_rss_kb: peak_rss_kb(),
    }
}

/// Raw evaluations of `net` on `game`'s position (no cache): `threads` threads sharing the net,
/// each evaluating `batch` positions at a time (the position under symmetries 0, 1, ...), until
/// the time or `--playouts` evaluations are spent.
fn net_evaluations(
    name: &str,
    game: &Game,
    net: &Net,
    batch: usize,
    threads: usize,
    options: &BenchOptions,
) -> Measurement {
    let features = Features::from_game(game);
    let inputs: Vec<(&Features, usize)> = (0..batch).map(|i| (&features, i % 8)).collect();
    let limit = time_limit(options);
    let target = options.playouts.unwrap_or(u64::MAX);
    let done = AtomicU64::new(0);
    // Each thread's first evaluation sizes its buffers: neither counted nor timed. The clock
    // starts when every thread has made it.
    let ready = Barrier::new(threads);
    let start = OnceLock::new();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                net.evaluate_batch(&inputs, DEFAULT_OPTIMISM);
                if ready.wait().is_leader() {
                    start.get_or_init(Instant::now);
                }
                ready.wait();
                let start = *start.get().expect("set by the barrier's leader");
                while start.elapsed() < limit && done.load(Ordering::Relaxed) < target {
                    std::hint::black_box(net.evaluate_batch(&inputs, DEFAULT_OPTIMISM));
                    done.fetch_add(batch as u64, Ordering::Relaxed);
                }
            });
        }
    });
    let seconds = start.get().map_or(0.0, |s| s.elapsed().as_secs_f64());
    let evaluations = done.into_inner();
    let per_sec = evaluations as f64 / seconds.max(1e-9);
    Measurement {
        size: game.size(),
        policy: net.name().to_string(),
        threads,
        mode: "net",
        position: name.into(),
        playouts: evaluations,
        seconds,
        playouts_per_sec: per_sec,
        moves_per_playout: None,
        ms_per_move: None,
        max_ms_per_move: None,
        batch: Some(batch),
        gflops: Some(per_sec * net.flops(game.size()) as f64 / 1e9),
        peak_rss_kb: peak_rss_kb(),
    }
}

/// Times `moves` genmoves of a level playing both sides of a game on `size`.
fn genmove_latency(name: &str, level: &LevelConfig, size: usize, moves: u64) -> Measurement {
    let mut player = levels::build(&Config::default(), level);
    let mut game = Game::new(size, Rules::default());
    let mut total = Duration::ZERO;
    let mut worst = Duration::ZERO;
    let mut made = 0;
    while made < moves && game.trailing_passes() < 2 {
        let color = game.to_move();
        let start = Instant::now();
        let mv = plain_move(player.as_mut(), &game, color)
            .as_move()
            .unwrap_or(Move::Pass);
        let took = start.elapsed();
        total += took;
        worst = worst.max(took);
        made += 1;
        if game.play(color, mv).is_err() {
            game.play(color, Move::Pass).ok();
        }
    }
    let seconds = total.as_secs_f64();
    Measurement {
        size,
        policy: name.into(),
        threads: 1,
        mode: "genmove",
        position: "game".into(),
        playouts: made,
        seconds,
        playouts_per_sec: made as f64 / seconds.max(1e-9),
        moves_per_playout: None,
        ms_per_move: Some(1000.0 * seconds / made.max(1) as f64),
        max_ms_per_move: Some(1000.0 * worst.as_secs_f64()),
        batch: None,
        gflops: None,
        peak_rss_kb: peak_rss_kb(),
    }
}

fn report(m: &Measurement, json: bool, out: &mut impl Write) -> io::Result<()> {
    if json {
        let line = serde_json::to_string(m).map_err(io::Error::other)?;
        return writeln!(out, "{line}");
    }
    match m.mode {
        "net" => writeln!(
            out,
            "{0}x{0} net {1}, batch {2}, {3} thread(s), {4} position: {5:.1} evaluations/s ({6} in {7:.2} s), {8:.1} GFLOP/s, peak RSS {9} kB",
            m.size,
            m.policy,
            m.batch.unwrap_or(1),
            m.threads,
            m.position,
            m.playouts_per_sec,
            m.playouts,
            m.seconds,
            m.gflops.unwrap_or_default(),
            m.peak_rss_kb
        ),
        "genmove" => writeln!(
            out,
            "{0}x{0} genmove {1:<7} {2} moves, {3:.3} ms/move mean, {4:.3} ms max, peak RSS {5} kB",
            m.size,
            m.policy,
            m.playouts,
            m.ms_per_move.unwrap_or_default(),
            m.max_ms_per_move.unwrap_or_default(),
            m.peak_rss_kb
        ),
        "search" => writeln!(
            out,
            "{0}x{0} {1:<7} search, {2} thread(s), {3} position: {4:.0} playouts/s ({5} in {6:.2} s), peak RSS {7} kB",
            m.size,
            m.policy,
            m.threads,
            m.position,
            m.playouts_per_sec,
            m.playouts,
            m.seconds,
            m.peak_rss_kb
        ),
        _ => writeln!(
            out,
            "{0}x{0} {1:<7} playouts, 1 thread, {2} position: {3:.0} playouts/s ({4} in {5:.2} s, {6:.1} moves each), peak RSS {7} kB",
            m.size,
            m.policy,
            m.position,
            m.playouts_per_sec,
            m.playouts,
            m.seconds,
            m.moves_per_playout.unwrap_or_default(),
            m.peak_rss_kb
        ),
    }
}

/// The process's peak resident set size in kB (`VmHWM`), 0 where /proc is not available.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
