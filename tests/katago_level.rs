//! The expert level with a real KataGo behind it. These tests run when `TENGEN_KATAGO` holds a
//! KataGo command line, e.g.
//! `katago gtp -model g170-b6c96.bin.gz -config gtp-cpu.cfg -override-config maxVisits=20`;
//! otherwise `cargo test` reports them ignored (CI builds no KataGo). build.rs watches the
//! variable.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Gtp;
use tengen::engine::gtp_client::Client;
use tengen::engine::player::external::early_pass::Analysis;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

/// The KataGo command line from `TENGEN_KATAGO` (the tests run only when build.rs saw it set).
fn katago() -> Vec<String> {
    let line = std::env::var("TENGEN_KATAGO").expect("TENGEN_KATAGO is set");
    let argv = shell_words::split(&line).expect("TENGEN_KATAGO is a command line");
    assert!(!argv.is_empty(), "TENGEN_KATAGO is empty");
    argv
}

/// A test's files: its engines.toml, KataGo's pid and tengen's log.
struct Files {
    config: PathBuf,
    pid: PathBuf,
    log: PathBuf,
}

/// Writes an engines.toml whose `expert` level runs `katago` through a shell script that
/// records its pid.
fn files(name: &str, katago: &[String]) -> Files {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let pid = dir.join(format!("{name}.pid"));
    let log = dir.join(format!("{name}.log"));
    // A wrapper script (an inline `sh -c` text would be taken for a relative path).
    let wrapper = dir.join(format!("{name}.sh"));
    std::fs::write(
        &wrapper,
        format!("echo $$ > '{}'\nexec \"$@\"\n", pid.display()),
    )
    .expect("write the wrapper");
    let args: Vec<String> = std::iter::once(wrapper.display().to_string())
        .chain(katago.iter().cloned())
        .map(|a| format!("{a:?}"))
        .collect();
    let text = format!(
        "[engines.katago]\ncommand = [\"sh\", {args}]\n\
         [levels.expert]\nplayer = \"external\"\nengine = \"katago\"\nfallback = [\"medium\"]\n\
         move_timeout_ms = 30000\n",
        args = args.join(", ")
    );
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, text).expect("write the config");
    let _ = std::fs::remove_file(&pid);
    Files { config, pid, log }
}

/// What the fallback chain logs when a player of it gives no move (src/engine/player/fallback.rs).
const FALLBACK_PLAYS: &str = "the next player plays this move";

/// tengen at `level`, logging to `files.log` at info level, and at debug level for the fallback
/// chain, whose quiet cases (a child still starting, out of time) are debug lines.
fn tengen(files: &Files, level: &str) -> Gtp {
    let log = std::fs::File::create(&files.log).expect("create the log");
    let child = Command::new(common::tengen_path())
        .args([
            "gtp",
            "--config",
            files.config.to_str().unwrap(),
            "--level",
            level,
        ])
        .env("RUST_LOG", "info,tengen::engine::player::fallback=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start tengen");
    Gtp::from_child(child)
}

fn log_of(files: &Files) -> String {
    std::fs::read_to_string(&files.log).unwrap_or_default()
}

/// Asks `engine` for `moves` moves in turn, checking each against `game`.
fn genmoves(engine: &mut Gtp, game: &mut Game, moves: usize) {
    for _ in 0..moves {
        let c = game.to_move();
        let word = if c == Color::Black { "b" } else { "w" };
        let started = Instant::now();
        let answer = engine.ok(&format!("genmove {word}"));
        assert!(started.elapsed() < Duration::from_secs(60), "genmove hung");
        if answer.eq_ignore_ascii_case("resign") {
            return;
        }
        let mv = Move::parse(&answer, 9).unwrap_or_else(|_| panic!("not a move: {answer}"));
        game.play(c, mv)
            .unwrap_or_else(|e| panic!("illegal answer {answer}: {e}"));
    }
}

/// Plays `vertex` for `c` in tengen and in `game`.
fn play(engine: &mut Gtp, game: &mut Game, c: Color, vertex: &str) {
    let word = if c == Color::Black { "b" } else { "w" };
    engine.ok(&format!("play {word} {vertex}"));
    game.play(c, Move::parse(vertex, 9).unwrap()).unwrap();
}

/// The number of black and white stones `showboard` draws.
fn stones_shown(engine: &mut Gtp) -> (usize, usize) {
    let board = engine.ok("showboard");
    let rows: String = board
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split("  ").next().unwrap_or(""))
        .collect();
    (rows.matches('X').count(), rows.matches('O').count())
}

fn stones(game: &Game) -> (usize, usize) {
    let board = game.board();
    let count = |c| {
        board
            .points()
            .filter(|&p| board.color_at(p) == Some(c))
            .count()
    };
    (count(Color::Black), count(Color::White))
}

#[test]
#[cfg_attr(
    not(katago_tests),
    ignore = "TENGEN_KATAGO not set: set it to a KataGo command line"
)]
fn katago_plays_a_game_through_tengen_with_rules_clock_and_undo() {
    let katago = katago();
    let files = files("katago-game", &katago);
    let mut engine = tengen(&files, "expert");
    engine.ok("boardsize 9");
    engine.ok("clear_board");
    engine.ok("komi 6.5");
    engine.ok("kgs-rules japanese");
    engine.ok("time_settings 600 30 1");
    let mut game = Game::new(9, Rules::japanese(6.5));
    genmoves(&mut engine, &mut game, 20);
    assert!(
        engine.ok("version").contains("KataGo"),
        "{}",
        log_of(&files)
    );
    // Back three moves and another line: KataGo must follow (undo, then the new move).
    for _ in 0..3 {
        engine.ok("undo");
        game.undo().unwrap();
    }
    let c = game.to_move();
    let free = game
        .board()
        .empty_points()
        .find(|&p| game.legality(c, Move::Play(p)).is_ok())
        .expect("a free point");
    play(&mut engine, &mut game, c, &free.to_vertex(9));
    genmoves(&mut engine, &mut game, 2);
    assert_eq!(stones_shown(&mut engine), stones(&game));
    assert_eq!(engine.quit(), Some(0));
    let log = log_of(&files);
    assert!(
        !log.contains(FALLBACK_PLAYS),
        "KataGo did not answer every move:\n{log}"
    );
}

#[test]
#[cfg_attr(
    not(katago_tests),
    ignore = "TENGEN_KATAGO not set: set it to a KataGo command line"
)]
fn the_fallback_plays_when_katago_is_killed_mid_game() {
    let katago = katago();
    let files = files("katago-killed", &katago);
    let mut engine = tengen(&files, "expert");
    engine.ok("boardsize 9");
    engine.ok("clear_board");
    let mut game = Game::new(9, Rules::default());
    genmoves(&mut engine, &mut game, 4);
    let pid = std::fs::read_to_string(&files.pid).expect("KataGo's pid was recorded");
    let killed = Command::new("kill")
        .args(["-9", pid.trim()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    genmoves(&mut engine, &mut game, 4);
    assert_eq!(game.moves().len(), 8);
    assert_eq!(stones_shown(&mut engine), stones(&game));
    assert_eq!(engine.quit(), Some(0));
    let log = log_of(&files);
    assert!(log.contains(FALLBACK_PLAYS), "{log}");
}

/// Walls on D and F with E5 the last dame, Black to pass next; the moves as GTP `play`s.
fn dame_position() -> Vec<(Color, String)> {
    let mut moves = Vec::new();
    for row in 1..=9 {
        moves.push((Color::Black, format!("D{row}")));
        moves.push((Color::White, format!("F{row}")));
    }
    for row in 1..=4 {
        moves.push((Color::Black, format!("E{row}")));
        moves.push((Color::White, format!("E{}", row + 5)));
    }
    moves.push((Color::Black, "pass".to_string()));
    moves
}

#[test]
#[cfg_attr(
    not(katago_tests),
    ignore = "TENGEN_KATAGO not set: set it to a KataGo command line"
)]
fn katago_fills_the_dame_after_a_pass() {
    let katago = katago();
    let files = files("katago-dame", &katago);
    let mut engine = tengen(&files, "expert");
    engine.ok("boardsize 9");
    engine.ok("clear_board");
    engine.ok("komi 0");
    engine.ok("kgs-rules japanese");
    let mut game = Game::new(9, Rules::japanese(0.0));
    for (c, vertex) in dame_position() {
        play(&mut engine, &mut game, c, &vertex);
    }
    assert_eq!(engine.ok("genmove w"), "E5", "{}", log_of(&files));
    assert_eq!(engine.quit(), Some(0));
}

#[test]
#[cfg_attr(
    not(katago_tests),
    ignore = "TENGEN_KATAGO not set: set it to a KataGo command line"
)]
fn katago_answers_the_retry_of_avoid_early_pass_as_tengen_reads_it() {
    let katago = katago();
    let mut client = Client::spawn_argv(&katago, "katago").expect("start KataGo");
    let timeout = Some(Duration::from_secs(60));
    let mut game = Game::new(9, Rules::japanese(0.0));
    for command in ["boardsize 9", "clear_board", "komi 0", "kgs-rules japanese"] {
        client.send(command, timeout).expect(command);
    }
    for (c, vertex) in dame_position() {
        let word = if c == Color::Black { "b" } else { "w" };
        client
            .send(&format!("play {word} {vertex}"), timeout)
            .expect("play");
        game.play(c, Move::parse(&vertex, 9).unwrap()).unwrap();
    }
    // What tengen sends after taking back KataGo's pass.
    let text = client
        .send("kata-genmove_analyze white 10 avoid white pass 1", timeout)
        .expect("kata-genmove_analyze");
    let analysis = Analysis::parse(&text, 9);
    assert!(!analysis.candidates.is_empty(), "{text}");
    assert!(
        analysis
            .candidates
            .iter()
            .all(|c| c.mv != Move::Pass && c.visits > 0),
        "{text}"
    );
    assert_eq!(
        analysis.best_non_pass(&game, Color::White),
        Some(Move::parse("E5", 9).unwrap()),
        "{text}"
    );
    client.quit();
}
