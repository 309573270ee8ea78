//! `tengen match` driving real engines: tengen's own levels, GNU Go, and a fake engine that
//! crashes, hangs or plays illegal moves.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use tengen::rules::game::Rules;
use tengen::rules::sgf;

/// `tengen gtp --level LEVEL` as a command line.
fn tengen_level(level: &str) -> String {
    format!("{} gtp --level {level}", common::tengen_path())
}

/// The fake engine in `mode` failing at its `k`-th genmove.
fn fake(mode: &str, k: u32) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-engine.sh");
    format!("sh {} {mode} {k}", script.display())
}

/// Runs `tengen match ARGS`.
fn run_match(args: &[&str]) -> Output {
    Command::new(common::tengen_path())
        .arg("match")
        .args(args)
        .output()
        .expect("run tengen match")
}

/// Runs a match that must succeed and returns its JSON report.
fn json_match(args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    let output = run_match(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "tengen match failed: {stderr}");
    serde_json::from_slice(&output.stdout).expect("a JSON report on stdout")
}

/// Engine `e`'s (0 = A, 1 = B) value at `path` in the summary.
fn engine_stat(report: &Value, e: usize, path: &[&str]) -> u64 {
    let mut v = &report["summary"]["engines"][e];
    for key in path {
        v = &v[key];
    }
    v.as_u64()
        .unwrap_or_else(|| panic!("no {path:?} in {report}"))
}

/// A fresh empty directory under the target dir.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn medium_beats_easy_and_every_game_is_recorded() {
    let dir = scratch_dir("match-easy-medium");
    let report = json_match(&[
        "--black",
        &tengen_level("easy"),
        "--white",
        &tengen_level("medium"),
        "--games",
        "4",
        "--alternate",
        "--concurrency",
        "2",
        "--sgf-dir",
        dir.to_str().unwrap(),
    ]);
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    let easy_wins = engine_stat(&report, 0, &["total", "wins"]);
    let medium_wins = engine_stat(&report, 1, &["total", "wins"]);
    assert!(
        medium_wins > easy_wins,
        "medium {medium_wins}, easy {easy_wins}"
    );
    // Alternating colours: each engine had Black twice.
    assert_eq!(
        engine_stat(&report, 0, &["as_black", "losses"])
            + engine_stat(&report, 0, &["as_black", "wins"])
            + engine_stat(&report, 0, &["as_black", "draws"]),
        2
    );
    for game in games {
        let number = game["number"].as_u64().unwrap();
        let path = dir.join(format!("game-{number:04}.sgf"));
        let text = std::fs::read_to_string(&path).expect("an SGF per game");
        let result = game["result"].as_str().unwrap();
        assert!(text.contains(&format!("RE[{result}]")), "{text}");
        let loaded = sgf::load_game(&text, None, Rules::chinese(7.0)).expect("the SGF loads");
        assert_eq!(loaded.moves().len() as u64, game["moves"].as_u64().unwrap());
        let a_is_black = game["a_is_black"].as_bool().unwrap();
        assert_eq!(a_is_black, number % 2 == 1, "game {number}");
    }
}

#[test]
fn a_crashing_engine_loses_its_games_and_the_match_goes_on() {
    let report = json_match(&[
        "--black",
        &fake("crash", 3),
        "--white",
        &tengen_level("easy"),
        "--games",
        "3",
        "--alternate",
    ]);
    assert_eq!(report["games"].as_array().unwrap().len(), 3);
    assert_eq!(engine_stat(&report, 0, &["faults", "crashes"]), 3);
    assert_eq!(engine_stat(&report, 1, &["total", "wins"]), 3);
    for game in report["games"].as_array().unwrap() {
        let result = game["result"].as_str().unwrap();
        assert!(result.ends_with("+F"), "{result}");
    }
}

/// The hanging engine waits out the timeout of its second move in each game; `easy` answers
/// every command in milliseconds, so 5 s leaves it more than ten times what it needs on a
/// busy machine.
#[test]
fn a_hanging_engine_loses_on_time() {
    let report = json_match(&[
        "--black",
        &tengen_level("easy"),
        "--white",
        &fake("hang", 2),
        "--games",
        "2",
        "--move-timeout",
        "5",
    ]);
    assert_eq!(engine_stat(&report, 1, &["faults", "timeouts"]), 2);
    assert_eq!(engine_stat(&report, 0, &["total", "wins"]), 2);
    let result = report["games"][0]["result"].as_str().unwrap();
    assert_eq!(result, "B+T");
}

#[test]
fn an_illegal_move_loses_and_garbage_on_stdout_is_skipped() {
    // Passes, then answers the point White has just taken.
    let report = json_match(&[
        "--black",
        &fake("illegal", 2),
        "--white",
        &tengen_level("easy"),
        "--games",
        "1",
    ]);
    assert_eq!(engine_stat(&report, 0, &["faults", "illegal"]), 1);
    assert_eq!(report["games"][0]["result"], "W+F");
    assert_eq!(report["games"][0]["moves"], 2);
    // Writes a stray line before every answer, and passes: a game like any other.
    let report = json_match(&[
        "--black",
        &fake("garbage", 1),
        "--white",
        &tengen_level("easy"),
        "--games",
        "1",
        "--max-moves",
        "30",
    ]);
    assert_eq!(engine_stat(&report, 0, &["faults", "illegal"]), 0);
    assert_eq!(report["games"][0]["moves"], 30);
}

/// `command` with what it reads copied to `log` first (a shell runs the pipe).
fn logged(command: &str, log: &Path) -> String {
    format!("sh -c 'tee {} | {command}'", log.display())
}

/// The commands in a log of [`logged`], without their ids.
fn commands_in(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .map(|line| {
            let (id, rest) = line.split_once(' ').unwrap_or(("", line));
            if id.parse::<u64>().is_ok() {
                rest
            } else {
                line
            }
            .to_string()
        })
        .collect()
}

/// A Fischer match as the README describes it: each engine is told the clock as gtp2ogs
/// tells it (`kata-time_settings fischer-capped` after `kata-list_time_settings` names it,
/// else Canadian periods of one stone as long as the increment), gets `time_left` with its
/// time in hand before every move, and the search spends about its share plus the
/// increment on each move without losing on time: 2 s and 0.3 s a move, 12 moves each.
#[test]
fn a_fischer_match_is_sent_as_gtp2ogs_sends_it_and_ends_without_a_flag() {
    let dir = scratch_dir("match-fischer");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("mcts.gtp");
    // A second held back from every move, as on a link with lag: a busy machine's stall is
    // not a flag.
    let config = dir.join("lag.toml");
    std::fs::write(&config, "lag_reserve_ms = 1000\n").unwrap();
    let mcts = format!(
        "{} gtp --config {} --level mcts --threads 1 --no-ponder",
        common::tengen_path(),
        config.display()
    );
    let report = json_match(&[
        "--black",
        &logged(&mcts, &log),
        "--white",
        &tengen_level("easy"),
        "--games",
        "1",
        "--size",
        "9",
        "--max-moves",
        "24",
        "--time",
        "2+0.3f",
    ]);
    let sent = commands_in(&log);
    assert!(
        sent.iter().any(|l| l == "kata-list_time_settings"),
        "{sent:?}"
    );
    assert!(
        sent.iter()
            .any(|l| l == "kata-time_settings fischer-capped 2 0.3 -1 -1"),
        "{sent:?}"
    );
    let time_lefts: Vec<&String> = sent
        .iter()
        .filter(|l| l.starts_with("time_left black "))
        .collect();
    assert_eq!(time_lefts.len(), 12, "{sent:?}");
    assert_eq!(time_lefts[0], "time_left black 2 0");
    assert!(time_lefts.iter().all(|l| l.ends_with(" 0")), "{sent:?}");
    for e in [0, 1] {
        assert_eq!(engine_stat(&report, e, &["faults", "timeouts"]), 0);
    }
    let game = &report["games"][0];
    assert_eq!(game["moves"], 24, "{game}");
    // Thinking, yet never more than the time in hand: at least a tenth of the increment a
    // move on average, at most the main time and the increments.
    let seconds = game["seconds"][0].as_f64().unwrap();
    assert!(seconds >= 12.0 * 0.03, "{game}");
    assert!(seconds <= 2.0 + 12.0 * 0.3, "{game}");
    // The increments came back: in hand before the last move (floored to a tenth) is the
    // main time and 11 increments less the first 11 moves' time.
    let last: f64 = time_lefts[11].split(' ').nth(2).unwrap().parse().unwrap();
    assert!(last + seconds >= 2.0 + 11.0 * 0.3 - 0.1, "{last} {game}");

    // An engine that takes no kata-time_settings gets gtp2ogs's emulation.
    let log = dir.join("plain.gtp");
    let report = json_match(&[
        "--black",
        &logged(&fake("crash", 100), &log),
        "--white",
        &tengen_level("easy"),
        "--games",
        "1",
        "--max-moves",
        "4",
        "--time",
        "3+1f,5",
    ]);
    assert_eq!(engine_stat(&report, 0, &["faults", "timeouts"]), 0);
    let sent = commands_in(&log);
    assert!(
        !sent.iter().any(|l| l.starts_with("kata-time_settings")),
        "{sent:?}"
    );
    for wanted in ["time_settings 2 1 1", "time_left black 2 0"] {
        assert!(
            sent.iter().any(|l| l == wanted),
            "no `{wanted}` in {sent:?}"
        );
    }
}

#[test]
fn a_missing_engine_stops_the_match_before_it_starts() {
    let output = run_match(&[
        "--black",
        "/no/such/engine --gtp",
        "--white",
        &tengen_level("easy"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--black engine") && stderr.contains("/no/such/engine"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_arguments_are_refused() {
    for (flag, value) in [
        ("--time", "10+5"),
        ("--time", "0+5f"),
        ("--time", "60+5f,30"),
        ("--sprt", "5,0"),
        ("--move-timeout", "-1"),
        ("--handicap", "1"),
        ("--handicap", "10"),
    ] {
        let output = run_match(&[
            "--black",
            &tengen_level("easy"),
            "--white",
            &tengen_level("easy"),
            flag,
            value,
        ]);
        assert!(!output.status.success(), "{flag} {value}");
        assert!(!output.stderr.is_empty());
    }
}

#[test]
fn openings_start_each_pair_of_games_and_the_sprt_can_stop_early() {
    let dir = scratch_dir("match-openings");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.sgf"), "(;SZ[9];B[ee];W[cc])").unwrap();
    std::fs::write(dir.join("b.sgf"), "(;SZ[9];B[gg])").unwrap();
    let sgf_dir = dir.join("games");
    let report = json_match(&[
        "--black",
        &tengen_level("medium"),
        "--white",
        &tengen_level("easy"),
        "--games",
        "40",
        "--alternate",
        "--openings",
        dir.to_str().unwrap(),
        "--sgf-dir",
        sgf_dir.to_str().unwrap(),
        "--sprt",
        "0,200",
    ]);
    let games = report["games"].as_array().unwrap();
    assert!(
        games.len() < 40,
        "the SPRT should stop a one-sided match early"
    );
    // The decision stands even when the game under way as it was made is lost.
    assert_eq!(report["summary"]["sprt"]["verdict"], "AcceptH1");
    let decided_after = report["summary"]["sprt"]["decided_after"].as_u64().unwrap();
    assert!(decided_after as usize <= games.len(), "{decided_after}");
    let first_moves = |n: u64| {
        let text = std::fs::read_to_string(sgf_dir.join(format!("game-{n:04}.sgf"))).unwrap();
        let game = sgf::load_game(&text, None, Rules::chinese(7.0)).unwrap();
        game.moves()[..2].to_vec()
    };
    // Games 1 and 2 start from a.sgf, games 3 and 4 from b.sgf.
    assert_eq!(first_moves(1), first_moves(2));
    assert_eq!(first_moves(1)[1].1.to_vertex(9), "C7");
    assert_eq!(first_moves(3)[0].1.to_vertex(9), "G3");
}

#[test]
fn an_opening_is_its_setup_stones_and_first_moves_never_a_finished_game() {
    let dir = scratch_dir("match-opening-moves");
    std::fs::create_dir_all(&dir).unwrap();
    // Setup stones, then a whole game that ends with two passes, its sixth move illegal (E5
    // is taken): past the opening, a record is not read.
    std::fs::write(
        dir.join("finished.sgf"),
        "(;SZ[9]AB[cc]AW[gg];B[ee];W[ce];B[ec];W[eg];B[ge];W[ee];W[];B[])",
    )
    .unwrap();
    let sgf_dir = dir.join("games");
    let report = json_match(&[
        "--black",
        &tengen_level("medium"),
        "--white",
        &tengen_level("easy"),
        "--games",
        "1",
        "--openings",
        dir.join("finished.sgf").to_str().unwrap(),
        "--opening-moves",
        "3",
        "--sgf-dir",
        sgf_dir.to_str().unwrap(),
    ]);
    assert_eq!(report["games"].as_array().unwrap().len(), 1);
    let text = std::fs::read_to_string(sgf_dir.join("game-0001.sgf")).unwrap();
    let game = sgf::load_game(&text, None, Rules::chinese(7.0)).unwrap();
    let opening: Vec<String> = game.moves()[..5]
        .iter()
        .map(|(c, mv)| format!("{c} {}", mv.to_vertex(9)))
        .collect();
    // The two setup stones, then three moves; the engines played on from there.
    assert_eq!(
        opening,
        ["black C7", "white G3", "black E5", "white C5", "black E7"]
    );
    // Replayed whole, the record would end the game at its two passes, move 9.
    assert!(game.moves().len() > 9, "{text}");
}

#[test]
fn handicap_games_start_from_the_fixed_stones_with_white_to_move() {
    let dir = scratch_dir("match-handicap");
    let report = json_match(&[
        "--black",
        &tengen_level("medium"),
        "--white",
        &tengen_level("easy"),
        "--referee",
        &tengen_level("easy"),
        "--games",
        "2",
        "--komi",
        "0.5",
        "--handicap",
        "3",
        "--sgf-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(report["handicap"], 3);
    for game in report["games"].as_array().unwrap() {
        assert!(game["decided_by"].as_str().unwrap().contains("referee"));
        let number = game["number"].as_u64().unwrap();
        let text = std::fs::read_to_string(dir.join(format!("game-{number:04}.sgf"))).unwrap();
        assert!(text.contains("HA[3]"), "{text}");
        let loaded = sgf::load_game(&text, None, Rules::chinese(0.5)).expect("the SGF loads");
        assert_eq!(loaded.handicap(), 3);
        let stones: Vec<String> = loaded
            .initial_board()
            .points()
            .filter(|&p| loaded.initial_board().color_at(p).is_some())
            .map(|p| tengen::rules::board::Move::Play(p).to_vertex(9))
            .collect();
        // The GTP spec's three stones on 9x9.
        assert_eq!(stones.len(), 3);
        for v in ["C3", "G7", "C7"] {
            assert!(stones.iter().any(|s| s == v), "{v} in {stones:?}");
        }
        assert_eq!(loaded.moves()[0].0, tengen::rules::board::Color::White);
    }
}

#[test]
#[cfg_attr(not(gnugo_tests), ignore = "GNU Go not found: install gnugo")]
fn a_match_against_gnu_go_is_refereed_and_recorded() {
    let gnugo = common::gnugo();
    let gnugo = gnugo.display().to_string();
    let dir = scratch_dir("match-gnugo");
    let report = json_match(&[
        "--black",
        &tengen_level("medium"),
        "--white",
        &format!("{gnugo} --mode gtp --level 1"),
        "--referee",
        &format!("{gnugo} --mode gtp --chinese-rules --level 1"),
        "--games",
        "2",
        "--alternate",
        "--sgf-dir",
        dir.to_str().unwrap(),
    ]);
    for game in report["games"].as_array().unwrap() {
        let decided = game["decided_by"].as_str().unwrap();
        let result = game["result"].as_str().unwrap();
        assert!(
            result.ends_with("+R") || decided.contains("referee (GNU Go"),
            "{decided}"
        );
        let number = game["number"].as_u64().unwrap();
        let text = std::fs::read_to_string(dir.join(format!("game-{number:04}.sgf"))).unwrap();
        assert!(text.contains("GNU Go 3."), "{text}");
        assert!(text.contains("PB[") && text.contains("PW[") && text.contains("DT["));
        let loaded = sgf::load_game(&text, None, Rules::chinese(7.0)).expect("the SGF loads");
        assert_eq!(loaded.moves().len() as u64, game["moves"].as_u64().unwrap());
    }
}

/// A record no engine of the resumed match would write: easy (engine A, White in game 2)
/// winning on time after three moves, under a comment of the test's.
const PLANTED_GAME_2: &str =
    "(;GM[1]FF[4]SZ[9]KM[7]RE[W+T]C[planted by the test];B[ee];W[cc];B[gg])";

/// A record without a result: a game of an earlier run that did not finish.
const UNFINISHED_GAME_3: &str = "(;GM[1]FF[4]SZ[9]KM[7];B[ee])";

#[test]
fn a_match_resumes_from_its_sgf_directory() {
    let dir = scratch_dir("match-resume");
    let args = |games: &'static str| {
        vec![
            "--black".to_string(),
            tengen_level("easy"),
            "--white".to_string(),
            tengen_level("medium"),
            "--games".to_string(),
            games.to_string(),
            "--alternate".to_string(),
            "--sgf-dir".to_string(),
            dir.to_str().unwrap().to_string(),
        ]
    };
    let first_args = args("2");
    let first = json_match(&first_args.iter().map(String::as_str).collect::<Vec<_>>());
    let record = |number: u64| {
        std::fs::read_to_string(dir.join(format!("game-{number:04}.sgf"))).expect("a record")
    };
    let game_1 = record(1);
    std::fs::write(dir.join("game-0002.sgf"), PLANTED_GAME_2).unwrap();
    std::fs::write(dir.join("game-0003.sgf"), UNFINISHED_GAME_3).unwrap();
    let mut resumed_args = args("4");
    resumed_args.push("--resume".into());
    let resumed = json_match(&resumed_args.iter().map(String::as_str).collect::<Vec<_>>());
    let games = resumed["games"].as_array().unwrap();
    let numbers: Vec<u64> = games
        .iter()
        .map(|g| g["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers.len(), 4, "{numbers:?}");
    let game = |number: u64| {
        let found: Vec<&Value> = games.iter().filter(|g| g["number"] == number).collect();
        assert_eq!(found.len(), 1, "game {number} once in {resumed}");
        found[0]
    };
    // A read-back game generated no moves this run; a played one did.
    let generated = |g: &Value| {
        g["generated"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .sum::<u64>()
    };
    // Game 1 is read back as the first run recorded it, its record untouched.
    let old = &first["games"][0];
    assert_eq!(old["number"], 1);
    assert_eq!(game(1)["result"], old["result"]);
    assert_eq!(game(1)["a_is_black"], old["a_is_black"]);
    assert_eq!(game(1)["moves"], old["moves"]);
    assert_eq!(generated(game(1)), 0, "game 1 was played again");
    assert_eq!(record(1), game_1);
    // Game 2 is the planted record: its result, comment and moves, a timeout against
    // medium, and the file left as it was.
    assert_eq!(game(2)["result"], "W+T", "game 2 was played again");
    assert_eq!(game(2)["decided_by"], "planted by the test");
    assert_eq!(game(2)["moves"], 3);
    assert_eq!(game(2)["a_is_black"], false);
    assert_eq!(generated(game(2)), 0);
    assert_eq!(record(2), PLANTED_GAME_2);
    assert_eq!(engine_stat(&resumed, 1, &["faults", "timeouts"]), 1);
    // Games 3 (its record had no result) and 4 (none) are played and recorded.
    for number in [3, 4] {
        assert!(generated(game(number)) > 0, "game {number} was not played");
        let result = game(number)["result"].as_str().unwrap();
        assert!(record(number).contains(&format!("RE[{result}]")));
    }
    assert_eq!(
        engine_stat(&resumed, 0, &["total", "wins"])
            + engine_stat(&resumed, 1, &["total", "wins"])
            + engine_stat(&resumed, 0, &["total", "draws"]),
        4
    );
}
