//! Numbers from outside (GTP arguments, SGF properties, analysis queries, engines.toml, the
//! command line) are checked at the edge: out of range is a clear error, never a panic, a
//! runaway allocation or an endless think (issue 33). Each test drives the real binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Gtp;

/// Every clock time above a day (or not finite) is `? syntax error`, the clock is left as it
/// was, and the next genmove answers with a move.
#[test]
fn clock_times_are_at_most_a_day() {
    for command in [
        "time_settings 1e300 0 0",
        "time_settings 1e21 0 0",
        "time_settings 5e20 0 0",
        "time_settings 0 1e300 1",
        "time_settings 86401 0 0",
        "time_settings nan 0 0",
        "kgs-time_settings absolute 1e300",
        "kgs-time_settings byoyomi 0 1e300 1",
        "kgs-time_settings canadian 1e300 0 1",
        "time_left b 1e308 0",
        "time_left w inf 0",
    ] {
        let mut engine = Gtp::tengen("easy");
        engine.ok("boardsize 9");
        assert_eq!(
            engine.send(command),
            Err("syntax error".into()),
            "{command}"
        );
        let answer = engine.ok("genmove b");
        assert!(!answer.is_empty(), "{command}: {answer}");
        assert_eq!(engine.quit(), Some(0), "{command}");
    }
    let mut engine = Gtp::tengen("easy");
    engine.ok("boardsize 9");
    for command in [
        "time_settings 86400 86400 25",
        "kgs-time_settings byoyomi 86400 86400 5",
        "time_left b 86400 0",
        "time_left w -3 0",
    ] {
        engine.ok(command);
        engine.ok("genmove b");
    }
    assert_eq!(engine.quit(), Some(0));
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("numbers-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `loadsgf` refuses a komi beyond 1000, a FIFO (without blocking), a file over 4 MiB and trees
/// over its bounds, with `? cannot load file`, and the game stays as it was.
#[test]
fn loadsgf_is_bounded() {
    let dir = scratch("sgf");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let fifo = dir.join("fifo.sgf");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut files = vec![
        write("komi.sgf", "(;SZ[9]KM[1e308];B[ee])"),
        write("komi-nan.sgf", "(;SZ[9]KM[nan];B[ee])"),
        write(
            "large.sgf",
            &format!("(;SZ[9]C[{}];B[ee])", "x".repeat(5 << 20)),
        ),
        write(
            "comment.sgf",
            &format!("(;SZ[9]C[{}];B[ee])", "x".repeat(300_000)),
        ),
        write(
            "variations.sgf",
            &format!("(;SZ[9]{})", "(;B[ee])".repeat(20_000)),
        ),
        write(
            "nodes.sgf",
            &format!(
                "(;SZ[9]{})",
                format!("(;B[ee]{})", ";W[cc];B[dd]".repeat(12)).repeat(5_000)
            ),
        ),
        dir.clone(),
    ];
    if made.is_ok_and(|s| s.success()) {
        files.push(fifo);
    }
    let good = write("good.sgf", "(;SZ[9]KM[1000];B[ee])");
    let mut engine = Gtp::tengen("easy");
    engine.ok(&format!("loadsgf {}", good.display()));
    assert_eq!(engine.ok("final_score"), "W+919");
    for file in &files {
        assert_eq!(
            engine.send(&format!("loadsgf {}", file.display())),
            Err("cannot load file".into()),
            "{}",
            file.display()
        );
        assert_eq!(engine.ok("final_score"), "W+919", "{}", file.display());
    }
    assert_eq!(engine.quit(), Some(0));
}
