//! Where a client test finds the client's code: the directory an environment variable names,
//! else a copy fetched once by the client's `fetch.sh` into the tests' temporary directory
//! (with `TENGEN_CLIENT_TESTS=1`; build.rs switches the test on with either variable).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The file a whole fetch leaves in its directory, written once `fetch.sh` has succeeded.
const FETCHED: &str = ".fetched";

/// The directory `variable` names, else `name` under the tests' temporary directory, fetched
/// there by the shell script `fetch` (given the directory) unless a whole fetch is there
/// already; a fetch cut short is started again from nothing.
pub fn checkout(variable: &str, name: &str, fetch: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os(variable).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    assert_eq!(
        std::env::var("TENGEN_CLIENT_TESTS").as_deref(),
        Ok("1"),
        "neither {variable} nor TENGEN_CLIENT_TESTS=1 is set"
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if !dir.join(FETCHED).is_file() {
        let _ = std::fs::remove_dir_all(&dir);
        let fetched = Command::new("sh")
            .arg(fetch)
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            fetched,
            "{} could not get {name} (TENGEN_CLIENT_TESTS=1)",
            fetch.display()
        );
        std::fs::write(dir.join(FETCHED), "").expect("mark the fetch whole");
    }
    dir
}
