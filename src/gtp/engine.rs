//! The GTP command table and its handlers. One table feeds dispatch, `list_commands` and
//! `known_command`. Handlers parse and check every argument before touching the game, so a
//! rejected command leaves the state unchanged.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use log::{debug, error, info};

use super::analyze::{self, AnalyzeCommand};
use super::gogui;
use super::protocol::{Command, GtpError};
use crate::board::{Color, MAX_SIZE, MIN_SIZE, Move, Point};
use crate::game::clock::{Clock, TimeSystem};
use crate::game::score::{Assessment, DEFAULT_PLAYOUTS, StoneStatus};
use crate::game::{Game, Rules, fixed_handicap_points, free_handicap_points, max_fixed_handicap};
use crate::player::{Answer, Limits, Player};
use crate::search::{AnalysisRequest, MctsPlayer, MctsSettings, Report, RootInfo};
use crate::sgf;

/// The engine's name as `name` reports it.
pub const NAME: &str = "tengen";

/// Board size of a fresh engine.
const DEFAULT_SIZE: usize = 19;

type Handler = fn(&mut Engine, &[String]) -> Result<String, GtpError>;

/// Every command tengen knows, in the order `list_commands` gives them.
const COMMANDS: &[(&str, Handler)] = &[
    ("protocol_version", |_, a| no_args(a).map(|()| "2".into())),
    ("name", |_, a| no_args(a).map(|()| NAME.into())),
    ("version", |e, a| {
        no_args(a)?;
        let version = env!("CARGO_PKG_VERSION");
        Ok(match e.player.describe() {
            Some(child) => format!("{version} ({child})"),
            None => version.into(),
        })
    }),
    ("known_command", Engine::known_command),
    ("list_commands", Engine::list_commands),
    ("quit", Engine::quit),
    ("boardsize", Engine::boardsize),
    ("clear_board", Engine::clear_board),
    ("komi", Engine::komi),
    ("play", Engine::play),
    ("genmove", |e, a| e.genmove(a, Mode::Play)),
    ("reg_genmove", |e, a| e.genmove(a, Mode::Suggest)),
    ("kgs-genmove_cleanup", |e, a| e.genmove(a, Mode::Cleanup)),
    ("undo", Engine::undo),
    ("fixed_handicap", |e, a| {
        e.handicap(a, fixed_handicap_points)
    }),
    ("place_free_handicap", |e, a| {
        e.handicap(a, free_handicap_points)
    }),
    ("set_free_handicap", Engine::set_free_handicap),
    ("final_score", Engine::final_score),
    ("final_status_list", Engine::final_status_list),
    ("time_settings", Engine::time_settings),
    ("time_left", Engine::time_left),
    ("kgs-time_settings", Engine::kgs_time_settings),
    ("kgs-rules", Engine::kgs_rules),
    ("kgs-game_over", Engine::kgs_game_over),
    ("gogui-interrupt", |_, a| no_args(a).map(|()| String::new())),
    ("loadsgf", Engine::loadsgf),
    ("showboard", Engine::showboard),
    ("lz-analyze", |e, a| e.analysis_snapshot("lz-analyze", a)),
    ("kata-analyze", |e, a| {
        e.analysis_snapshot("kata-analyze", a)
    }),
    ("gogui-analyze_commands", |_, a| {
        no_args(a).map(|()| gogui::ANALYZE_COMMANDS.join("\n"))
    }),
    ("tengen-ownership", |e, a| {
        e.gogui(a, gogui::View::Ownership)
    }),
    ("tengen-visits", |e, a| e.gogui(a, gogui::View::Visits)),
    ("tengen-pv", |e, a| e.gogui(a, gogui::View::Variation)),
    ("tengen-winrate", |e, a| e.gogui(a, gogui::View::WinRate)),
    ("lz-genmove_analyze", |e, a| {
        e.genmove_analyze_snapshot("lz-genmove_analyze", a)
    }),
    ("kata-genmove_analyze", |e, a| {
        e.genmove_analyze_snapshot("kata-genmove_analyze", a)
    }),
];

/// A genmove-analyze command on its way to the player: its name, its whole line, and where
/// the analysis lines go.
struct MoveStream<'a> {
    name: &'a str,
    line: &'a str,
    out: &'a mut dyn FnMut(&str) -> bool,
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
    /// The search behind the analysis commands, made on first use.
    analyst: Option<MctsPlayer>,
    /// The last search for GoGui's views: (position hash, moves, colour) and its report.
    gogui_report: Option<((u64, usize, Color), Report)>,
    quit: bool,
    /// Set by the input reader on `# interrupt` while a command runs.
    interrupt: Arc<AtomicBool>,
    /// When the command being executed was read: a move's clock starts then.
    received: Instant,
}

impl Engine {
    /// An engine on an empty 19x19 board under the default rules, playing with `player`.
    pub fn new(player: Box<dyn Player>) -> Engine {
        Engine {
            game: Game::new(DEFAULT_SIZE, Rules::default()),
            clock: Clock::default(),
            player,
            analyst: None,
            gogui_report: None,
            quit: false,
            interrupt: Arc::new(AtomicBool::new(false)),
            received: Instant::now(),
        }
    }

    /// The flag that stops a running `genmove` early (the best move so far is played), as
    /// GoGui's `# interrupt` asks.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.interrupt)
    }

    /// Runs one command read at `received`, with the interrupt flag cleared before and after.
    pub fn execute_received(
        &mut self,
        command: &Command,
        received: Instant,
    ) -> Result<String, GtpError> {
        self.received = received;
        let result = self.execute(command);
        self.interrupt.store(false, Ordering::Relaxed);
        result
    }

    /// Runs one command. The response text (or error) is for [`super::protocol::format_response`].
    pub fn execute(&mut self, command: &Command) -> Result<String, GtpError> {
        let handler = COMMANDS
            .iter()
            .find(|(name, _)| *name == command.name)
            .map(|&(_, handler)| handler)
            .ok_or(GtpError::UnknownCommand)?;
        handler(self, &command.args)
    }

    /// The analysis `command` asks for, checked against the current game.
    pub fn analysis_command(&self, command: &Command) -> Result<AnalyzeCommand, GtpError> {
        analyze::parse(&command.name, &command.args, self.game.size())
    }

    /// Runs the analysis `command` (parsed as `analysis`) on the current position until
    /// `stop` is set, handing each report line to `out` (which returns false when the output
    /// has gone). An external engine behind the level that lists the command streams it; else
    /// tengen's own search does.
    pub fn analyze(
        &mut self,
        command: &Command,
        analysis: &AnalyzeCommand,
        stop: Arc<AtomicBool>,
        out: &mut dyn FnMut(&str) -> bool,
    ) {
        let line = command.text();
        if self
            .player
            .stream_analysis(&self.game, &command.name, &line, &stop, out)
        {
            return;
        }
        let color = analysis.color.unwrap_or_else(|| self.game.to_move());
        let (allow, avoid) = analysis.moves_for(color);
        let request = AnalysisRequest {
            color,
            interval: analysis.interval,
            allow,
            avoid,
            stop,
            ownership: analysis.ownership,
            moves_ownership: false,
            max_playouts: None,
            deadline: None,
        };
        let size = self.game.size();
        let analyst = self
            .analyst
            .get_or_insert_with(|| MctsPlayer::new(MctsSettings::default()));
        analyst.analyze(&self.game, &request, |report| {
            analysis.format(report, size).is_none_or(|line| out(&line))
        });
    }

    /// An analysis command run outside a stream (through [`Engine::execute`]): one report
    /// after one interval, as a normal response.
    fn analysis_snapshot(&mut self, name: &str, args: &[String]) -> Result<String, GtpError> {
        let analysis = analyze::parse(name, args, self.game.size())?;
        let command = Command {
            id: None,
            name: name.to_string(),
            args: args.to_vec(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let mut text = String::new();
        let flag = Arc::clone(&stop);
        self.analyze(&command, &analysis, stop, &mut |line| {
            text = line.to_string();
            flag.store(true, Ordering::Relaxed);
            false
        });
        Ok(text)
    }

    /// [`Engine::genmove_analyze`] for a command read at `received` (the move's clock starts
    /// then), with the interrupt flag cleared afterwards.
    pub fn genmove_analyze_received(
        &mut self,
        command: &Command,
        received: Instant,
        out: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(), GtpError> {
        self.received = received;
        let result = self.genmove_analyze(command, out);
        self.interrupt.store(false, Ordering::Relaxed);
        result
    }

    /// A genmove-analyze command run outside a stream (through [`Engine::execute`]): its
    /// lines as one response.
    fn genmove_analyze_snapshot(
        &mut self,
        name: &str,
        args: &[String],
    ) -> Result<String, GtpError> {
        let command = Command {
            id: None,
            name: name.to_string(),
            args: args.to_vec(),
        };
        let mut lines = Vec::new();
        self.genmove_analyze(&command, &mut |line| {
            lines.push(line.to_string());
            true
        })?;
        Ok(lines.join("\n"))
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
        let key = (self.game.board().hash(), self.game.moves().len(), color);
        let cached = self.gogui_report.as_ref().filter(|(k, _)| *k == key);
        let report = match cached {
            Some((_, report)) => report.clone(),
            None => {
                let request = AnalysisRequest {
                    color,
                    interval: gogui::SEARCH_TIME,
                    allow: Vec::new(),
                    avoid: Vec::new(),
                    stop: Arc::clone(&self.interrupt),
                    ownership: true,
                    moves_ownership: false,
                    max_playouts: None,
                    deadline: Some(Instant::now() + gogui::SEARCH_TIME),
                };
                let mut last = None;
                self.analyst
                    .get_or_insert_with(|| MctsPlayer::new(MctsSettings::default()))
                    .analyze(&self.game, &request, |report| {
                        last = Some(report.clone());
                        true
                    });
                self.interrupt.store(false, Ordering::Relaxed);
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

    fn known_command(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [name] = args else {
            return Err(GtpError::Syntax);
        };
        Ok(COMMANDS.iter().any(|(n, _)| n == name).to_string())
    }

    fn list_commands(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        Ok(COMMANDS
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join("\n"))
    }

    fn quit(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        self.quit = true;
        Ok(String::new())
    }

    fn boardsize(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [size] = args else {
            return Err(GtpError::Syntax);
        };
        let size: i64 = size.parse().map_err(|_| GtpError::Syntax)?;
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
        Ok(String::new())
    }

    fn komi(&mut self, args: &[String]) -> Result<String, GtpError> {
        let [komi] = args else {
            return Err(GtpError::Syntax);
        };
        let komi: f64 = komi.parse().map_err(|_| GtpError::Syntax)?;
        if !komi.is_finite() || komi.abs() > 1000.0 {
            return Err(GtpError::Syntax);
        }
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
        self.generate(color, mode, None)
    }

    /// `lz-genmove_analyze` / `kata-genmove_analyze`: the level's move for the colour the
    /// command names, played, with the analysis lines of an external engine behind the level
    /// that lists the command streamed to `out` on the way; ends with `play VERTEX` (or `play
    /// resign`) through `out`. Only `# interrupt` stops it early, as for `genmove`.
    pub fn genmove_analyze(
        &mut self,
        command: &Command,
        out: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(), GtpError> {
        let analysis = analyze::parse_genmove(&command.name, &command.args, self.game.size())?;
        let color = analysis.color.unwrap_or_else(|| self.game.to_move());
        let line = command.text();
        let mut streamed = 0;
        let vertex = self.generate(
            color,
            Mode::Play,
            Some(MoveStream {
                name: &command.name,
                line: &line,
                out: &mut |text| {
                    streamed += 1;
                    out(text)
                },
            }),
        )?;
        // A search of our own reports its root moves once, after the search.
        if streamed == 0
            && let Some(moves) = self.player.last_root_moves()
        {
            let visits: u64 = moves.iter().map(|m| u64::from(m.visits)).sum();
            let report = Report {
                root: RootInfo {
                    visits,
                    winrate: moves.first().map_or(0.5, |m| m.winrate),
                    score: None,
                },
                moves,
                ownership: None,
                last: true,
            };
            if let Some(text) = analysis.format(&report, self.game.size()) {
                out(&text);
            }
        }
        out(&format!("play {vertex}"));
        Ok(())
    }

    /// The level's move for `color` (played unless `mode` is [`Mode::Suggest`]), its vertex
    /// or `resign`; with `stream`, an external engine that lists that analysis command is
    /// asked through it and its lines go to the stream's output.
    fn generate(
        &mut self,
        color: Color,
        mode: Mode,
        stream: Option<MoveStream<'_>>,
    ) -> Result<String, GtpError> {
        let board = self.game.board();
        let empty = board.empty_count();
        let moves_left = (empty / 2).max(10) as u32;
        // More time in the middle game than in the opening and the endgame.
        let filled = 1.0 - empty as f64 / (board.size() * board.size()) as f64;
        let weight = 0.75 + 4.0 * filled * (1.0 - filled);
        let budget = self.clock.move_budget(color, moves_left, weight);
        debug!("time budget for this move: {budget:?}");
        let limits = Limits {
            deadline: budget.map(|b| self.received + b),
            stop: Some(Arc::clone(&self.interrupt)),
            may_resign: mode != Mode::Cleanup,
            clock: Some(self.clock),
        };
        let answer = match stream {
            Some(MoveStream { name, line, out }) => self
                .player
                .genmove_streamed(&self.game, color, name, line, &limits, out),
            None => None,
        };
        let answer = answer.unwrap_or_else(|| self.player.genmove(&self.game, color, &limits));
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
            mv = self
                .capture_dead_stones(color)
                .map_or(Move::Pass, Move::Play);
        }
        if mode != Mode::Suggest {
            self.game
                .play(color, mv)
                .map_err(|_| GtpError::IllegalMove)?;
        }
        Ok(mv.to_vertex(self.game.size()))
    }

    /// A legal move for `color` on a liberty of an opponent string the scorer finds dead.
    fn capture_dead_stones(&self, color: Color) -> Option<Point> {
        let board = self.game.board();
        let assessment = Assessment::of(&self.game, DEFAULT_PLAYOUTS);
        let mut liberties = [Point::new(2, 0, 0); 8];
        assessment
            .stones_with(StoneStatus::Dead)
            .into_iter()
            .filter(|&p| board.color_at(p) == Some(color.opponent()))
            .find_map(|p| {
                let n = board.string_liberties(p, &mut liberties);
                liberties[..n]
                    .iter()
                    .copied()
                    .find(|&q| self.game.legality(color, Move::Play(q)).is_ok())
            })
    }

    fn undo(&mut self, args: &[String]) -> Result<String, GtpError> {
        no_args(args)?;
        self.game.undo().map_err(|_| GtpError::CannotUndo)?;
        Ok(String::new())
    }

    fn handicap(
        &mut self,
        args: &[String],
        layout: fn(usize, usize) -> Result<Vec<Point>, crate::game::HandicapError>,
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
        let time: f64 = time.parse().map_err(|_| GtpError::Syntax)?;
        let stones: i64 = stones.parse().map_err(|_| GtpError::Syntax)?;
        // Negative values were sent by older controllers: clamp rather than refuse.
        self.clock
            .set_left(color, time, stones.clamp(0, i64::from(u32::MAX)) as u32);
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

fn parse_color(text: &str) -> Result<Color, GtpError> {
    text.parse().map_err(|_| GtpError::Syntax)
}

/// A time in seconds: a finite, non-negative number.
fn seconds(text: &str) -> Result<f64, GtpError> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or(GtpError::Syntax)
}

/// A count of stones or periods.
fn count(text: &str) -> Result<u32, GtpError> {
    text.parse().map_err(|_| GtpError::Syntax)
}

/// `points` as a GTP vertex list: upper-case vertices separated by spaces.
pub fn vertex_list(points: &[Point], size: usize) -> String {
    points
        .iter()
        .map(|p| p.to_vertex(size))
        .collect::<Vec<_>>()
        .join(" ")
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
