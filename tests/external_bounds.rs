//! What a child engine costs when it goes wrong (issue 33): one deadline per move, restart and
//! handshake included; a child that failed tried again at the next game, whoever moves first;
//! a flood of output bounded in memory and in warnings. Each test drives the real binary with
//! `tests/fake-engine.sh` as the child, and checks that no child outlives tengen.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Gtp;
use tengen::rules::board::{Color, Move};
use tengen::rules::game::{Game, Rules};

/// Slack on top of a move's deadline before a move counts as hung (the machine may be busy).
const SLACK: Duration = Duration::from_secs(3);

/// A file under the test's temporary directory, removed first.
fn scratch(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// tengen at the level `level` whose engine is `fake-engine.sh ARGS`, each move bounded by
/// `timeout_ms`, the medium level falling back; its stderr goes to `name.stderr` and each
/// child's process id to `name.pids`.
struct Setup {
    engine: Gtp,
    pid: u32,
    stderr: PathBuf,
    pids: PathBuf,
}

fn start(name: &str, args: &[&str], timeout_ms: u64) -> Setup {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-engine.sh");
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    let config = scratch(&format!("{name}.toml"));
    std::fs::write(
        &config,
        format!(
            "[engines.fake]\ncommand = [\"sh\", {:?}, {}]\n\
             [levels.fake]\nplayer = \"external\"\nengine = \"fake\"\n\
             fallback = [\"medium\"]\nmove_timeout_ms = {timeout_ms}\n",
            script.display().to_string(),
            args.join(", ")
        ),
    )
    .expect("write the config");
    let stderr = scratch(&format!("{name}.stderr"));
    let pids = scratch(&format!("{name}.pids"));
    let child = Command::new(common::tengen_path())
        .args([
            "gtp",
            "--config",
            config.to_str().unwrap(),
            "--level",
            "fake",
        ])
        .env("TENGEN_FAKE_PIDS", &pids)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&stderr).expect("stderr file"))
        .spawn()
        .expect("start tengen");
    let pid = child.id();
    let mut engine = Gtp::from_child(child);
    engine.ok("boardsize 9");
    engine.ok("clear_board");
    Setup {
        engine,
        pid,
        stderr,
        pids,
    }
}

impl Setup {
    /// `genmove` for `c` in `game`, which must answer a legal move within `limit`; played.
    fn genmove(&mut self, game: &mut Game, limit: Duration) -> (String, Duration) {
        let c = game.to_move();
        let word = if c == Color::Black { "b" } else { "w" };
        let started = Instant::now();
        let answer = self.engine.ok(&format!("genmove {word}"));
        let took = started.elapsed();
        assert!(
            took < limit,
            "genmove {word} took {took:?}, more than {limit:?}"
        );
        let mv = Move::parse(&answer, 9).unwrap_or_else(|_| panic!("not a move: {answer}"));
        game.play(c, mv)
            .unwrap_or_else(|e| panic!("illegal answer {answer}: {e}"));
        (answer, took)
    }

    /// tengen's peak memory (VmHWM) in KiB, where /proc tells it.
    fn peak_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// Quits tengen; checks it exits cleanly and leaves no child running. Returns its stderr.
    fn quit(self) -> String {
        assert_eq!(self.engine.quit(), Some(0));
        let pids = std::fs::read_to_string(&self.pids).unwrap_or_default();
        let until = Instant::now() + Duration::from_secs(10);
        for pid in pids.split_whitespace() {
            while running(pid) {
                assert!(Instant::now() < until, "child {pid} outlived tengen");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

/// Whether process `pid` runs (a zombie does not: its parent is gone or reaping it).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .next()?
                .to_string();
            Some(state != "Z" && state != "X")
        })
        .unwrap_or(false)
}

#[test]
fn a_child_that_hangs_after_a_restart_costs_one_deadline_not_two() {
    // The first child passes, then dies at its second genmove; each one started after it
    // stops itself (SIGSTOP) at its first `play`, in the middle of the sync.
    let marker = scratch("relapse.marker");
    let timeout = Duration::from_millis(1000);
    let mut setup = start("relapse", &["relapse", "2", marker.to_str().unwrap()], 1000);
    let mut game = Game::new(9, Rules::default());
    let (first, _) = setup.genmove(&mut game, timeout + SLACK);
    assert_eq!(first, "PASS", "the first child plays");
    // It dies: the fallback answers, a new child starts in the background.
    setup.genmove(&mut game, timeout + SLACK);
    // The new child hangs while being synced: the sync was bounded by 10 s a command.
    for _ in 0..4 {
        setup.genmove(&mut game, timeout + SLACK);
    }
    let stderr = setup.quit();
    assert!(stderr.contains("no answer in time"), "{stderr}");
}

#[test]
fn a_child_that_never_finishes_its_handshake_costs_one_move_not_each() {
    // It stops itself (SIGSTOP) when asked its name.
    let timeout = Duration::from_millis(2000);
    let mut setup = start("mute", &["mute", "1"], 2000);
    let mut game = Game::new(9, Rules::default());
    // The first move waits for it, up to its deadline.
    setup.genmove(&mut game, timeout + SLACK);
    // The later ones do not: six of them together take less than the one deadline they
    // each took before (plus slack for a busy machine).
    let started = Instant::now();
    for _ in 0..6 {
        setup.genmove(&mut game, timeout + SLACK);
    }
    assert!(
        started.elapsed() < timeout + SLACK,
        "six moves took {:?} waiting for a child that never starts",
        started.elapsed()
    );
    // The stopped child, still in its handshake, is killed when tengen quits.
    setup.quit();
}

#[test]
fn a_child_that_failed_is_tried_again_when_tengen_plays_second() {
    // The first child exits before its handshake; every later one passes.
    let marker = scratch("second.marker");
    let mut setup = start("second", &["second", "1", marker.to_str().unwrap()], 2000);
    let mut game = Game::new(9, Rules::default());
    let (first, _) = setup.genmove(&mut game, Duration::from_secs(2) + SLACK);
    assert_ne!(
        first, "PASS",
        "the fallback plays for a child that cannot start"
    );
    let (second, _) = setup.genmove(&mut game, Duration::from_secs(2) + SLACK);
    assert_ne!(second, "PASS", "not tried again in the same game");
    assert!(!setup.engine.ok("version").contains("fake-engine"));
    // A new game where the opponent moves first.
    setup.engine.ok("clear_board");
    setup.engine.ok("play b E5");
    let mut game = Game::new(9, Rules::default());
    game.play(Color::Black, Move::parse("E5", 9).unwrap())
        .unwrap();
    let (answer, _) = setup.genmove(&mut game, Duration::from_secs(2) + SLACK);
    assert_eq!(answer, "PASS", "the child is tried again and plays");
    assert!(setup.engine.ok("version").contains("fake-engine second"));
    setup.quit();
}

#[test]
fn a_flood_from_the_child_is_a_bad_answer_in_bounded_memory_and_one_warning() {
    for (name, args) in [
        // A million lines outside a response before `= pass`.
        ("flood", &["flood", "1", "1000000"][..]),
        // A response of a million lines.
        ("long", &["long", "1", "1000000"]),
        // A response whose line is 100 MB.
        ("wide", &["wide", "1", "100000000"]),
        // Lines outside a response without end.
        ("babble", &["babble", "1"]),
    ] {
        let timeout = Duration::from_millis(2000);
        let mut setup = start(name, args, 2000);
        let mut game = Game::new(9, Rules::default());
        for _ in 0..3 {
            let (answer, _) = setup.genmove(&mut game, timeout + SLACK);
            assert_ne!(answer, "PASS", "{name}: the fallback plays");
        }
        if let Some(peak) = setup.peak_kib() {
            assert!(peak < 64 << 10, "{name}: peak memory {peak} KiB");
        }
        let stderr = setup.quit();
        assert!(
            stderr.len() < 8 << 10 && stderr.lines().count() < 20,
            "{name}: {} bytes, {} lines of warnings: {}",
            stderr.len(),
            stderr.lines().count(),
            &stderr[..stderr.len().min(2000)]
        );
    }
}
