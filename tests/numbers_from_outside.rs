//! Numbers from outside (GTP arguments, SGF properties, analysis queries, engines.toml, the
//! command line) are checked at the edge: out of range is a clear error, never a panic, a
//! runaway allocation or an endless think (issue 33). Each test drives the real binary.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Gtp, tengen_path};
use tengen::engine::search::time_for_move;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::clock::{Clock, MAX_THINK, MoveTime, TimeSystem};
use tengen::rules::game::{Game, Rules};

/// tengen at the `mcts` level (a search, which takes the clock's deadline; few playouts, so
/// that a day on the clock still answers at once), its engine's debug log in a file: the log
/// says the time each move was given, which the clock alone decides.
fn searching_engine(name: &str) -> (Gtp, PathBuf) {
    let log = scratch("clock").join(format!("{name}.log"));
    let child = Command::new(tengen_path())
        .args([
            "gtp",
            "--level",
            "mcts",
            "--playouts",
            "50",
            "--threads",
            "1",
        ])
        .env("RUST_LOG", "tengen::front::gtp::engine=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut engine = Gtp::from_child(child);
    // Off the opening book, so that every genmove searches.
    for command in ["boardsize 9", "komi 7.5"] {
        engine.ok(command);
    }
    (engine, log)
}

/// The move times tengen's log reports, in order.
fn move_times(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter_map(|l| l.split("time for this move: ").nth(1))
        .map(str::to_string)
        .collect()
}

/// What `clock` gives `color` for its next move in `game`, as the log writes it.
fn move_time(clock: &Clock, game: &Game, color: Color) -> String {
    format!("{:?}", time_for_move(clock, game.board(), color))
}

/// What a time command should do to the clock.
type ClockChange<'a> = &'a dyn Fn(&mut Clock);

/// Every clock time above a year (or not finite) is `? syntax error`, the clock is left as it
/// was (the next move gets the time the clock set before gives), and the next genmove of a
/// search answers with a move; a day is taken, and the search still answers.
#[test]
fn clock_times_are_at_most_a_year() {
    let mut before = Clock::default();
    before.set_system(TimeSystem::Canadian {
        main: 120.0,
        period: 10.0,
        stones: 5,
    });
    let empty = Game::new(9, Rules::chinese(7.5));
    for (i, command) in [
        "time_settings 1e300 0 0",
        "time_settings 1e21 0 0",
        "time_settings 5e20 0 0",
        "time_settings 0 1e300 1",
        "time_settings 31536001 0 0",
        "time_settings nan 0 0",
        "kgs-time_settings absolute 1e300",
        "kgs-time_settings byoyomi 0 1e300 1",
        "kgs-time_settings canadian 1e300 0 1",
        "time_left b 1e308 0",
        "time_left b inf 0",
        "time_left b nan 3",
    ]
    .into_iter()
    .enumerate()
    {
        let (mut engine, log) = searching_engine(&format!("refused-{i}"));
        engine.ok("time_settings 120 10 5");
        assert_eq!(
            engine.send(command),
            Err("syntax error".into()),
            "{command}"
        );
        let answer = engine.ok("genmove b");
        assert!(Move::parse(&answer, 9).is_ok(), "{command}: {answer}");
        assert_eq!(engine.quit(), Some(0), "{command}");
        assert_eq!(
            move_times(&log),
            [move_time(&before, &empty, Color::Black)],
            "{command}: the clock changed"
        );
    }
    // Each accepted setting is followed by a move of the colour whose clock it set exactly.
    let (mut engine, log) = searching_engine("a-day");
    let mut game = Game::new(9, Rules::chinese(7.5));
    let mut clock = Clock::default();
    let mut expected = Vec::new();
    let steps: [(&str, Color, ClockChange); 4] = [
        ("time_settings 86400 86400 25", Color::Black, &|c| {
            c.set_system(TimeSystem::Canadian {
                main: 86400.0,
                period: 86400.0,
                stones: 25,
            })
        }),
        (
            "kgs-time_settings byoyomi 86400 86400 5",
            Color::Black,
            &|c| {
                c.set_system(TimeSystem::Byoyomi {
                    main: 86400.0,
                    period: 86400.0,
                    periods: 5,
                })
            },
        ),
        ("time_left b 86400 0", Color::Black, &|c| {
            c.set_left(Color::Black, 86400.0, 0)
        }),
        ("time_left w -3 0", Color::White, &|c| {
            c.set_left(Color::White, 0.0, 0)
        }),
    ];
    for (command, color, change) in steps {
        engine.ok(command);
        change(&mut clock);
        expected.push(move_time(&clock, &game, color));
        let answer = engine.ok(&format!("genmove {color}"));
        let mv = Move::parse(&answer, 9).unwrap_or_else(|_| panic!("{command}: {answer}"));
        game.play(color, mv).unwrap();
    }
    assert_eq!(engine.quit(), Some(0));
    assert_eq!(move_times(&log), expected);
}

/// A correspondence game on OGS as gtp2ogs sends it (a week of main time, then five periods
/// of a day; Fischer of three days, a day a move, a week at most): every setting is taken,
/// and each move, in main time or in the day-long period, thinks [`MAX_THINK`], not days.
#[test]
fn a_correspondence_clock_is_taken_and_a_move_thinks_max_think() {
    let (mut engine, log) = searching_engine("correspondence");
    let settings = [
        // With kgs-time_settings, which tengen lists: main time, then the last periods.
        &[
            "kgs-time_settings byoyomi 604800 86400 5",
            "time_left black 604000 0",
            "time_left white 604700 0",
        ][..],
        &["time_left black 86000 5"],
        &["time_left black 3600 1"],
        // Without: the periods as Canadian ones of one stone, all but one in main time.
        &["time_settings 950400 86400 1", "time_left black 950000 0"],
        &[
            "kata-time_settings fischer-capped 259200 86400 604800 -1",
            "time_left black 259200 0",
        ],
    ];
    for commands in settings {
        for command in commands {
            engine.ok(command);
        }
        let answer = engine.ok("genmove b");
        assert!(Move::parse(&answer, 9).is_ok(), "{commands:?}: {answer}");
        engine.ok("undo");
    }
    assert_eq!(engine.quit(), Some(0));
    let think = Some(MoveTime {
        target: MAX_THINK,
        max: MAX_THINK,
    });
    assert_eq!(move_times(&log), vec![format!("{think:?}"); settings.len()]);
}

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("numbers-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs tengen with `args` and `input` on stdin; (exit code, stdout, stderr).
fn run(args: &[&str], input: &str, env_remove: &[&str]) -> (Option<i32>, String, String) {
    let mut command = Command::new(tengen_path());
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in env_remove {
        command.env_remove(var);
    }
    let mut child = command.spawn().unwrap();
    // tengen may exit before it reads its input (a bad argument): a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every number of an analysis query is checked: out of range is an error reply naming the
/// query's id and the field, the engine answers the next query and exits 0 at EOF.
#[test]
fn analysis_queries_are_checked_field_by_field() {
    let query = |extra: &str| {
        format!(
            "{{\"id\":\"q\",\"rules\":\"chinese\",\"boardXSize\":9,\"boardYSize\":9,\
             \"moves\":[],\"maxVisits\":20{extra}}}\n"
        )
    };
    let bad = [
        (
            ",\"reportDuringSearchEvery\":1e300",
            "reportDuringSearchEvery",
        ),
        (",\"reportDuringSearchEvery\":-1", "reportDuringSearchEvery"),
        (",\"komi\":1e308", "komi"),
        (",\"maxVisits\":1e300", "maxVisits"),
        (",\"maxVisits\":0", "maxVisits"),
        (",\"priority\":1e300", "priority"),
        (",\"analyzeTurns\":[-1]", "analyzeTurns[0]"),
        (",\"overrideSettings\":{\"maxTime\":1e300}", "maxTime"),
        (",\"overrideSettings\":{\"maxVisits\":-3}", "maxVisits"),
        (",\"boardXSize\":1e300", "boardXSize"),
    ];
    let mut input: String = bad.iter().map(|(extra, _)| query(extra)).collect();
    input.push_str(&query(""));
    let (code, stdout, stderr) = run(
        &["analysis", "-override-config", "numAnalysisThreads=1"],
        &input,
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let replies: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), bad.len() + 1, "{stdout}");
    for ((extra, field), reply) in bad.iter().zip(&replies) {
        assert_eq!(reply["id"], "q", "{extra}: {reply}");
        assert!(reply["error"].is_string(), "{extra}: {reply}");
        assert!(
            reply["field"].as_str().is_some_and(|f| f.ends_with(field)),
            "{extra}: {reply}"
        );
    }
    assert_eq!(replies[bad.len()]["isDuringSearch"], false);
}

/// Thread counts above the cap (1024) are refused with a warning, not spawned; an endless line
/// is refused without being held.
#[test]
fn analysis_threads_and_lines_are_bounded() {
    let line = "x".repeat(3 << 20);
    let query = "{\"id\":\"q\",\"rules\":\"chinese\",\"boardXSize\":9,\"boardYSize\":9,\
                 \"moves\":[],\"maxVisits\":10}";
    let (code, stdout, stderr) = run(
        &[
            "analysis",
            "-override-config",
            "numAnalysisThreads=100000,numSearchThreads=100000",
        ],
        &format!("{line}\n{query}\n"),
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("numAnalysisThreads = 100000: not from 0 (every core) to 1024; ignored"),
        "{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].contains("longer than"), "{}", lines[0]);
    assert!(
        lines[1].contains("\"isDuringSearch\":false"),
        "{}",
        lines[1]
    );
}

/// A malformed engines.toml value: exit 2, one stderr line naming the key and its line.
#[test]
fn config_values_out_of_range_name_the_key_and_line() {
    let dir = scratch("config");
    // The offending key is the level's last line: the file's line 3 + the level's lines.
    let cases = [
        ("player = \"mcts\"\nmax_nodes = 100000000000\n", "max_nodes"),
        ("player = \"mcts\"\nthreads = 100000\n", "threads"),
        ("player = \"mcts\"\nplayouts = -5\n", "playouts"),
        ("player = \"mcts\"\nexploration = inf\n", "exploration"),
        ("player = \"mcts\"\nhandicap_komi = inf\n", "handicap_komi"),
        ("player = \"mcts\"\nbook = \"yes\"\n", "book"),
        ("player = \"mcts\"\nleaf_batch = 0\n", "leaf_batch"),
        ("player = \"mcts\"\nleaf_batch = 65\n", "leaf_batch"),
        (
            "player = \"mcts\"\nrave_equivalence = 0.0\n",
            "rave_equivalence",
        ),
        (
            "player = \"mcts\"\nresign_threshold = 1.5\n",
            "resign_threshold",
        ),
        (
            "player = \"external\"\nengine = \"k\"\nmove_timeout_ms = 0\n",
            "move_timeout_ms",
        ),
        ("player = \"external\"\nengine = \"nope\"\n", "engine"),
    ];
    for (i, (level, key)) in cases.iter().enumerate() {
        let line = 3 + level.lines().count();
        let path = dir.join(format!("engines-{i}.toml"));
        let text = format!("# a comment\n\n[levels.x]\n{level}[engines.k]\ncommand = [\"sh\"]\n");
        std::fs::write(&path, &text).unwrap();
        let (code, stdout, stderr) = run(
            &["gtp", "--config", path.to_str().unwrap(), "--level", "x"],
            "quit\n",
            &[],
        );
        assert_eq!(code, Some(2), "{text}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!("levels.x.{key}: "))
                && stderr.contains(&format!("(line {line})")),
            "{text}: {stderr}"
        );
    }
}

/// `${VAR}` unset in the command of an engine that the chosen level runs is reported at start,
/// naming the variable and its line, and the level's fallback plays (a missing engine never
/// stops the game); under `only_if_present = true` it silently means "not present", and the
/// shipped `hard` level plays as `mcts` without KataGo's variables.
#[test]
fn unset_variables_are_reported_at_start() {
    let dir = scratch("vars");
    let path = dir.join("engines.toml");
    std::fs::write(
        &path,
        "[engines.k]\ncommand = [\"sh\", \"${TENGEN_TEST_SURELY_UNSET}\"]\n\
         [levels.x]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"easy\"]\n\
         [levels.y]\nplayer = \"external\"\nengine = \"k\"\nfallback = [\"easy\"]\n\
         only_if_present = true\n",
    )
    .unwrap();
    let config = path.to_str().unwrap();
    let (code, stdout, stderr) = run(
        &["gtp", "--config", config, "--level", "x"],
        "boardsize 9\ngenmove b\nquit\n",
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("= \n\n= "), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("engines.k.command: ${TENGEN_TEST_SURELY_UNSET} is not set")
            && stderr.contains("(line 2)")
            && stderr.contains("level x plays as its fallback"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(
        &["gtp", "--config", config, "--level", "y"],
        "boardsize 9\ngenmove b\nquit\n",
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("= \n\n= "), "{stdout}");
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/engines.toml");
    let (code, stdout, stderr) = run(
        &[
            "gtp",
            "--config",
            shipped,
            "--level",
            "hard",
            "--playouts",
            "50",
        ],
        "boardsize 9\ngenmove b\nquit\n",
        &["KATAGO_MODEL", "KATAGO_CONFIG"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("= \n\n= "), "{stdout}");
}

/// `loadsgf` refuses a komi beyond 1000, a FIFO (without blocking), a file over 4 MiB and trees
/// over its bounds, with `? cannot load file`, and the game stays as it was.
#[test]
fn loadsgf_is_bounded() {
    let dir = scratch("sgf");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let fifo = dir.join("fifo.sgf");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut files = vec![
        write("komi.sgf", "(;SZ[9]KM[1e308];B[ee])"),
        write("komi-nan.sgf", "(;SZ[9]KM[nan];B[ee])"),
        write(
            "large.sgf",
            &format!("(;SZ[9]C[{}];B[ee])", "x".repeat(5 << 20)),
        ),
        write(
            "comment.sgf",
            &format!("(;SZ[9]C[{}];B[ee])", "x".repeat(300_000)),
        ),
        write(
            "variations.sgf",
            &format!("(;SZ[9]{})", "(;B[ee])".repeat(20_000)),
        ),
        write(
            "nodes.sgf",
            &format!(
                "(;SZ[9]{})",
                format!("(;B[ee]{})", ";W[cc];B[dd]".repeat(12)).repeat(5_000)
            ),
        ),
        dir.clone(),
    ];
    if made.is_ok_and(|s| s.success()) {
        files.push(fifo);
    }
    let good = write("good.sgf", "(;SZ[9]KM[1000];B[ee])");
    let mut engine = Gtp::tengen("easy");
    engine.ok(&format!("loadsgf {}", good.display()));
    assert_eq!(engine.ok("final_score"), "W+919");
    for file in &files {
        assert_eq!(
            engine.send(&format!("loadsgf {}", file.display())),
            Err("cannot load file".into()),
            "{}",
            file.display()
        );
        assert_eq!(engine.ok("final_score"), "W+919", "{}", file.display());
    }
    assert_eq!(engine.quit(), Some(0));
}

/// Numbers on the command line are checked by clap: exit 2 with a message, never a panic.
#[test]
fn command_line_numbers_are_bounded() {
    for args in [
        &["bench", "--seconds", "1e300"][..],
        &["bench", "--seconds", "nan"],
        &["bench", "--threads", "100000"],
        &["gtp", "--threads", "100000"],
        &["gtp", "--playouts", "0"],
        &["gtp", "--playouts", "100000000000"],
        &["match", "--black", "x", "--white", "y", "--komi", "nan"],
        &["match", "--black", "x", "--white", "y", "--komi", "1e308"],
        &[
            "match",
            "--black",
            "x",
            "--white",
            "y",
            "--move-timeout",
            "1e300",
        ],
        &["match", "--black", "x", "--white", "y", "--time", "1e300"],
        &[
            "match",
            "--black",
            "x",
            "--white",
            "y",
            "--concurrency",
            "100000",
        ],
        &["regress", "--timeout", "inf", "x.tst"],
        &[
            "train-patterns",
            "x",
            "-o",
            "y",
            "--max-candidates",
            "100000000",
        ],
        &["train-patterns", "x", "-o", "y", "--iterations", "0"],
        &["train-patterns", "x", "-o", "y", "--holdout", "1"],
        &["train-patterns", "x", "-o", "y", "--min-count", "0"],
    ] {
        let (code, stdout, stderr) = run(args, "", &[]);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(
            stderr.contains("invalid value") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}
