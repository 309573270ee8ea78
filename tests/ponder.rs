//! Pondering through the real binary: under a clock, `--ponder` makes the `mcts` level think
//! between its move and the next command, on the position it expects, and keep the subtree of
//! the move played; any line stops it.

mod common;

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{Gtp, tengen_path};

/// tengen at the `mcts` level on one thread with `extra` arguments, its info log in a file.
fn tengen_logged(name: &str, extra: &[&str]) -> (Gtp, PathBuf) {
    let dir = std::env::temp_dir().join(format!("tengen-ponder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join(format!("{name}.log"));
    let child = Command::new(tengen_path())
        .args(["gtp", "--level", "mcts", "--threads", "1"])
        .args(extra)
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(File::create(&log).unwrap())
        .spawn()
        .unwrap();
    (Gtp::from_child(child), log)
}

/// A new 9x9 game under `time`, at komi 7.5: off the opening book, so that every genmove
/// searches.
fn new_game(e: &mut Gtp, time: &str) {
    for command in ["boardsize 9", "clear_board", "komi 7.5", time] {
        e.ok(command);
    }
}

/// The log lines of the ponders, and the move each expected.
fn ponders(log: &PathBuf) -> Vec<(u64, String)> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let rest = line.split("mcts: pondered ").nth(1)?;
            let playouts = rest.split(' ').next()?.parse().ok()?;
            let expected = rest.split("expecting ").nth(1)?.split(' ').next()?;
            Some((playouts, expected.to_string()))
        })
        .collect()
}

#[test]
fn ponders_on_the_opponents_time_and_keeps_the_subtree_played() {
    let (mut e, log) = tengen_logged("ponder", &["--ponder"]);
    new_game(&mut e, "time_settings 60 0 0");
    let first = e.ok("genmove b");
    sleep(Duration::from_millis(700));
    // Any line ends the ponder at once (a loose bound: it would otherwise run a minute).
    let asked = Instant::now();
    assert_eq!(e.ok("name"), "tengen");
    assert!(asked.elapsed() < Duration::from_secs(5));
    let seen = ponders(&log);
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (playouts, expected) = &seen[0];
    assert!(*playouts > 0);
    assert_ne!(expected, &first);
    // The opponent plays the move expected: the next search starts from its subtree.
    e.ok(&format!("play w {expected}"));
    e.ok("genmove b");
    assert_eq!(e.quit(), Some(0));
    let text = std::fs::read_to_string(&log).unwrap();
    let second = text
        .lines()
        .filter(|l| l.contains("mcts: ") && l.contains(" after "))
        .nth(1)
        .expect("a second search");
    let kept: u64 = second
        .split(" visits kept")
        .next()
        .and_then(|before| before.rsplit(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no visits kept: {second}"));
    assert!(kept > 0, "{second}");
}

#[test]
fn no_ponder_without_a_clock_or_with_no_ponder() {
    let (mut e, log) = tengen_logged("no-clock", &["--ponder", "--playouts", "500"]);
    new_game(&mut e, "time_settings 0 1 0");
    e.ok("genmove b");
    sleep(Duration::from_millis(300));
    e.ok("genmove w");
    assert_eq!(e.quit(), Some(0));
    assert!(ponders(&log).is_empty());

    let (mut e, log) = tengen_logged("no-ponder", &["--no-ponder"]);
    new_game(&mut e, "time_settings 30 0 0");
    e.ok("genmove b");
    sleep(Duration::from_millis(300));
    e.ok("genmove w");
    assert_eq!(e.quit(), Some(0));
    assert!(ponders(&log).is_empty());
}

#[test]
fn the_end_of_input_ends_a_ponder() {
    let (mut e, log) = tengen_logged("eof", &["--ponder"]);
    new_game(&mut e, "time_settings 60 0 0");
    e.ok("genmove b");
    sleep(Duration::from_millis(300));
    // A loose bound against a ponder that outlives its controller.
    let closed = Instant::now();
    assert_eq!(e.close(), Some(0));
    assert!(closed.elapsed() < Duration::from_secs(10));
    assert_eq!(ponders(&log).len(), 1);
}
