//! `tengen bench`: light playouts per second on one thread, genmove latency of the easy and
//! medium levels on 19x19, and peak memory. Reports; asserts nothing.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::Serialize;

use crate::board::playout::{Policy, move_cap, play_out};
use crate::board::{Board, Color, Move};
use crate::config::LevelConfig;
use crate::game::{Game, Rules};
use crate::player::Limits;

/// What to measure.
pub struct BenchOptions {
    /// Board sizes for the playout measurements.
    pub sizes: Vec<usize>,
    /// Playouts per measurement; `None`: as many as fit in `seconds`.
    pub playouts: Option<u64>,
    /// Duration of a time-bounded measurement.
    pub seconds: f64,
    /// JSON lines instead of text.
    pub json: bool,
}

/// One measurement, as `--json` prints it.
#[derive(Serialize)]
struct Measurement {
    size: usize,
    /// `light` for playouts, the level for genmove latency.
    policy: String,
    threads: usize,
    /// `playouts` or `genmove`.
    mode: &'static str,
    /// Playouts run, or moves generated.
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
    peak_rss_kb: u64,
}

/// Runs every measurement and writes one line per measurement to `out`.
pub fn run(options: &BenchOptions, out: &mut impl Write) -> io::Result<()> {
    for &size in &options.sizes {
        let m = light_playouts(size, options);
        report(&m, options.json, out)?;
    }
    for (name, level) in [
        ("easy", LevelConfig::Random { seed: Some(1) }),
        ("medium", LevelConfig::Heuristic { seed: Some(1) }),
    ] {
        let m = genmove_latency(name, &level, 19, 200);
        report(&m, options.json, out)?;
    }
    Ok(())
}

fn light_playouts(size: usize, options: &BenchOptions) -> Measurement {
    let empty = Board::new(size);
    let mut rng = SmallRng::seed_from_u64(size as u64);
    let limit = Duration::from_secs_f64(options.seconds.max(0.01));
    let mut board = empty.clone();
    let start = Instant::now();
    let mut done = 0u64;
    let mut moves = 0u64;
    while options
        .playouts
        .map_or(start.elapsed() < limit, |n| done < n)
    {
        board.copy_from(&empty);
        moves += play_out(
            &mut board,
            Color::Black,
            Policy::Light,
            move_cap(size),
            &mut rng,
        ) as u64;
        done += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    Measurement {
        size,
        policy: "light".into(),
        threads: 1,
        mode: "playouts",
        playouts: done,
        seconds,
        playouts_per_sec: done as f64 / seconds,
        moves_per_playout: Some(moves as f64 / done.max(1) as f64),
        ms_per_move: None,
        max_ms_per_move: None,
        peak_rss_kb: peak_rss_kb(),
    }
}

/// Times `moves` genmoves of a level playing both sides of a game on `size`.
fn genmove_latency(name: &str, level: &LevelConfig, size: usize, moves: u64) -> Measurement {
    let mut player = level.build();
    let mut game = Game::new(size, Rules::default());
    let mut total = Duration::ZERO;
    let mut worst = Duration::ZERO;
    let mut made = 0;
    while made < moves && game.trailing_passes() < 2 {
        let color = game.to_move();
        let start = Instant::now();
        let mv = player
            .genmove(&game, color, &Limits::default())
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
        playouts: made,
        seconds,
        playouts_per_sec: made as f64 / seconds.max(1e-9),
        moves_per_playout: None,
        ms_per_move: Some(1000.0 * seconds / made.max(1) as f64),
        max_ms_per_move: Some(1000.0 * worst.as_secs_f64()),
        peak_rss_kb: peak_rss_kb(),
    }
}

fn report(m: &Measurement, json: bool, out: &mut impl Write) -> io::Result<()> {
    if json {
        let line = serde_json::to_string(m).map_err(io::Error::other)?;
        writeln!(out, "{line}")
    } else if m.mode == "genmove" {
        writeln!(
            out,
            "{0}x{0} genmove {1:<7} {2} moves, {3:.3} ms/move mean, {4:.3} ms max, peak RSS {5} kB",
            m.size,
            m.policy,
            m.playouts,
            m.ms_per_move.unwrap_or_default(),
            m.max_ms_per_move.unwrap_or_default(),
            m.peak_rss_kb
        )
    } else {
        writeln!(
            out,
            "{0}x{0} {1} playouts, {2} thread: {3:.0} playouts/s ({4} in {5:.2} s, {6:.1} moves each), peak RSS {7} kB",
            m.size,
            m.policy,
            m.threads,
            m.playouts_per_sec,
            m.playouts,
            m.seconds,
            m.moves_per_playout.unwrap_or_default(),
            m.peak_rss_kb
        )
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
