//! gtp2ogs 9's own game and bot code (its `Game`, `Bot` and `PvOutputParser`) plays a few
//! moves with `tengen gtp` as the bot, against a stand-in for OGS's socket
//! (`tests/clients/gtp2ogs/drive.js`): after each of tengen's moves OGS receives one
//! variation for observers, in Leela's format from the plain mcts search and with the lead in
//! KataGo's from the search with a net, and a `MALKOVICH:` chat only where the level has
//! `ogs_chat = true`. Runs when `TENGEN_GTP2OGS_DIR` names a directory laid out as
//! `tests/clients/gtp2ogs/fetch.sh` leaves it, or with `TENGEN_CLIENT_TESTS=1`, which fetches
//! it (git and npm); otherwise `cargo test` reports it ignored (build.rs watches both
//! variables). Needs node.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The levels the game is played at: the plain search with and without `ogs_chat`, and the
/// search with the test net, with it.
fn engines_toml() -> PathBuf {
    let net = common::nets::net(common::nets::G170);
    let text = format!(
        "[levels.quiet]\nplayer = \"mcts\"\nplayouts = 300\nthreads = 1\nbook = false\n\
         [levels.chatty]\nplayer = \"mcts\"\nplayouts = 300\nthreads = 1\nbook = false\n\
         ogs_chat = true\n\
         [levels.net]\nplayer = \"mcts\"\nnet = {net:?}\nplayouts = 30\nthreads = 1\n\
         ogs_chat = true\n"
    );
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gtp2ogs-engines.toml");
    std::fs::write(&file, text).expect("write engines.toml");
    file
}

#[test]
#[cfg_attr(
    not(gtp2ogs_tests),
    ignore = "gtp2ogs not available: set TENGEN_GTP2OGS_DIR, or TENGEN_CLIENT_TESTS=1 to fetch it"
)]
#[cfg_attr(
    all(gtp2ogs_tests, not(test_nets)),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn gtp2ogs_shows_tengens_variations_and_chats_to_observers() {
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/gtp2ogs");
    let dir = common::clients::checkout("TENGEN_GTP2OGS_DIR", "gtp2ogs", &clients.join("fetch.sh"));
    let config = engines_toml();
    // Level, whether its variations carry the lead, whether it chats.
    for (level, score, chat) in [("quiet", "0", "0"), ("chatty", "0", "1"), ("net", "1", "1")] {
        let output = Command::new("node")
            .arg(clients.join("drive.js"))
            .arg(common::tengen_path())
            .arg(&dir)
            .arg(&config)
            .args([level, score, chat])
            .output()
            .expect("run node");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        eprintln!("level {level}:\n{stdout}");
        assert!(output.status.success(), "{level}: {stdout}\n{stderr}");
        assert!(stdout.contains("all checks passed"), "{level}: {stdout}");
    }
}
