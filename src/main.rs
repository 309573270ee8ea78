//! The `tengen` binary: parses the command line and hands over to the library.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use log::info;

use tengen::bench::{self, BenchOptions, PolicyKind};
use tengen::config::Config;
use tengen::gtp::{self, Engine};
use tengen::patterns::{self, TrainOptions};

/// A Go engine that speaks GTP v2 on stdin/stdout.
#[derive(Parser)]
#[command(name = "tengen", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    gtp: GtpArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Speak GTP on stdin/stdout (the default when no subcommand is given).
    Gtp(GtpArgs),
    /// Measure playouts per second, genmove latency and peak memory.
    Bench(BenchArgs),
    /// Learn move-pattern gammas (Coulom's MM) from SGF game records.
    TrainPatterns(TrainArgs),
}

#[derive(Args)]
struct GtpArgs {
    /// The level that answers genmove: a level of engines.toml or a built-in one
    /// (easy, medium, mcts, hard). Default: the file's default_level, else medium.
    #[arg(long, value_name = "NAME")]
    level: Option<String>,
    /// The engines.toml to read. Default: ./engines.toml when present, else built-in levels.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Fixed playouts per move for a search level (mcts, hard), ignoring the clock.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    playouts: Option<u64>,
    /// Search threads for a search level (0 = every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

#[derive(Args)]
struct BenchArgs {
    /// Board size to measure (default: 9 and 19).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(2..=25))]
    size: Option<u8>,
    /// Playouts per measurement (default: as many as fit in --seconds).
    #[arg(long, value_name = "N")]
    playouts: Option<u64>,
    /// Seconds per measurement when --playouts is not given.
    #[arg(long, value_name = "S", default_value_t = 2.0)]
    seconds: f64,
    /// Playout policy for bare playouts (default: both).
    #[arg(long, value_enum)]
    policy: Option<PolicyKind>,
    /// Measure genmove-style searches (heavy policy) instead of bare playouts.
    #[arg(long)]
    search: bool,
    /// Threads for --search (default: 1 and every core; 0 = every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Measure from this SGF position (its end) instead of the empty and midgame ones.
    #[arg(long, value_name = "FILE.sgf")]
    position: Option<PathBuf>,
    /// One JSON object per measurement instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct TrainArgs {
    /// SGF files, or directories whose .sgf files are read.
    #[arg(required = true, value_name = "RECORDS")]
    records: Vec<PathBuf>,
    /// Where to write the gamma table.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Hold out every K-th file (in name order) to measure move prediction.
    #[arg(long, value_name = "K", default_value_t = 10)]
    holdout: usize,
    /// The most MM sweeps over all feature groups.
    #[arg(long, value_name = "N", default_value_t = 30)]
    iterations: usize,
    /// Pattern classes seen fewer times among the candidates share one "rare" gamma.
    #[arg(long, value_name = "N", default_value_t = 20)]
    min_count: usize,
    /// Candidates per training position: the move played and a random sample of the rest.
    #[arg(long, value_name = "N", default_value_t = 40)]
    max_candidates: usize,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Gtp(cli.gtp)) {
        Command::Gtp(args) => run_gtp(args),
        Command::Bench(args) => run_bench(args),
        Command::TrainPatterns(args) => run_train(args),
    }
}

fn run_gtp(args: GtpArgs) -> ExitCode {
    let config = match Config::load(args.config.as_deref()) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    let level = args.level.unwrap_or_else(|| config.default_level.clone());
    let player = match config.level(&level) {
        Ok(level_config) => level_config
            .with_overrides(args.playouts, args.threads)
            .build(),
        Err(e) => return fail(&e),
    };
    info!("playing at level {level}");
    match gtp::serve(Engine::new(player), io::stdin(), io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_bench(args: BenchArgs) -> ExitCode {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match args.threads {
        Some(0) => vec![cores],
        Some(n) => vec![n],
        None if cores > 1 => vec![1, cores],
        None => vec![1],
    };
    let options = BenchOptions {
        sizes: args.size.map_or(vec![9, 19], |s| vec![usize::from(s)]),
        policies: args
            .policy
            .map_or(vec![PolicyKind::Light, PolicyKind::Heavy], |p| vec![p]),
        search: args.search,
        threads,
        position: args.position,
        playouts: args.playouts,
        seconds: args.seconds,
        json: args.json,
    };
    match bench::run(&options, &mut io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_train(args: TrainArgs) -> ExitCode {
    let options = TrainOptions {
        records: args.records,
        output: args.output,
        holdout: args.holdout,
        iterations: args.iterations,
        min_count: args.min_count,
        max_candidates: args.max_candidates,
    };
    match patterns::train(&options, &mut io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen train-patterns: {e}");
            ExitCode::from(2)
        }
    }
}

/// A configuration problem: one line on stderr, exit code 2.
fn fail(e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("tengen: {e}");
    ExitCode::from(2)
}
