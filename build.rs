//! Names the commit the binary is built from, and tells the tests which external programs and
//! files they can use, so that a test whose program or file is absent is reported `ignored,
//! <reason>` by `cargo test` instead of passing without running.
//!
//! `TENGEN_BUILD_SOURCE` (`tengen --version` prints it) is `commit 1a2b3c4` when the package is
//! the top of a git work tree, `commit 1a2b3c4, modified` when the files the binary is built from
//! ([`SOURCES`]) differ from that commit, and `built outside git` otherwise (a crate, a tarball,
//! no `git`). The stamp is taken when the script runs, which it does when a file of [`SOURCES`]
//! changes, not when HEAD moves, since cargo rebuilds the whole crate each time its build
//! script reruns, whatever it prints (rust-lang/cargo#3404): watching HEAD would rebuild
//! everything on every commit. A commit that leaves [`SOURCES`] alone keeps the binary and its
//! stamp, which stays true: the commit it names has the sources the binary was built from
//! (with `, modified`, those plus changes, still so once the changes are committed).
//!
//! Each cfg below switches on one group of tests (they carry
//! `#[cfg_attr(not(CFG), ignore = "...")]`):
//!
//! - `gnugo_tests`: GNU Go was found (on PATH or in /usr/games); its path reaches the tests as
//!   the compile-time variable `TENGEN_TEST_GNUGO`. With `TENGEN_REQUIRE_EXTERNAL=1` (CI) the
//!   cfg is set even without GNU Go, so that its tests run and fail.
//! - `chromium_tests`: both `chromium` and `chromedriver` were found on PATH (Debian's
//!   `chromium` and `chromium-driver` packages); their paths reach the browser test as
//!   `TENGEN_TEST_CHROMIUM` and `TENGEN_TEST_CHROMEDRIVER`. With `TENGEN_REQUIRE_EXTERNAL=1` the
//!   cfg is set even without them, so that the test runs and fails.
//! - `postgres_tests`: PostgreSQL's `initdb` and `pg_ctl` were found (on PATH, or in the
//!   newest /usr/lib/postgresql/*/bin, where Debian's `postgresql` package puts them); their
//!   directory reaches the tests as `TENGEN_TEST_PG_BIN`. With `TENGEN_REQUIRE_EXTERNAL=1`
//!   the cfg is set even without them, so that the tests run and fail.
//! - `haproxy_tests`: `haproxy` was found (on PATH or in /usr/sbin, where Debian's package
//!   puts it); its path reaches the tests as `TENGEN_TEST_HAPROXY`. With
//!   `TENGEN_REQUIRE_EXTERNAL=1` the cfg is set even without it, so that the tests run and fail.
//! - `test_nets`: the directory of real networks holds [`TEST_NET`]. The directory is
//!   `TENGEN_TEST_NETS` (relative to the package root), by default `../shared/nets` beside the
//!   package; its absolute path reaches the tests as the compile-time variable
//!   `TENGEN_TEST_NETS`, set with or without the net. With `TENGEN_REQUIRE_EXTERNAL=1` the cfg
//!   is set even without the net, so that its tests run and fail.
//! - `transformer_net_tests`: the nets directory holds [`TRANSFORMER_NET`], KataGo's transformer
//!   net; not required in CI, whose directory lacks it.
//! - `katago_tests`: `TENGEN_KATAGO` holds a KataGo command line.
//! - `katrain_tests`: `TENGEN_KATRAIN_DIR` names unpacked KaTrain packages, or
//!   `TENGEN_CLIENT_TESTS=1` (which downloads them).
//! - `sabaki_tests`: `TENGEN_CLIENT_TESTS=1` (needs node; npm downloads @sabaki/gtp).
//! - `gtp2ogs_tests`: `TENGEN_GTP2OGS_DIR` names gtp2ogs's sources with their packages, or
//!   `TENGEN_CLIENT_TESTS=1` (which downloads them; needs node).
//!
//! The script reruns when these variables or PATH change, and when the GNU Go it found changes
//! or (where it found none) when /usr/games does; likewise chromium and chromedriver, and
//! /usr/bin where they are missing. GNU Go installed elsewhere on an unchanged PATH, or the
//! browser outside /usr/bin, is only seen after `touch build.rs`. The net is watched where it
//! is, else its directory; a nets directory created later is only seen after `touch build.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The cfgs this script may set.
const CFGS: [&str; 10] = [
    "gnugo_tests",
    "test_nets",
    "transformer_net_tests",
    "chromium_tests",
    "postgres_tests",
    "haproxy_tests",
    "katago_tests",
    "katrain_tests",
    "sabaki_tests",
    "gtp2ogs_tests",
];

/// The real network the tests read from the nets directory (a file of KataGo's, not kept in
/// the repository).
const TEST_NET: &str = "g170-b6c96.bin.gz";

/// KataGo's transformer net, tested where the nets directory holds it (CI's does not).
const TRANSFORMER_NET: &str = "b10c384h6nbttflrs.bin.gz";

/// The files and folders the `tengen` binary is built from (relative to the package root).
const SOURCES: [&str; 6] = [
    "src",
    "book",
    "engines.toml",
    "build.rs",
    "Cargo.toml",
    "Cargo.lock",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let source = git_source().unwrap_or_else(|| "built outside git".into());
    println!("cargo::rustc-env=TENGEN_BUILD_SOURCE={source}");
    for cfg in CFGS {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    let env_is = |name: &str, value: &str| {
        println!("cargo::rerun-if-env-changed={name}");
        std::env::var(name).as_deref() == Ok(value)
    };
    let env_set = |name: &str| {
        println!("cargo::rerun-if-env-changed={name}");
        std::env::var_os(name).is_some_and(|v| !v.is_empty())
    };

    println!("cargo::rerun-if-env-changed=PATH");
    match find_gnugo() {
        Some(path) => {
            println!("cargo::rerun-if-changed={}", path.display());
            println!("cargo::rustc-env=TENGEN_TEST_GNUGO={}", path.display());
            enable("gnugo_tests");
        }
        None => {
            // Watched only here: with GNU Go present the variable changes nothing, and a
            // change of a watched variable rebuilds the crate.
            if Path::new("/usr/games").is_dir() {
                println!("cargo::rerun-if-changed=/usr/games");
            }
            if env_is("TENGEN_REQUIRE_EXTERNAL", "1") {
                enable("gnugo_tests");
            }
        }
    }
    let browser = (find_on_path("chromium"), find_on_path("chromedriver"));
    if let (Some(chromium), Some(driver)) = &browser {
        println!("cargo::rerun-if-changed={}", chromium.display());
        println!("cargo::rerun-if-changed={}", driver.display());
        println!(
            "cargo::rustc-env=TENGEN_TEST_CHROMIUM={}",
            chromium.display()
        );
        println!(
            "cargo::rustc-env=TENGEN_TEST_CHROMEDRIVER={}",
            driver.display()
        );
        enable("chromium_tests");
    } else {
        // Where apt puts them: watched so that installing them is seen without a touch.
        if Path::new("/usr/bin").is_dir() {
            println!("cargo::rerun-if-changed=/usr/bin");
        }
        if env_is("TENGEN_REQUIRE_EXTERNAL", "1") {
            enable("chromium_tests");
        }
    }
    match find_postgres() {
        Some(bin) => {
            println!("cargo::rerun-if-changed={}", bin.display());
            println!("cargo::rustc-env=TENGEN_TEST_PG_BIN={}", bin.display());
            enable("postgres_tests");
        }
        None => {
            if Path::new("/usr/lib").is_dir() {
                println!("cargo::rerun-if-changed=/usr/lib");
            }
            if env_is("TENGEN_REQUIRE_EXTERNAL", "1") {
                enable("postgres_tests");
            }
        }
    }
    let haproxy = find_on_path("haproxy")
        .or_else(|| Some(PathBuf::from("/usr/sbin/haproxy")).filter(|p| is_executable(p)));
    match haproxy {
        Some(haproxy) => {
            println!("cargo::rerun-if-changed={}", haproxy.display());
            println!("cargo::rustc-env=TENGEN_TEST_HAPROXY={}", haproxy.display());
            enable("haproxy_tests");
        }
        None => {
            if Path::new("/usr/sbin").is_dir() {
                println!("cargo::rerun-if-changed=/usr/sbin");
            }
            if env_is("TENGEN_REQUIRE_EXTERNAL", "1") {
                enable("haproxy_tests");
            }
        }
    }
    let nets = test_nets_dir();
    println!("cargo::rustc-env=TENGEN_TEST_NETS={}", nets.display());
    let net = nets.join(TEST_NET);
    if net.is_file() {
        println!("cargo::rerun-if-changed={}", net.display());
        enable("test_nets");
    } else {
        if nets.is_dir() {
            println!("cargo::rerun-if-changed={}", nets.display());
        }
        if env_is("TENGEN_REQUIRE_EXTERNAL", "1") {
            enable("test_nets");
        }
    }
    let transformer = nets.join(TRANSFORMER_NET);
    if transformer.is_file() {
        println!("cargo::rerun-if-changed={}", transformer.display());
        enable("transformer_net_tests");
    }
    if env_set("TENGEN_KATAGO") {
        enable("katago_tests");
    }
    let client_tests = env_is("TENGEN_CLIENT_TESTS", "1");
    if env_set("TENGEN_KATRAIN_DIR") || client_tests {
        enable("katrain_tests");
    }
    if client_tests {
        enable("sabaki_tests");
    }
    if env_set("TENGEN_GTP2OGS_DIR") || client_tests {
        enable("gtp2ogs_tests");
    }
}

/// `commit HASH` or `commit HASH, modified` when the package is the top of a git work tree
/// (whose [`SOURCES`] it watches for the next build); `None` outside one or without `git`.
fn git_source() -> Option<String> {
    let package = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?)
        .canonicalize()
        .ok()?;
    // A crate unpacked inside some other repository is outside git here.
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != package {
        return None;
    }
    // A missing path would rerun the script on every build.
    for path in SOURCES.iter().filter(|p| Path::new(p).exists()) {
        println!("cargo::rerun-if-changed={path}");
    }
    let commit = git(&["rev-parse", "--short", "HEAD"])?;
    let changes = git(&[&["status", "--porcelain", "--"][..], &SOURCES[..]].concat())?;
    Some(if changes.is_empty() {
        format!("commit {commit}")
    } else {
        format!("commit {commit}, modified")
    })
}

/// The directory of the real networks: `TENGEN_TEST_NETS` (relative to the package root, where
/// cargo runs this script), else `../shared/nets`; absolute where it exists.
fn test_nets_dir() -> PathBuf {
    println!("cargo::rerun-if-env-changed=TENGEN_TEST_NETS");
    let package = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = match std::env::var_os("TENGEN_TEST_NETS").filter(|d| !d.is_empty()) {
        Some(dir) => package.join(dir),
        None => package.join("../shared/nets"),
    };
    dir.canonicalize().unwrap_or(dir)
}

/// What `git ARGS` prints, trimmed, when it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    output.status.success().then(|| text.trim().to_owned())
}

fn enable(cfg: &str) {
    println!("cargo::rustc-cfg={cfg}");
}

/// `gnugo` on PATH, else in /usr/games (where Debian puts it, off most users' PATH).
fn find_gnugo() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join("gnugo"))
        .find(|p| is_executable(p))
}

/// The directory that holds PostgreSQL's `initdb` and `pg_ctl`: on PATH, else the newest
/// /usr/lib/postgresql/VERSION/bin.
fn find_postgres() -> Option<PathBuf> {
    let has_both =
        |dir: &Path| is_executable(&dir.join("initdb")) && is_executable(&dir.join("pg_ctl"));
    if let Some(initdb) = find_on_path("initdb")
        && let Some(dir) = initdb.parent()
        && has_both(dir)
    {
        return Some(dir.to_path_buf());
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| has_both(bin))
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// `name` in a directory of PATH.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
