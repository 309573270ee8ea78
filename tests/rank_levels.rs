//! The rank levels through the real binary with the real net: each built-in rank plays a whole
//! 19x19 game, refereed and scored by GNU Go, `tengen config` lists them, and a strong rank
//! beats a much weaker one.

mod common;

use std::path::Path;
use std::process::Command;

use common::nets::{self, G170};
use common::temp::TempDir;
use serde_json::Value;

/// The built-in ranks, weakest first.
const RANKS: [&str; 10] = [
    "20k", "15k", "12k", "10k", "8k", "6k", "4k", "2k", "1d", "3d",
];

/// `tengen ARGS` as a command line in a home of its own with the real net as `$KATAGO_MODEL`
/// and no KataGo on `PATH`: what a user who set only that variable runs.
fn in_home(home: &Path, args: &str) -> String {
    format!(
        "env HOME={home} XDG_DATA_HOME={home}/data XDG_CONFIG_HOME={home}/config \
         KATAGO_MODEL={net} PATH=/usr/bin:/bin {tengen} {args}",
        home = home.display(),
        net = nets::net(G170).display(),
        tengen = common::tengen_path(),
    )
}

/// Runs `tengen match ARGS --json` and returns its report.
fn json_match(args: &[&str]) -> Value {
    let output = Command::new(common::tengen_path())
        .arg("match")
        .args(args)
        .arg("--json")
        .output()
        .expect("run tengen match");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "tengen match failed: {stderr}");
    serde_json::from_slice(&output.stdout).expect("a JSON report on stdout")
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
#[cfg_attr(
    all(test_nets, not(gnugo_tests)),
    ignore = "GNU Go not found: install gnugo"
)]
#[cfg_attr(
    all(test_nets, gnugo_tests, debug_assertions),
    ignore = "slow in debug: run with --release"
)]
fn each_rank_level_plays_a_whole_19x19_game_to_its_end() {
    let home = TempDir::new("rank-levels");
    let listing = Command::new("sh")
        .args(["-c", &in_home(home.path(), "config")])
        .output()
        .expect("tengen config");
    let listing = String::from_utf8_lossy(&listing.stdout);
    for rank in RANKS {
        let line = listing
            .lines()
            .find(|l| l.starts_with(&format!("{rank} ")))
            .unwrap_or_else(|| panic!("no {rank} in:\n{listing}"));
        assert!(line.contains(&format!("rank {rank}, net {G170}")), "{line}");
    }
    assert!(
        listing.contains("rank levels: from the policy of"),
        "{listing}"
    );
    let gnugo = common::gnugo();
    let referee = format!("{} --mode gtp --chinese-rules", gnugo.display());
    // Each rank against the next one up: every level plays one game.
    for pair in RANKS.chunks(2) {
        let report = json_match(&[
            "--size",
            "19",
            "--komi",
            "7.5",
            "--games",
            "1",
            "--black",
            &in_home(home.path(), &format!("gtp --level {}", pair[0])),
            "--white",
            &in_home(home.path(), &format!("gtp --level {}", pair[1])),
            "--referee",
            &referee,
        ]);
        let game = &report["games"][0];
        let result = game["result"].as_str().unwrap_or_default();
        let moves = game["moves"].as_u64().unwrap_or_default();
        eprintln!("{} against {}: {result} in {moves} moves", pair[0], pair[1]);
        // A scored end (two passes: a margin) or a late resignation; never a forfeit (`+T`,
        // `+F`) or a short game.
        let how = result
            .strip_prefix("B+")
            .or_else(|| result.strip_prefix("W+"))
            .unwrap_or_else(|| panic!("{pair:?}: {game}"));
        assert!(how == "R" || how.parse::<f64>().is_ok(), "{pair:?}: {game}");
        assert!(moves >= 150, "{pair:?}: a game of {moves} moves: {game}");
    }
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
#[cfg_attr(
    all(test_nets, debug_assertions),
    ignore = "slow in debug: run with --release"
)]
fn a_strong_rank_beats_a_much_weaker_one() {
    let home = TempDir::new("rank-match");
    let config = home.path().join("engines.toml");
    let net = nets::net(G170).display().to_string();
    std::fs::write(
        &config,
        format!(
            "[levels.weak]\nplayer = \"rank\"\nrank = \"20k\"\nnet = {net:?}\nseed = 1\n\n\
             [levels.strong]\nplayer = \"rank\"\nrank = \"3d\"\nnet = {net:?}\nseed = 2\n"
        ),
    )
    .expect("write engines.toml");
    let level = |name: &str| {
        format!(
            "{} gtp --config {} --level {name}",
            common::tengen_path(),
            config.display()
        )
    };
    let report = json_match(&[
        "--size",
        "9",
        "--komi",
        "7",
        "--games",
        "6",
        "--alternate",
        "--black",
        &level("weak"),
        "--white",
        &level("strong"),
    ]);
    let wins = report["summary"]["engines"][1]["total"]["wins"]
        .as_u64()
        .expect("the strong level's wins");
    assert!(wins >= 5, "3d won {wins} of 6 against 20k: {report}");
}
