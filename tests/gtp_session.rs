//! The real binary over pipes: framing, preprocessing, ids, errors, exit codes, config.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{Gtp, tengen_path};
use tengen::engine::player::random::RandomPlayer;
use tengen::engine::player::{Budget, Player, Silent};
use tengen::rules::game::{Game, Rules};

#[test]
fn ids_preprocessing_and_pipelining() {
    let mut e = Gtp::tengen("easy");
    // Several commands in one write, CRLF, tabs, comments and blank lines.
    e.send_raw("12 protocol_version\r\n\n   \n# a comment line\nboardsize\t9 # trailing\n7 name\n");
    assert_eq!(e.read_response(), Ok("2".into()));
    assert_eq!(e.read_response(), Ok("".into()));
    assert_eq!(e.read_response(), Ok("tengen".into()));
    assert_eq!(e.send("frobnicate"), Err("unknown command".into()));
    assert_eq!(e.send("play b z9"), Err("syntax error".into()));
    assert_eq!(e.send("play B e5"), Ok("".into()));
    assert_eq!(e.send("play white E5"), Err("illegal move".into()));
    assert_eq!(e.send("boardsize 30"), Err("unacceptable size".into()));
    assert_eq!(e.quit(), Some(0));
}

#[test]
fn boardsize_takes_gtp2ogs_width_and_height_form() {
    let mut e = Gtp::tengen("easy");
    // gtp2ogs sends `boardsize W H`: a rectangle is refused as a size, not as bad syntax,
    // and a square in that form is taken.
    assert_eq!(e.send("boardsize 19 13"), Err("unacceptable size".into()));
    assert_eq!(e.send("boardsize 9 9"), Ok("".into()));
    assert_eq!(e.send("play b J9"), Ok("".into()));
    assert_eq!(e.send("play w K9"), Err("syntax error".into()));
    assert_eq!(e.quit(), Some(0));
}

#[test]
fn ids_are_echoed_verbatim() {
    let mut child = Command::new(tengen_path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1 name\n22 known_command play\n333 foo\n4 quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "=1 tengen\n\n=22 true\n\n?333 unknown command\n\n=4 \n\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn hostile_input_gets_answers_not_crashes() {
    let mut e = Gtp::tengen("easy");
    e.send_raw("name \u{fffd}\u{1}\u{7f}\n");
    assert_eq!(e.read_response(), Err("syntax error".into()));
    // Invalid UTF-8 bytes, and a number too large for a float.
    e.send_bytes(b"play b \xff\xfe\nkomi 1e400\n");
    assert_eq!(e.read_response(), Err("syntax error".into()));
    assert_eq!(e.read_response(), Err("syntax error".into()));
    // A line over the cap is refused, and the engine reads on.
    let long = format!("play b {}\n", "a".repeat(3 << 20));
    e.send_raw(&long);
    assert_eq!(e.read_response(), Err("line too long".into()));
    assert_eq!(
        e.send("boardsize 99999999999999999999999999"),
        Err("syntax error".into())
    );
    assert_eq!(
        e.send("fixed_handicap 4000000000"),
        Err("invalid number of stones".into())
    );
    assert_eq!(e.send("name"), Ok("tengen".into()));
    assert_eq!(e.close(), Some(0), "EOF ends the session with exit 0");
}

#[test]
fn a_whole_game_to_two_passes() {
    let mut e = Gtp::tengen("easy");
    e.ok("boardsize 9");
    e.ok("clear_board");
    e.ok("komi 7");
    let mut passes = 0;
    let mut moves = 0;
    let mut color = "b";
    while passes < 2 {
        let mv = e.ok(&format!("genmove {color}"));
        passes = if mv == "PASS" { passes + 1 } else { 0 };
        moves += 1;
        assert!(moves < 1000, "game did not end");
        color = if color == "b" { "w" } else { "b" };
    }
    let score = e.ok("final_score");
    assert!(
        score == "0" || score.starts_with("B+") || score.starts_with("W+"),
        "{score}"
    );
    let board = e.ok("showboard");
    assert!(board.lines().count() >= 11);
    assert_eq!(e.quit(), Some(0));
}

fn run_with_config(toml: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "tengen-cfg-{}-{}",
        std::process::id(),
        toml.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("engines.toml");
    std::fs::write(&path, toml).unwrap();
    let out = Command::new(tengen_path())
        .args(["--config", path.to_str().unwrap()])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_configs_exit_2_with_one_line_naming_file_and_key() {
    let (code, stdout, stderr) = run_with_config("[levels.x]\nplayer = \"psychic\"\n", &[]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty());
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("engines.toml") && stderr.contains("levels.x"),
        "{stderr}"
    );
    let (code, _, stderr) = run_with_config("", &["--level", "godlike"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("godlike"), "{stderr}");
    let (code, _, stderr) = run_with_config("default_level = 3\n", &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("default_level"), "{stderr}");
    let nowhere = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-engines.toml");
    let missing = Command::new(tengen_path())
        .arg("--config")
        .arg(&nowhere)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

/// A level from engines.toml, named as the default level, is the one that plays: its moves
/// are those of a random player seeded as the file says.
#[test]
fn a_good_config_adds_a_level() {
    let toml = "default_level = \"fixed\"\n[levels.fixed]\nplayer = \"random\"\nseed = 5\n";
    let (code, stdout, _) = run_with_config(toml, &[]);
    assert_eq!(code, Some(0));
    assert!(stdout.is_empty(), "no GTP input, no output: {stdout}");

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("tengen-cfg-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("engines.toml");
    std::fs::write(&path, toml).unwrap();
    let mut engine = Gtp::spawn(tengen_path(), &["--config", path.to_str().unwrap()]);
    engine.ok("boardsize 9");
    let mut level = RandomPlayer::new(Some(5));
    let mut game = Game::new(9, Rules::default());
    for _ in 0..20 {
        let color = game.to_move();
        let expected = level
            .genmove(&game, color, &Budget::default(), &mut Silent)
            .unwrap()
            .as_move()
            .unwrap();
        let answer = engine.ok(&format!("genmove {color}"));
        assert_eq!(
            answer,
            expected.to_vertex(9),
            "move {} is not the seeded random player's",
            game.moves().len() + 1
        );
        game.play(color, expected).unwrap();
    }
    assert_eq!(engine.quit(), Some(0));
}

#[test]
fn help_and_version() {
    let help = Command::new(tengen_path()).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    for option in ["--level", "--config", "gtp", "bench"] {
        assert!(text.contains(option), "{option} missing from --help");
    }
    let version = Command::new(tengen_path())
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    // Built in this work tree, the binary names a commit (build.rs) whose sources it was built
    // from: the work tree's, unless it says `modified`; elsewhere it says so.
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|out| out.status.success())
    };
    let prefix = format!("tengen {} (", env!("CARGO_PKG_VERSION"));
    let stamp = version
        .trim()
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{version:?} is not {prefix}...)"));
    if git(&["rev-parse", "--show-toplevel"]).is_none() {
        assert_eq!(stamp, "built outside git");
        return;
    }
    let (commit, modified) = match stamp.strip_suffix(", modified") {
        Some(commit) => (commit, true),
        None => (stamp, false),
    };
    let commit = commit.strip_prefix("commit ").expect("a commit");
    assert!(
        git(&["cat-file", "-e", &format!("{commit}^{{commit}}")]).is_some(),
        "{stamp}"
    );
    if !modified {
        let sources = [
            "src",
            "book",
            "engines.toml",
            "build.rs",
            "Cargo.toml",
            "Cargo.lock",
        ];
        let same = git(&[&["diff", "--quiet", commit, "--"][..], &sources].concat());
        assert!(same.is_some(), "{stamp}: the sources are not that commit's");
    }
}

#[test]
fn interrupt_stops_a_long_genmove_with_a_legal_move() {
    // A search that would run for minutes; GoGui's `# interrupt` makes it answer at once
    // with the best move so far.
    let mut engine = Gtp::spawn(
        common::tengen_path(),
        &[
            "gtp",
            "--level",
            "mcts",
            "--playouts",
            "100000000",
            "--threads",
            "1",
        ],
    );
    engine.send("boardsize 9").expect("boardsize");
    let started = std::time::Instant::now();
    engine.send_raw("genmove b\n");
    std::thread::sleep(std::time::Duration::from_millis(500));
    engine.send_raw("# interrupt\n");
    let answer = engine.read_response().expect("a move");
    assert!(answer.len() >= 2 && answer != "PASS", "{answer}");
    // A loose bound against a hang, not a speed figure.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    // The session goes on: another search, interrupted too, then a normal command.
    engine.send_raw("genmove w\n");
    std::thread::sleep(std::time::Duration::from_millis(300));
    engine.send_raw("# interrupt\n");
    assert!(engine.read_response().is_ok());
    // An interrupt right behind the genmove may stop the search before its first playout:
    // the move then comes from the priors, never a pass on a board full of moves.
    engine.send("clear_board").expect("clear_board");
    engine.send_raw("genmove b\n# interrupt\n");
    let answer = engine.read_response().expect("a move");
    assert!(answer.len() >= 2 && answer != "PASS", "{answer}");
    assert_eq!(engine.send("play w pass"), Ok(String::new()));
}

#[test]
fn interrupts_of_commands_still_queued_each_stop_their_own() {
    // Found by fuzzing: `# interrupt` lines for two commands that both still wait their turn
    // kept only the last one, so the first ran its whole search (here: minutes).
    let mut engine = Gtp::spawn(
        common::tengen_path(),
        &[
            "gtp",
            "--level",
            "mcts",
            "--playouts",
            "100000000",
            "--threads",
            "1",
        ],
    );
    engine.send("boardsize 9").expect("boardsize");
    let started = std::time::Instant::now();
    engine.send_raw("genmove b\n");
    std::thread::sleep(std::time::Duration::from_millis(300));
    // One write: the reader has read every line before the engine starts `genmove w`.
    engine.send_raw("# interrupt\ngenmove w\n# interrupt\ngenmove b\n# interrupt\n");
    for _ in 0..3 {
        let answer = engine.read_response().expect("a move");
        assert!(answer.len() >= 2, "{answer}");
    }
    // A loose bound against a whole search, not a speed figure.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(engine.quit(), Some(0));
}

#[test]
fn a_gogui_view_after_boardsize_searches_the_new_board() {
    // Found by fuzzing: the views' cached search was keyed by the position's hash, which is
    // the same for every empty board, so after `boardsize 5` a 19x19 report was rendered on
    // 5x5 (vertices like E34) and `tengen-visits` panicked (exit 101).
    let mut engine = Gtp::tengen("easy");
    // Not interrupted: the view's whole search (2 s) visits some moves even on a busy machine.
    let before = engine.send("tengen-visits").expect("the 19x19 view");
    assert!(
        before.contains(' '),
        "a view's search visits some moves: {before}"
    );
    engine.ok("boardsize 5");
    // A vertex of a 5x5 board: A-E, 1-5.
    let on_5x5 = |w: &str| {
        let (col, row) = w.split_at(1);
        ("A"..="E").contains(&col) && row.parse::<u32>().is_ok_and(|r| (1..=5).contains(&r))
    };
    for view in ["tengen-visits", "tengen-pv"] {
        engine.send_raw(&format!("{view}\n# interrupt\n"));
        let answer = engine
            .read_response()
            .unwrap_or_else(|e| panic!("{view}: {e}"));
        let vertices = answer
            .split_whitespace()
            .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
        for vertex in vertices {
            assert!(on_5x5(vertex), "{view}: {answer}");
        }
    }
    engine.send_raw("tengen-ownership\n# interrupt\n");
    let ownership = engine.read_response().expect("the ownership view");
    assert_eq!(ownership.lines().count(), 5, "{ownership}");
    assert_eq!(engine.quit(), Some(0));
}

/// A Fischer game as gtp2ogs 9 runs one: it sends Fischer as `kata-time_settings
/// fischer-capped` only when `list_commands` names `kata-list_time_settings` and that names
/// `fischer-capped`, then the clock and both `time_left`s before each `genmove`. Every kind
/// is taken; a bad argument gets `?` with what was expected; `cputime` gives CPU seconds.
#[test]
fn fischer_as_gtp2ogs_sends_it_and_every_kata_time_settings_kind() {
    let mut e = Gtp::tengen("mcts");
    let commands = e.ok("list_commands");
    for listed in ["kata-list_time_settings", "kata-time_settings", "cputime"] {
        assert!(commands.lines().any(|l| l == listed), "{listed}");
    }
    let kinds = e.ok("kata-list_time_settings");
    assert!(
        kinds.split_whitespace().any(|k| k == "fischer-capped"),
        "{kinds}"
    );
    for kind in [
        "none",
        "absolute 600",
        "byoyomi 600 30 5",
        "canadian 600 300 25",
        "fischer 300 10",
        "fischer-capped 300 10 -1 -1",
    ] {
        assert_eq!(
            e.send(&format!("kata-time_settings {kind}")),
            Ok("".into()),
            "{kind}"
        );
    }
    for (bad, why) in [
        (
            "kata-time_settings fischer-capped 300 10 120 -1",
            "main time limit 120 is below",
        ),
        ("kata-time_settings fischer 300", "takes MAIN INCREMENT"),
        (
            "kata-time_settings fischer 1e9 10",
            "main time must be seconds",
        ),
        ("kata-time_settings blitz", "unknown kind"),
    ] {
        let answer = e.send(bad);
        assert!(
            answer.as_ref().is_err_and(|text| text.contains(why)),
            "{bad}: {answer:?}"
        );
    }
    e.ok("boardsize 9");
    e.ok("clear_board");
    e.ok("komi 7");
    let started = std::time::Instant::now();
    for (black, white) in [("30", "30"), ("1", "28")] {
        e.ok("kata-time_settings fischer-capped 30 0.5 60 -1");
        e.ok(&format!("time_left black {black} 0"));
        e.ok(&format!("time_left white {white} 0"));
        let mv = e.ok("genmove b");
        assert!(mv != "resign", "{mv}");
        e.ok("play w pass");
    }
    // A hang guard only: the moves have 30 s and 1 s in hand at most.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let cpu: f64 = e.ok("cputime").parse().expect("seconds");
    assert!(cpu > 0.0, "{cpu}");
    assert_eq!(e.quit(), Some(0));
}

#[test]
fn katago_rules_and_search_settings_over_the_pipe() {
    let mut e = Gtp::tengen("mcts");
    // JSON with spaces, split by the GTP reader and read whole again.
    let json = r#"kata-set-rules {"scoring": "TERRITORY", "ko": "SIMPLE", "suicide": false}"#;
    assert_eq!(e.send(json), Ok("".into()));
    let rules = e.send("kata-get-rules").expect("the rules");
    assert!(rules.contains(r#""scoring":"TERRITORY""#), "{rules}");
    assert!(
        e.send("printsgf")
            .expect("a record")
            .contains("RU[Japanese]")
    );
    assert!(e.send("kata-set-rule tax SOME").is_err());
    assert_eq!(e.send("kata-set-param maxVisits 20"), Ok("".into()));
    assert_eq!(e.send("kata-get-param playouts"), Ok("20".into()));
    let refused = e.send("kata-set-param numSearchThreads 0.5").unwrap_err();
    assert!(refused.contains("numSearchThreads"), "{refused}");
    assert!(e.send("genmove b").is_ok());
    assert_eq!(e.quit(), Some(0));
}
