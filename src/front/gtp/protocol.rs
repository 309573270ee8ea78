//! GTP v2 text: preprocessing of input lines, commands with their ids, and the `=`/`?`
//! responses with the spec's error texts. Knows nothing of the game.

use std::fmt;

/// A preprocessed command line: optional numeric id, name, arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The id as the controller wrote it (digits only), echoed in the response.
    pub id: Option<String>,
    /// The command name.
    pub name: String,
    /// The arguments, split on spaces.
    pub args: Vec<String>,
}

impl Command {
    /// The command as a line without its id: the name and the arguments.
    pub fn text(&self) -> String {
        std::iter::once(self.name.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Applies the spec's preprocessing to one input line (§3.1): control characters other than
/// HT and LF removed, everything from `#` on cut, HT turned into SPACE. Returns `None` for a
/// line that is then empty or white space only (it gets no response).
pub fn preprocess(line: &str) -> Option<String> {
    let without_comment = line.split('#').next().unwrap_or("");
    let cleaned: String = without_comment
        .chars()
        .filter(|&c| c == '\t' || !c.is_control())
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let trimmed = cleaned.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// Parses a preprocessed, non-empty line into a command.
pub fn parse(line: &str) -> Command {
    let mut words = line.split(' ').filter(|w| !w.is_empty());
    let first = words.next().unwrap_or("");
    let (id, name) = if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
        (Some(first.to_string()), words.next().unwrap_or(""))
    } else {
        (None, first)
    };
    Command {
        id,
        name: name.to_string(),
        args: words.map(String::from).collect(),
    }
}

/// The arguments [`parse`] gives a command line that ends in `text` (for tests that call a
/// command's own parser).
#[cfg(test)]
pub(crate) fn args_of(text: &str) -> Vec<String> {
    parse(&format!("command {text}")).args
}

/// A failed command, with the spec's lower-case error texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GtpError {
    /// The command is not known.
    UnknownCommand,
    /// Arguments missing, extra or malformed.
    Syntax,
    /// A move the rules forbid.
    IllegalMove,
    /// `boardsize` outside 2..=25.
    UnacceptableSize,
    /// `undo` with nothing to undo.
    CannotUndo,
    /// Handicap on a board that has stones.
    BoardNotEmpty,
    /// A handicap vertex list with a pass, repeats or too few stones.
    BadVertexList,
    /// A handicap count the layout cannot give.
    InvalidNumberOfStones,
    /// `loadsgf` could not read or replay the file.
    CannotLoadFile,
    /// An input line longer than the engine accepts.
    LineTooLong,
    /// The command cannot run without a network and none is loaded.
    NoNetwork,
    /// An argument outside what the command takes, with the command's own explanation.
    Argument(String),
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GtpError::UnknownCommand => "unknown command",
            GtpError::Syntax => "syntax error",
            GtpError::IllegalMove => "illegal move",
            GtpError::UnacceptableSize => "unacceptable size",
            GtpError::CannotUndo => "cannot undo",
            GtpError::BoardNotEmpty => "board not empty",
            GtpError::BadVertexList => "bad vertex list",
            GtpError::InvalidNumberOfStones => "invalid number of stones",
            GtpError::CannotLoadFile => "cannot load file",
            GtpError::LineTooLong => "line too long",
            GtpError::NoNetwork => "no network loaded",
            GtpError::Argument(why) => why.as_str(),
        })
    }
}

impl std::error::Error for GtpError {}

/// Formats a response: `=id text` or `?id message`, then the blank line. Empty lines inside a
/// multi-line text are dropped, since a blank line ends the response for every client.
pub fn format_response(id: Option<&str>, result: &Result<String, GtpError>) -> String {
    let (mark, text) = match result {
        Ok(text) => ('=', text.clone()),
        Err(e) => ('?', e.to_string()),
    };
    let body: Vec<&str> = text
        .split('\n')
        .enumerate()
        .filter(|(i, line)| *i == 0 || !line.trim().is_empty())
        .map(|(_, line)| line.trim_end())
        .collect();
    format!("{mark}{} {}\n\n", id.unwrap_or(""), body.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn preprocessing_follows_the_spec() {
        assert_eq!(preprocess("play\tb\td4\r"), Some("play b d4".into()));
        assert_eq!(preprocess("genmove b # comment"), Some("genmove b".into()));
        assert_eq!(preprocess("# interrupt"), None);
        assert_eq!(preprocess("   \t "), None);
        assert_eq!(preprocess("na\x07me"), Some("name".into()));
        assert_eq!(preprocess(""), None);
    }

    #[test]
    fn ids_are_split_off() {
        let c = parse("12 play b d4");
        assert_eq!(c.id.as_deref(), Some("12"));
        assert_eq!(c.name, "play");
        assert_eq!(c.args, vec!["b", "d4"]);
        assert_eq!(c.text(), "play b d4");
        let c = parse("name");
        assert_eq!((c.id, c.name.as_str(), c.args.len()), (None, "name", 0));
        let c = parse("99999999999999999999999 name");
        assert_eq!(c.id.as_deref(), Some("99999999999999999999999"));
    }

    #[test]
    fn responses_end_with_one_blank_line_and_hold_none_inside() {
        assert_eq!(format_response(Some("7"), &Ok("2".into())), "=7 2\n\n");
        assert_eq!(format_response(None, &Ok(String::new())), "= \n\n");
        assert_eq!(
            format_response(None, &Err(GtpError::Syntax)),
            "? syntax error\n\n"
        );
        assert_eq!(format_response(None, &Ok("a\n\nb\n".into())), "= a\nb\n\n");
        assert_eq!(
            format_response(Some("3"), &Ok("\nrow".into())),
            "=3 \nrow\n\n"
        );
    }

    proptest! {
        #[test]
        fn parsing_never_panics(line in "\\PC*") {
            if let Some(clean) = preprocess(&line) {
                let c = parse(&clean);
                let r = format_response(c.id.as_deref(), &Ok(c.args.join("\n")));
                prop_assert!(r.ends_with("\n\n"));
                prop_assert!(!r[..r.len() - 2].contains("\n\n"));
            }
        }
    }
}
