//! Parsing a regression script in the gogui-regress format.
//!
//! A script is a GTP session with tests in it. A line whose first word is a number is a numbered
//! command; when the next line that is neither blank nor a plain comment is `#? [pattern]`, the
//! command is a test and its response must match the pattern (a regular expression matched
//! against the whole trimmed response). `[!pattern]` negates the match, a trailing `*` after the
//! bracket marks an expected failure. Other lines are commands sent as they are (setup), and
//! lines starting with `#` are comments.

use std::fmt;

use regex::Regex;

/// A parsed script: its commands in order.
#[derive(Debug)]
pub struct Script {
    /// The commands, in the order they are sent.
    pub steps: Vec<Step>,
}

/// One command of a script.
#[derive(Debug)]
pub enum Step {
    /// A command whose response is not checked, only that it succeeds.
    Setup {
        /// 1-based line number in the script.
        line: usize,
        /// The command as written (with its number, if any).
        command: String,
    },
    /// A numbered command with an expected response.
    Test(Test),
}

/// A numbered command and what its response must look like.
#[derive(Debug)]
pub struct Test {
    /// 1-based line number of the command.
    pub line: usize,
    /// The test's number, as written.
    pub id: String,
    /// The command without its number.
    pub command: String,
    /// What the response must match.
    pub expectation: Expectation,
}

/// The `#? [pattern]` line of a test.
#[derive(Debug)]
pub struct Expectation {
    /// The pattern as written inside the brackets, without a leading `!`.
    pub pattern: String,
    /// `[!pattern]`: the response must *not* match.
    pub negated: bool,
    /// A trailing `*`: the test is known to fail.
    pub expected_fail: bool,
    regex: Regex,
}

impl Expectation {
    /// Whether `response` (`Ok` for `=`, `Err` for `?`) passes. A `?` response never passes,
    /// as in gogui-regress.
    pub fn passes(&self, response: &Result<String, String>) -> bool {
        match response {
            Ok(text) => self.regex.is_match(text.trim()) != self.negated,
            Err(_) => false,
        }
    }
}

impl fmt::Display for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bang = if self.negated { "!" } else { "" };
        write!(f, "[{bang}{}]", self.pattern)
    }
}

/// Why a script could not be parsed.
#[derive(Debug, PartialEq)]
pub enum ParseError {
    /// A `#?` line that does not follow a numbered command.
    Orphan {
        /// 1-based line number.
        line: usize,
    },
    /// A `#?` line without `[...]`.
    NoBrackets {
        /// 1-based line number.
        line: usize,
    },
    /// The pattern is not a valid regular expression.
    BadPattern {
        /// 1-based line number.
        line: usize,
        /// What the regex parser said.
        message: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Orphan { line } => {
                write!(f, "line {line}: `#?` must follow a numbered command")
            }
            ParseError::NoBrackets { line } => {
                write!(f, "line {line}: expected `#? [pattern]`")
            }
            ParseError::BadPattern { line, message } => {
                write!(f, "line {line}: bad pattern: {message}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses the text of a script.
pub fn parse(text: &str) -> Result<Script, ParseError> {
    let mut steps = Vec::new();
    // The last numbered command not yet given an expectation: (line, id, command).
    let mut pending: Option<(usize, String, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if let Some(rest) = trimmed.strip_prefix("#?") {
            let (command_line, id, command) = pending.take().ok_or(ParseError::Orphan { line })?;
            steps.push(Step::Test(Test {
                line: command_line,
                id,
                command,
                expectation: parse_expectation(rest, line)?,
            }));
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some((line, id, command)) = pending.take() {
            steps.push(Step::Setup {
                line,
                command: format!("{id} {command}"),
            });
        }
        let (first, rest) = trimmed
            .split_once(char::is_whitespace)
            .unwrap_or((trimmed, ""));
        if first.bytes().all(|b| b.is_ascii_digit()) {
            pending = Some((line, first.to_string(), rest.trim().to_string()));
        } else {
            steps.push(Step::Setup {
                line,
                command: trimmed.to_string(),
            });
        }
    }
    if let Some((line, id, command)) = pending {
        steps.push(Step::Setup {
            line,
            command: format!("{id} {command}"),
        });
    }
    Ok(Script { steps })
}

/// Parses what follows `#?`: `[pattern]` or `[!pattern]`, optionally followed by `*`.
fn parse_expectation(text: &str, line: usize) -> Result<Expectation, ParseError> {
    let text = text.trim();
    let (text, expected_fail) = match text.strip_suffix('*') {
        Some(rest) => (rest.trim_end(), true),
        None => (text, false),
    };
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or(ParseError::NoBrackets { line })?;
    let (pattern, negated) = match inner.strip_prefix('!') {
        Some(rest) => (rest, true),
        None => (inner, false),
    };
    let regex =
        Regex::new(&format!("(?s)^(?:{pattern})$")).map_err(|e| ParseError::BadPattern {
            line,
            message: e.to_string(),
        })?;
    Ok(Expectation {
        pattern: pattern.to_string(),
        negated,
        expected_fail,
        regex,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tests_of(script: &Script) -> Vec<&Test> {
        script
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Test(t) => Some(t),
                Step::Setup { .. } => None,
            })
            .collect()
    }

    fn ok(text: &str) -> Result<String, String> {
        Ok(text.to_string())
    }

    #[test]
    fn alternatives_match_any_one_of_them_and_only_the_whole_response() {
        let script = parse("10 reg_genmove b\n#? [C3|D4]\n").unwrap();
        let test = tests_of(&script)[0];
        assert_eq!((test.line, test.id.as_str()), (1, "10"));
        assert_eq!(test.command, "reg_genmove b");
        let e = &test.expectation;
        assert!(e.passes(&ok("C3")) && e.passes(&ok(" D4\n")));
        assert!(!e.passes(&ok("C33")) && !e.passes(&ok("E5")) && !e.passes(&ok("c3")));
        assert!(!e.expected_fail && !e.negated);
    }

    #[test]
    fn negation_passes_everything_but_the_pattern_and_never_an_error() {
        let script = parse("1 genmove w\n#? [!PASS|A1]\n").unwrap();
        let e = &tests_of(&script)[0].expectation;
        assert!(e.negated);
        assert!(e.passes(&ok("B2")));
        assert!(!e.passes(&ok("PASS")) && !e.passes(&ok("A1")));
        assert!(!e.passes(&Err("illegal move".to_string())));
        assert_eq!(e.to_string(), "[!PASS|A1]");
    }

    #[test]
    fn a_star_marks_an_expected_failure() {
        let script = parse("3 play b Z9\n#? []*\n4 play b A1\n#? [] *\n").unwrap();
        let tests = tests_of(&script);
        assert!(tests.iter().all(|t| t.expectation.expected_fail));
        assert!(tests[0].expectation.passes(&ok("")));
        assert!(!tests[0].expectation.passes(&Err(String::new())));
    }

    #[test]
    fn a_numbered_command_without_expectation_is_setup() {
        let script =
            parse("5 boardsize 9\nclear_board\n6 name\n\n# a comment\n#? [x]\n7 quit").unwrap();
        let kinds: Vec<String> = script
            .steps
            .iter()
            .map(|s| match s {
                Step::Setup { line, command } => format!("setup {line} {command}"),
                Step::Test(t) => format!("test {} {} {}", t.line, t.id, t.command),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "setup 1 5 boardsize 9",
                "setup 2 clear_board",
                "test 3 6 name",
                "setup 7 7 quit"
            ]
        );
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let script = parse("# header\n\n   \n  # indented comment\nkomi 6.5\n").unwrap();
        assert_eq!(script.steps.len(), 1);
        assert!(tests_of(&script).is_empty());
    }

    #[test]
    fn malformed_expectations_are_errors_with_their_line() {
        assert_eq!(
            parse("#? [A1]").unwrap_err(),
            ParseError::Orphan { line: 1 }
        );
        assert_eq!(
            parse("boardsize 9\n#? [A1]").unwrap_err(),
            ParseError::Orphan { line: 2 }
        );
        assert_eq!(
            parse("1 name\n#? A1").unwrap_err(),
            ParseError::NoBrackets { line: 2 }
        );
        assert!(matches!(
            parse("1 name\n\n#? [(]").unwrap_err(),
            ParseError::BadPattern { line: 3, .. }
        ));
    }
}
