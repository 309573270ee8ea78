//! Sabaki's own GTP library (`@sabaki/gtp`) drives `tengen gtp`: pipelined start-up, state
//! sync with handicap and a switch to another line, genmove_analyze, and the analysis command
//! Sabaki picks, stopped by `protocol_version` and parsed with Sabaki's dialect rules. The
//! driver is `tests/clients/sabaki/drive.js`. Needs node; the library is installed with npm
//! into `tests/clients/sabaki/node_modules` on first use. As that download needs a network,
//! the test is opt-in: `cargo test` reports it ignored unless `TENGEN_CLIENT_TESTS=1` (read by
//! build.rs), and then fails without node or the library.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whether `program --version` runs.
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `npm install` in `dir`, given at most [`NPM_LIMIT`]: without a network it must fail fast
/// rather than hold the test suite.
fn npm_install(dir: &Path) -> bool {
    let Ok(mut child) = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--no-package-lock"])
        .args(["--fetch-retries=0", "--fetch-timeout=20000"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let started = Instant::now();
    while started.elapsed() < NPM_LIMIT {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// The longest `npm install` waited for.
const NPM_LIMIT: Duration = Duration::from_secs(90);

#[test]
#[cfg_attr(
    not(sabaki_tests),
    ignore = "Sabaki client test is opt-in: TENGEN_CLIENT_TESTS=1 (needs node and npm)"
)]
fn sabaki_drives_tengen() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/sabaki");
    assert!(runs("node"), "node not found (TENGEN_CLIENT_TESTS=1)");
    if !dir.join("node_modules/@sabaki/gtp").is_dir() {
        let installed = runs("npm") && npm_install(&dir);
        assert!(
            installed,
            "npm could not install @sabaki/gtp (TENGEN_CLIENT_TESTS=1)"
        );
    }
    let output = Command::new("node")
        .arg("drive.js")
        .arg(common::tengen_path())
        .current_dir(&dir)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}");
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("all checks passed"), "{stdout}");
}
