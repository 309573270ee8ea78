//! `tengen regress` end to end: expected and unexpected failures and passes, `loadsgf` relative
//! to the script, an engine that exits mid-script, and a missing engine.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory under target/tmp holding `files` (name, text).
fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tengen-regress-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

fn regress(args: &[&str], paths: &[PathBuf]) -> (Option<i32>, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(common::tengen_path())
        .arg("regress")
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    (
        status.code(),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

const SCRIPT: &str = "\
# The position loads from the script's directory: C3 is taken, so playing there is refused.
10 loadsgf position.sgf
#? []
11 play w C3
#? []*
# Wrong on purpose: tengen is not called GNU Go.
30 name
#? [GNU Go]
# Marked as failing, but passes.
40 version
#? [!nothing]*
";

#[test]
fn failures_and_unexpected_passes_are_reported_and_fail_the_run() {
    let dir = scratch(
        "mixed",
        &[
            ("mixed.tst", SCRIPT),
            ("position.sgf", "(;GM[1]FF[4]SZ[5]AB[cc]PL[W])"),
        ],
    );
    let (code, stdout, stderr) = regress(&["--level", "easy"], &[dir.join("mixed.tst")]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let has = |needle: &str| lines.iter().any(|l| l.contains(needle));
    assert!(!has(":10  "), "{stdout}");
    assert!(
        has("mixed.tst:11  FAIL (expected)  expected [] got ? illegal move"),
        "{stdout}"
    );
    assert!(
        has("mixed.tst:30  FAIL  expected [GNU Go] got tengen"),
        "{stdout}"
    );
    assert!(has("mixed.tst:40  PASS (expected to fail)"), "{stdout}");
    assert_eq!(totals(&stdout), [4, 2, 2, 1, 1, 0], "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// The numbers of the `total` line: tests, passed, failed, unexpected failures, unexpected
/// passes, errors.
fn totals(stdout: &str) -> Vec<usize> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("total"))
        .expect("a total line");
    line.split_whitespace()
        .skip(1)
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn only_expected_failures_pass_the_run_and_directories_are_searched() {
    let dir = scratch(
        "clean",
        &[
            ("a.tst", "1 play b Z99\n#? []*\n2 name\n#? [tengen]\n"),
            ("notes.txt", "not a script"),
        ],
    );
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("sub/b.tst"),
        "boardsize 9\n3 genmove b\n#? [!PASS]\n",
    )
    .unwrap();
    let (code, stdout, stderr) = regress(&[], std::slice::from_ref(&dir));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("a.tst:1  FAIL (expected)"), "{stdout}");
    let a = stdout.find("a.tst ").unwrap();
    let b = stdout.find("b.tst ").unwrap();
    assert!(a < b, "{stdout}");
    assert_eq!(totals(&stdout), [3, 2, 1, 0, 0, 0], "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_engine_that_exits_fails_the_rest_of_its_file_only() {
    let dir = scratch(
        "dies",
        &[
            (
                "1.tst",
                "1 quit\n#? []\n2 name\n#? [tengen]\n3 version\n#? [.*]\n",
            ),
            ("2.tst", "4 name\n#? [tengen]\n"),
        ],
    );
    let (code, stdout, stderr) = regress(&[], &[dir.join("1.tst"), dir.join("2.tst")]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("1.tst:2  FAIL"), "{stdout}");
    assert!(stdout.contains("1.tst:3  FAIL"), "{stdout}");
    assert!(stdout.contains("the engine exited"), "{stdout}");
    assert!(!stdout.contains("2.tst:4"), "{stdout}");
    assert_eq!(totals(&stdout), [4, 2, 2, 2, 0, 1], "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_missing_engine_or_script_is_one_line_and_exit_2() {
    let dir = scratch("missing", &[("a.tst", "1 name\n#? [tengen]\n")]);
    let (code, stdout, stderr) = regress(
        &["--engine", "/no/such/engine --mode gtp"],
        &[dir.join("a.tst")],
    );
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("/no/such/engine"), "{stderr}");
    let (code, _, stderr) = regress(&[], &[dir.join("nothing.tst")]);
    assert_eq!(code, Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("nothing.tst"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
#[cfg_attr(not(gnugo_tests), ignore = "GNU Go not found: install gnugo")]
fn gnugo_can_be_the_engine() {
    let gnugo = common::gnugo();
    let dir = scratch(
        "gnugo",
        &[("a.tst", "1 name\n#? [GNU Go]\n2 play b Z99\n#? []*\n")],
    );
    let engine = format!("{} --mode gtp", gnugo.display());
    let (code, stdout, stderr) = regress(&["--engine", &engine], &[dir.join("a.tst")]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert_eq!(totals(&stdout), [2, 1, 1, 0, 0, 0], "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}
