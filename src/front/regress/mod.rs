//! `tengen regress`: runs GTP regression scripts (gogui-regress format) against an engine and
//! reports failures, unexpected passes and totals per file.
//!
//! Each script runs in a fresh engine whose working directory is the script's directory, so
//! `loadsgf` paths in a script are relative to it, as with gogui-regress.

pub mod runner;
pub mod script;

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::engine::gtp_client::{Client, ClientError};

use runner::Run;
use script::ParseError;

/// What to run and against what.
#[derive(Debug, Clone)]
pub struct RegressOptions {
    /// The engine's program and arguments.
    pub engine: Vec<String>,
    /// Scripts, or directories searched for `*.tst` files.
    pub paths: Vec<PathBuf>,
    /// The longest a command may take before its test counts as failed.
    pub timeout: Duration,
}

/// Why a regression run could not be carried out.
#[derive(Debug)]
pub enum RegressError {
    /// A path given does not exist or cannot be read.
    Read {
        /// The path.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// A directory given holds no `*.tst` file.
    NoScripts(PathBuf),
    /// A script is malformed.
    Parse {
        /// The script.
        path: PathBuf,
        /// What is wrong with it.
        source: ParseError,
    },
    /// The engine cannot be started.
    Engine(ClientError),
    /// Writing the report failed.
    Write(io::Error),
}

impl fmt::Display for RegressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegressError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            RegressError::NoScripts(path) => {
                write!(f, "no .tst files under {}", path.display())
            }
            RegressError::Parse { path, source } => write!(f, "{}: {source}", path.display()),
            RegressError::Engine(e) => write!(f, "{e} (check --engine)"),
            RegressError::Write(e) => write!(f, "cannot write the report: {e}"),
        }
    }
}

impl std::error::Error for RegressError {}

/// Counts for one script or for the whole run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Tests run (or counted as failed because the engine exited).
    pub tests: usize,
    /// Tests whose response matched (or did not match, for a negated pattern).
    pub passed: usize,
    /// Tests that did not pass, expected or not.
    pub failed: usize,
    /// Failed tests not marked `*`.
    pub unexpected_failures: usize,
    /// Passed tests marked `*`.
    pub unexpected_passes: usize,
    /// Setup commands refused or unanswered, and engines that exited early.
    pub errors: usize,
}

impl Totals {
    /// Whether the run should be called a failure: an unexpected failure or an error.
    pub fn is_failure(&self) -> bool {
        self.unexpected_failures > 0 || self.errors > 0
    }

    fn of(run: &Run<'_>) -> Totals {
        let count = |f: &dyn Fn(&runner::TestOutcome<'_>) -> bool| {
            run.outcomes.iter().filter(|o| f(o)).count()
        };
        let failed = count(&|o| o.failed);
        Totals {
            tests: run.outcomes.len(),
            passed: run.outcomes.len() - failed,
            failed,
            unexpected_failures: count(&|o| o.unexpected_failure()),
            unexpected_passes: count(&|o| o.unexpected_pass()),
            errors: run.errors.len() + usize::from(run.died_at.is_some()),
        }
    }

    fn add(&mut self, other: Totals) {
        self.tests += other.tests;
        self.passed += other.passed;
        self.failed += other.failed;
        self.unexpected_failures += other.unexpected_failures;
        self.unexpected_passes += other.unexpected_passes;
        self.errors += other.errors;
    }
}

/// Splits an `--engine` command line into its program and arguments. A relative program path
/// with a `/` in it is made absolute, since the engine runs in each script's directory.
pub fn engine_argv(command_line: &str) -> Result<Vec<String>, RegressError> {
    let bad = || RegressError::Engine(ClientError::BadCommandLine(command_line.to_string()));
    let mut argv = shell_words::split(command_line).map_err(|_| bad())?;
    let program = argv.first_mut().ok_or_else(bad)?;
    if program.contains('/') && Path::new(program.as_str()).is_relative() {
        let absolute =
            std::path::absolute(program.as_str()).map_err(|source| RegressError::Read {
                path: PathBuf::from(program.as_str()),
                source,
            })?;
        *program = absolute.to_string_lossy().into_owned();
    }
    Ok(argv)
}

/// The scripts named by `paths`: files as given, directories searched (recursively) for `*.tst`
/// files, each directory's in sorted order.
pub fn collect_scripts(paths: &[PathBuf]) -> Result<Vec<PathBuf>, RegressError> {
    let mut scripts = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| RegressError::Read {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            let before = scripts.len();
            walk(path, &mut scripts)?;
            if scripts.len() == before {
                return Err(RegressError::NoScripts(path.clone()));
            }
        } else {
            scripts.push(path.clone());
        }
    }
    Ok(scripts)
}

/// Appends the `*.tst` files below `dir` in sorted order.
fn walk(dir: &Path, scripts: &mut Vec<PathBuf>) -> Result<(), RegressError> {
    let read_error = |source| RegressError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(read_error)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(read_error)?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, scripts)?;
        } else if path.extension().is_some_and(|e| e == "tst") {
            scripts.push(path);
        }
    }
    Ok(())
}

/// Runs every script named by `options` and writes the report to `out`: each failure and
/// unexpected pass as it is found, then a table of totals per file.
pub fn run(options: &RegressOptions, out: &mut impl Write) -> Result<Totals, RegressError> {
    let scripts = collect_scripts(&options.paths)?;
    let mut parsed = Vec::with_capacity(scripts.len());
    for path in &scripts {
        let text = std::fs::read_to_string(path).map_err(|source| RegressError::Read {
            path: path.clone(),
            source,
        })?;
        let script = script::parse(&text).map_err(|source| RegressError::Parse {
            path: path.clone(),
            source,
        })?;
        parsed.push(script);
    }
    let mut rows = Vec::with_capacity(scripts.len());
    for (path, script) in scripts.iter().zip(&parsed) {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let label = path.display().to_string();
        let mut engine =
            Client::spawn_argv_in(&options.engine, &label, dir).map_err(RegressError::Engine)?;
        let run = runner::run(script, &mut engine, options.timeout);
        engine.quit();
        report_run(&label, &run, out).map_err(RegressError::Write)?;
        rows.push((label, Totals::of(&run)));
    }
    let total = write_table(&rows, out).map_err(RegressError::Write)?;
    Ok(total)
}

/// Writes the failures, unexpected passes and errors of one script, in script order.
fn report_run(label: &str, run: &Run<'_>, out: &mut impl Write) -> io::Result<()> {
    let mut lines: Vec<(usize, String)> = run
        .errors
        .iter()
        .map(|(line, message)| (*line, format!("{label} line {line}  ERROR  {message}")))
        .collect();
    for outcome in &run.outcomes {
        let verdict = match (outcome.failed, outcome.test.expectation.expected_fail) {
            (true, false) => "FAIL",
            (true, true) => "FAIL (expected)",
            (false, true) => "PASS (expected to fail)",
            (false, false) => continue,
        };
        let got = match &outcome.response {
            Ok(text) if text.trim().is_empty() => "(empty)".to_string(),
            Ok(text) => text.trim().replace('\n', " | "),
            Err(text) => text.clone(),
        };
        let test = outcome.test;
        lines.push((
            test.line,
            format!(
                "{label}:{}  {verdict}  expected {} got {got}",
                test.id, test.expectation
            ),
        ));
    }
    if let Some(line) = run.died_at {
        let lost = run.outcomes.iter().filter(|o| o.test.line > line).count();
        lines.push((
            line,
            format!(
                "{label} line {line}  ERROR  the engine exited; {lost} tests after it count as failed"
            ),
        ));
    }
    lines.sort_by_key(|(line, _)| *line);
    for (_, text) in lines {
        writeln!(out, "{text}")?;
    }
    Ok(())
}

/// Writes the totals table and returns the grand total.
fn write_table(rows: &[(String, Totals)], out: &mut impl Write) -> io::Result<Totals> {
    let mut total = Totals::default();
    for (_, totals) in rows {
        total.add(*totals);
    }
    let width = rows
        .iter()
        .map(|(label, _)| label.len())
        .chain([5])
        .max()
        .unwrap_or(5);
    writeln!(out)?;
    writeln!(
        out,
        "{:<width$}  tests  passed  failed  unexp.fail  unexp.pass  errors",
        "file"
    )?;
    for (label, t) in rows
        .iter()
        .map(|(l, t)| (l.as_str(), t))
        .chain([("total", &total)])
    {
        writeln!(
            out,
            "{label:<width$}  {:>5}  {:>6}  {:>6}  {:>10}  {:>10}  {:>6}",
            t.tests, t.passed, t.failed, t.unexpected_failures, t.unexpected_passes, t.errors
        )?;
    }
    Ok(total)
}
