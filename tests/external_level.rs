//! A level played by another GTP engine: GNU Go as the child (full games, undo, handicap, a
//! switch to another line), and a fake engine that crashes, hangs, answers illegal moves or
//! garbage, or starts slowly, where tengen's fallback must answer and the game go on.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Gtp;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

/// Move timeout of the levels whose child hangs or starts slowly, where the fallback must
/// answer in time.
const SHORT_TIMEOUT_MS: u64 = 300;
/// Move timeout of the others, ample on a loaded machine for the child to start and answer.
const TIMEOUT_MS: u64 = 10_000;

/// The move timeout of `level`.
fn timeout_ms(level: &str) -> u64 {
    match level {
        "hang" | "slow" => SHORT_TIMEOUT_MS,
        _ => TIMEOUT_MS,
    }
}

/// An engines.toml with a level per fault of the fake engine, and `gnugo` when given.
fn config(name: &str, gnugo: Option<&Path>) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-engine.sh");
    let mut text = String::new();
    for (level, args) in [
        ("crash", "crash 2"),
        ("hang", "hang 2"),
        ("illegal", "illegal 1"),
        ("garbage", "garbage 1"),
        ("slow", "slow 3"),
        ("analyze", "analyze 0"),
    ] {
        let args: Vec<String> = args.split(' ').map(|a| format!("\"{a}\"")).collect();
        text += &format!(
            "[engines.{level}]\ncommand = [\"sh\", \"{}\", {}]\n\
             [levels.{level}]\nplayer = \"external\"\nengine = \"{level}\"\n\
             fallback = [\"medium\"]\nmove_timeout_ms = {}\n",
            script.display(),
            args.join(", "),
            timeout_ms(level)
        );
    }
    text += "[engines.missing]\ncommand = [\"/no/such/engine\"]\n\
             [levels.missing]\nplayer = \"external\"\nengine = \"missing\"\nfallback = [\"easy\"]\n";
    if let Some(gnugo) = gnugo {
        text += &format!(
            "[engines.gnugo]\ncommand = [\"{}\", \"--mode\", \"gtp\", \"--level\", \"1\"]\n\
             [levels.gnugo]\nplayer = \"external\"\nengine = \"gnugo\"\nfallback = [\"medium\"]\n",
            gnugo.display()
        );
    }
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("write the config");
    path
}

/// tengen at `level` of `config`.
fn tengen(config: &Path, level: &str) -> Gtp {
    Gtp::spawn(
        common::tengen_path(),
        &[
            "gtp",
            "--config",
            config.to_str().unwrap(),
            "--level",
            level,
        ],
    )
}

/// Plays `moves` genmoves in turn on 9x9, checking each answer against our own replica of the
/// game (so no earlier move was lost) and that none took far longer than `timeout_ms`.
fn play_on(engine: &mut Gtp, moves: usize, timeout_ms: u64) -> Game {
    engine.ok("boardsize 9");
    engine.ok("clear_board");
    let mut game = Game::new(9, Rules::default());
    for _ in 0..moves {
        let c = game.to_move();
        let word = if c == Color::Black { "b" } else { "w" };
        let started = Instant::now();
        let answer = engine.ok(&format!("genmove {word}"));
        assert!(
            started.elapsed() < Duration::from_millis(timeout_ms) + Duration::from_secs(5),
            "genmove took {:?}",
            started.elapsed()
        );
        let mv = Move::parse(&answer, 9).unwrap_or_else(|_| panic!("not a move: {answer}"));
        game.play(c, mv)
            .unwrap_or_else(|e| panic!("illegal answer {answer}: {e}"));
    }
    game
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

fn stones(game: &Game, c: Color) -> usize {
    let board = game.board();
    board
        .points()
        .filter(|&p| board.color_at(p) == Some(c))
        .count()
}

#[test]
fn every_fault_of_the_child_is_answered_by_the_fallback() {
    let config = config("external-faults", None);
    for level in ["crash", "hang", "illegal", "garbage", "slow", "missing"] {
        let mut engine = tengen(&config, level);
        let game = play_on(&mut engine, 8, timeout_ms(level));
        assert_eq!(game.moves().len(), 8, "{level}");
        assert_eq!(
            stones_shown(&mut engine),
            (stones(&game, Color::Black), stones(&game, Color::White)),
            "{level}: tengen's board differs from the moves it answered"
        );
        assert_eq!(engine.quit(), Some(0), "{level}");
    }
}

#[test]
fn a_slow_child_takes_over_once_it_has_started() {
    let config = config("external-slow", None);
    let mut engine = tengen(&config, "slow");
    engine.ok("boardsize 9");
    engine.ok("clear_board");
    let first = engine.ok("genmove b");
    assert_ne!(first, "PASS", "the fallback plays while the child starts");
    // The fake engine passes once it is up (after 3 s); until then the fallback answers,
    // and its move is taken back. The bound is ten times the child's start, against a hang.
    let started = Instant::now();
    loop {
        if engine.ok("genmove w") == "PASS" {
            break;
        }
        engine.ok("undo");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the child never took over"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(engine.ok("version").contains("fake-engine slow"));
}

#[test]
#[cfg_attr(not(gnugo_tests), ignore = "GNU Go not found: install gnugo")]
fn gnu_go_plays_through_tengen_with_undo_handicap_and_a_new_line() {
    let gnugo = common::gnugo();
    let config = config("external-gnugo", Some(&gnugo));
    let mut engine = tengen(&config, "gnugo");
    let game = play_on(&mut engine, 12, timeout_ms("gnugo"));
    assert_eq!(
        stones_shown(&mut engine),
        (stones(&game, Color::Black), stones(&game, Color::White))
    );
    assert!(engine.ok("version").contains("GNU Go"));
    // Take back three moves and play another line: the child must follow.
    for _ in 0..3 {
        engine.ok("undo");
    }
    engine.ok("play w A1");
    let answer = engine.ok("genmove b");
    assert_ne!(answer, "A1");
    assert!(Move::parse(&answer, 9).is_ok(), "{answer}");
    // A handicap game.
    engine.ok("clear_board");
    engine.ok("fixed_handicap 4");
    let answer = engine.ok("genmove w");
    assert!(
        !["C3", "G3", "C7", "G7"].contains(&answer.as_str()),
        "GNU Go does not know the handicap stones: {answer}"
    );
    assert_eq!(stones_shown(&mut engine), (4, 1));
    assert_eq!(engine.quit(), Some(0));
}

#[test]
fn analysis_is_streamed_from_a_child_that_lists_it() {
    let config = config("external-analyze", None);
    let mut engine = tengen(&config, "analyze");
    engine.ok("boardsize 9");
    // The child starts with the first move.
    assert_eq!(engine.ok("genmove b"), "PASS");
    engine.send_raw("kata-analyze w 10\n");
    let mut head = String::new();
    while !head.contains("from-the-fake") {
        head = engine.read_line();
    }
    engine.send_raw("\n");
    assert_eq!(engine.read_line(), "");
    assert_eq!(engine.ok("name"), "tengen");
    // genmove-analyze streams the child's lines, then its move, which tengen plays.
    engine.send_raw("3 kata-genmove_analyze w 10\n");
    assert_eq!(engine.read_line(), "=3");
    assert!(engine.read_line().contains("fake-genmove"));
    assert_eq!(engine.read_line(), "play PASS");
    assert_eq!(engine.read_line(), "");
    assert_eq!(engine.ok("undo"), "");
    assert_eq!(engine.ok("undo"), "");
    assert!(engine.send("undo").is_err(), "two moves were played");
    // A child without the command leaves the analysis to tengen's search.
    let mut own = tengen(&config, "garbage");
    own.ok("boardsize 9");
    own.ok("genmove b");
    own.send_raw("lz-analyze w 10\n");
    assert_eq!(own.read_line(), "=");
    assert!(own.read_line().starts_with("info move "));
    own.send_raw("\n");
    while !own.read_line().is_empty() {}
    assert_eq!(own.ok("name"), "tengen");
}
