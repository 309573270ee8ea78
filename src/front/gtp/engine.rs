//! The GTP command table and its handlers. One table gives each command its kind and
//! handler, and feeds dispatch, `list_commands`, `known_command` and the input reader's
//! streaming and interrupt rules. Handlers parse and check every argument before touching the
//! game, so a rejected command leaves the state unchanged; they only parse, call `Game` and the
//! level's [`Player`], and write.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use log::{debug, error, info};

use super::analyze::{self, AnalyzeCommand};
use super::gogui;
use super::ogs;
use super::protocol::{Command, GtpError};
use super::raw_nn;
use super::sink::Sink;
use super::time;
use crate::engine::player::{
    AnalysisRequest, Answer, Budget, Player, PlayerError, Progress, Report, Update, param_names,
    time_for_move,
};
use crate::knowledge::net::inputs::NetPosition;
use crate::knowledge::net::{DEFAULT_OPTIMISM, Net};
use crate::rules::board::{Color, MAX_SIZE, MIN_SIZE, Move, Point, vertex_list};
use crate::rules::game::clock::{Clock, Seconds, TimeSystem};
use crate::rules::game::kata_rules::{self, KataRules};
use crate::rules::game::score::{self, Assessment, DEFAULT_PLAYOUTS, StoneStatus};
use crate::rules::game::{
    Game, Rules, checked_komi, fixed_handicap_points, free_handicap_points, max_fixed_handicap,
};
use crate::rules::sgf::{self, RecordInfo};

/// The engine's name as `name` reports it.
pub const NAME: &str = "tengen";

/// Board size of a fresh engine.
const DEFAULT_SIZE: usize = 19;

/// How a command runs, which decides what stops it early.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Answers at once.
    Answer,
    /// Streams (`=`, then report lines) until the next input line, whatever it is.
    Stream,
    /// Thinks, and stops early (best answer so far) only on `# interrupt`.
    Interruptible,
}

type Handler = fn(&mut Engine, &[String], &mut Sink<'_>) -> Result<String, GtpError>;

/// Every command tengen knows, in the order `list_commands` gives them.
const COMMANDS: &[(&str, Kind, Handler)] = &[
    ("protocol_version", Kind::Answer, |_, a, _| {
        no_args(a).map(|()| "2".into())
    }),
    ("name", Kind::Answer, |_, a, _| {
        no_args(a).map(|()| NAME.into())
    }),
    ("version", Kind::Answer, |e, a, _| {
        no_args(a)?;
        let version = env!("CARGO_PKG_VERSION");
        Ok(match e.player.describe() {
            Some(child) => format!("{version} ({child})"),
            None => version.into(),
        })
    }),
    ("known_command", Kind::Answer, |_, a, _| {
        let [name] = a else {
            return Err(GtpError::Syntax);
        };
        Ok(kind_of(name).is_some().to_string())
    }),
    ("list_commands", Kind::Answer, |_, a, _| {
        no_args(a)?;
        Ok(COMMANDS
            .iter()
            .map(|(n, _, _)| *n)
            .collect::<Vec<_>>()
            .join("\n"))
    }),
    ("quit", Kind::Answer, |e, a, _| {
        no_args(a)?;
        e.quit = true;
        Ok(String::new())
    }),
    ("boardsize", Kind::Answer, |e, a, _| e.boardsize(a)),
    ("clear_board", Kind::Answer, |e, a, _| e.clear_board(a)),
    ("komi", Kind::Answer, |e, a, _| e.komi(a)),
    ("play", Kind::Answer, |e, a, _| e.play(a)),
    ("genmove", Kind::Interruptible, |e, a, _| {
        e.genmove(a, Mode::Play)
    }),
    ("reg_genmove", Kind::Interruptible, |e, a, _| {
        e.genmove(a, Mode::Suggest)
    }),
    ("kgs-genmove_cleanup", Kind::Interruptible, |e, a, _| {
        e.genmove(a, Mode::Cleanup)
    }),
    ("undo", Kind::Answer, |e, a, _| e.undo(a)),
    ("fixed_handicap", Kind::Answer, |e, a, _| {
        e.handicap(a, fixed_handicap_points)
    }),
    ("place_free_handicap", Kind::Answer, |e, a, _| {
        e.handicap(a, free_handicap_points)
    }),
    ("set_free_handicap", Kind::Answer, |e, a, _| {
        e.set_free_handicap(a)
    }),
    ("final_score", Kind::Answer, |e, a, _| e.final_score(a)),
    ("final_status_list", Kind::Answer, |e, a, _| {
        e.final_status_list(a)
    }),
    ("time_settings", Kind::Answer, |e, a, _| e.time_settings(a)),
    ("time_left", Kind::Answer, |e, a, _| e.time_left(a)),
    ("kgs-time_settings", Kind::Answer, |e, a, _| {
        e.kgs_time_settings(a)
    }),
    ("kata-list_time_settings", Kind::Answer, |_, a, _| {
        no_args(a).map(|()| time::KINDS.into())
    }),
    ("kata-time_settings", Kind::Answer, |e, a, _| {
        let system = time::parse_kata_time_settings(a)?;
        e.clock.set_system(system);
        Ok(String::new())
    }),
    ("cputime", Kind::Answer, |_, a, _| {
        no_args(a).map(|()| format!("{:.3}", time::cpu_seconds()))
    }),
    ("kgs-rules", Kind::Answer, |e, a, _| e.kgs_rules(a)),
    ("kata-get-rules", Kind::Answer, |e, a, _| {
        no_args(a)?;
        Ok(KataRules::from_rules(e.game.rules()).to_json())
    }),
    ("kata-set-rules", Kind::Answer, |e, a, _| {
        let rules = kata_rules::parse(&a.join(" "), e.game.rules().komi)
            .map_err(|why| GtpError::Argument(why.to_string()))?;
        e.game.set_rules(rules);
        Ok(String::new())
    }),
    ("kata-set-rule", Kind::Answer, |e, a, _| {
        let [key, value] = a else {
            return Err(GtpError::Syntax);
        };
        let rules = kata_rules::set_field(e.game.rules(), key, value)
            .map_err(|why| GtpError::Argument(why.to_string()))?;
        e.game.set_rules(rules);
        Ok(String::new())
    }),
    ("kata-list-params", Kind::Answer, |_, a, _| {
        no_args(a)?;
        Ok(param_names().collect::<Vec<_>>().join(" "))
    }),
    ("kata-get-param", Kind::Answer, |e, a, _| {
        let [name] = a else {
            return Err(GtpError::Syntax);
        };
        e.player.param(name).map_err(param_error)
    }),
    ("kata-set-param", Kind::Answer, |e, a, _| {
        let [name, value] = a else {
            return Err(GtpError::Syntax);
        };
        e.player.set_param(name, value).map_err(param_error)?;
        Ok(String::new())
    }),
    ("kgs-game_over", Kind::Answer, |e, a, _| e.kgs_game_over(a)),
    ("gogui-interrupt", Kind::Answer, |_, a, _| {
        no_args(a).map(|()| String::new())
    }),
    ("loadsgf", Kind::Answer, |e, a, _| e.loadsgf(a)),
    ("printsgf", Kind::Answer, |e, a, _| e.printsgf(a)),
    ("showboard", Kind::Answer, |e, a, _| e.showboard(a)),
    ("lz-analyze", Kind::Stream, |e, a, out| {
        e.analyze("lz-analyze", a, out)
    }),
    ("kata-analyze", Kind::Stream, |e, a, out| {
        e.analyze("kata-analyze", a, out)
    }),
    ("gogui-analyze_commands", Kind::Answer, |_, a, _| {
        no_args(a).map(|()| gogui::ANALYZE_COMMANDS.join("\n"))
    }),
    ("tengen-ownership", Kind::Interruptible, |e, a, _| {
        e.gogui(a, gogui::View::Ownership)
    }),
    ("tengen-visits", Kind::Interruptible, |e, a, _| {
        e.gogui(a, gogui::View::Visits)
    }),
    ("tengen-pv", Kind::Interruptible, |e, a, _| {
        e.gogui(a, gogui::View::Variation)
    }),
    ("tengen-winrate", Kind::Interruptible, |e, a, _| {
        e.gogui(a, gogui::View::WinRate)
    }),
    ("lz-genmove_analyze", Kind::Interruptible, |e, a, out| {
        e.genmove_analyze("lz-genmove_analyze", a, out)
    }),
    ("kata-genmove_analyze", Kind::Interruptible, |e, a, out| {
        e.genmove_analyze("kata-genmove_analyze", a, out)
    }),
    ("kata-raw-nn", Kind::Answer, |e, a, _| e.raw_nn(a)),
];

/// The kind of the command `name`, if tengen knows it.
pub fn kind_of(name: &str) -> Option<Kind> {
    COMMANDS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, kind, _)| kind)
}

/// How a move-generating command treats its answer.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    /// `genmove`: play it.
    Play,
    /// `reg_genmove`: only report it.
    Suggest,
    /// `kgs-genmove_cleanup`: play it, and capture dead stones rather than pass.
    Cleanup,
}

/// The state behind the GTP front end: the game, the clock and the level's player.
pub struct Engine {
    game: Game,
    clock: Clock,
    player: Box<dyn Player>,
    /// The network `kata-raw-nn` evaluates, if one is loaded.
    net: Option<Arc<Net>>,
    /// The last search for GoGui's views: (board size, position hash, moves, colour) and its
    /// report. The size is part of the key: every empty board hashes alike.
    gogui_report: Option<((usize, u64, usize, Color), Report)>,
    quit: bool,
    /// What stops the running command early: `# interrupt`, or for a stream the next line.
    stop: Arc<AtomicBool>,
    /// When the command being executed was read: a move's clock starts then.
    received: Instant,
    /// Whether the player may think on the opponent's time before the next command: after
    /// its own move under a clock.
    ponder_next: bool,
    /// Whether a searched move is followed on stderr by a chat line for OGS's observers.
    ogs_chat: bool,
}

/// A GTP analysis in progress: its report lines go to a [`Sink`] in the dialect asked for.
struct AnalysisOutput<'a, 'b> {
    name: &'a str,
    line: &'a str,
    format: &'a AnalyzeCommand,
    size: usize,
    sink: &'a mut Sink<'b>,
}

impl Progress for AnalysisOutput<'_, '_> {
    fn update(&mut self, update: Update<'_>) -> bool {
        match update {
            Update::Report(report) => self
                .format
                .format(report, self.size)
                .is_none_or(|line| self.sink.line(&line)),
            Update::Line(text) => self.sink.line(text),
        }
    }

    fn command(&self) -> Option<(&str, &str)> {
        Some((self.name, self.line))
    }
}

impl Engine {
    /// An engine on an empty 19x19 board under the default rules, playing and analysing
    /// with `player`.
    pub fn new(player: Box<dyn Player>) -> Engine {
        Engine {
            game: Game::new(DEFAULT_SIZE, Rules::default()),
            clock: Clock::default(),
            player,
            net: None,
            gogui_report: None,
            quit: false,
            stop: Arc::new(AtomicBool::new(false)),
            received: Instant::now(),
            ponder_next: false,
            ogs_chat: false,
        }
    }

    /// The same engine following each searched move with a chat line for OGS's observers
    /// (engines.toml's `ogs_chat`).
    pub fn with_ogs_chat(mut self, ogs_chat: bool) -> Engine {
        self.ogs_chat = ogs_chat;
        self
    }

    /// The same engine holding `lag_reserve` back from every move's time (engines.toml's
    /// `lag_reserve_ms`).
    pub fn with_lag_reserve(mut self, lag_reserve: Duration) -> Engine {
        self.clock = Clock::with_lag_reserve(lag_reserve);
        self
    }

    /// The same engine answering `kata-raw-nn` with `net`.
    pub fn with_net(mut self, net: Option<Arc<Net>>) -> Engine {
        self.net = net;
        self
    }

    /// Whether the player should think on the opponent's time now (it just moved under a
    /// clock), if no command is waiting.
    pub fn ponder_pending(&self) -> bool {
        self.ponder_next
    }

    /// A command is waiting: no ponder this time.
    pub fn skip_ponder(&mut self) {
        self.ponder_next = false;
    }

    /// Lets the player think on the opponent's time until `stop` is set, once after each of
    /// its moves under a clock (a player not set to ponder returns at once).
    pub fn ponder(&mut self, stop: Arc<AtomicBool>) {
        if !std::mem::take(&mut self.ponder_next) {
            return;
        }
        let budget = Budget {
            stop: Some(stop),
            ..Budget::default()
        };
        let playouts = self.player.ponder(&self.game, &budget);
        debug!("pondered: {playouts} playouts");
    }

    /// Runs one command read at `received`, writing its one response through `out`; `stop`
    /// ends it early (the reader sets it as the command's [`Kind`] says).
    pub fn execute(
        &mut self,
        command: &Command,
        received: Instant,
        stop: Arc<AtomicBool>,
        out: &mut Sink<'_>,
    ) -> Result<String, GtpError> {
        let handler = COMMANDS
            .iter()
            .find(|(name, _, _)| *name == command.name)
            .map(|&(_, _, handler)| handler)
            .ok_or(GtpError::UnknownCommand)?;
        self.received = received;
        self.stop = stop;
        self.ponder_next = false;
        handler(self, &command.args, out)
    }

    /// `kata-raw-nn`: the net's answer for the position under each symmetry asked for, for
    /// the colour asked for (a colour not to move sees the position without its history, as
    /// in KataGo).
    fn raw_nn(&mut self, args: &[String]) -> Result<String, GtpError> {
        let request = raw_nn::parse(args)?;
        let net = self.net.as_ref().ok_or(GtpError::NoNetwork)?;
        let color = request.color.unwrap_or_else(|| self.game.to_move());
        let features = NetPosition::from_game(&self.game).features(color, &net.input_options());
        let optimism = request.optimism.unwrap_or(DEFAULT_OPTIMISM);
        let answers: Vec<String> = request
            .symmetries
            .iter()
            .map(|&symmetry| raw_nn::format(&net.evaluate(&features, symmetry, optimism)))
            .collect();
        Ok(answers.concat().trim_end().to_string())
    }

    /// `lz-analyze` / `kata-analyze`: `=`, then a report line per interval until the next
    /// input line sets the stop flag.
    fn analyze(
        &mut self,
        name: &str,
        args: &[String],
        out: &mut Sink<'_>,
    ) -> Result<String, GtpError> {
        let analysis = analyze::parse(name, args, self.game.size())?;
        let color = analysis.color.unwrap_or_else(|| self.game.to_move());
        let (allow, avoid) = analysis.moves_for(color);
        let request = AnalysisRequest {
            color,
            interval: analysis.interval,
            allow,
            avoid,
            ownership: analysis.ownership,
            moves_ownership: false,
            budget: Budget {
                stop: Some(Arc::clone(&self.stop)),
                ..Budget::default()
            },
        };
        out.open();
        let line = std::iter::once(name)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let mut progress = AnalysisOutput {
            name,
            line: &line,
            format: &analysis,
            size: self.game.size(),
            sink: out,
        };
        if let Err(e) = self.player.analyze(&self.game, &request, &mut progress) {
            debug!("{name}: {e}");
        }
        Ok(String::new())
    }

    /// A GoGui analysis view of the position for the colour in `args` (default: the player to
    /// move), from a search of [`gogui::SEARCH_TIME`] or until `# interrupt`; the four views
    /// share one search per position.
    fn gogui(&mut self, args: &[String], view: gogui::View) -> Result<String, GtpError> {
        let color = match args {
            [] => self.game.to_move(),
            [c] => parse_color(c)?,
            _ => return Err(GtpError::Syntax),
        };
        let key = (
            self.game.size(),
            self.game.board().hash(),
            self.game.moves().len(),
            color,
        );
        let cached = self.gogui_report.as_ref().filter(|(k, _)| *k == key);
        let report = match cached {
            Some((_, report)) => report.clone(),
            None => {
                let budget = Budget {
                    stop: Some(Arc::clone(&self.stop)),
                    deadline: Some(Instant::now() + gogui::SEARCH_TIME),
                    ..Budget::default()
                };
                let request = AnalysisRequest {
                    ownership: true,
                    ..AnalysisRequest::new(color, gogui::SEARCH_TIME, budget)
                };
                let mut last = None;
                let mut keep = |update: Update<'_>| {
                    if let Update::Report(report) = update {
                        last = Some(report.clone());
                    }
                    true
                };
                if let Err(e) = self.player.analyze(&self.game, &request, &mut keep) {
                    debug!("gogui view: {e}");
                }
                let report = last.ok_or(GtpError::Syntax)?;
                self.gogui_report = Some((key, report.clone()));
                report
            }
        };
        Ok(gogui::render(view, &report, color, self.game.size()))
    }

    /// Whether `quit` was received.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// `boardsize N`, or `boardsize W H` as gtp2ogs sends it (square boards only: a
    /// rectangle is an unacceptable size, which the controller reports instead of retrying).
    fn boardsize(&mut self, args: &[String]) -> Result<String, GtpError> {
        let sides = args
            .iter()
            .map(|a| a.parse::<i64>().map_err(|_| GtpError::Syntax))
            .collect::<Result<Vec<_>, _>>()?;
        let size = match sides[..] {
            [size] => size,
            [width, height] if width == height => width,
            [_, _] => return Err(GtpError::UnacceptableSize),
            _ => return Err(GtpError::Syntax),
        };
        let size = usize::try_from(size)
            .ok()
            .filter(|s| (MIN_SIZE..=MAX_SIZE).contains(s))
            .ok_or(GtpError::UnacceptableSize)?;
        self.game = Game::new(size, *self.game.rules());
        Ok(String::new())
    }

    fn clear_board(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        self.game = Game::new(self.game.size(), *self.game.rules());
        self.clock.restart();
        Ok(String::new())
    }

    fn komi(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [komi] = args else {
            return Err(GtpError::Syntax);
        };
        let komi = komi
            .parse()
            .ok()
            .and_then(checked_komi)
            .ok_or(GtpError::Syntax)?;
        self.game.set_komi(komi);
        Ok(String::new())
    }

    fn play(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [color, vertex] = args else {
            return Err(GtpError::Syntax);
        };
        let color = parse_color(color)?;
        let mv = Move::parse(vertex, self.game.size()).map_err(|_| GtpError::Syntax)?;
        self.game.play(color, mv).map_err(|why| {
            debug!("play {color} {vertex}: {why}");
            GtpError::IllegalMove
        })?;
        Ok(String::new())
    }

    fn genmove(&mut self, args: &[String], mode: Mode) -> Result<String, GtpError> {
        let [color] = args else {
            return Err(GtpError::Syntax);
        };
        let color = parse_color(color)?;
        let mut thinking = ogs::Thinking::default();
        let vertex = self.generate(color, mode, &mut thinking)?;
        // Before the response, while gtp2ogs waits for it; a closed stderr leaves no one to tell.
        let _ = thinking.write(
            &vertex,
            color,
            self.game.size(),
            self.ogs_chat,
            &mut std::io::stderr().lock(),
        );
        Ok(vertex)
    }

    /// `lz-genmove_analyze` / `kata-genmove_analyze`: the level's move for the colour the
    /// command names, played, with the player's analysis on the way (a search's root moves
    /// after it, or an external engine's own lines); ends with `play VERTEX` (or `play
    /// resign`). Only `# interrupt` stops it early, as for `genmove`.
    fn genmove_analyze(
        &mut self,
        name: &str,
        args: &[String],
        out: &mut Sink<'_>,
    ) -> Result<String, GtpError> {
        let analysis = analyze::parse_genmove(name, args, self.game.size())?;
        let color = analysis.color.unwrap_or_else(|| self.game.to_move());
        let line = std::iter::once(name)
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let size = self.game.size();
        let mut progress = AnalysisOutput {
            name,
            line: &line,
            format: &analysis,
            size,
            sink: out,
        };
        let vertex = self.generate(color, Mode::Play, &mut progress)?;
        out.line(&format!("play {vertex}"));
        Ok(String::new())
    }

    /// The level's move for `color` (played unless `mode` is [`Mode::Suggest`]), its vertex
    /// or `resign`, with what the player finds on the way going to `progress`.
    fn generate(
        &mut self,
        color: Color,
        mode: Mode,
        progress: &mut dyn Progress,
    ) -> Result<String, GtpError> {
        let time = time_for_move(&self.clock, self.game.board(), color);
        debug!("time for this move: {time:?}");
        let budget = Budget {
            // A move thinks at most MAX_THINK: the sums cannot overflow, but are checked.
            deadline: time.and_then(|t| self.received.checked_add(t.max)),
            target: time.and_then(|t| self.received.checked_add(t.target)),
            stop: Some(Arc::clone(&self.stop)),
            may_resign: mode != Mode::Cleanup,
            clock: Some(self.clock),
            playouts: None,
        };
        let answer = self
            .player
            .genmove(&self.game, color, &budget, progress)
            .unwrap_or_else(|e| {
                error!("no player answered ({e}); passing");
                Answer::Move(Move::Pass)
            });
        let mut mv = match answer {
            Answer::Move(mv) => mv,
            Answer::Resign => return Ok("resign".to_string()),
        };
        if let Err(why) = self.game.legality(color, mv) {
            error!(
                "the player chose {} ({why}); passing instead",
                mv.to_vertex(self.game.size())
            );
            mv = Move::Pass;
        }
        if mode == Mode::Cleanup && mv == Move::Pass {
            mv = score::capture_of_dead_stones(&self.game, color).map_or(Move::Pass, Move::Play);
        }
        if mode != Mode::Suggest {
            self.game
                .play(color, mv)
                .map_err(|_| GtpError::IllegalMove)?;
            self.clock.charge(color, self.received.elapsed());
            self.ponder_next = mode == Mode::Play && self.clock.is_limited();
        }
        Ok(mv.to_vertex(self.game.size()))
    }

    fn undo(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        self.game.undo().map_err(|_| GtpError::CannotUndo)?;
        Ok(String::new())
    }

    fn handicap(
        &mut self,
        args: &[String],
        layout: fn(usize, usize) -> Result<Vec<Point>, crate::rules::game::HandicapError>,
    ) -> Result<String, GtpError> {
        let [count] = args else {
            return Err(GtpError::Syntax);
        };
        let count: i64 = count.parse().map_err(|_| GtpError::Syntax)?;
        if !self.game.is_empty() {
            return Err(GtpError::BoardNotEmpty);
        }
        let count = usize::try_from(count).map_err(|_| GtpError::InvalidNumberOfStones)?;
        let size = self.game.size();
        let points = layout(size, count).map_err(|_| GtpError::InvalidNumberOfStones)?;
        self.game
            .set_handicap(&points)
            .map_err(|_| GtpError::BoardNotEmpty)?;
        Ok(vertex_list(&points, size))
    }

    fn set_free_handicap(&mut self, args: &[String]) -> Result<String, GtpError> {
        let size = self.game.size();
        let mut points = Vec::with_capacity(args.len());
        for v in args {
            match Move::parse(v, size).map_err(|_| GtpError::Syntax)? {
                Move::Play(p) if !points.contains(&p) => points.push(p),
                _ => return Err(GtpError::BadVertexList),
            }
        }
        if !self.game.is_empty() {
            return Err(GtpError::BoardNotEmpty);
        }
        if points.len() < 2 || points.len() >= size * size {
            return Err(GtpError::BadVertexList);
        }
        self.game
            .set_handicap(&points)
            .map_err(|_| GtpError::BadVertexList)?;
        Ok(String::new())
    }

    fn final_score(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        Ok(Assessment::of(&self.game, DEFAULT_PLAYOUTS).result())
    }

    fn final_status_list(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [wanted] = args else {
            return Err(GtpError::Syntax);
        };
        let wanted = [StoneStatus::Alive, StoneStatus::Dead, StoneStatus::Seki]
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(wanted))
            .ok_or(GtpError::Syntax)?;
        let board = self.game.board();
        let size = board.size();
        let assessment = Assessment::of(&self.game, DEFAULT_PLAYOUTS);
        // One line per string, as GNU Go answers.
        let lines: Vec<String> = assessment
            .stones_with(wanted)
            .into_iter()
            .filter(|&p| board.string_head(p) == p)
            .map(|p| {
                let mut stones: Vec<Point> = board.string_stones(p).collect();
                stones.sort();
                vertex_list(&stones, size)
            })
            .collect();
        Ok(lines.join("\n"))
    }

    fn time_settings(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [main, period, stones] = args else {
            return Err(GtpError::Syntax);
        };
        let system =
            TimeSystem::from_time_settings(seconds(main)?, seconds(period)?, count(stones)?);
        self.clock.set_system(system);
        Ok(String::new())
    }

    fn kgs_time_settings(&mut self, args: &[String]) -> Result<String, GtpError> {
        let (kind, rest) = args.split_first().ok_or(GtpError::Syntax)?;
        let system = match (kind.to_ascii_lowercase().as_str(), rest) {
            ("none", []) => TimeSystem::None,
            ("absolute", [main]) => TimeSystem::Absolute {
                main: seconds(main)?,
            },
            ("canadian", [main, period, stones]) => TimeSystem::Canadian {
                main: seconds(main)?,
                period: seconds(period)?,
                stones: count(stones)?,
            },
            ("byoyomi", [main, period, periods]) => TimeSystem::Byoyomi {
                main: seconds(main)?,
                period: seconds(period)?,
                periods: count(periods)?,
            },
            _ => return Err(GtpError::Syntax),
        };
        self.clock.set_system(system);
        Ok(String::new())
    }

    fn time_left(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [color, time, stones] = args else {
            return Err(GtpError::Syntax);
        };
        let color = parse_color(color)?;
        let time = Seconds::parse_left(time).ok_or(GtpError::Syntax)?;
        let stones: i64 = stones.parse().map_err(|_| GtpError::Syntax)?;
        // Negative counts were sent by older controllers: clamp rather than refuse.
        self.clock.set_left(
            color,
            time.get(),
            stones.clamp(0, i64::from(u32::MAX)) as u32,
        );
        Ok(String::new())
    }

    fn kgs_rules(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [name] = args else {
            return Err(GtpError::Syntax);
        };
        let rules = Rules::named(name, self.game.rules().komi).ok_or(GtpError::Syntax)?;
        self.game.set_rules(rules);
        Ok(String::new())
    }

    fn kgs_game_over(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        // The game may only be adjourned: keep the state.
        info!("the server says the game is over");
        Ok(String::new())
    }

    fn loadsgf(&mut self, args: &[String]) -> Result<String, GtpError> {
        let (path, move_number) = match args {
            [path] => (path, None),
            [path, n] => (
                path,
                Some(n.parse::<usize>().map_err(|_| GtpError::Syntax)?),
            ),
            _ => return Err(GtpError::Syntax),
        };
        let game =
            sgf::load_file(Path::new(path), move_number, *self.game.rules()).map_err(|e| {
                debug!("loadsgf {path}: {e}");
                GtpError::CannotLoadFile
            })?;
        self.game = game;
        Ok(String::new())
    }

    /// The game as an SGF record: the answer without an argument (as KataGo's `printsgf`),
    /// else written to the file named (as GNU Go's), an empty answer.
    fn printsgf(&mut self, args: &[String]) -> Result<String, GtpError> {
        let record = sgf::write_record(
            &self.game,
            &RecordInfo {
                black: "",
                white: "",
                date: &sgf::today(),
                result: "",
                rules: self.game.rules().name(),
                comment: "",
            },
        );
        match args {
            [] => Ok(record),
            [path] => std::fs::write(path, record + "\n")
                .map(|()| String::new())
                .map_err(|e| GtpError::Argument(format!("cannot write {path}: {e}"))),
            _ => Err(GtpError::Syntax),
        }
    }

    fn showboard(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        Ok(diagram(&self.game))
    }
}

fn no_args(args: &[String]) -> Result<(), GtpError> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(GtpError::Syntax)
    }
}

/// A refused `kata-get-param` or `kata-set-param`, with the player's reason.
fn param_error(e: PlayerError) -> GtpError {
    GtpError::Argument(e.to_string())
}

fn parse_color(text: &str) -> Result<Color, GtpError> {
    text.parse().map_err(|_| GtpError::Syntax)
}

/// A clock time in seconds: see [`Seconds::parse_clock`] (0 to a year).
fn seconds(text: &str) -> Result<f64, GtpError> {
    Seconds::parse_clock(text)
        .map(Seconds::get)
        .ok_or(GtpError::Syntax)
}

/// A count of stones or periods.
fn count(text: &str) -> Result<u32, GtpError> {
    text.parse().map_err(|_| GtpError::Syntax)
}

/// The board as `showboard` draws it: columns lettered, rows numbered, `X` Black, `O` White,
/// hoshi as `+`, and the prisoners beside the bottom rows. Never an empty line.
fn diagram(game: &Game) -> String {
    let board = game.board();
    let size = board.size();
    let letters: String = (0..size)
        .map(|col| format!(" {}", &Point::new(size, col, 0).to_vertex(size)[..1]))
        .collect();
    let hoshi: Vec<Point> =
        fixed_handicap_points(size, max_fixed_handicap(size)).unwrap_or_default();
    let mut lines = vec![format!("  {letters}")];
    for row in (0..size).rev() {
        let mut line = format!("{:>2}", row + 1);
        for col in 0..size {
            let p = Point::new(size, col, row);
            let ch = match board.color_at(p) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None if hoshi.contains(&p) => '+',
                None => '.',
            };
            line.push(' ');
            line.push(ch);
        }
        line.push_str(&format!(" {}", row + 1));
        match row {
            1 => line.push_str(&format!(
                "     WHITE (O) has captured {} stones",
                board.captures(Color::White)
            )),
            0 => line.push_str(&format!(
                "     BLACK (X) has captured {} stones",
                board.captures(Color::Black)
            )),
            _ => {}
        }
        lines.push(line);
    }
    lines.push(format!("  {letters}"));
    format!("\n{}", lines.join("\n"))
}

#[cfg(test)]
mod tests;
