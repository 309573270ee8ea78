//! KaTrain's own engine class (`KataGoEngine`) and game tree (`GameNode`) drive
//! `tengen analysis`, headless (`tests/clients/katrain/drive.py` stubs the GUI toolkit): a
//! query as KaTrain builds it, answered, and taken in by KaTrain's node code. Runs when
//! `TENGEN_KATRAIN_DIR` names unpacked katrain, pysgf and chardet packages, or with
//! `TENGEN_CLIENT_TESTS=1`, which fetches them (`tests/clients/katrain/fetch.sh`, a 106 MB
//! wheel); otherwise `cargo test` reports it ignored (build.rs watches both variables).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
#[cfg_attr(
    not(katrain_tests),
    ignore = "KaTrain not available: set TENGEN_KATRAIN_DIR, or TENGEN_CLIENT_TESTS=1 to fetch it"
)]
fn katrains_engine_class_drives_tengen_analysis() {
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/katrain");
    let dir = common::clients::checkout("TENGEN_KATRAIN_DIR", "katrain", &clients.join("fetch.sh"));
    let output = Command::new("python3")
        .arg(clients.join("drive.py"))
        .arg(common::tengen_path())
        .arg(&dir)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}");
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("ok:"), "{stdout}");
}
