//! `lz-analyze` and `kata-analyze` over a real pipe: `=`, report lines until the next input
//! line (a command or a bare newline), the blank line, then that command's answer.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Reads one line without its newline.
fn line(out: &mut BufReader<ChildStdout>) -> String {
    let mut text = String::new();
    out.read_line(&mut text).expect("read stdout");
    assert!(!text.is_empty(), "tengen closed stdout");
    text.trim_end_matches(['\n', '\r']).to_string()
}

/// The `(move, visits, winrate)` triples of a report line.
fn infos(report: &str) -> Vec<(String, u64, f64)> {
    report
        .split("info ")
        .filter(|part| !part.trim().is_empty())
        .map(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            let value = |key: &str| {
                let at = words.iter().position(|w| *w == key).expect(key);
                words[at + 1].to_string()
            };
            (
                value("move"),
                value("visits").parse().unwrap(),
                value("winrate").parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn analysis_streams_until_any_input_line() {
    let mut child = Command::new(common::tengen_path())
        .args(["gtp", "--level", "medium"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut send = move |text: &str| {
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    send("boardsize 9\nplay b E5\n");
    for _ in 0..4 {
        line(&mut out);
    }
    for (command, stopper, integer_rates) in [
        ("7 lz-analyze W 10", "\n", true),
        (
            "kata-analyze interval 10 maxmoves 4",
            "8 protocol_version\n",
            false,
        ),
    ] {
        send(&format!("{command}\n"));
        let head = line(&mut out);
        assert_eq!(head, if integer_rates { "=7" } else { "=" });
        // Three reports, each a line of `info move …`, the most visited first.
        for _ in 0..3 {
            let report = line(&mut out);
            let moves = infos(&report);
            assert!(!moves.is_empty(), "{report}");
            assert!(moves.iter().all(|(mv, _, _)| mv != "E5"), "{report}");
            assert!(moves.windows(2).all(|w| w[0].1 >= w[1].1), "{report}");
            for (_, _, rate) in &moves {
                if integer_rates {
                    assert!(rate.fract() == 0.0 && *rate <= 10_000.0, "{report}");
                } else {
                    assert!((0.0..=1.0).contains(rate), "{report}");
                }
            }
            if !integer_rates {
                assert!(moves.len() <= 4, "{report}");
            }
        }
        let stopped = Instant::now();
        send(stopper);
        // Reports may still arrive until the stop is seen; then the blank line ends the stream.
        loop {
            let text = line(&mut out);
            if text.is_empty() {
                break;
            }
            assert!(text.starts_with("info move"), "{text}");
        }
        eprintln!(
            "{command}: stream ended {:?} after the stopping line",
            stopped.elapsed()
        );
        if stopper != "\n" {
            assert_eq!(line(&mut out), "=8 2");
            assert_eq!(line(&mut out), "");
        }
    }
    // A bad argument is an ordinary error, and the session goes on.
    send("lz-analyze b 10 frobnicate\nname\n");
    assert_eq!(line(&mut out), "? syntax error");
    assert_eq!(line(&mut out), "");
    assert_eq!(line(&mut out), "= tengen");
    assert_eq!(line(&mut out), "");
    // An analysis stopped at once by a line already on its way still ends properly.
    send("lz-analyze b 100\nname\n");
    let deadline = Instant::now() + Duration::from_secs(30);
    assert_eq!(line(&mut out), "=");
    loop {
        assert!(Instant::now() < deadline, "the analysis did not stop");
        if line(&mut out).is_empty() {
            break;
        }
    }
    assert_eq!(line(&mut out), "= tengen");
    drop(send);
    assert!(child.wait().unwrap().success());
}

#[test]
fn analysis_commands_are_listed() {
    let mut engine = common::Gtp::tengen("medium");
    let list = engine.ok("list_commands");
    assert!(list.lines().any(|l| l == "lz-analyze"));
    assert!(list.lines().any(|l| l == "kata-analyze"));
    assert_eq!(engine.ok("known_command kata-analyze"), "true");
}

#[test]
fn genmove_analyze_plays_the_levels_move() {
    let mut engine = common::Gtp::tengen("medium");
    engine.ok("boardsize 9");
    engine.send_raw("4 lz-genmove_analyze b 10\n");
    assert_eq!(engine.read_line(), "=4");
    let play = engine.read_line();
    let vertex = play.strip_prefix("play ").expect("a play line");
    assert_eq!(engine.read_line(), "");
    // The move was played.
    assert_eq!(
        engine.send(&format!("play w {vertex}")),
        Err("illegal move".into())
    );
    engine.send_raw("kata-genmove_analyze q\n");
    assert_eq!(engine.read_line(), "? syntax error");
    assert_eq!(engine.read_line(), "");
    let list = engine.ok("list_commands");
    assert!(list.lines().any(|l| l == "kata-genmove_analyze"));
}

#[test]
fn gogui_views_share_one_search() {
    let mut engine = common::Gtp::tengen("medium");
    engine.ok("boardsize 9");
    engine.ok("play b E5");
    let commands = engine.ok("gogui-analyze_commands");
    let names: Vec<&str> = commands
        .lines()
        .map(|l| l.split('/').nth(2).unwrap().split(' ').next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "tengen-ownership",
            "tengen-visits",
            "tengen-pv",
            "tengen-winrate"
        ]
    );
    // The views are drawn from one search of the position, so they agree with each other:
    // the visits add up to the playouts the win rate counts, the best move heads the visits
    // and the line, and the win rate asked again is the same text. A search per view would
    // run for its own time and count other playouts.
    let winrate = engine.ok("tengen-winrate w");
    let playouts: u64 = winrate
        .split_once(" (")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no playouts in {winrate}"));
    let best = winrate
        .strip_prefix("White: ")
        .and_then(|rest| rest.split(" with ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no best move in {winrate}"))
        .to_string();
    let visits = engine.ok("tengen-visits w");
    let words: Vec<&str> = visits.split(' ').collect();
    let counted: u64 = words
        .iter()
        .skip(1)
        .step_by(2)
        .map(|n| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(counted, playouts, "visits {visits}\nwin rate {winrate}");
    assert_eq!(words[0], best, "{visits}");
    let pv = engine.ok("tengen-pv w");
    assert_eq!(
        pv.split(' ').take(2).collect::<Vec<_>>(),
        ["w", &best],
        "{pv}"
    );
    let ownership = engine.ok("tengen-ownership w");
    let rows: Vec<Vec<f64>> = ownership
        .lines()
        .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 9);
    assert!(rows.iter().all(|r| r.len() == 9));
    // E5 (row 5 from the top, column 5) holds Black's stone.
    assert!(rows[4][4] > 0.5, "{ownership}");
    assert_eq!(engine.ok("tengen-winrate w"), winrate);
    assert_eq!(engine.ok("tengen-visits w"), visits);
}

#[test]
fn a_search_level_reports_its_root_moves_in_genmove_analyze() {
    let mut engine = common::Gtp::spawn(
        common::tengen_path(),
        &[
            "gtp",
            "--level",
            "mcts",
            "--playouts",
            "500",
            "--threads",
            "1",
        ],
    );
    engine.ok("boardsize 9");
    engine.send_raw("lz-genmove_analyze b 10\n");
    assert_eq!(engine.read_line(), "=");
    let info = engine.read_line();
    assert!(info.starts_with("info move "), "{info}");
    let moves = infos(&info);
    let most = moves.iter().map(|m| m.1).max().unwrap();
    let play = engine.read_line();
    let played = play.strip_prefix("play ").expect("a play line");
    // The move played is a most visited one (ties may go either way).
    assert!(
        moves.iter().any(|m| m.0 == played && m.1 == most),
        "{played} is not a most visited move: {info}"
    );
    assert_eq!(engine.read_line(), "");
}

#[test]
fn closing_stdin_ends_a_running_analysis_and_the_engine() {
    let mut engine = common::Gtp::tengen("medium");
    engine.ok("boardsize 9");
    engine.send_raw("lz-analyze b 10\n");
    assert_eq!(engine.read_line(), "=");
    assert!(engine.read_line().starts_with("info move "));
    // The GUI goes away: no more input, ever.
    assert_eq!(engine.close(), Some(0));
}
