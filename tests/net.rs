//! tengen's evaluation of KataGo's g170-b6c96 network against KataGo's own answers: each
//! recorded position is set up through GTP as it was in KataGo, and `kata-raw-nn` must give
//! KataGo's numbers within the tolerances. Also what tengen does without a net and
//! with a file that is not one.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::nets::{B10_TRANSFORMER, G170, net};
use common::{Gtp, tengen_path};

/// A recording of tests/data/nets.
fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/nets")
        .join(name)
}

/// One recorded answer: the scalars by name, the policy (NaN where illegal) and pass, the
/// ownership.
#[derive(Debug, Default)]
struct Answer {
    scalars: BTreeMap<String, f64>,
    policy: Vec<f64>,
    policy_pass: f64,
    ownership: Vec<f64>,
}

/// Reads `kata-raw-nn` output for one symmetry (the lines after `symmetry N`).
fn parse_answer(lines: &mut dyn Iterator<Item = &str>, size: usize) -> Answer {
    let mut answer = Answer::default();
    let numbers = |line: &str| -> Vec<f64> {
        line.split_whitespace()
            .map(|w| {
                if w == "NAN" {
                    f64::NAN
                } else {
                    w.parse().unwrap()
                }
            })
            .collect()
    };
    while let Some(line) = lines.next() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("policy"), None) => {
                for _ in 0..size {
                    answer.policy.extend(numbers(lines.next().unwrap()));
                }
            }
            (Some("policyPass"), Some(p)) => answer.policy_pass = p.parse().unwrap(),
            (Some("whiteOwnership"), None) => {
                for _ in 0..size {
                    answer.ownership.extend(numbers(lines.next().unwrap()));
                }
                break;
            }
            (Some(name), Some(value)) => {
                answer
                    .scalars
                    .insert(name.to_string(), value.parse().unwrap());
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    assert_eq!(answer.policy.len(), size * size);
    assert_eq!(answer.ownership.len(), size * size);
    answer
}

/// A recorded position: how to set it up, what was asked, and KataGo's answer under each
/// symmetry asked for.
struct Position {
    header: String,
    size: usize,
    komi: String,
    handicap: Vec<String>,
    moves: Vec<(String, String)>,
    command: String,
    answers: Vec<(String, Answer)>,
}

/// The words of `words` after `key` up to the next of `keys` (or the end).
fn section<'a>(words: &[&'a str], key: &str, keys: &[&str]) -> Vec<&'a str> {
    let Some(at) = words.iter().position(|w| *w == key) else {
        return Vec::new();
    };
    words[at + 1..]
        .iter()
        .take_while(|w| !keys.contains(w))
        .copied()
        .collect()
}

/// The positions of a recording (tests/data/nets/README.md: `position N size S komi K
/// [handicap V ...] moves (- | C V ...) [command ...]`, KataGo's answer, a blank line).
fn recorded(name: &str) -> Vec<Position> {
    let text = fs::read_to_string(data(name)).unwrap();
    let keys = ["size", "komi", "handicap", "moves", "command"];
    let mut positions = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut lines = block.lines();
        let header = lines.next().unwrap().to_string();
        let words: Vec<&str> = header.split_whitespace().collect();
        let size: usize = section(&words, "size", &keys)[0].parse().unwrap();
        let komi = section(&words, "komi", &keys)[0].to_string();
        let handicap = section(&words, "handicap", &keys)
            .into_iter()
            .map(String::from)
            .collect();
        let moves = section(&words, "moves", &keys)
            .chunks(2)
            .filter(|pair| pair.len() == 2)
            .map(|pair| (pair[0].to_string(), pair[1].to_string()))
            .collect();
        let command = match section(&words, "command", &keys) {
            asked if asked.is_empty() => "kata-raw-nn 0".to_string(),
            asked => asked.join(" "),
        };
        let mut answers = Vec::new();
        while let Some(line) = lines.next() {
            let symmetry = line.strip_prefix("symmetry ").expect("a symmetry line");
            let answer = parse_answer(&mut lines, size);
            answers.push((symmetry.to_string(), answer));
        }
        positions.push(Position {
            header,
            size,
            komi,
            handicap,
            moves,
            command,
            answers,
        });
    }
    positions
}

/// The largest difference seen of each quantity, and where.
#[derive(Default)]
struct Worst(BTreeMap<&'static str, (f64, String)>);

impl Worst {
    /// Records one difference; a value that is not finite fails at once (its difference would
    /// compare below any tolerance).
    fn see(&mut self, what: &'static str, ours: f64, theirs: f64, at: &str) {
        assert!(
            ours.is_finite() && theirs.is_finite(),
            "{at}: {what} is {ours} (KataGo's {theirs})"
        );
        let diff = if what == "whiteScoreSelfplaySq" {
            (ours - theirs).abs() / theirs.abs().max(1.0)
        } else {
            (ours - theirs).abs()
        };
        let entry = self.0.entry(what).or_insert((0.0, String::new()));
        if diff > entry.0 {
            *entry = (diff, at.to_string());
        }
    }
}

/// The tolerances: how far tengen may be from KataGo.
fn tolerance(what: &str) -> f64 {
    match what {
        "policy" => 2e-4,
        "whiteWin" | "whiteLoss" => 1e-3,
        "noResult" => 1e-4,
        "ownership" => 2e-3,
        // Relative.
        "whiteScoreSelfplaySq" => 0.01,
        _ => 0.05,
    }
}

fn compare(ours: &Answer, theirs: &Answer, at: &str, worst: &mut Worst) {
    for (name, &value) in &theirs.scalars {
        let key: &'static str = match name.as_str() {
            "whiteWin" => "whiteWin",
            "whiteLoss" => "whiteLoss",
            "noResult" => "noResult",
            "whiteLead" => "whiteLead",
            "whiteScoreSelfplay" => "whiteScoreSelfplay",
            "whiteScoreSelfplaySq" => "whiteScoreSelfplaySq",
            "varTimeLeft" => "varTimeLeft",
            "shorttermWinlossError" => "shorttermWinlossError",
            "shorttermScoreError" => "shorttermScoreError",
            other => panic!("unknown output {other}"),
        };
        let mine = *ours
            .scalars
            .get(name)
            .unwrap_or_else(|| panic!("{at}: no {name} in tengen's answer"));
        worst.see(key, mine, value, at);
    }
    for (i, (&p, &q)) in ours.policy.iter().zip(&theirs.policy).enumerate() {
        assert_eq!(
            p.is_nan(),
            q.is_nan(),
            "{at}: legality differs at point {i}"
        );
        if !q.is_nan() {
            worst.see("policy", p, q, at);
        }
    }
    worst.see("policy", ours.policy_pass, theirs.policy_pass, at);
    for (&o, &q) in ours.ownership.iter().zip(&theirs.ownership) {
        worst.see("ownership", o, q, at);
    }
}

/// Sets up each position as KataGo's recording `name` did and compares tengen's answers with
/// the real net `net_file`.
fn check_recording(net_file: &str, name: &str) {
    let positions = recorded(name);
    assert!(!positions.is_empty());
    let net = net(net_file);
    let mut gtp = Gtp::spawn(tengen_path(), &["gtp", "--net", net.to_str().unwrap()]);
    let mut worst = Worst::default();
    for position in &positions {
        gtp.ok(&format!("boardsize {}", position.size));
        gtp.ok("clear_board");
        gtp.ok("kgs-rules chinese");
        gtp.ok(&format!("komi {}", position.komi));
        if !position.handicap.is_empty() {
            gtp.ok(&format!(
                "set_free_handicap {}",
                position.handicap.join(" ")
            ));
        }
        for (color, vertex) in &position.moves {
            gtp.ok(&format!("play {color} {vertex}"));
        }
        let text = gtp.ok(&position.command);
        let mut lines = text.lines();
        for (symmetry, theirs) in &position.answers {
            let line = lines.next().map(str::to_string);
            assert_eq!(
                line,
                Some(format!("symmetry {symmetry}")),
                "{}",
                position.header
            );
            let ours = parse_answer(&mut lines, position.size);
            compare(&ours, theirs, &position.header, &mut worst);
        }
        assert_eq!(
            lines.next(),
            None,
            "{}: more answers than KataGo's",
            position.header
        );
    }
    gtp.quit();
    let mut failures = Vec::new();
    for (what, (diff, at)) in &worst.0 {
        eprintln!("{name}: {what}: largest difference {diff:.2e} at {at:.60}");
        if *diff > tolerance(what) {
            failures.push(format!("{what} off by {diff:.2e} at {at}"));
        }
    }
    assert!(failures.is_empty(), "{name}: {failures:#?}");
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
fn katagos_numbers_on_the_recorded_positions() {
    check_recording(G170, "g170-b6c96.kata-raw-nn.txt");
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
fn katagos_numbers_with_passes_kos_handicap_sizes_and_every_argument() {
    check_recording(G170, "g170-b6c96.extra.kata-raw-nn.txt");
}

/// KataGo's transformer net that KaTrain installs: RMSNorm trunk, attention with learned RoPE,
/// SwiGLU feed-forward blocks inside nested bottlenecks.
#[test]
#[cfg_attr(
    not(transformer_net_tests),
    ignore = "b10c384h6nbttflrs.bin.gz not in TENGEN_TEST_NETS"
)]
#[cfg_attr(
    all(transformer_net_tests, debug_assertions),
    ignore = "slow in debug: run with --release"
)]
fn katagos_numbers_with_its_transformer_net() {
    check_recording(B10_TRANSFORMER, "b10c384h6nbttflrs.kata-raw-nn.txt");
}

#[test]
fn without_a_net_kata_raw_nn_says_so() {
    let mut gtp = Gtp::tengen("medium");
    assert_eq!(gtp.send("kata-raw-nn 0"), Err("no network loaded".into()));
    let err = gtp.send("kata-raw-nn 9").unwrap_err();
    assert!(err.contains("but got '9'"), "{err}");
    assert!(gtp.ok("list_commands").lines().any(|c| c == "kata-raw-nn"));
    gtp.quit();
}

/// tengen started with `args` (stderr kept): its stderr after `genmove` and `quit`, and what
/// `kata-raw-nn 0` answered.
fn play_with(args: &[&std::ffi::OsStr]) -> (String, Result<String, String>) {
    let child = Command::new(tengen_path())
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut gtp = Gtp::from_child(child);
    let raw = gtp.send("kata-raw-nn 0");
    let mv = gtp.ok("genmove b");
    assert!(!mv.is_empty());
    let (status, stderr) = gtp.finish();
    assert_eq!(status, Some(0));
    (stderr, raw)
}

#[test]
fn a_file_that_is_not_a_net_is_one_error_line_and_play_goes_on() {
    let dir = std::env::temp_dir().join(format!("tengen-net-test-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    // A gzip stream cut in half, as a download cut short leaves a net.
    let packed = gzip(&b"trunk 0.25 1.5 -3e-2\n".repeat(10_000));
    // The start of KaTrain's b10c384h6nbttflrs, cut inside its trunk's header.
    let transformer = "b10c384h6nbttflrs\n15\n22\n19\n20.0\n20.0\n20.0\n20.0\n40.0\n0.25\n\
                       150.0\n0\n0\n0\n0\n0\n0\n0\n0\ntrunk\n10\n384\n192\n144\n48\n48\n1\n0\n";
    let cases = [
        ("missing.bin.gz", None, "No such file"),
        (
            "transformer.bin.gz",
            Some(gzip(transformer.as_bytes())),
            "truncated in layer trunk",
        ),
        (
            "truncated.bin.gz",
            Some(packed[..packed.len() / 2].to_vec()),
            "gzip",
        ),
        (
            "garbage.bin.gz",
            Some(b"not a network at all\n".repeat(100)),
            "gzip",
        ),
        (
            "corrupt.bin.gz",
            Some(gzip(b"x\n8\n22\n19\ntrunk\nnot-a-number\n")),
            "trunk",
        ),
    ];
    for (name, bytes, why) in cases {
        let file = dir.join(name);
        if let Some(bytes) = bytes {
            fs::write(&file, bytes).unwrap();
        }
        let (stderr, raw) = play_with(&[
            "--level".as_ref(),
            "medium".as_ref(),
            "--net".as_ref(),
            file.as_ref(),
        ]);
        assert_eq!(raw, Err("no network loaded".into()), "{name}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains(name)).collect();
        assert_eq!(errors.len(), 1, "{name}: {stderr}");
        assert!(errors[0].contains(why), "{name}: {}", errors[0]);
    }
    fs::remove_dir_all(&dir).unwrap();
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, bytes).unwrap();
    encoder.finish().unwrap()
}

/// tengen at a search level whose `net` is `net` (as written in engines.toml), in a directory
/// of its own that `prepare` fills first: what [`play_with`] returns, and the directory.
fn play_level_with_net(
    name: &str,
    net: &str,
    prepare: impl FnOnce(&Path),
) -> (String, Result<String, String>, PathBuf) {
    let dir = std::env::temp_dir().join(format!("tengen-net-{name}-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    prepare(&dir);
    let config = dir.join("engines.toml");
    let level = format!(
        "[levels.netted]\nplayer = \"mcts\"\nnet = \"{net}\"\nplayouts = 20\nthreads = 1\n"
    );
    fs::write(&config, level).unwrap();
    let (stderr, raw) = play_with(&[
        "--config".as_ref(),
        config.as_ref(),
        "--level".as_ref(),
        "netted".as_ref(),
    ]);
    fs::remove_dir_all(&dir).unwrap();
    (stderr, raw, dir)
}

#[test]
fn a_level_whose_net_fails_plays_without_it() {
    let (stderr, raw, dir) = play_level_with_net("broken", "broken.bin.gz", |dir| {
        fs::write(dir.join("broken.bin.gz"), gzip(b"broken\n8\n")).unwrap();
    });
    assert_eq!(raw, Err("no network loaded".into()));
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("broken.bin.gz"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    // A relative path is the config file's directory's.
    assert!(errors[0].contains(&*dir.to_string_lossy()), "{}", errors[0]);
}

#[test]
#[cfg_attr(
    not(test_nets),
    ignore = "g170-b6c96.bin.gz not in TENGEN_TEST_NETS (../shared/nets)"
)]
fn a_level_with_a_net_answers_kata_raw_nn() {
    let net = net(G170).display().to_string();
    let (stderr, raw, _) = play_level_with_net("ok", &net, |_| {});
    let raw = raw.unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert!(raw.starts_with("symmetry 0\nwhiteWin "), "{raw}");
}
