//! The `tengen` binary: parses the command line and hands over to the library.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};
use log::info;

use tengen::engine::book;
use tengen::engine::config::{self, ANALYST_LEVEL, Config, SearchOverrides};
use tengen::front::analysis_engine::{self, EngineOptions};
use tengen::front::bench::{self, BenchOptions, PolicyKind};
use tengen::front::gtp::{self, Engine};
use tengen::rules::board::Move;
use tengen::rules::game::clock::Seconds;
use tengen::rules::game::{MAX_KOMI, checked_komi};

use tengen::engine::player::levels::{self, NetSource};
use tengen::engine::player::{MAX_PLAYOUTS, MAX_THREADS, thread_count};
use tengen::front::match_runner::stats::Sprt;
use tengen::front::match_runner::time_control::TimeControl;
use tengen::front::match_runner::{self, MatchOptions};
use tengen::front::nets;
use tengen::front::regress::{self, RegressOptions};
use tengen::knowledge::net::found;
use tengen::knowledge::train::{self, TrainOptions};

/// What `--version` prints after the name: the crate's version and the commit the binary was
/// built from (build.rs), e.g. `0.1.0 (commit 1a2b3c4)` or `0.1.0 (built outside git)`.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("TENGEN_BUILD_SOURCE"),
    ")"
);

/// A Go engine that speaks GTP v2 on stdin/stdout.
#[derive(Parser)]
#[command(name = "tengen", version = VERSION, args_conflicts_with_subcommands = true)]
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
    /// Play games between two GTP engines and report win rates, Elo and SGF records.
    Match(MatchArgs),
    /// Run GTP regression scripts (gogui-regress format) against an engine.
    Regress(RegressArgs),
    /// Learn move-pattern gammas (Coulom's MM) from SGF game records.
    TrainPatterns(TrainArgs),
    /// Speak KataGo's JSON analysis protocol on stdin/stdout (for KaTrain).
    ///
    /// Answered by a level's player (-level NAME, default mcts). Takes KataGo's flags: -config FILE
    /// (numAnalysisThreads, numSearchThreads, maxVisits, maxTime, reportAnalysisWinratesAs are
    /// read), -override-config K=V,... and -model FILE (the network the search uses, as --net
    /// on gtp); other flags are accepted and ignored.
    Analysis(AnalysisArgs),
    /// Play in a browser, and serve games to many clients over HTTP (a JSON API; docs/SERVE.md).
    Serve(ServeArgs),
    /// Build the opening book from deep searches, or show a position's book moves.
    Book(BookArgs),
    /// KataGo's networks on this machine: fetch one (`net get`), list the known ones and those
    /// here (`net list`), or say what a file is (`net info FILE`).
    Net(NetArgs),
    /// Show the levels in effect and the file each comes from; `config init` writes a
    /// commented engines.toml to the user's config directory.
    Config(ConfigArgs),
    /// Print a shell completion script (e.g. `tengen completions bash > ~/.local/share/bash-completion/completions/tengen`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `tengen man | man -l -`.
    Man,
}

#[derive(Args)]
struct NetArgs {
    #[command(subcommand)]
    action: NetAction,
}

#[derive(Subcommand)]
enum NetAction {
    /// Download a network and check it before it takes its name; prints its path.
    ///
    /// Into tengen's nets directory ($XDG_DATA_HOME/tengen/nets on Linux) or --to DIR, resuming
    /// an interrupted download; the checks are the published sha256, then that it loads and
    /// evaluates a position.
    Get(NetGetArgs),
    /// The known networks (the first is the default), and the networks on this machine.
    List,
    /// What a network file is: its header, sha256, and whether this build reads it.
    Info {
        /// The network file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

#[derive(Args)]
struct NetGetArgs {
    /// A known network's name (`tengen net list`), or the http(s) address of a *.bin.gz or
    /// *.txt.gz. Default: the first known network.
    #[arg(value_name = "NAME|URL")]
    net: Option<String>,
    /// Keep it in DIR instead of the nets directory.
    #[arg(long, value_name = "DIR")]
    to: Option<PathBuf>,
    /// The sha256 the file must have (default: a known network's published one).
    #[arg(long, value_name = "HEX")]
    sha256: Option<String>,
    /// Seconds to wait for a connection.
    #[arg(long, value_name = "S", default_value_t = 30.0, value_parser = seconds, hide = true)]
    connect_timeout: f64,
    /// Seconds to wait for the next bytes of an answer.
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = seconds, hide = true)]
    read_timeout: f64,
}

#[derive(Args)]
struct ConfigArgs {
    #[command(subcommand)]
    action: Option<ConfigAction>,
    /// The engines.toml to read, as for `tengen gtp`.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum ConfigAction {
    /// Write the commented default engines.toml to the user's config directory (never over an
    /// existing file).
    Init,
}

#[derive(Args)]
struct BookArgs {
    #[command(subcommand)]
    action: BookAction,
}

#[derive(Subcommand)]
enum BookAction {
    /// Search positions breadth first from the empty board along the best few moves of each,
    /// and write the book (one thread by default; progress on stderr).
    Build(BookBuildArgs),
    /// Print the book's moves for the position after MOVES (played from the empty board,
    /// Black first), e.g. `tengen book show --size 9 E5 C3`.
    Show {
        /// Board size: the shipped book of this size.
        #[arg(long, value_name = "N", default_value_t = 9, value_parser = clap::value_parser!(u8).range(2..=25))]
        size: u8,
        /// A book file to read instead of the shipped one.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// The moves that lead to the position (vertices or pass).
        #[arg(value_name = "MOVES")]
        moves: Vec<String>,
    },
}

#[derive(Args)]
struct BookBuildArgs {
    /// Board size.
    #[arg(long, value_name = "N", default_value_t = 9, value_parser = clap::value_parser!(u8).range(2..=25))]
    size: u8,
    /// Komi (default: 7 up to 9x9, 7.5 above).
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = komi)]
    komi: Option<f64>,
    /// Rules, as kgs-rules names them (the book fits every rule set with their scoring).
    #[arg(long, value_name = "NAME", default_value = "chinese")]
    rules: String,
    /// Plies covered: positions after up to N-1 moves get an entry (at most 40).
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = count(1, 40))]
    depth: usize,
    /// Playouts searched per position (with --engine, KataGo's maxVisits).
    #[arg(long, value_name = "N", default_value_t = 50_000, value_parser = playouts())]
    playouts: u64,
    /// Search with KataGo's analysis engine instead of tengen's own search, e.g.
    /// "katago analysis -model NET.bin.gz -config analysis.cfg" (--threads and --seed are then
    /// its config's business).
    #[arg(long, value_name = "COMMAND")]
    engine: Option<String>,
    /// The most moves kept per position (each one followed), at most 16.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = count(1, 16))]
    width: usize,
    /// A move is kept when its visits are at least this share of the best move's.
    #[arg(long, value_name = "F", default_value_t = 0.3)]
    min_share: f64,
    /// First moves followed besides the book's own, so that the book answers the
    /// opponent's usual openings too (comma-separated vertices, e.g. E5,C3,C4).
    #[arg(long, value_name = "MOVES", value_delimiter = ',')]
    follow: Vec<String>,
    /// The most positions searched (breadth first: the shallow plies come first).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = count(1, 1_000_000))]
    max_positions: usize,
    /// Search threads (0 = every core).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = threads())]
    threads: usize,
    /// The search's seed.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Where to write the book (default: stdout); written again after every position,
    /// so that a stopped build keeps what it found.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Go on from the book in --out: its positions are followed without a new search.
    #[arg(long, requires = "out")]
    resume: bool,
}

impl BookBuildArgs {
    /// The builder's options, the values clap cannot check checked.
    fn options(&self) -> Result<book::BuildOptions, String> {
        if !(0.0..=1.0).contains(&self.min_share) {
            return Err(format!(
                "--min-share must be from 0 to 1, not {}",
                self.min_share
            ));
        }
        let size = usize::from(self.size);
        let follow = self
            .follow
            .iter()
            .map(|v| Move::parse(v, size).map_err(|e| format!("--follow {v}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(book::BuildOptions {
            size,
            komi: self.komi.unwrap_or(if size <= 9 { 7.0 } else { 7.5 }),
            rules: self.rules.clone(),
            depth: self.depth,
            playouts: self.playouts,
            width: self.width,
            min_share: self.min_share,
            follow,
            max_positions: self.max_positions,
            threads: self.threads,
            seed: self.seed,
            engine: self.engine.clone(),
        })
    }
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
struct ServeArgs {
    #[command(subcommand)]
    command: Option<ServeCommand>,
    /// Where to listen, host:port (port 0: any free port; the address is printed on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    bind: String,
    /// Where the games are kept across restarts: a SQLite file (created if missing), or a
    /// PostgreSQL database that several servers share, postgres://USER@HOST:PORT/DB (the
    /// password from PGPASSWORD or ~/.pgpass, never in the URL).
    #[arg(long, value_name = "FILE|URL", default_value = "tengen-games.sqlite")]
    store: String,
    /// PostgreSQL: connections held open at most.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1000))]
    store_pool: u32,
    /// PostgreSQL: the longest one statement, or the wait for a connection, may take (e.g.
    /// 5s); a request that runs into it is answered 503 with Retry-After.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = tengen::front::serve::parse_duration)]
    store_timeout: Duration,
    /// The engines.toml to read. Default: $TENGEN_CONFIG, else ./engines.toml, else the user's
    /// (~/.config/tengen/engines.toml on Linux), else built-in levels (`tengen config` says which).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// AI moves computed at once (default and 0: every core; at most 1024).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = threads())]
    workers: usize,
    /// Unfinished games one client may hold; one more is refused with 429.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_games_per_client: u32,
    /// Requests a second one client may make on average (bursts of up to twice as many); more
    /// are refused with 429 and Retry-After.
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    requests_per_client: u32,
    /// Forget a game untouched for this long (e.g. 30m, 90s, 2h).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = tengen::front::serve::parse_duration)]
    idle_timeout: Duration,
    /// The longest the AI thinks about one move, in seconds.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    move_time: f64,
}

#[derive(Subcommand)]
enum ServeCommand {
    /// Copy every game of a SQLite store into a PostgreSQL one (games it already holds are
    /// kept), e.g. before moving from one server to several.
    Migrate {
        /// The SQLite file to copy from.
        #[arg(long, value_name = "FILE")]
        from: PathBuf,
        /// The PostgreSQL database to copy to, postgres://USER@HOST:PORT/DB.
        #[arg(long, value_name = "URL")]
        to: String,
    },
}

#[derive(Args)]
struct AnalysisArgs {
    /// KataGo-style flags, e.g. -model M -config C -override-config maxVisits=200. Without
    /// -model the search uses the net `tengen config` shows (hard's, KataGo skipped); -level L
    /// answers with level L and its own net instead.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "FLAGS"
    )]
    flags: Vec<String>,
}

#[derive(Args)]
struct GtpArgs {
    /// The level that answers genmove: a level of engines.toml or a built-in one
    /// (easy, medium, mcts, net, hard, expert, and the ranks 20k to 3d; any rank from 30k to
    /// 5d plays as a rank level). Default: the file's default_level, else hard
    /// (KataGo when present, else tengen's search with the net `tengen config` shows, else mcts).
    #[arg(long, value_name = "NAME")]
    level: Option<String>,
    /// The engines.toml to read. Default: $TENGEN_CONFIG, else ./engines.toml, else the user's
    /// (~/.config/tengen/engines.toml on Linux), else built-in levels (`tengen config` says which).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Fixed playouts per move for a search level (mcts, hard), ignoring the clock (at most a
    /// billion).
    #[arg(long, value_name = "N", value_parser = playouts())]
    playouts: Option<u64>,
    /// Search threads for a search level (0 = every core; at most 1024).
    #[arg(long, value_name = "N", value_parser = threads())]
    threads: Option<usize>,
    /// A KataGo network file (.bin.gz or .txt.gz, model versions 8 to 17) for `kata-raw-nn`,
    /// over the level's `net`.
    #[arg(long, value_name = "FILE")]
    net: Option<PathBuf>,
    /// Think on the opponent's time under a clock (a search level's `ponder = true`).
    #[arg(long, conflicts_with = "no_ponder")]
    ponder: bool,
    /// Never think on the opponent's time, whatever the level says (e.g. in matches).
    #[arg(long)]
    no_ponder: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Board size to measure (default: 9 and 19).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(2..=25))]
    size: Option<u8>,
    /// Playouts per measurement (default: as many as fit in --seconds).
    #[arg(long, value_name = "N", value_parser = playouts())]
    playouts: Option<u64>,
    /// Seconds per measurement when --playouts is not given (at most a day).
    #[arg(long, value_name = "S", default_value_t = 2.0, value_parser = seconds)]
    seconds: f64,
    /// Playout policy for bare playouts (default: both).
    #[arg(long, value_enum)]
    policy: Option<PolicyKind>,
    /// Measure genmove-style searches (heavy policy) instead of bare playouts.
    #[arg(long)]
    search: bool,
    /// Threads for --search (default: 1 and every core; 0 = every core; at most 1024).
    #[arg(long, value_name = "N", value_parser = threads())]
    threads: Option<usize>,
    /// Measure from this SGF position (its end) instead of the empty and midgame ones.
    #[arg(long, value_name = "FILE.sgf")]
    position: Option<PathBuf>,
    /// One JSON object per measurement instead of a table.
    #[arg(long)]
    json: bool,
    /// Measure raw evaluations (no cache) of this KataGo network instead of playouts.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["search", "policy"])]
    net: Option<PathBuf>,
    /// Positions per evaluation with --net (default: 1 and 8; at most 256).
    #[arg(long, value_name = "N", requires = "net", value_parser = clap::value_parser!(u16).range(1..=256))]
    batch: Option<u16>,
}

#[derive(Args)]
struct MatchArgs {
    /// Engine A's command line, Black in the first game (e.g. "tengen gtp --level mcts").
    #[arg(long, value_name = "CMD")]
    black: String,
    /// Engine B's command line, White in the first game (e.g. "gnugo --mode gtp --level 10").
    #[arg(long, value_name = "CMD")]
    white: String,
    /// Games to play (at most 100000).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = count(1, 100_000))]
    games: usize,
    /// Board size.
    #[arg(long, value_name = "N", default_value_t = 9, value_parser = clap::value_parser!(u8).range(2..=25))]
    size: u8,
    /// Komi (at most 1000 either way).
    #[arg(
        long,
        value_name = "K",
        default_value_t = 7.0,
        allow_negative_numbers = true,
        value_parser = komi
    )]
    komi: f64,
    /// Handicap stones for Black, on the GTP spec's fixed points (engine A is Black unless
    /// --alternate); White moves first. Usually with --komi 0.5.
    #[arg(long, value_name = "N", default_value_t = 0)]
    handicap: usize,
    /// Swap colours every game.
    #[arg(long)]
    alternate: bool,
    /// Games played at once (each with its own engine processes; at most 256).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = count(1, 256))]
    concurrency: usize,
    /// Write one SGF per game into this directory.
    #[arg(long, value_name = "DIR")]
    sgf_dir: Option<PathBuf>,
    /// Stop a game after this many moves and score it (default: 3 x size x size; at most
    /// 100000).
    #[arg(long, value_name = "M", value_parser = count(1, 100_000))]
    max_moves: Option<usize>,
    /// A GTP engine that scores every finished game with final_score
    /// (e.g. "gnugo --mode gtp --chinese-rules").
    #[arg(long, value_name = "CMD")]
    referee: Option<String>,
    /// An SGF file or a directory of them: each pair of games starts from one opening (its
    /// setup stones, then its first --opening-moves moves up to a pass).
    #[arg(long, value_name = "FILE|DIR")]
    openings: Option<PathBuf>,
    /// Moves of each --openings record played before the engines take over.
    #[arg(long, value_name = "N", default_value_t = 6, requires = "openings")]
    opening_moves: usize,
    /// Time control in seconds: main time plus Canadian byo-yomi (60+10/5: 10 s for every 5
    /// moves after 60 s; 300: sudden death), or Fischer, the increment marked f (60+5f: 5 s
    /// more after each move; 60+5f,120: never more than 120 s in hand).
    #[arg(long, value_name = "MAIN+BYO/STONES|MAIN+INCf[,MAX]", value_parser = TimeControl::parse)]
    time: Option<TimeControl>,
    /// Seconds a move may take when there is no --time (a slower engine loses the game; at
    /// most a day).
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = seconds)]
    move_timeout: f64,
    /// Stop early when an SPRT for "A is ELO1 stronger, not ELO0" decides (alpha, beta 0.05).
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]", value_parser = Sprt::parse)]
    sprt: Option<Sprt>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Keep the games already recorded in --sgf-dir and play only the missing ones.
    #[arg(long, requires = "sgf_dir")]
    resume: bool,
}

#[derive(Args)]
struct RegressArgs {
    /// Scripts to run, or directories holding them (every *.tst below, sorted).
    #[arg(value_name = "FILE.tst", required = true)]
    files: Vec<PathBuf>,
    /// The GTP engine to test, as a command line (default: this tengen at --level).
    #[arg(long, value_name = "CMD", conflicts_with_all = ["level", "config", "playouts"])]
    engine: Option<String>,
    /// The level of the default engine.
    #[arg(long, value_name = "NAME", default_value = "medium")]
    level: String,
    /// The engines.toml of the default engine.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Fixed playouts per move for the default engine at a search level.
    #[arg(long, value_name = "N", value_parser = playouts())]
    playouts: Option<u64>,
    /// Seconds a command may take before its test counts as failed (at most a day).
    #[arg(long, value_name = "S", default_value_t = 300.0, value_parser = seconds)]
    timeout: f64,
}

#[derive(Args)]
struct TrainArgs {
    /// SGF files, or directories whose .sgf files are read.
    #[arg(required = true, value_name = "RECORDS")]
    records: Vec<PathBuf>,
    /// Where to write the gamma table.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Hold out every K-th file (in name order) to measure move prediction (2 to a million).
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = count(2, 1_000_000))]
    holdout: usize,
    /// The most MM sweeps over all feature groups (1 to 10,000).
    #[arg(long, value_name = "N", default_value_t = 30, value_parser = count(1, 10_000))]
    iterations: usize,
    /// Pattern classes (and spatial patterns) seen fewer times among the candidates share one
    /// "rare" gamma (1 to a billion).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = count(1, 1_000_000_000))]
    min_count: usize,
    /// Candidates per training position: the move played and a random sample of the rest (2 to
    /// 1,000; a board has at most 625 points).
    #[arg(long, value_name = "N", default_value_t = 40, value_parser = count(2, 1_000))]
    max_candidates: usize,
}

/// Playouts on the command line: 1 to a billion ([`MAX_PLAYOUTS`]).
fn playouts() -> impl clap::builder::TypedValueParser<Value = u64> {
    clap::value_parser!(u64).range(1..=MAX_PLAYOUTS)
}

/// Search threads on the command line: 0 (every core) to [`MAX_THREADS`].
fn threads() -> impl clap::builder::TypedValueParser<Value = usize> {
    count(0, MAX_THREADS as u64)
}

/// A count from `min` to `max`.
fn count(min: u64, max: u64) -> impl clap::builder::TypedValueParser<Value = usize> {
    RangedU64ValueParser::<usize>::new().range(min..=max)
}

/// Seconds on the command line: more than 0, at most a day (as the clock takes them).
fn seconds(text: &str) -> Result<f64, String> {
    Seconds::parse(text)
        .map(Seconds::get)
        .filter(|&s| s > 0.0)
        .ok_or_else(|| {
            format!("`{text}` is not a number of seconds above 0, at most 86400 (a day)")
        })
}

/// Komi on the command line: finite, at most [`MAX_KOMI`] points either way.
fn komi(text: &str) -> Result<f64, String> {
    text.parse()
        .ok()
        .and_then(checked_komi)
        .ok_or_else(|| format!("`{text}` is not a komi (a number from -{MAX_KOMI} to {MAX_KOMI})"))
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Gtp(cli.gtp)) {
        Command::Gtp(args) => run_gtp(args),
        Command::Bench(args) => run_bench(args),
        Command::Match(args) => run_match(args),
        Command::Regress(args) => run_regress(args),
        Command::Analysis(args) => run_analysis(args),
        Command::TrainPatterns(args) => run_train(args),
        Command::Serve(args) => run_serve(args),
        Command::Config(args) => run_config(args),
        Command::Book(args) => run_book(args),
        Command::Net(args) => run_net(args.action),
        Command::Completions { shell } => {
            // Written through a buffer: the generator panics on a write error (a closed pipe).
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "tengen", &mut script);
            print_out(io::stdout().write_all(&script))
        }
        Command::Man => {
            let command = <Cli as clap::CommandFactory>::command();
            print_out(clap_mangen::Man::new(command).render(&mut io::stdout()))
        }
    }
}

/// The commented engines.toml shipped with tengen, which `tengen config init` writes.
const SHIPPED_CONFIG: &str = include_str!("../engines.toml");

fn run_config(args: ConfigArgs) -> ExitCode {
    if let Some(ConfigAction::Init) = args.action {
        let Some(path) = config::user_file() else {
            return fail(&"no config directory is known here (is HOME set?)");
        };
        if path.exists() {
            return fail(&format!("{} exists; not overwritten", path.display()));
        }
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, SHIPPED_CONFIG));
        return match written {
            Ok(()) => print_out(writeln!(io::stdout(), "wrote {}", path.display())),
            Err(e) => fail(&format!("{}: {e}", path.display())),
        };
    }
    let config = match Config::load(args.config.as_deref()) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    let mut report = match &config.source {
        Some(path) => format!("config: {}\n", path.display()),
        None => format!(
            "config: none found ({}, ./{}, {}): built-in levels\n",
            config::CONFIG_VAR,
            config::DEFAULT_FILE,
            config::user_file().map_or("no user config directory".into(), |p| p
                .display()
                .to_string())
        ),
    };
    report += &format!("default level: {}\n", config.default_level);
    report += &match &config.found_net {
        Some(found) => format!(
            "network: {} ({}), for the net level\n",
            found.path.display(),
            found.whence
        ),
        None => format!("network: none ({})\n", found::places()),
    };
    report += &match &config.rank_net {
        Some(found) => format!(
            "rank levels: from the policy of {} ({})\n",
            found.path.display(),
            found.whence
        ),
        None => "rank levels: from the patterns' policy (no net found)\n".to_string(),
    };
    for (name, level) in config.listed() {
        let plays = level.describe(&config);
        report += &format!("{name:<10} {plays:<50} {}\n", config.origin(name));
    }
    for name in config.levels.keys() {
        if let Some(line) = config.missing_net(name) {
            report += &format!("{line}\n");
        }
    }
    print_out(io::stdout().lock().write_all(report.as_bytes()))
}

/// The exit code after writing a report to stdout: a reader that closed the pipe early
/// (`tengen config | head -1`) is no error.
fn print_out(written: io::Result<()>) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn run_gtp(args: GtpArgs) -> ExitCode {
    let config = match Config::load(args.config.as_deref()) {
        Ok(config) => config.with_search_overrides(SearchOverrides {
            playouts: args.playouts,
            threads: args.threads,
            ponder: match (args.ponder, args.no_ponder) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
        }),
        Err(e) => return fail(&e),
    };
    let level = args.level.unwrap_or_else(|| config.default_level.clone());
    let config = config.with_rank_level(&level);
    let level_config = match config.level(&level) {
        Ok(level_config) => level_config,
        Err(e) => return fail(&e),
    };
    // One net, loaded once: the level's search and kata-raw-nn share it.
    let net = args
        .net
        .or_else(|| levels::net_file(&config, level_config))
        .and_then(|file| levels::load_net(&file));
    let player = levels::player(&config, level_config, NetSource::Loaded(net.clone()));
    for line in config.unset_variables_for(&level) {
        log::warn!("{line}");
    }
    if let Some(line) = config.missing_net(&level) {
        log::warn!("{line}");
    }
    info!("playing at level {level}");
    let engine = Engine::new(player)
        .with_lag_reserve(config.lag_reserve)
        .with_net(net)
        .with_ogs_chat(level_config.ogs_chat(&config));
    exit_code(
        gtp::serve(engine, io::stdin(), io::stdout().lock()),
        "tengen",
    )
}

fn run_serve(args: ServeArgs) -> ExitCode {
    if args.store_timeout.is_zero() || args.store_timeout.as_secs() >= 3600 {
        return fail(&"--store-timeout wants a duration from 1s to under an hour");
    }
    let settings = tengen::front::serve::pgstore::PgSettings {
        pool_size: args.store_pool,
        statement_timeout: args.store_timeout,
        connect_timeout: args.store_timeout,
    };
    if let Some(ServeCommand::Migrate { from, to }) = args.command {
        if !tengen::front::serve::pgstore::is_url(&to) {
            return fail(&format!(
                "--to {}: wants a PostgreSQL URL, postgres://USER@HOST:PORT/DB",
                tengen::front::serve::pgstore::redacted(&to)
            ));
        }
        if !from.is_file() {
            return fail(&format!("--from {}: no such file", from.display()));
        }
        let target = tengen::front::serve::StoreAt::parse(&to, settings);
        return match tengen::front::serve::migrate(&from, &target) {
            Ok((copied, present)) => {
                eprintln!(
                    "tengen serve migrate: {copied} games copied from {} to {target}; {present} were there already",
                    from.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => fail(&format!("serve migrate: {e}")),
        };
    }
    let config = match Config::load(args.config.as_deref()) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    if let Some(line) = config.missing_net(&config.default_level) {
        log::warn!("{line}");
    }
    let Some(move_time) = Duration::try_from_secs_f64(args.move_time)
        .ok()
        .filter(|t| !t.is_zero() && t.as_secs() < 86_400)
    else {
        return fail(&"--move-time wants a positive number of seconds, under a day");
    };
    if args.idle_timeout.is_zero() {
        return fail(&"--idle-timeout must be longer than 0s");
    }
    let options = tengen::front::serve::ServeOptions {
        bind: args.bind,
        store: tengen::front::serve::StoreAt::parse(&args.store, settings),
        config,
        workers: thread_count(args.workers),
        max_games_per_client: args.max_games_per_client as usize,
        requests_per_client: args.requests_per_client,
        idle_timeout: args.idle_timeout,
        move_time,
    };
    exit_code(tengen::front::serve::run(options), "tengen serve")
}

fn run_bench(args: BenchArgs) -> ExitCode {
    let cores = thread_count(0);
    let threads = match args.threads {
        Some(n) => vec![thread_count(n)],
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
        net: args.net,
        batches: args.batch.map_or(vec![1, 8], |b| vec![usize::from(b)]),
    };
    exit_code(
        bench::run(&options, &mut io::stdout().lock()),
        "tengen bench",
    )
}

fn run_match(args: MatchArgs) -> ExitCode {
    let options = MatchOptions {
        black: args.black,
        white: args.white,
        games: args.games,
        size: usize::from(args.size),
        komi: args.komi,
        handicap: args.handicap,
        alternate: args.alternate,
        concurrency: args.concurrency,
        sgf_dir: args.sgf_dir,
        max_moves: args.max_moves,
        referee: args.referee,
        openings: args.openings,
        opening_moves: args.opening_moves,
        time: args.time,
        move_timeout: Duration::from_secs_f64(args.move_timeout),
        sprt: args.sprt,
        progress: !args.json,
        resume: args.resume,
    };
    let report = match match_runner::run(&options) {
        Ok(report) => report,
        Err(e) => return fail(&e),
    };
    let mut out = io::stdout().lock();
    let written = if args.json {
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::other)
            .and_then(|()| writeln!(out))
    } else {
        write!(out, "{report}")
    };
    exit_code(written, "tengen match")
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
    match train::run(&options, &mut io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tengen train-patterns: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_regress(args: RegressArgs) -> ExitCode {
    let engine = match &args.engine {
        Some(line) => regress::engine_argv(line).map_err(Into::into),
        None => default_engine(&args),
    };
    let engine = match engine {
        Ok(engine) => engine,
        Err(e) => return fail_regress(&e),
    };
    let options = RegressOptions {
        engine,
        paths: args.files,
        timeout: Duration::from_secs_f64(args.timeout),
    };
    match regress::run(&options, &mut io::stdout().lock()) {
        Ok(totals) if totals.is_failure() => ExitCode::FAILURE,
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail_regress(&e),
    }
}

/// This binary as `gtp --level NAME`, after checking that the level exists. The config path is
/// made absolute (and ./engines.toml passed on explicitly), as the engine runs in each
/// script's directory.
fn default_engine(args: &RegressArgs) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let config_path = match &args.config {
        Some(path) => Some(std::path::absolute(path)?),
        None => {
            Some(std::path::absolute(tengen::engine::config::DEFAULT_FILE)?).filter(|p| p.is_file())
        }
    };
    Config::load(config_path.as_deref())?
        .with_rank_level(&args.level)
        .level(&args.level)?;
    let exe = std::env::current_exe()?;
    let mut argv = vec![
        exe.to_string_lossy().into_owned(),
        "gtp".to_string(),
        "--level".to_string(),
        args.level.clone(),
    ];
    if let Some(path) = config_path {
        argv.extend(["--config".to_string(), path.to_string_lossy().into_owned()]);
    }
    if let Some(n) = args.playouts {
        argv.extend(["--playouts".to_string(), n.to_string()]);
    }
    Ok(argv)
}

/// A `tengen regress` problem: one line on stderr, exit code 2.
fn fail_regress(e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("tengen regress: {e}");
    ExitCode::from(2)
}

fn run_analysis(args: AnalysisArgs) -> ExitCode {
    let mut options = EngineOptions::default();
    let mut level = None;
    let mut model = None;
    let mut flags = args.flags.iter();
    while let Some(flag) = flags.next() {
        let name = flag.trim_start_matches('-');
        let takes_value = matches!(
            name,
            "model" | "config" | "override-config" | "human-model" | "analysis-threads" | "level"
        );
        let value = if takes_value { flags.next() } else { None };
        match (name, value) {
            ("config", Some(path)) => {
                // tengen needs no KataGo config: one it cannot read is reported and skipped.
                if let Err(e) = analysis_engine::read_config(&mut options, Path::new(path)) {
                    log::warn!("-config {path}: {e}; going on without it");
                }
            }
            ("override-config", Some(text)) => {
                analysis_engine::apply_settings(&mut options, text, ',');
            }
            ("analysis-threads", Some(n)) => {
                analysis_engine::apply_settings(
                    &mut options,
                    &format!("numAnalysisThreads={n}"),
                    ',',
                );
            }
            ("level", Some(name)) => level = Some(name.clone()),
            ("model", Some(file)) => model = Some(PathBuf::from(file)),
            (_, None) if takes_value => return fail(&format!("{flag} needs a value")),
            _ => info!(
                "analysis: {flag} {} does not apply to tengen; ignored",
                value.map_or("", |v| v)
            ),
        }
    }
    let config = match Config::load(None) {
        Ok(config) => config,
        Err(e) => return fail(&e),
    };
    let named = level.is_some();
    let name = level.as_deref().unwrap_or(ANALYST_LEVEL);
    let config = config.with_rank_level(name);
    let level = match config.level(name) {
        Ok(level) => level.clone(),
        Err(e) => return fail(&e),
    };
    // One net for every worker: -model's, else the level's own, else (no -level named) the
    // net that hard's chain plays with when KataGo is skipped: it is our search that answers.
    let file = model
        .or_else(|| levels::net_file(&config, &level))
        .or_else(|| config.search_net().filter(|_| !named));
    if file.is_none() && !named {
        log::warn!(
            "analysis searches without a network: none is in {} (`tengen net get` fetches one, \
             or -model names one)",
            found::places()
        );
    }
    let net = file.and_then(|file| levels::load_net(&file));
    // Each worker gets the level's player with numSearchThreads threads; a level that
    // cannot analyse is answered by the mcts level's search.
    let players = |options: &EngineOptions| {
        // Analysis only: pondering never applies.
        let overrides = SearchOverrides {
            threads: Some(options.search_threads),
            ..SearchOverrides::default()
        };
        let config = config.clone().with_search_overrides(overrides);
        let net = NetSource::Loaded(net.clone());
        levels::player(&config, &level.with_overrides(overrides), net)
    };
    let policy_net = net.clone();
    analysis_engine::serve(
        &options,
        &players,
        policy_net,
        io::stdin().lock(),
        io::stdout(),
    );
    ExitCode::SUCCESS
}

fn run_net(action: NetAction) -> ExitCode {
    match action {
        NetAction::Get(args) => {
            let options = nets::GetOptions {
                net: args.net,
                to: args.to,
                sha256: args.sha256,
                connect_timeout: Duration::from_secs_f64(args.connect_timeout),
                read_timeout: Duration::from_secs_f64(args.read_timeout),
            };
            match nets::get(&options) {
                Ok(path) => print_out(writeln!(io::stdout(), "{}", path.display())),
                Err(e) => exit_code(Err(e), "tengen net get"),
            }
        }
        NetAction::List => print_out(nets::list(&mut io::stdout().lock())),
        NetAction::Info { file } => match nets::info(&file, &mut io::stdout().lock()) {
            Ok(Ok(())) => ExitCode::SUCCESS,
            Ok(Err(why)) => exit_code(
                Err(format!(
                    "{}: this build cannot read it: {why}",
                    file.display()
                )),
                "tengen net info",
            ),
            Err(e) => exit_code(Err(e), "tengen net info"),
        },
    }
}

fn run_book(args: BookArgs) -> ExitCode {
    match args.action {
        BookAction::Build(args) => run_book_build(&args),
        BookAction::Show { size, file, moves } => {
            let size = usize::from(size);
            let loaded;
            let found = match &file {
                Some(path) => match book::Book::load(path) {
                    Ok(b) => {
                        loaded = b;
                        Some(&loaded)
                    }
                    Err(e) => return fail(&e),
                },
                None => book::builtin().iter().find(|b| b.size() == size),
            };
            let Some(found) = found else {
                return fail(&format!("no book for {size}x{size} is shipped"));
            };
            match book::show(found, &moves) {
                Ok(text) => print_out(io::stdout().write_all(text.as_bytes())),
                Err(e) => fail(&e),
            }
        }
    }
}

fn run_book_build(args: &BookBuildArgs) -> ExitCode {
    let options = match args.options() {
        Ok(options) => options,
        Err(e) => return fail(&e),
    };
    let out = &args.out;
    let start = match args.resume.then_some(out.as_ref()).flatten() {
        Some(path) if path.exists() => match book::Book::load(path) {
            Ok(start) => Some(start),
            Err(e) => return fail(&e),
        },
        _ => None,
    };
    let started = std::time::Instant::now();
    let mut saved = Ok(());
    let mut progress = |so_far: &book::Book, line: &str| {
        eprintln!("{line}");
        if let (Some(path), Ok(())) = (out, &saved) {
            saved = save_book(so_far, path);
        }
    };
    let built = match book::build(&options, start, &mut progress) {
        Ok(built) => built,
        Err(e) => return fail(&e),
    };
    eprintln!(
        "{} positions in {:.0} s",
        built.len(),
        started.elapsed().as_secs_f64()
    );
    match (out, saved) {
        (_, Err(e)) => fail(&e),
        (Some(path), Ok(())) => match save_book(&built, path) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        },
        (None, Ok(())) => print_out(io::stdout().write_all(built.to_text().as_bytes())),
    }
}

/// Writes `book` to `path` through a temporary file beside it, so that the file is always a
/// whole book.
fn save_book(book: &book::Book, path: &Path) -> Result<(), String> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".part");
    std::fs::write(&temporary, book.to_text())
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Success, or `result`'s error on stderr after `command` (`tengen serve`) and exit code 1.
fn exit_code(result: Result<(), impl std::fmt::Display>, command: &str) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{command}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A configuration problem: one line on stderr, exit code 2.
fn fail(e: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("tengen: {e}");
    ExitCode::from(2)
}
