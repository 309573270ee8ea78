//! The `mcts` level with a real net: a whole 9x9 game through GTP played by the net's search
//! against itself, every move refereed and the game scored by GNU Go, and `kata-analyze` with
//! the net's priors and ownership.

mod common;

use common::nets::{self, G170};
use common::{Gtp, margin, tengen_path};

/// tengen at the mcts level with the real net, `visits` a move, one thread.
fn net_engine(visits: &str) -> Gtp {
    let net = nets::net(G170).display().to_string();
    Gtp::spawn(
        tengen_path(),
        &[
            "gtp",
            "--level",
            "mcts",
            "--net",
            &net,
            "--playouts",
            visits,
            "--threads",
            "1",
            "--no-ponder",
        ],
    )
}

/// tengen at a seeded level searching with the real net, 30 visits a move, that never
/// resigns: the same game every run, played to its passes.
fn self_play_engine() -> Gtp {
    let config = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("net-play-{}.toml", std::process::id()));
    let level = format!(
        "[levels.selfplay]\nplayer = \"mcts\"\nnet = {:?}\nplayouts = 30\nthreads = 1\n\
         seed = 1\nresign_threshold = 0\nponder = false\n",
        nets::net(G170).display().to_string()
    );
    std::fs::write(&config, level).expect("write engines.toml");
    let config = config.display().to_string();
    Gtp::spawn(
        tengen_path(),
        &["gtp", "--config", &config, "--level", "selfplay"],
    )
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
fn the_net_plays_a_whole_game_to_its_passes_and_gnu_go_scores_it_alike() {
    let mut engine = self_play_engine();
    let gnugo = common::gnugo();
    let mut referee = Gtp::spawn(
        gnugo.to_str().unwrap(),
        &["--mode", "gtp", "--chinese-rules"],
    );
    for gtp in [&mut engine, &mut referee] {
        gtp.ok("boardsize 9");
        gtp.ok("komi 7");
        gtp.ok("clear_board");
    }
    let mut moves = Vec::new();
    for turn in 0..200 {
        let color = if turn % 2 == 0 { "b" } else { "w" };
        let mv = engine.ok(&format!("genmove {color}")).to_lowercase();
        referee
            .send(&format!("play {color} {mv}"))
            .unwrap_or_else(|e| panic!("GNU Go refused {color} {mv} after {moves:?}: {e}"));
        moves.push(mv);
        if moves.ends_with(&["pass".to_string(), "pass".to_string()]) {
            break;
        }
    }
    assert!(
        moves.ends_with(&["pass".to_string(), "pass".to_string()]),
        "no two passes in 200 moves: {moves:?}"
    );
    assert!(moves.len() >= 20, "too short a game: {moves:?}");
    // Nobody passes until the board is settled: no pass among the first moves.
    assert!(!moves[..20].contains(&"pass".to_string()), "{moves:?}");
    let ours = engine.ok("final_score");
    let theirs = referee.ok("final_score");
    eprintln!("{} moves, tengen {ours}, GNU Go {theirs}", moves.len());
    assert_eq!(
        margin(&ours),
        margin(&theirs),
        "tengen scores {ours}, GNU Go {theirs}; dead stones: tengen [{}], GNU Go [{}]; \
         moves: {moves:?}",
        engine.ok("final_status_list dead"),
        referee.ok("final_status_list dead")
    );
    engine.quit();
    referee.quit();
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
fn kata_analyze_reports_the_nets_priors_and_ownership() {
    let mut engine = net_engine("100");
    engine.ok("boardsize 9");
    // The priors are the net's policy: E5's on the empty board is 0.2434 (kata-raw-nn's,
    // tests/data/nets/g170-b6c96.kata-raw-nn.txt, symmetry 0), within what a symmetry moves it.
    let report = first_report(&mut engine, "kata-analyze b interval 20");
    let e5 = report
        .split("info move ")
        .find(|m| m.starts_with("E5 "))
        .expect("E5 analysed");
    let prior: f64 = e5
        .split_whitespace()
        .skip_while(|w| *w != "prior")
        .nth(1)
        .and_then(|w| w.parse().ok())
        .expect("a prior");
    assert!((prior - 0.2434).abs() < 0.03, "{report}");
    engine.ok("play b C7");
    engine.ok("play w G3");
    let report = first_report(&mut engine, "kata-analyze b interval 20 ownership true");
    assert!(report.starts_with("info move"), "{report}");
    let (moves, ownership) = report.split_once(" ownership ").expect("an ownership part");
    let owners: Vec<f64> = ownership
        .split_whitespace()
        .map(|w| w.parse().expect("a number"))
        .collect();
    // Black's view, as kata-raw-nn's for the same position, averaged over the tree (a mean
    // difference of 0.06 to 0.12 from 20 to 1,000 visits).
    let raw = nets::raw_ownership_for_black(&mut engine);
    nets::assert_near_raw_ownership(&owners, &raw, 0.2, "kata-analyze");
    assert!(
        moves.contains("visits") && moves.contains("scoreLead"),
        "{report}"
    );
    assert_eq!(engine.ok("name"), "tengen");
}

/// The first report of `command`, an analysis then stopped.
fn first_report(engine: &mut Gtp, command: &str) -> String {
    engine.send_raw(&format!("{command}\n"));
    assert_eq!(engine.read_line(), "=");
    let report = engine.read_line();
    engine.send_raw("\n");
    while !engine.read_line().is_empty() {}
    report
}

#[test]
fn a_net_that_does_not_load_leaves_the_plain_mcts() {
    let file =
        std::env::temp_dir().join(format!("tengen-corrupt-net-{}.bin.gz", std::process::id()));
    std::fs::write(&file, b"not a network").expect("write the corrupt net");
    let path = file.display().to_string();
    let mut engine = Gtp::spawn(
        tengen_path(),
        &[
            "gtp",
            "--level",
            "mcts",
            "--net",
            &path,
            "--playouts",
            "50",
            "--threads",
            "1",
        ],
    );
    engine.ok("boardsize 9");
    let mv = engine.ok("genmove b");
    assert!(mv != "resign" && mv.len() >= 2, "{mv}");
    assert!(
        engine.send("kata-raw-nn 0").is_err(),
        "no net to evaluate with"
    );
    engine.quit();
    let _ = std::fs::remove_file(file);
}
