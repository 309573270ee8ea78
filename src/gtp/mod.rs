//! The GTP front end: a reader thread turns stdin into lines, the engine executes them in
//! order, and one writer sends each response to stdout and flushes it.

pub mod engine;
pub mod protocol;

use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::sync::mpsc;
use std::thread;

use log::{debug, warn};

pub use engine::Engine;
use protocol::{GtpError, format_response};

/// The longest input line accepted; longer lines are answered `? line too long`.
pub const MAX_LINE: usize = 1 << 20;

/// One line read from the controller.
enum Input {
    Line(String),
    TooLong,
}

/// Serves GTP: reads commands from `input` until EOF or `quit`, writes responses to `output`.
/// A controller that closes its end of the pipe ends the session like `quit`.
pub fn serve(
    mut engine: Engine,
    input: impl Read + Send + 'static,
    mut output: impl Write,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("gtp-reader".into())
        .spawn(move || read_lines(BufReader::new(input), &tx))?;
    for input in rx {
        let (id, result) = match input {
            Input::TooLong => (None, Err(GtpError::LineTooLong)),
            Input::Line(raw) => {
                let Some(line) = protocol::preprocess(&raw) else {
                    continue;
                };
                debug!("<< {line}");
                let command = protocol::parse(&line);
                let result = engine.execute(&command);
                (command.id, result)
            }
        };
        let response = format_response(id.as_deref(), &result);
        debug!(">> {}", response.trim_end());
        match output
            .write_all(response.as_bytes())
            .and_then(|()| output.flush())
        {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::BrokenPipe => break,
            Err(e) => return Err(e),
        }
        if engine.quit_requested() {
            break;
        }
    }
    Ok(())
}

/// Reads `input` line by line as bytes (invalid UTF-8 is replaced, not fatal), never holding
/// more than [`MAX_LINE`] bytes of one line.
fn read_lines(mut input: impl BufRead, tx: &mpsc::Sender<Input>) {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok([]) => break,
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                warn!("reading stdin: {e}");
                break;
            }
        };
        let (part, used, ends_line) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if line.len() + part.len() > MAX_LINE {
            too_long = true;
        } else {
            line.extend_from_slice(part);
        }
        input.consume(used);
        if ends_line && send_line(tx, &mut line, &mut too_long).is_err() {
            return;
        }
    }
    if !line.is_empty() || too_long {
        let _ = send_line(tx, &mut line, &mut too_long);
    }
}

fn send_line(
    tx: &mpsc::Sender<Input>,
    line: &mut Vec<u8>,
    too_long: &mut bool,
) -> Result<(), mpsc::SendError<Input>> {
    let input = if *too_long {
        Input::TooLong
    } else {
        Input::Line(String::from_utf8_lossy(line).into_owned())
    };
    line.clear();
    *too_long = false;
    tx.send(input)
}
