//! Runs every `gtp-scripts/**/*.tst` through `tengen regress` at the medium level: a test
//! marked `*` may fail, every other one must pass (and a marked one must not pass unnoticed).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn every_script_passes_at_medium() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("gtp-scripts");
    let output = Command::new(common::tengen_path())
        .args(["regress", "--level", "medium"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let total = stdout
        .lines()
        .find_map(|l| l.strip_prefix("total"))
        .expect("a total line");
    let numbers: Vec<usize> = total
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let [
        tests,
        passed,
        failed,
        unexpected_failures,
        unexpected_passes,
        errors,
    ] = numbers[..]
    else {
        panic!("total line: {total}");
    };
    assert!(tests > 0 && passed > 0, "{stdout}");
    assert_eq!(passed + failed, tests);
    assert_eq!((unexpected_failures, unexpected_passes, errors), (0, 0, 0));
}
