//! Where a command's response goes: the one writer of stdout, which every response and every
//! streamed line goes through, each flushed.

use std::io::{self, Write};

use super::protocol::{GtpError, format_response};

/// The response of one command. A handler that streams opens it (`=id` goes out at once) and
/// writes lines; otherwise the handler's result becomes the response when it is finished.
pub struct Sink<'a> {
    out: Output<'a>,
    id: Option<&'a str>,
    open: bool,
    /// The first write error, after which nothing more is written.
    failed: Option<io::Error>,
}

enum Output<'a> {
    /// The controller.
    Writer(&'a mut dyn Write),
    /// The streamed lines only, collected; a stream ends after its first line.
    Collect(&'a mut String),
}

impl<'a> Sink<'a> {
    /// The response to the command with `id`, written to `out`.
    pub fn new(out: &'a mut dyn Write, id: Option<&'a str>) -> Sink<'a> {
        Sink {
            out: Output::Writer(out),
            id,
            open: false,
            failed: None,
        }
    }

    /// A sink that collects a streamed response's lines into `text` (no `=`, no blank line)
    /// and ends a stream after its first line: a streaming command run as one answer.
    pub fn collect(text: &'a mut String) -> Sink<'a> {
        Sink {
            out: Output::Collect(text),
            id: None,
            open: false,
            failed: None,
        }
    }

    /// Starts a streamed response: `=id` goes out now, once.
    pub fn open(&mut self) {
        if !self.open {
            self.open = true;
            if let Output::Writer(_) = self.out {
                let head = format!("={}", self.id.unwrap_or(""));
                self.write(&head);
            }
        }
    }

    /// One line of a streamed response (opening it first); false when it should end: the
    /// output has gone, or a collected stream has its line.
    pub fn line(&mut self, text: &str) -> bool {
        self.open();
        self.write(text);
        self.failed.is_none() && matches!(self.out, Output::Writer(_))
    }

    /// Whether the response was opened as a stream.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Ends the response: a stream with its blank line, else `result` as `=`/`?` text.
    pub fn finish(mut self, result: &Result<String, GtpError>) -> io::Result<()> {
        if let Output::Collect(_) = self.out {
            return Ok(());
        }
        if self.open {
            self.write("");
        } else {
            let text = format_response(self.id, result);
            self.write(text.trim_end_matches('\n'));
            self.write("");
        }
        match self.failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn write(&mut self, line: &str) {
        if self.failed.is_some() {
            return;
        }
        match &mut self.out {
            Output::Writer(out) => {
                if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                    self.failed = Some(e);
                }
            }
            Output::Collect(text) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
}
