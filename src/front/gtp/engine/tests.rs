use super::*;
use crate::engine::player::SearchSettings;
use crate::engine::player::WithAnalyst;
use crate::engine::player::random::RandomPlayer;
use crate::engine::player::search::SearchPlayer;
use crate::front::gtp::protocol::{self, format_response};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

fn engine() -> Engine {
    Engine::new(Box::new(WithAnalyst::new(
        Box::new(RandomPlayer::new(Some(1))),
        Box::new(|| Box::new(SearchPlayer::playouts(SearchSettings::default()))),
    )))
}

/// Runs `line` as one answer: a streaming command gives its first line, a genmove-analyze
/// its lines.
fn run(e: &mut Engine, line: &str) -> Result<String, GtpError> {
    let clean = protocol::preprocess(line).expect("a command");
    execute(e, &clean)
}

fn execute(e: &mut Engine, line: &str) -> Result<String, GtpError> {
    let mut streamed = String::new();
    let mut sink = Sink::collect(&mut streamed);
    let stop = Arc::new(AtomicBool::new(false));
    let result = e.execute(&protocol::parse(line), Instant::now(), stop, &mut sink);
    let opened = sink.is_open();
    match result {
        Ok(_) if opened => Ok(streamed.trim_end().to_string()),
        result => result,
    }
}

fn ok(e: &mut Engine, line: &str) -> String {
    run(e, line).unwrap_or_else(|err| panic!("{line}: {err}"))
}

#[test]
fn the_table_feeds_list_and_known_command() {
    let mut e = engine();
    let list = ok(&mut e, "list_commands");
    for required in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "fixed_handicap",
        "place_free_handicap",
        "set_free_handicap",
        "final_score",
        "final_status_list",
        "time_settings",
        "time_left",
        "loadsgf",
        "printsgf",
        "reg_genmove",
        "showboard",
        "kgs-genmove_cleanup",
        "kgs-time_settings",
        "kgs-rules",
        "kata-get-rules",
        "kata-set-rules",
        "kata-set-rule",
        "kata-list-params",
        "kata-get-param",
        "kata-set-param",
        "kgs-game_over",
        "gogui-interrupt",
        "kata-list_time_settings",
        "kata-time_settings",
        "cputime",
    ] {
        assert!(list.lines().any(|l| l == required), "{required} not listed");
        assert_eq!(ok(&mut e, &format!("known_command {required}")), "true");
    }
    assert_eq!(ok(&mut e, "known_command frobnicate"), "false");
    assert_eq!(run(&mut e, "frobnicate"), Err(GtpError::UnknownCommand));
}

#[test]
fn every_colour_spelling_and_vertex_case() {
    let mut e = engine();
    for (i, c) in ["b", "B", "black", "BLACK", "w", "W", "white", "WHITE"]
        .iter()
        .enumerate()
    {
        let v = Point::new(19, i, 0).to_vertex(19).to_lowercase();
        ok(&mut e, &format!("play {c} {v}"));
    }
    assert_eq!(e.game().moves().len(), 8);
    assert_eq!(run(&mut e, "play red d4"), Err(GtpError::Syntax));
    assert_eq!(run(&mut e, "play b i5"), Err(GtpError::Syntax));
    assert_eq!(run(&mut e, "play b"), Err(GtpError::Syntax));
}

#[test]
fn rejected_commands_leave_the_state_unchanged() {
    let mut e = engine();
    ok(&mut e, "boardsize 9");
    ok(&mut e, "play b e5");
    let before = e.game().board().hash();
    let refused: [(GtpError, &[&str]); 5] = [
        (GtpError::IllegalMove, &["play w e5"]),
        (
            GtpError::UnacceptableSize,
            &["boardsize 1", "boardsize 26", "boardsize 19 13"],
        ),
        (
            GtpError::Syntax,
            &[
                "boardsize 99999999999999999999999",
                "boardsize nine",
                "boardsize 9 9 9",
                "boardsize 9 x",
                "komi lots",
                "komi inf",
                "genmove purple",
                "final_status_list undead",
                "time_settings 1 2",
                "kgs-time_settings sudden 5",
                "kgs-rules go-by-feel",
            ],
        ),
        (
            GtpError::BoardNotEmpty,
            &["fixed_handicap 4", "set_free_handicap a1 b2"],
        ),
        (GtpError::CannotLoadFile, &["loadsgf /nonexistent/file.sgf"]),
    ];
    for (err, lines) in refused {
        for &line in lines {
            assert_eq!(run(&mut e, line), Err(err.clone()), "{line}");
            assert_eq!(e.game().board().hash(), before, "{line}");
            assert_eq!(e.game().size(), 9, "{line}");
            assert_eq!(e.game().moves().len(), 1, "{line}");
        }
    }
}

#[test]
fn undo_and_its_error() {
    let mut e = engine();
    assert_eq!(run(&mut e, "undo"), Err(GtpError::CannotUndo));
    ok(&mut e, "play b d4");
    ok(&mut e, "undo");
    assert!(e.game().is_empty());
}

#[test]
fn handicap_commands() {
    let mut e = engine();
    assert_eq!(
        ok(&mut e, "fixed_handicap 9"),
        "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"
    );
    assert_eq!(e.game().to_move(), Color::White);
    ok(&mut e, "clear_board");
    for n in ["10", "1", "-3"] {
        let line = format!("fixed_handicap {n}");
        assert_eq!(run(&mut e, &line), Err(GtpError::InvalidNumberOfStones));
    }
    assert_eq!(ok(&mut e, "place_free_handicap 12").split(' ').count(), 12);
    ok(&mut e, "clear_board");
    for (vertices, error) in [
        ("d4 d4", GtpError::BadVertexList),
        ("d4 pass", GtpError::BadVertexList),
        ("d4", GtpError::BadVertexList),
        ("d4 zz", GtpError::Syntax),
    ] {
        let line = format!("set_free_handicap {vertices}");
        assert_eq!(run(&mut e, &line), Err(error), "{line}");
    }
    ok(&mut e, "set_free_handicap d4 q16 k10");
    assert_eq!(e.game().handicap(), 3);
}

#[test]
fn genmove_plays_and_reg_genmove_does_not() {
    let mut e = engine();
    ok(&mut e, "boardsize 9");
    let v = ok(&mut e, "reg_genmove b");
    assert!(Move::parse(&v, 9).is_ok());
    assert!(e.game().moves().is_empty());
    let v = ok(&mut e, "genmove black");
    assert_eq!(
        e.game().moves(),
        &[(Color::Black, Move::parse(&v, 9).unwrap())]
    );
    assert_eq!(v, v.to_uppercase(), "vertices are upper case");
}

#[test]
fn cleanup_captures_dead_stones_before_passing() {
    let mut e = engine();
    ok(&mut e, "boardsize 7");
    // A white wall on column C with a lone black stone in White's area at F5; Black's area on
    // the left is settled. White to clean up: it must not pass while F5 stands.
    for v in ["c1", "c2", "c3", "c4", "c5", "c6", "c7"] {
        ok(&mut e, &format!("play w {v}"));
    }
    for v in ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "f5"] {
        ok(&mut e, &format!("play b {v}"));
    }
    assert_eq!(ok(&mut e, "final_status_list dead"), "F5");
    let mut captured = false;
    for _ in 0..40 {
        let mv = ok(&mut e, "kgs-genmove_cleanup w");
        if e.game()
            .board()
            .color_at(Point::parse("F5", 7).unwrap())
            .is_none()
        {
            captured = true;
            break;
        }
        assert_ne!(mv, "PASS", "passed with a dead stone on the board");
        ok(&mut e, "play b pass");
    }
    assert!(captured);
}

#[test]
fn rules_and_scores() {
    let mut e = engine();
    ok(&mut e, "boardsize 5");
    ok(&mut e, "komi 0.5");
    for v in ["c1", "c2", "c3", "c4", "c5"] {
        ok(&mut e, &format!("play b {v}"));
    }
    for v in ["d1", "d2", "d3", "d4", "d5"] {
        ok(&mut e, &format!("play w {v}"));
    }
    // Area: Black 15, White 10.
    assert_eq!(ok(&mut e, "final_score"), "B+4.5");
    ok(&mut e, "kgs-rules japanese");
    // Territory: Black 10, White 5.
    assert_eq!(ok(&mut e, "final_score"), "B+4.5");
    assert_eq!(ok(&mut e, "final_status_list dead"), "");
    assert_eq!(
        ok(&mut e, "final_status_list alive"),
        "C1 C2 C3 C4 C5\nD1 D2 D3 D4 D5"
    );
}

/// KataGo's rules commands: `kata-get-rules` says what is played, `kata-set-rules` takes a
/// name or KataGo's JSON and keeps the komi, `kata-set-rule` changes one field, and a refused
/// one changes nothing.
#[test]
fn katago_rules_commands_set_what_is_played_and_say_it() {
    let mut e = engine();
    ok(&mut e, "komi 6");
    assert_eq!(
        ok(&mut e, "kata-get-rules"),
        r#"{"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N","friendlyPassOk":true}"#
    );
    ok(&mut e, "kata-set-rules japanese");
    assert_eq!(*e.game().rules(), Rules::japanese(6.0));
    // JSON as a GUI sends it, split into words by the GTP reader.
    ok(
        &mut e,
        r#"kata-set-rules {"ko": "SITUATIONAL", "scoring": "AREA", "suicide": false}"#,
    );
    assert_eq!(*e.game().rules(), Rules::named("aga", 6.0).unwrap());
    ok(&mut e, "kata-set-rule suicide true");
    assert!(e.game().rules().suicide_allowed);
    assert!(ok(&mut e, "kata-get-rules").contains(r#""suicide":true"#));
    let before = *e.game().rules();
    for line in [
        "kata-set-rules",
        "kata-set-rules go-by-feel",
        r#"kata-set-rules {"ko": "SPIGHTY"}"#,
        r#"kata-set-rules {"komi": 7.5}"#,
        "kata-set-rule ko",
        "kata-set-rule scoring points",
        "kata-set-rule colour black",
        "kata-get-rules now",
    ] {
        assert!(run(&mut e, line).is_err(), "{line}");
        assert_eq!(*e.game().rules(), before, "{line}");
    }
}

/// KataGo's parameter commands reach the level's search (here the analyst of a level that
/// does not search): a value set reads back, a refused one says why and changes nothing.
#[test]
fn katago_param_commands_set_the_search() {
    let mut e = engine();
    let names = ok(&mut e, "kata-list-params");
    for name in ["maxVisits", "numSearchThreads", "playouts", "leaf_batch"] {
        assert!(names.split(' ').any(|n| n == name), "{name} in {names}");
    }
    assert_eq!(ok(&mut e, "kata-get-param maxVisits"), "none");
    ok(&mut e, "kata-set-param maxVisits 77");
    assert_eq!(ok(&mut e, "kata-get-param playouts"), "77");
    for line in [
        "kata-set-param maxVisits 0",
        "kata-set-param maxVisits",
        "kata-set-param numSearchThreads 99999",
        "kata-set-param cpuctExplorationLog 1",
        "kata-get-param cpuctExplorationLog",
        "kata-get-param",
    ] {
        assert!(run(&mut e, line).is_err(), "{line}");
    }
    let refused = run(&mut e, "kata-set-param numSearchThreads 99999").unwrap_err();
    assert!(
        refused.to_string().contains("numSearchThreads"),
        "{refused}"
    );
    assert_eq!(ok(&mut e, "kata-get-param maxVisits"), "77");
}

/// What a time command should do to the clock.
type ClockChange<'a> = &'a dyn Fn(&mut Clock);

/// Canadian overtime: `main` seconds, then `stones` moves in each `period` seconds.
fn canadian(main: f64, period: f64, stones: u32) -> TimeSystem {
    TimeSystem::Canadian {
        main,
        period,
        stones,
    }
}

/// Byoyomi: `main` seconds, then `periods` periods of `period` seconds.
fn byoyomi(main: f64, period: f64, periods: u32) -> TimeSystem {
    TimeSystem::Byoyomi {
        main,
        period,
        periods,
    }
}

/// Each time command leaves the clock holding its numbers: `time_settings` and
/// `kgs-time_settings` set the system and give both players its full time again, `time_left`
/// sets one colour's time and stones (a negative time or count is 0); a refused command
/// leaves the clock as it was.
#[test]
fn time_commands_accept_every_form() {
    let mut e = engine();
    let mut expected = Clock::default();
    assert_eq!(e.clock, expected);
    let steps: [(&str, ClockChange); 14] = [
        ("time_settings 300 30 5", &|c| {
            c.set_system(canadian(300.0, 30.0, 5))
        }),
        ("time_left b 120 0", &|c| c.set_left(Color::Black, 120.0, 0)),
        ("time_left w -3 2", &|c| c.set_left(Color::White, 0.0, 2)),
        ("time_left W 7.5 -1", &|c| c.set_left(Color::White, 7.5, 0)),
        ("time_settings 0 1 0", &|c| c.set_system(TimeSystem::None)),
        ("time_settings 600 0 0", &|c| {
            c.set_system(TimeSystem::Absolute { main: 600.0 })
        }),
        ("kgs-time_settings none", &|c| {
            c.set_system(TimeSystem::None)
        }),
        ("kgs-time_settings absolute 900", &|c| {
            c.set_system(TimeSystem::Absolute { main: 900.0 })
        }),
        ("kgs-time_settings canadian 600 300 25", &|c| {
            c.set_system(canadian(600.0, 300.0, 25))
        }),
        ("time_left black 45 4", &|c| {
            c.set_left(Color::Black, 45.0, 4)
        }),
        ("kgs-time_settings byoyomi 660 30 5", &|c| {
            c.set_system(byoyomi(660.0, 30.0, 5))
        }),
        ("time_left white 25 3", &|c| {
            c.set_left(Color::White, 25.0, 3)
        }),
        ("time_left B 2.5 0", &|c| c.set_left(Color::Black, 2.5, 0)),
        ("kgs-time_settings BYOYOMI 0 10 1", &|c| {
            c.set_system(byoyomi(0.0, 10.0, 1))
        }),
    ];
    for (line, change) in steps {
        ok(&mut e, line);
        change(&mut expected);
        assert_eq!(e.clock, expected, "after `{line}`");
    }
    ok(&mut e, "time_left b 17 2");
    expected.set_left(Color::Black, 17.0, 2);
    for refused in [
        "time_settings 300 30",
        "time_settings 300 -30 5",
        "time_left x 5 0",
        "time_left b 5",
        "kgs-time_settings canadian 600 300",
        "kgs-time_settings fischer 600 10",
    ] {
        assert_eq!(run(&mut e, refused), Err(GtpError::Syntax), "{refused}");
        assert_eq!(e.clock, expected, "after `{refused}`");
    }
}

/// `kata-list_time_settings` names every kind, `fischer-capped` among them (gtp2ogs sends
/// Fischer as such only then); `kata-time_settings` sets each kind in KataGo's argument forms,
/// and refuses a bad one with what it expected, leaving the clock as it was.
#[test]
fn kata_time_settings_takes_every_kind_it_lists() {
    let mut e = engine();
    let kinds = ok(&mut e, "kata-list_time_settings");
    assert_eq!(
        kinds.split_whitespace().collect::<Vec<_>>(),
        [
            "none",
            "absolute",
            "byoyomi",
            "canadian",
            "fischer",
            "fischer-capped"
        ]
    );
    // Each kind's forms are the parser's tests (time.rs); here, that the engine sets the clock
    // to what its parser reads.
    let steps = [
        "kata-time_settings none",
        "kata-time_settings absolute 90.5",
        "kata-time_settings byoyomi 600 30 5",
        "kata-time_settings canadian 600 300 25",
        "kata-time_settings fischer 300 10",
        "kata-time_settings fischer-capped 600 10 1200 -1",
        "kata-time_settings FISCHER-CAPPED 60 2.5 -1 20",
    ];
    for line in steps {
        ok(&mut e, "time_left b 1 0");
        assert_eq!(ok(&mut e, line), "");
        let args: Vec<String> = line.split_whitespace().skip(1).map(String::from).collect();
        let system = crate::front::gtp::time::parse_kata_time_settings(&args).expect(line);
        let mut expected = Clock::default();
        expected.set_system(system);
        assert_eq!(e.clock, expected, "after `{line}`");
    }
    let expected = e.clock;
    for (refused, why) in [
        ("kata-time_settings", "expected a kind"),
        ("kata-time_settings fischer", "takes MAIN INCREMENT"),
        (
            "kata-time_settings fischer 60 5 120",
            "takes MAIN INCREMENT",
        ),
        (
            "kata-time_settings fischer-capped 60 5 120",
            "MAX_MAIN MAX_MOVE",
        ),
        (
            "kata-time_settings fischer-capped 600 5 60 -1",
            "below the main time",
        ),
        (
            "kata-time_settings fischer -60 5",
            "main time must be seconds",
        ),
        (
            "kata-time_settings fischer 60 1e9",
            "increment must be seconds",
        ),
        (
            "kata-time_settings byoyomi 60 10 x",
            "periods must be a whole number",
        ),
        ("kata-time_settings hourglass 60", "unknown kind"),
        ("kata-list_time_settings all", "syntax error"),
    ] {
        match run(&mut e, refused) {
            Err(error) => assert!(error.to_string().contains(why), "{refused}: {error}"),
            Ok(text) => panic!("`{refused}` accepted: {text}"),
        }
        assert_eq!(e.clock, expected, "after `{refused}`");
    }
}

/// Under Fischer, `time_left` gives the time in hand (its count means nothing), and a move
/// the engine times itself costs its time and earns the increment.
#[test]
fn time_left_and_moves_under_fischer() {
    let mut e = engine();
    ok(&mut e, "boardsize 9");
    ok(&mut e, "kata-time_settings fischer-capped 30 2 31 -1");
    ok(&mut e, "time_left white 12.5 0");
    assert_eq!(e.clock.recorded_left(Color::White), Some((12.5, 0)));
    ok(&mut e, "genmove b");
    let (left, count) = e.clock.recorded_left(Color::Black).unwrap();
    assert!((30.0..=31.0).contains(&left) && count == 0, "{left}");
}

#[test]
fn cputime_is_the_process_cpu_seconds() {
    let mut e = engine();
    let first: f64 = ok(&mut e, "cputime").parse().unwrap();
    ok(&mut e, "boardsize 9");
    ok(&mut e, "final_score");
    let second: f64 = ok(&mut e, "cputime").parse().unwrap();
    assert!(first >= 0.0 && second >= first, "{first} then {second}");
    assert_eq!(run(&mut e, "cputime 1"), Err(GtpError::Syntax));
}

#[test]
fn showboard_has_no_empty_line() {
    let mut e = engine();
    ok(&mut e, "play b q16");
    let board = ok(&mut e, "showboard");
    let response = format_response(None, &Ok(board));
    assert!(!response[..response.len() - 2].contains("\n\n"));
    assert!(response.contains(" X "));
}

#[test]
fn quit_is_answered_then_ends() {
    let mut e = engine();
    assert!(!e.quit_requested());
    assert_eq!(ok(&mut e, "quit"), "");
    assert!(e.quit_requested());
}

proptest! {
    // Fewer cases in a debug build, where each is slow.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 64 } else { 512 }))]
    #[test]
    fn arbitrary_commands_never_panic(
        name in prop::sample::select(COMMANDS.iter().map(|(n, _, _)| *n).filter(|n| !["loadsgf", "printsgf"].contains(n)).collect::<Vec<_>>()),
        args in prop::collection::vec("[a-zA-Z0-9.+-]{0,6}", 0..4),
    ) {
        let mut e = engine();
        ok(&mut e, "boardsize 5");
        let line = format!("{name} {}", args.join(" "));
        if let Some(clean) = protocol::preprocess(&line) {
            let result = execute(&mut e, &clean);
            let text = format_response(None, &result);
            prop_assert!(text.ends_with("\n\n"));
        }
    }
}

#[test]
fn printsgf_answers_the_game_or_writes_it_to_a_file() {
    let mut e = engine();
    for line in [
        "boardsize 9",
        "komi 6.5",
        "kgs-rules japanese",
        "play b E5",
        "play w C3",
        "play b pass",
    ] {
        ok(&mut e, line);
    }
    let record = ok(&mut e, "printsgf");
    assert!(record.starts_with("(;GM[1]FF[4]"), "{record}");
    assert!(
        record.contains("SZ[9]KM[6.5]") && record.contains("RU[Japanese]"),
        "{record}"
    );
    assert!(
        !record.contains("RE[") && !record.contains("PB["),
        "no empty fields: {record}"
    );
    assert!(
        !record.contains("\n\n"),
        "no empty line inside a GTP answer: {record}"
    );
    let game = sgf::load_game(&record, None, Rules::japanese(6.5)).unwrap();
    assert_eq!(game.moves(), e.game.moves());

    let dir = std::env::temp_dir().join(format!("tengen-printsgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.sgf");
    assert_eq!(ok(&mut e, &format!("printsgf {}", file.display())), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), record + "\n");
    let Err(GtpError::Argument(why)) = run(&mut e, &format!("printsgf {}", dir.display())) else {
        panic!("a directory is not written");
    };
    assert!(
        why.starts_with(&format!("cannot write {}", dir.display())),
        "{why}"
    );
    assert_eq!(run(&mut e, "printsgf a b"), Err(GtpError::Syntax));
    std::fs::remove_dir_all(&dir).unwrap();
}
