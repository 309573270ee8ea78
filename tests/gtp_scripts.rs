//! Runs every `gtp-scripts/*.tst` against tengen with gogui-regress's rules: a numbered
//! command followed by `#? [regex]` is a test; the regex must match the whole response; `!`
//! negates it; a `?` response always fails; a trailing `*` marks an expected failure. The
//! engine runs in the script's directory, so `loadsgf` paths are relative to it.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use regex::Regex;

#[derive(Debug)]
struct Outcome {
    id: String,
    command: String,
    response: String,
    failed: bool,
    expected_fail: bool,
}

fn run_script(path: &Path) -> Vec<Outcome> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut engine = {
        let child = Command::new(common::tengen_path())
            .args(["gtp", "--level", "easy"])
            .current_dir(path.parent().unwrap())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        common::Gtp::from_child(child)
    };
    let mut outcomes = Vec::new();
    let mut last: Option<(String, String, Result<String, String>)> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(pattern) = line.strip_prefix("#?") {
            let (id, command, response) = last.take().expect("#? without a numbered command");
            let pattern = pattern.trim();
            let (pattern, expected_fail) = match pattern.strip_suffix('*') {
                Some(p) => (p, true),
                None => (pattern, false),
            };
            let inner = pattern
                .strip_prefix('[')
                .and_then(|p| p.strip_suffix(']'))
                .expect("pattern in brackets")
                .trim();
            let (inner, negated) = match inner.strip_prefix('!') {
                Some(p) => (p, true),
                None => (inner, false),
            };
            let regex = Regex::new(&format!("(?s)^(?:{inner})$")).expect("valid regex");
            let (failed, text) = match &response {
                Err(e) => (true, format!("? {e}")),
                Ok(r) => (regex.is_match(r.trim()) == negated, r.clone()),
            };
            outcomes.push(Outcome {
                id,
                command,
                response: text,
                failed,
                expected_fail,
            });
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let response = engine.send(line);
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.bytes().all(|b| b.is_ascii_digit()) {
            last = Some((
                first.to_string(),
                words.collect::<Vec<_>>().join(" "),
                response,
            ));
        } else {
            assert!(
                response.is_ok(),
                "{}: setup command `{line}` failed: {response:?}",
                path.display()
            );
        }
    }
    assert_eq!(engine.quit(), Some(0));
    outcomes
}

#[test]
fn every_script_passes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("gtp-scripts");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tst"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty());
    let mut problems = Vec::new();
    let mut total = 0;
    for script in &scripts {
        let outcomes = run_script(script);
        assert!(!outcomes.is_empty(), "{} has no tests", script.display());
        total += outcomes.len();
        for o in outcomes {
            if o.failed != o.expected_fail {
                let what = if o.failed {
                    "unexpected FAIL"
                } else {
                    "unexpected PASS"
                };
                problems.push(format!(
                    "{} {} `{}`: {what}, got '{}'",
                    script.file_name().unwrap().to_string_lossy(),
                    o.id,
                    o.command,
                    o.response
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {total} tests:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
