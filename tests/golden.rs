//! Golden tests of the search: on each position of [`POSITIONS`], a seeded single-thread
//! `mcts` search at a fixed playout count must choose the recorded move and give the top
//! candidates the recorded visit counts (tests/golden/expected.txt). Any change to the
//! search, its playouts, priors or patterns changes these numbers, so an accidental change
//! fails here. The recorded moves are the search's, right or wrong (gtp-scripts/tactics judges
//! them): this test detects change, not correctness. A deliberate change regenerates the file:
//!
//! ```text
//! TENGEN_BLESS=1 cargo test --release --test golden
//! ```
//!
//! and the diff of expected.txt shows what moved. Any other value of `TENGEN_BLESS` compares.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::Gtp;

/// The level every golden search runs at: one thread, a fixed seed and playout count, and no
/// opening book (the empty boards are searched).
const LEVEL: &str =
    "[levels.golden]\nplayer = \"mcts\"\nseed = 42\nthreads = 1\nplayouts = 1500\nbook = false\n";

/// Candidates recorded per position, most visited first.
const TOP: usize = 5;

/// A position: its name in expected.txt, the GTP commands that set it up (run in the
/// repository root) and the colour to move.
struct Position {
    name: &'static str,
    setup: &'static [&'static str],
    color: &'static str,
}

const POSITIONS: &[Position] = &[
    Position {
        name: "empty-9x9",
        setup: &["boardsize 9", "komi 7"],
        color: "b",
    },
    Position {
        name: "empty-13x13",
        setup: &["boardsize 13", "komi 7.5"],
        color: "b",
    },
    Position {
        name: "empty-19x19",
        setup: &["boardsize 19", "komi 7.5"],
        color: "b",
    },
    Position {
        name: "ko-5x5",
        setup: &["loadsgf gtp-scripts/sgf/ko.sgf"],
        color: "b",
    },
    Position {
        name: "snapback-b",
        setup: &["loadsgf gtp-scripts/sgf/snapback-corner.sgf"],
        color: "b",
    },
    Position {
        name: "snapback-w",
        setup: &["loadsgf gtp-scripts/sgf/snapback-corner.sgf"],
        color: "w",
    },
    Position {
        name: "ladder-works",
        setup: &["loadsgf gtp-scripts/sgf/ladder-works.sgf"],
        color: "b",
    },
    Position {
        name: "ladder-breaker",
        setup: &["loadsgf gtp-scripts/sgf/ladder-breaker.sgf"],
        color: "w",
    },
    Position {
        name: "net-geta",
        setup: &["loadsgf gtp-scripts/sgf/net-geta.sgf"],
        color: "b",
    },
    Position {
        name: "cap-escape-extend",
        setup: &["loadsgf gtp-scripts/sgf/cap-escape-extend.sgf"],
        color: "w",
    },
    Position {
        name: "conn-double-atari",
        setup: &["loadsgf gtp-scripts/sgf/conn-double-atari.sgf"],
        color: "w",
    },
    Position {
        name: "ld-bulky-five",
        setup: &["loadsgf gtp-scripts/sgf/ld-bulky-five.sgf"],
        color: "b",
    },
    Position {
        name: "ld-rabbity-six-white",
        setup: &["loadsgf gtp-scripts/sgf/ld-rabbity-six-white.sgf"],
        color: "w",
    },
    Position {
        name: "seki-corner",
        setup: &["loadsgf gtp-scripts/sgf/seki-corner.sgf"],
        color: "b",
    },
    Position {
        name: "end-dame",
        setup: &["loadsgf gtp-scripts/sgf/end-dame.sgf"],
        color: "b",
    },
    Position {
        name: "9x9-move-12",
        setup: &["loadsgf tests/data/sgf/katago-9x9-900013.sgf 13"],
        color: "b",
    },
    Position {
        name: "9x9-move-25",
        setup: &["loadsgf tests/data/sgf/katago-9x9-900013.sgf 26"],
        color: "w",
    },
    Position {
        name: "9x9-move-40",
        setup: &["loadsgf tests/data/sgf/katago-9x9-900013.sgf 41"],
        color: "w",
    },
    Position {
        name: "19x19-move-30",
        setup: &["loadsgf tests/golden/katago-19x19.sgf 31"],
        color: "b",
    },
    Position {
        name: "19x19-handicap-4",
        setup: &["boardsize 19", "komi 0.5", "fixed_handicap 4"],
        color: "w",
    },
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn expected_path() -> PathBuf {
    root().join("tests/golden/expected.txt")
}

/// The line expected.txt holds for `position`: its name, the move played, and the top
/// candidates with their visits, e.g. `ko-5x5: C5 | C5 304, B1 176, ...`.
fn search(position: &Position, config: &Path) -> String {
    let child = Command::new(common::tengen_path())
        .args(["gtp", "--level", "golden", "--config"])
        .arg(config)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen");
    let mut gtp = Gtp::from_child(child);
    for command in position.setup {
        gtp.ok(command);
    }
    let report = gtp.ok(&format!("lz-genmove_analyze {}", position.color));
    gtp.quit();
    let mut played = None;
    let mut candidates = Vec::new();
    for line in report.lines() {
        if let Some(vertex) = line.strip_prefix("play ") {
            played = Some(vertex.to_string());
        }
        for info in line.split("info move ").skip(1) {
            let fields: Vec<&str> = info.split_whitespace().collect();
            let visits = fields
                .iter()
                .position(|&f| f == "visits")
                .and_then(|i| fields.get(i + 1))
                .expect("visits in an info line");
            candidates.push(format!("{} {visits}", fields[0]));
        }
    }
    let played = played.unwrap_or_else(|| panic!("{}: no play line in {report}", position.name));
    candidates.truncate(TOP);
    format!("{}: {played} | {}", position.name, candidates.join(", "))
}

#[test]
fn seeded_searches_match_the_recorded_moves_and_visits() {
    let dir = std::env::temp_dir().join(format!("tengen-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("engines.toml");
    std::fs::write(&config, LEVEL).unwrap();
    let mut actual = String::from(
        "# Golden searches (tests/golden.rs): position: move played | top candidates and visits.\n\
         # Regenerate on purpose: TENGEN_BLESS=1 cargo test --release --test golden\n\
         # This records what the search plays, right or wrong: it detects change, not correctness\n\
         # (snapback-b should be A1 or B1, end-dame E5: gtp-scripts/tactics says what is right).\n",
    );
    for position in POSITIONS {
        writeln!(actual, "{}", search(position, &config)).unwrap();
    }
    std::fs::remove_dir_all(&dir).ok();
    if common::bless() {
        std::fs::write(expected_path(), &actual).unwrap();
        eprintln!("golden: wrote {}", expected_path().display());
        return;
    }
    let expected = std::fs::read_to_string(expected_path())
        .expect("tests/golden/expected.txt (make it with TENGEN_BLESS=1)");
    let differences: Vec<String> = expected
        .lines()
        .zip(actual.lines())
        .filter(|(e, a)| e != a)
        .map(|(e, a)| format!("expected {e}\n     got {a}"))
        .collect();
    assert!(
        differences.is_empty() && expected.lines().count() == actual.lines().count(),
        "the search changed (regenerate with TENGEN_BLESS=1 if on purpose):\n{}",
        differences.join("\n")
    );
}

#[test]
fn only_tengen_bless_1_rewrites() {
    assert!(common::blesses(Some("1".as_ref())));
    for value in ["", "0", "true", "yes", " 1", "1 "] {
        assert!(!common::blesses(Some(value.as_ref())), "{value:?}");
    }
    assert!(!common::blesses(None));
}
