//! The GTP front end: a reader thread turns stdin into lines, the engine executes them in
//! order, and one writer sends each response to stdout and flushes it.

pub mod client;
pub mod engine;
pub mod protocol;

use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Instant;

use log::{debug, warn};

pub use engine::Engine;
use protocol::{GtpError, format_response};

/// The longest input line accepted; longer lines are answered `? line too long`.
pub const MAX_LINE: usize = 1 << 20;

/// One line read from the controller, and when.
enum Input {
    Line(String, Instant),
    TooLong,
}

/// The raw line GoGui sends to stop a running command early.
const INTERRUPT: &str = "# interrupt";

/// Serves GTP: reads commands from `input` until EOF or `quit`, writes responses to `output`.
/// A controller that closes its end of the pipe ends the session like `quit`.
pub fn serve(
    mut engine: Engine,
    input: impl Read + Send + 'static,
    mut output: impl Write,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    let busy = Arc::new(AtomicBool::new(false));
    let reader = Reader {
        interrupt: engine.interrupt_flag(),
        busy: Arc::clone(&busy),
        tx,
    };
    thread::Builder::new()
        .name("gtp-reader".into())
        .spawn(move || reader.read_lines(BufReader::new(input)))?;
    for input in rx {
        let (id, result) = match input {
            Input::TooLong => (None, Err(GtpError::LineTooLong)),
            Input::Line(raw, received) => {
                let Some(line) = protocol::preprocess(&raw) else {
                    continue;
                };
                debug!("<< {line}");
                let command = protocol::parse(&line);
                busy.store(true, Ordering::SeqCst);
                let result = engine.execute_received(&command, received);
                busy.store(false, Ordering::SeqCst);
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

/// The stdin side: turns bytes into lines for the engine, and raises the interrupt flag when
/// `# interrupt` arrives while a command runs (the line is still passed on; as a comment it
/// gets no response).
struct Reader {
    interrupt: Arc<AtomicBool>,
    busy: Arc<AtomicBool>,
    tx: mpsc::Sender<Input>,
}

impl Reader {
    /// Reads `input` line by line as bytes (invalid UTF-8 is replaced, not fatal), never
    /// holding more than [`MAX_LINE`] bytes of one line.
    fn read_lines(self, mut input: impl BufRead) {
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
            if ends_line && self.send_line(&mut line, &mut too_long).is_err() {
                return;
            }
        }
        if !line.is_empty() || too_long {
            let _ = self.send_line(&mut line, &mut too_long);
        }
    }

    fn send_line(
        &self,
        line: &mut Vec<u8>,
        too_long: &mut bool,
    ) -> Result<(), mpsc::SendError<Input>> {
        let input = if *too_long {
            Input::TooLong
        } else {
            let text = String::from_utf8_lossy(line).into_owned();
            if text.trim() == INTERRUPT && self.busy.load(Ordering::SeqCst) {
                self.interrupt.store(true, Ordering::Relaxed);
            }
            Input::Line(text, Instant::now())
        };
        line.clear();
        *too_long = false;
        self.tx.send(input)
    }
}
