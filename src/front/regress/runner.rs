//! Running one parsed script against an engine and collecting what each test got.

use std::time::Duration;

use crate::engine::gtp_client::{Client, ClientError};

use super::script::{Script, Step, Test};

/// What one test got.
#[derive(Debug)]
pub struct TestOutcome<'a> {
    /// The test.
    pub test: &'a Test,
    /// The response: `Ok` for `=`, `Err` with a description otherwise.
    pub response: Result<String, String>,
    /// Whether the response failed the expectation.
    pub failed: bool,
}

impl TestOutcome<'_> {
    /// A failure not marked with `*`.
    pub fn unexpected_failure(&self) -> bool {
        self.failed && !self.test.expectation.expected_fail
    }

    /// A pass of a test marked with `*`.
    pub fn unexpected_pass(&self) -> bool {
        !self.failed && self.test.expectation.expected_fail
    }
}

/// Everything that happened while running one script.
#[derive(Debug, Default)]
pub struct Run<'a> {
    /// One outcome per test, in script order.
    pub outcomes: Vec<TestOutcome<'a>>,
    /// Setup commands that were refused or got no answer, as (line, message).
    pub errors: Vec<(usize, String)>,
    /// Set when the engine exited before the end: the line of the command it died on.
    pub died_at: Option<usize>,
}

/// Sends every command of `script` to `engine`, each with at most `timeout` to answer. When the
/// engine exits, the tests not yet run count as failed.
pub fn run<'a>(script: &'a Script, engine: &mut Client, timeout: Duration) -> Run<'a> {
    let mut run = Run::default();
    for step in &script.steps {
        let (line, command) = match step {
            Step::Setup { line, command } => (*line, command.as_str()),
            Step::Test(test) => (test.line, test.command.as_str()),
        };
        let response = if run.died_at.is_some() {
            Err("not run: the engine had exited".to_string())
        } else {
            match engine.send(command, Some(timeout)) {
                Ok(text) => Ok(text),
                Err(ClientError::Refused(text)) => Err(format!("? {text}")),
                Err(e @ ClientError::Gone { .. }) => {
                    run.died_at = Some(line);
                    Err(e.to_string())
                }
                Err(e) => Err(e.to_string()),
            }
        };
        match step {
            Step::Setup { .. } => {
                // An engine that died is reported once, by the caller.
                if let Err(message) = response
                    && run.died_at.is_none()
                {
                    run.errors.push((line, format!("`{command}`: {message}")));
                }
            }
            Step::Test(test) => {
                let failed = !test.expectation.passes(&response);
                run.outcomes.push(TestOutcome {
                    test,
                    response,
                    failed,
                });
            }
        }
    }
    run
}
