//! The opening book through the real binary: `genmove` at the `mcts` level answers from the
//! shipped 9x9 book only when the komi is the book's, `book = false` turns it off, a level with
//! a net plays from it only when it says `book = true`, and `tengen book show` prints a
//! position's moves.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{Gtp, nets};
use tengen::engine::book;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

/// A seeded one-thread mcts level with few playouts, and the same without the book.
const LEVELS: &str = "[levels.seeded]\nplayer = \"mcts\"\nseed = 5\nthreads = 1\nplayouts = 300\n\n\
                      [levels.bookless]\nplayer = \"mcts\"\nseed = 5\nthreads = 1\nplayouts = 300\nbook = false\n";

/// The same with the real net (`NET`), by default and with the book.
const NET_LEVELS: &str = "[levels.net]\nplayer = \"mcts\"\nseed = 5\nthreads = 1\nplayouts = 30\nnet = \"NET\"\n\n\
                          [levels.netbook]\nplayer = \"mcts\"\nseed = 5\nthreads = 1\nplayouts = 30\nnet = \"NET\"\nbook = true\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-book-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The first move `level` plays on an empty 9x9 board with `komi`, and what it logged.
fn first_move(config: &Path, level: &str, komi: &str) -> (String, String) {
    let log = config.with_extension(format!("{level}-{komi}.log"));
    let child = Command::new(common::tengen_path())
        .args(["gtp", "--level", level, "--config"])
        .arg(config)
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start tengen");
    let mut gtp = Gtp::from_child(child);
    gtp.ok("boardsize 9");
    gtp.ok(&format!("komi {komi}"));
    let mv = gtp.ok("genmove b");
    assert_eq!(gtp.quit(), Some(0));
    (mv, std::fs::read_to_string(&log).unwrap())
}

/// The shipped 9x9 book's moves for Black on the empty board, as vertices.
fn book_openings() -> Vec<String> {
    let game = Game::new(9, Rules::chinese(7.0));
    let shipped = book::builtin_for(9, game.rules()).expect("a 9x9 book for komi 7 is shipped");
    shipped
        .moves(&game, Color::Black)
        .into_iter()
        .map(|(mv, _)| mv.to_vertex(9))
        .collect()
}

#[test]
fn genmove_plays_from_the_book_only_where_it_fits() {
    let dir = scratch("genmove");
    let config = dir.join("engines.toml");
    std::fs::write(&config, LEVELS).unwrap();
    let openings = book_openings();
    assert!(!openings.is_empty());

    let (mv, log) = first_move(&config, "seeded", "7");
    assert!(openings.contains(&mv), "{mv} not in {openings:?}");
    assert!(log.contains("book: "), "{log}");
    assert!(!log.contains("playouts in"), "searched: {log}");
    // The same seed draws the same book move.
    assert_eq!(first_move(&config, "seeded", "7").0, mv);

    // Another komi: the book does not fit, the search plays.
    let (mv, log) = first_move(&config, "seeded", "6.5");
    assert!(Move::parse(&mv, 9).is_ok(), "{mv}");
    assert!(!log.contains("book: "), "{log}");
    assert!(log.contains("playouts in"), "{log}");

    // book = false: the search plays at the book's komi too.
    let (_, log) = first_move(&config, "bookless", "7");
    assert!(!log.contains("book: "), "{log}");
    assert!(log.contains("playouts in"), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn with_a_net_genmove_plays_from_the_book_only_when_the_level_asks() {
    let dir = scratch("net");
    let config = dir.join("engines.toml");
    let net = nets::net(nets::G170).display().to_string();
    std::fs::write(&config, NET_LEVELS.replace("NET", &net)).unwrap();
    let openings = book_openings();
    let (_, log) = first_move(&config, "net", "7");
    assert!(!log.contains("book: "), "{log}");
    assert!(log.contains("net search: "), "{log}");
    let (mv, log) = first_move(&config, "netbook", "7");
    assert!(openings.contains(&mv), "{mv} not in {openings:?}");
    assert!(log.contains("book: "), "{log}");
    assert!(!log.contains("net search: "), "searched: {log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tengen(args: &[&str]) -> Output {
    Command::new(common::tengen_path())
        .args(args)
        .output()
        .expect("run tengen")
}

/// `tengen book build` on 9x9 with tests/fake-analysis.sh as KataGo's analysis engine
/// (`mode`: its FAKE_ANALYSIS), writing `out`.
fn build_with_fake_katago(out: &Path, mode: &str) -> Output {
    let engine = format!(
        "bash {}",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fake-analysis.sh")
            .display()
    );
    Command::new(common::tengen_path())
        .args([
            "book", "build", "--size", "9", "--depth", "2", "--width", "3",
        ])
        .args([
            "--min-share",
            "0.3",
            "--playouts",
            "77",
            "--engine",
            &engine,
            "--out",
        ])
        .arg(out)
        .env("FAKE_ANALYSIS", mode)
        .output()
        .expect("run tengen book build")
}

#[test]
fn a_book_is_built_from_katagos_analysis_engine() {
    let dir = scratch("katago");
    let out = dir.join("book.txt");
    let built = build_with_fake_katago(&out, "");
    let log = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{log}");
    let path = out.to_str().unwrap();
    // The empty board: the engine's moves above the share, most visited first, its pass left
    // out; the answers to other ids and during the search were skipped.
    let show = tengen(&["book", "show", "--size", "9", "--file", path]);
    let text = String::from_utf8(show.stdout).unwrap();
    assert!(text.contains("2 moves\n  E5          100"), "{text}");
    assert!(text.contains("\n  C4           60"), "{text}");
    assert!(!text.contains("A1") && !text.contains("PASS"), "{text}");
    // After E5 the engine's first choice is taken: C4 is White's one move.
    let show = tengen(&["book", "show", "--size", "9", "--file", path, "E5"]);
    let text = String::from_utf8(show.stdout).unwrap();
    assert!(text.contains("1 move\n  C4           60"), "{text}");
    // An engine that answers with an error, or exits, stops the build: one line, exit 2.
    for (mode, said) in [("error", "bad query"), ("exit", "exited")] {
        let failed = build_with_fake_katago(&dir.join(format!("{mode}.txt")), mode);
        let log = String::from_utf8_lossy(&failed.stderr);
        assert_eq!(failed.status.code(), Some(2), "{mode}: {log}");
        assert!(log.contains(said), "{mode}: {log}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn book_show_prints_a_positions_moves() {
    let empty = tengen(&["book", "show", "--size", "9"]);
    assert!(empty.status.success());
    let text = String::from_utf8(empty.stdout).unwrap();
    assert!(
        text.starts_with("book 9x9, komi 7, chinese rules: "),
        "{text}"
    );
    assert!(text.contains("after no moves, Black to move"), "{text}");
    for opening in book_openings() {
        assert!(
            text.contains(&format!("\n  {opening} ")),
            "{opening}: {text}"
        );
    }

    // After the first book move, White's entry is there in the game's orientation.
    let first = &book_openings()[0];
    let after = tengen(&["book", "show", "--size", "9", first]);
    let text = String::from_utf8(after.stdout).unwrap();
    assert!(
        text.contains(&format!("after {first}, White to move")),
        "{text}"
    );
    assert!(text.contains(" moves\n"), "{text}");

    // A position outside the book says so; a move that cannot be played is an error.
    let outside = tengen(&["book", "show", "--size", "9", "A1", "B1", "A2"]);
    assert!(outside.status.success());
    assert!(
        String::from_utf8(outside.stdout)
            .unwrap()
            .contains("not in the book")
    );
    let bad = tengen(&["book", "show", "--size", "9", "E5", "E5"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("illegal"));
}

#[test]
fn a_malformed_book_file_is_one_error_line() {
    let dir = scratch("malformed");
    let file = dir.join("bad.txt");
    std::fs::write(
        &file,
        "tengen-book 1\nsize 9\nkomi 7\nrules chinese\nzz B E5 1\n",
    )
    .unwrap();
    let out = tengen(&["book", "show", "--file", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("line 5: key `zz`"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
