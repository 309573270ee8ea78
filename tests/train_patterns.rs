//! `tengen train-patterns` end to end: records in, a loadable table and prediction rates out.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use tengen::knowledge::patterns::{Group, PatternTable};

/// A fresh directory under target/tmp, named for the test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tengen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a writable temp dir");
    dir
}

#[test]
fn training_writes_a_table_and_reports_held_out_rates() {
    let dir = temp_dir("train-patterns");
    let records = dir.join("records");
    std::fs::create_dir(&records).unwrap();
    let game = std::fs::read_to_string("tests/data/sgf/katago-9x9-900013.sgf").unwrap();
    std::fs::write(records.join("a.sgf"), &game).unwrap();
    std::fs::write(records.join("b.sgf"), &game).unwrap();
    std::fs::write(records.join("c.sgf"), "(;SZ[9];B[ee];W[ee])").unwrap();
    std::fs::write(records.join("notes.txt"), "not a record").unwrap();
    let table = dir.join("gammas.txt");
    let out = Command::new(common::tengen_path())
        .args([
            "train-patterns",
            "--holdout",
            "3",
            "--iterations",
            "5",
            "-o",
        ])
        .arg(&table)
        .arg(&records)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // a.sgf and b.sgf train; c.sgf (held out) is skipped with a reason.
    assert!(
        stderr.contains("3 files: 2 for training, 1 held out"),
        "{stderr}"
    );
    assert!(stderr.contains("c.sgf"), "{stderr}");
    assert!(stdout.is_empty(), "nothing to predict: {stdout}");
    let loaded = PatternTable::load(&table).expect("the written table loads");
    assert!(
        loaded
            .header()
            .iter()
            .any(|l| l.contains("training games: 2"))
    );
    // The game's moves are mostly near the last one: training must have learned that.
    let near = loaded.group(Group::LastDistance);
    assert!(near[1] > near[16], "{near:?}");

    // Holding out a good game yields a prediction line.
    std::fs::remove_file(records.join("c.sgf")).unwrap();
    let out = Command::new(common::tengen_path())
        .args(["train-patterns", "--holdout", "2", "-o"])
        .arg(&table)
        .arg(records.join("a.sgf"))
        .arg(records.join("b.sgf"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.starts_with("held-out 9x9: 1 games, ") && stdout.contains("top-10"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_record_path_is_one_line_and_exit_code_2() {
    let dir = temp_dir("missing-records");
    let records = dir.join("no-such-records");
    let out = Command::new(common::tengen_path())
        .arg("train-patterns")
        .arg(&records)
        .arg("-o")
        .arg(dir.join("unused.txt"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no-such-records"), "{stderr}");
    assert!(!dir.join("unused.txt").exists());
    std::fs::remove_dir_all(dir).unwrap();
}
