//! The `mcts` level with `--net`: a whole 9x9 game through GTP played by the net's search
//! against itself, every move checked by a referee, and `kata-analyze` with the net's
//! ownership.

mod common;

use common::nets::{self, G170};
use common::{Gtp, tengen_path};

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

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
#[cfg_attr(
    all(test_nets, debug_assertions),
    ignore = "slow in debug: run with --release"
)]
fn the_net_plays_a_whole_game_to_its_passes() {
    let mut engine = net_engine("30");
    let mut referee = Gtp::tengen("medium");
    for gtp in [&mut engine, &mut referee] {
        gtp.ok("boardsize 9");
        gtp.ok("komi 7");
        gtp.ok("clear_board");
    }
    let mut moves = Vec::new();
    let mut ended = false;
    for turn in 0..200 {
        let color = if turn % 2 == 0 { "b" } else { "w" };
        let mv = engine.ok(&format!("genmove {color}")).to_lowercase();
        if mv == "resign" {
            ended = true;
            break;
        }
        referee
            .send(&format!("play {color} {mv}"))
            .unwrap_or_else(|e| panic!("illegal {color} {mv} after {moves:?}: {e}"));
        moves.push(mv);
        if moves.len() >= 2 && moves[moves.len() - 2..] == ["pass", "pass"] {
            ended = true;
            break;
        }
    }
    assert!(ended, "no end in 200 moves: {moves:?}");
    assert!(moves.len() >= 20, "too short a game: {moves:?}");
    // Nobody passes until the board is settled: no pass among the first moves.
    assert!(!moves[..20].contains(&"pass".to_string()), "{moves:?}");
    let score = engine.ok("final_score");
    assert!(
        score.starts_with("B+") || score.starts_with("W+") || score == "0",
        "{score}"
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
fn kata_analyze_reports_the_nets_ownership() {
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
    assert_eq!(owners.len(), 81, "{report}");
    // Black's stone at C7 (row 3 from the top, column 3) is Black's, White's G3 White's.
    assert!(owners[2 * 9 + 2] > 0.5, "{report}");
    assert!(owners[6 * 9 + 6] < -0.5, "{report}");
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
