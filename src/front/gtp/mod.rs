//! The GTP front end: a reader thread turns stdin into lines, the engine executes them in
//! order, and one writer sends each response to stdout and flushes it.

pub mod analyze;
pub mod engine;
pub mod gogui;
pub mod ogs;
pub mod protocol;
mod raw_nn;
pub mod sink;
mod time;

use std::collections::BTreeSet;
use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::TryRecvError;
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread;
use std::time::Instant;

use log::{debug, warn};

use crate::ground::lines::{read_bounded, without_newline};

pub use engine::Engine;
use engine::Kind;
use protocol::GtpError;
use sink::Sink;

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
    let interrupts = Interrupts::default();
    let streams = StreamStops::default();
    let ponder_stop = Arc::new(AtomicBool::new(false));
    let reader = Reader {
        interrupts: interrupts.clone(),
        streams: streams.clone(),
        ponder_stop: Arc::clone(&ponder_stop),
        tx,
        commands: 0,
    };
    // Analysis commands and other commands seen so far, counted in the same order as the
    // reader counts them.
    let mut streams_seen = 0;
    let mut commands_seen = 0;
    thread::Builder::new()
        .name("gtp-reader".into())
        .spawn(move || reader.read_lines(BufReader::new(input)))?;
    loop {
        let input = if engine.ponder_pending() {
            // Think on the opponent's time until the next line arrives: the reader sets the
            // flag after passing a line on, so a line sent after this look stops the ponder.
            ponder_stop.store(false, Ordering::SeqCst);
            match rx.try_recv() {
                Ok(input) => {
                    engine.skip_ponder();
                    input
                }
                Err(TryRecvError::Empty) => {
                    engine.ponder(Arc::clone(&ponder_stop));
                    continue;
                }
                Err(TryRecvError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(input) => input,
                Err(_) => break,
            }
        };
        let (command, received) = match input {
            Input::TooLong => (None, Instant::now()),
            Input::Line(raw, received) => match protocol::preprocess(&raw) {
                Some(line) => {
                    debug!("<< {line}");
                    (Some(protocol::parse(&line)), received)
                }
                None => continue,
            },
        };
        let id = command.as_ref().and_then(|c| c.id.clone());
        let mut sink = Sink::new(&mut output, id.as_deref());
        let result = match &command {
            None => Err(GtpError::LineTooLong),
            Some(command) => match engine::kind_of(&command.name) {
                Some(Kind::Stream) => {
                    streams_seen += 1;
                    let stop = streams.arm(streams_seen);
                    engine.execute(command, received, stop, &mut sink)
                }
                _ => {
                    commands_seen += 1;
                    let stop = interrupts.start(commands_seen);
                    let result = engine.execute(command, received, stop, &mut sink);
                    interrupts.finish();
                    result
                }
            },
        };
        debug!(">> {result:?}");
        match sink.finish(&result) {
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

/// Stops for streaming analyses. The reader counts the analysis commands it passes on and
/// closes each one when the next line arrives (any line, as Sabaki and KataGo have it); the
/// engine counts them in the same order. Analysis `k` is stopped once `closed >= k`, which no
/// line read before or during it can miss, and a late close of an analysis that has already
/// ended cannot stop the next one.
#[derive(Clone, Default)]
struct StreamStops {
    /// Analyses closed by a following line.
    closed: Arc<AtomicU64>,
    /// The running analysis's stop flag.
    stop: Arc<AtomicBool>,
}

impl StreamStops {
    /// The stop flag for analysis number `k` (from 1), already set if a line has closed it.
    fn arm(&self, k: u64) -> Arc<AtomicBool> {
        self.stop.store(false, Ordering::SeqCst);
        if self.closed.load(Ordering::SeqCst) >= k {
            self.stop.store(true, Ordering::SeqCst);
        }
        Arc::clone(&self.stop)
    }

    /// Closes the analysis opened last.
    fn close(&self) {
        self.closed.fetch_add(1, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Which commands a `# interrupt` stops: the one on the last command line read before it,
/// whether it runs already or still waits its turn (a controller may send both at once, and
/// several such pairs before the first command starts). Reader and engine number the command
/// lines (analyses aside) in the same order, and meet under one lock.
#[derive(Clone, Default)]
struct Interrupts {
    state: Arc<Mutex<InterruptState>>,
    /// The running command's stop flag, which a running search watches.
    flag: Arc<AtomicBool>,
}

#[derive(Default)]
struct InterruptState {
    /// The numbers of the commands interrupted before they started (those the engine has not
    /// reached yet; a single slot lost all but the last of them).
    targets: BTreeSet<u64>,
    /// The number of the command running now (0: none).
    running: u64,
}

impl Interrupts {
    fn lock(&self) -> std::sync::MutexGuard<'_, InterruptState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The reader: `# interrupt` after command number `k`.
    fn interrupt(&self, k: u64) {
        let mut state = self.lock();
        if state.running == k {
            self.flag.store(true, Ordering::SeqCst);
        } else {
            state.targets.insert(k);
        }
    }

    /// The engine: command number `k` starts; returns the flag that stops it.
    fn start(&self, k: u64) -> Arc<AtomicBool> {
        let mut state = self.lock();
        state.running = k;
        // Targets up to `k` are this command or commands already over.
        let later = state.targets.split_off(&(k + 1));
        let interrupted = std::mem::replace(&mut state.targets, later).contains(&k);
        self.flag.store(interrupted, Ordering::SeqCst);
        Arc::clone(&self.flag)
    }

    /// The engine: the running command is over.
    fn finish(&self) {
        self.lock().running = 0;
    }
}

/// The stdin side: turns bytes into lines for the engine, and raises the interrupt flag when
/// `# interrupt` follows a command that has not answered yet (the line is still passed on;
/// as a comment it gets no response).
struct Reader {
    interrupts: Interrupts,
    /// Set after every line passed on, and at the end of input: it stops a ponder.
    ponder_stop: Arc<AtomicBool>,
    /// Command lines passed on so far, analyses aside.
    commands: u64,
    streams: StreamStops,
    tx: mpsc::Sender<Input>,
}

impl Reader {
    /// Reads `input` line by line as bytes (invalid UTF-8 is replaced, not fatal), never
    /// holding more than [`MAX_LINE`] bytes of one line.
    fn read_lines(mut self, mut input: impl BufRead) {
        let mut line = Vec::new();
        let mut open_stream = false;
        loop {
            // A newline and a carriage return over the limit are not the line's.
            let too_long = match read_bounded(&mut input, &mut line, MAX_LINE + 2) {
                Ok(None) => break,
                Ok(Some(long)) => long || without_newline(&line).len() > MAX_LINE,
                Err(e) => {
                    warn!("reading stdin: {e}");
                    break;
                }
            };
            let text = without_newline(&line);
            if self.send_line(text, too_long, &mut open_stream).is_err() {
                return;
            }
        }
        // The controller has gone: an analysis still streaming must end too, and a ponder.
        // The channel closes first, so that the engine either sees it closed or ponders
        // with the flag already raised.
        drop(self.tx);
        if open_stream {
            self.streams.close();
        }
        self.ponder_stop.store(true, Ordering::SeqCst);
    }

    /// Passes one line on; `open_stream` says whether the last command passed on was an
    /// analysis that this line (any line) closes.
    fn send_line(
        &mut self,
        line: &[u8],
        too_long: bool,
        open_stream: &mut bool,
    ) -> Result<(), mpsc::SendError<Input>> {
        if std::mem::take(open_stream) {
            self.streams.close();
        }
        let input = if too_long {
            Input::TooLong
        } else {
            let text = String::from_utf8_lossy(line).into_owned();
            match protocol::preprocess(&text) {
                Some(clean)
                    if engine::kind_of(&protocol::parse(&clean).name) == Some(Kind::Stream) =>
                {
                    *open_stream = true;
                }
                Some(_) => self.commands += 1,
                None if text.trim() == INTERRUPT && self.commands > 0 => {
                    self.interrupts.interrupt(self.commands);
                }
                None => {}
            }
            Input::Line(text, Instant::now())
        };
        self.tx.send(input)?;
        self.ponder_stop.store(true, Ordering::SeqCst);
        Ok(())
    }
}
